"""Image layers with depth, and the z-buffered compositing the scene is built from."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.geometry import Camera


@dataclass(frozen=True, eq=False)
class Layer:
    """A window of premultiplied linear colour with coverage and camera depth (inf = empty)."""

    x0: int
    y0: int
    colour: np.ndarray  # (h, w, 3)
    alpha: np.ndarray  # (h, w)
    depth: np.ndarray  # (h, w)

    @property
    def shape(self) -> tuple[int, int]:
        return self.alpha.shape

    def clip(self, width: int, height: int) -> tuple[slice, slice, slice, slice] | None:
        """(image rows, image cols, layer rows, layer cols) of the part inside the image."""
        h, w = self.shape
        ix0, iy0 = max(0, self.x0), max(0, self.y0)
        ix1, iy1 = min(width, self.x0 + w), min(height, self.y0 + h)
        if ix0 >= ix1 or iy0 >= iy1:
            return None
        return (slice(iy0, iy1), slice(ix0, ix1), slice(iy0 - self.y0, iy1 - self.y0), slice(ix0 - self.x0, ix1 - self.x0))


def composite(img: np.ndarray, zbuf: np.ndarray, layer: Layer) -> tuple[tuple[slice, slice, slice, slice], np.ndarray] | None:
    """Blend ``layer`` over ``img`` where it is nearer than ``zbuf``.

    Returns the clip and the effective coverage there (what the layer now hides).
    """
    c = layer.clip(img.shape[1], img.shape[0])
    if c is None:
        return None
    ir, ic, lr, lc = c
    dep = layer.depth[lr, lc]
    front = (dep < zbuf[ir, ic]).astype(np.float32)
    a = layer.alpha[lr, lc] * front
    img[ir, ic] = img[ir, ic] * (1.0 - a[..., None]) + layer.colour[lr, lc] * front[..., None]
    zb = zbuf[ir, ic]
    zbuf[ir, ic] = np.where(a > 0.5, dep, zb)
    return c, a


def plane_depth(cam: Camera, pts_world: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Camera depth of the plane through three or more points, at pixel coordinates."""
    pc = cam.to_camera(pts_world)
    n = np.cross(pc[1] - pc[0], pc[2] - pc[0])
    if np.linalg.norm(n) < 1e-9:
        return np.full(u.shape, float(pc[:, 2].mean()), np.float32)
    k = float(n @ pc[0])
    den = n[0] * (u - cam.cx) / cam.f + n[1] * (v - cam.cy) / cam.f + n[2]
    with np.errstate(divide="ignore"):
        z = k / den
    return np.where(den == 0, np.inf, z).astype(np.float32)


def render_polygons(cam: Camera, polys: list[tuple[np.ndarray, np.ndarray]], margin: int = 2) -> Layer | None:
    """Flat-coloured world polygons (vertices (k, 3), linear RGB) -> one layer.

    Polygons are painted far to near with per-pixel plane depth, so convex solids
    (cups, tray walls) come out right; the silhouette is anti-aliased.
    """
    projected = []
    for pts, col in polys:
        px, z = cam.project(pts)
        if (z <= 1.0).any():
            continue
        projected.append((px, z, pts, col))
    if not projected:
        return None
    allpx = np.concatenate([p[0] for p in projected])
    x0 = max(int(np.floor(allpx[:, 0].min())) - margin, -margin)
    y0 = max(int(np.floor(allpx[:, 1].min())) - margin, -margin)
    x1 = min(int(np.ceil(allpx[:, 0].max())) + margin, cam.width + margin)
    y1 = min(int(np.ceil(allpx[:, 1].max())) + margin, cam.height + margin)
    if x1 <= x0 or y1 <= y0:
        return None
    h, w = y1 - y0, x1 - x0
    colour = np.zeros((h, w, 3), np.float32)
    depth = np.full((h, w), np.inf, np.float32)
    mask = np.zeros((h, w), np.uint8)
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float32) + x0 + 0.5, np.arange(h, dtype=np.float32) + y0 + 0.5)
    for px, z, pts, col in sorted(projected, key=lambda p: -float(p[1].mean())):
        q = np.round((px - [x0, y0]) * 16).astype(np.int32)
        cv2.fillPoly(mask, [q], 255, cv2.LINE_AA, 4)
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [q], 1, cv2.LINE_8, 4)
        cv2.polylines(m, [q], True, 1, 2, cv2.LINE_8, 4)
        ys, xs = np.nonzero(m)
        if not len(ys):
            continue
        d = plane_depth(cam, pts, uu[ys, xs], vv[ys, xs])
        d = np.where(np.isfinite(d) & (d > 0), d, float(z.mean()))
        nearer = d <= depth[ys, xs] + 1e-3 * d
        ys, xs = ys[nearer], xs[nearer]
        colour[ys, xs] = col
        depth[ys, xs] = d[nearer]
    alpha = mask.astype(np.float32) / 255.0
    return Layer(x0, y0, colour * alpha[..., None], alpha, depth)
