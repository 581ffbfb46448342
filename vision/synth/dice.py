"""Ray-cast one die: a rounded cube with its face atlas, lit by the scene light.

Each die is rendered inside its own image window with 2-3x supersampling: rays
from the camera hit the rounded box (slab test, then sphere tracing of the
rounded-box distance function), the hit side picks a cell of the face atlas,
drilled or engraved marks bend the normal, and a plastic shading model (diffuse,
wrap for translucent bodies, Blinn-Phong highlight and a Fresnel environment
reflection) gives the colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.designs import SIDES
from vision.synth.faces import FaceAtlas
from vision.synth.geometry import Camera, rotation_axis
from vision.synth.lighting import Light

# Tangent frames (U right, V down as seen from outside) of each side, so that no face is mirrored.
_U = np.array([(1, 0, 0), (1, 0, 0), (0, 1, 0), (0, -1, 0), (-1, 0, 0), (1, 0, 0)], np.float32)
_V = np.array([(0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, -1), (0, 0, -1), (0, 0, -1)], np.float32)
_N = np.array([(0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)], np.float32)
# side index from (axis, sign >= 0)
_SIDE_OF = np.zeros((3, 2), np.int64)
for _i, (_a, _s) in enumerate(SIDES):
    _SIDE_OF[_a, 1 if _s > 0 else 0] = _i
_CELL_COL = np.array([i % 3 for i in range(6)], np.float32)
_CELL_ROW = np.array([i // 3 for i in range(6)], np.float32)

# Rotation taking each side's outward normal to world +Z.
_TO_UP = (
    np.eye(3),
    rotation_axis(np.array([1.0, 0.0, 0.0]), math.pi),
    rotation_axis(np.array([0.0, 1.0, 0.0]), -math.pi / 2),
    rotation_axis(np.array([0.0, 1.0, 0.0]), math.pi / 2),
    rotation_axis(np.array([1.0, 0.0, 0.0]), math.pi / 2),
    rotation_axis(np.array([1.0, 0.0, 0.0]), -math.pi / 2),
)


def up_rotation(side: int) -> np.ndarray:
    """Rotation (local -> world) that puts ``side`` on top.

    >>> [round(float(v)) for v in up_rotation(2) @ _N[2]]
    [0, 0, 1]
    """
    return _TO_UP[side]


@dataclass(frozen=True, eq=False)
class Material:
    body: np.ndarray  # linear RGB
    vein: np.ndarray | None  # second colour of marbled / swirled bodies
    vein_amount: float
    roughness: float  # spread of the lamp's reflection, radians (glossy ~0.02, matte ~0.4)
    spec: float  # Fresnel reflectance at normal incidence (plastic ~0.04)
    gloss: float  # environment reflection strength
    translucency: float
    vein_name: str | None = None  # the body colour the veins are named for

    def to_json(self) -> dict:
        out = {
            "roughness_deg": round(math.degrees(self.roughness), 1),
            "spec": round(self.spec, 3),
            "translucency": round(self.translucency, 2),
            "marbled": self.vein is not None,
        }
        if self.vein is not None and self.vein_name is not None:
            out["vein"] = self.vein_name
        return out


@dataclass(frozen=True, eq=False)
class DiePose:
    centre: np.ndarray  # world mm
    rot: np.ndarray  # local -> world
    half: float  # half the edge length, mm
    radius: float  # corner rounding, mm

    def corners(self) -> np.ndarray:
        s = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
        return self.centre + (s * self.half) @ self.rot.T

    def up_side(self) -> int:
        """Index of the side whose normal points most nearly up."""
        return int(np.argmax((_N.astype(float) @ self.rot.T)[:, 2]))


@dataclass(frozen=True, eq=False)
class DieRender:
    x0: int
    y0: int
    colour: np.ndarray  # (h, w, 3) linear RGB premultiplied by alpha
    alpha: np.ndarray  # (h, w) coverage
    depth: np.ndarray  # (h, w) camera depth, inf where missed
    top: np.ndarray  # (h, w) coverage by the up side


def _shade(
    albedo: np.ndarray, n: np.ndarray, v: np.ndarray, ink_cov: np.ndarray, cut: np.ndarray, mat: Material, light: Light, key: np.ndarray, ldir: np.ndarray
) -> np.ndarray:
    ndl = n @ ldir.astype(np.float32)
    w = mat.translucency * 0.6
    diff = np.clip((ndl + w) / (1.0 + w), 0.0, None)
    up = 0.5 + 0.5 * n[:, 2:3]
    amb = light.sky.astype(np.float32) * up + light.ground.astype(np.float32) * (1.0 - up)
    ao = 1.0 - 0.55 * cut[:, None]
    out = albedo * (amb * ao + key.astype(np.float32) * diff[:, None] * (1.0 - 0.3 * cut[:, None]))
    if mat.translucency > 0:
        out += albedo * albedo * mat.translucency * 0.35 * (key.astype(np.float32) * 0.5 + amb)
    ndv = np.clip(np.sum(n * v, axis=1), 0.0, 1.0)
    h = ldir.astype(np.float32) + v
    h /= np.linalg.norm(h, axis=1, keepdims=True)
    ndh = np.clip(np.sum(n * h, axis=1), 0.0, 1.0)
    fres = 0.04 + 0.96 * (1.0 - ndv) ** 5
    # Paint and drilled pits scatter the lamp's reflection: marks stay dark in a glare.
    gloss_mask = (1.0 - 0.85 * ink_cov) * (1.0 - cut)
    # The lamp's mirror image: a disc of the lamp's angular size, spread by roughness, with
    # the energy of a lamp of that size (small bright bulbs make small, burning spots).
    lamp = light.size_rad / 4.0
    width2 = lamp * lamp + mat.roughness * mat.roughness
    solid = math.pi * (light.size_rad / 2.0) ** 2
    theta2 = np.arccos(np.clip(ndh, 0.0, 1.0)) ** 2
    f_spec = mat.spec + (1.0 - mat.spec) * (1.0 - np.clip(np.sum(h * v, axis=1), 0.0, 1.0)) ** 5
    spec = f_spec * (lamp * lamp / width2 / solid) * np.exp(-theta2 / (2.0 * width2)) * (ndl > 0) * gloss_mask
    out += key.astype(np.float32) * spec[:, None]
    r = 2.0 * ndv[:, None] * n - v
    env = 0.35 + 0.65 * np.clip(r[:, 2], 0.0, 1.0) ** 2
    out += light.env.astype(np.float32) * (mat.gloss * fres * env * gloss_mask)[:, None]
    return out


class _Tracer:
    """Everything fixed for one die, to trace and shade any set of sub-pixel samples."""

    def __init__(self, cam: Camera, pose: DiePose, atlas: FaceAtlas, mat: Material, light: Light, swirl: np.ndarray | None, key_scale: float = 1.0) -> None:
        self.cam, self.pose, self.atlas, self.mat, self.light, self.swirl = cam, pose, atlas, mat, light, swirl
        self.rot = pose.rot.astype(np.float32)
        self.o = ((cam.centre - pose.centre) @ pose.rot).astype(np.float32)
        self.hs = np.float32(pose.half)
        self.rr = np.float32(pose.radius)
        self.up = pose.up_side()
        self.ldir = light.direction_at(pose.centre).astype(np.float32)
        self.key = (light.key_at(pose.centre) * key_scale).astype(np.float32)

    def trace(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Samples at pixel coordinates -> (colour (N,3), hit (N,), depth (N,), side (N,) or -1)."""
        n_s = u.size
        dw = self.cam.ray_dirs(u, v).astype(np.float32)
        dnorm = np.sqrt(np.einsum("ij,ij->i", dw, dw))
        dw /= dnorm[:, None]
        d = dw @ self.rot
        o, hs, rr = self.o, self.hs, self.rr
        inv = np.float32(1.0) / np.where(np.abs(d) < 1e-9, np.float32(1e-9), d)
        t1 = (-hs - o) * inv
        t2 = (hs - o) * inv
        tmin = np.minimum(t1, t2).max(axis=1)
        tmax = np.maximum(t1, t2).min(axis=1)
        idx = np.nonzero(tmax > np.maximum(tmin, 0.0))[0]
        colour = np.zeros((n_s, 3), np.float32)
        hit = np.zeros(n_s, bool)
        depth = np.full(n_s, np.inf, np.float32)
        side_out = np.full(n_s, -1, np.int64)
        if not idx.size:
            return colour, hit, depth, side_out, dnorm
        dd = d[idx]
        t = tmin[idx]
        tlim = tmax[idx] + rr
        inner = hs - rr
        # Rays entering through the flat middle of a face are already on the surface;
        # only those near edges and corners need sphere tracing.
        p = o + t[:, None] * dd
        active = np.nonzero((np.abs(p) > inner).sum(axis=1) >= 2)[0]
        for _ in range(16):
            if not active.size:
                break
            pa = o + t[active, None] * dd[active]
            q = np.abs(pa) - inner
            qp = np.maximum(q, 0.0)
            dist = np.sqrt(np.einsum("ij,ij->i", qp, qp)) + np.minimum(q.max(axis=1), 0.0) - rr
            t[active] += dist
            active = active[(dist > 1e-3 * hs) & (t[active] < tlim[active])]
        p = o + t[:, None] * dd
        q = np.abs(p) - inner
        qp = np.maximum(q, 0.0)
        qn = np.sqrt(np.einsum("ij,ij->i", qp, qp))
        dist = qn + np.minimum(q.max(axis=1), 0.0) - rr
        ok = (np.abs(dist) < 0.02 * hs) & (t <= tlim)
        idx, p, q, qp, qn, t, dd = idx[ok], p[ok], q[ok], qp[ok], qn[ok], t[ok], dd[ok]
        if not idx.size:
            return colour, hit, depth, side_out, dnorm
        n_pts = len(idx)
        ax = np.argmax(np.abs(p), axis=1)
        sgn = np.where(p >= 0, np.float32(1.0), np.float32(-1.0))
        onehot = np.zeros_like(p)
        onehot[np.arange(n_pts), np.argmax(q, axis=1)] = 1.0
        n_l = sgn * np.where(qn[:, None] > 1e-6, qp / np.maximum(qn, 1e-9)[:, None], onehot)
        side = _SIDE_OF[ax, (p[np.arange(n_pts), ax] >= 0).astype(np.int64)]
        U, V = _U[side], _V[side]
        at = self.atlas
        tex, pad, cell = at.tex, at.pad, at.cell
        m = np.empty((n_pts, 2), np.float32)
        m[:, 0] = (np.einsum("ij,ij->i", p, U) / hs + 1.0) * (0.5 * tex) + _CELL_COL[side] * cell + pad - 0.5
        m[:, 1] = (np.einsum("ij,ij->i", p, V) / hs + 1.0) * (0.5 * tex) + _CELL_ROW[side] * cell + pad - 0.5
        cols = 256
        rows = (n_pts + cols - 1) // cols
        mp = np.full((rows * cols, 2), -10.0, np.float32)
        mp[:n_pts] = m
        mp = mp.reshape(rows, cols, 2)
        ink = cv2.remap(at.ink, mp, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).reshape(-1, 4)[:n_pts]
        rel = cv2.remap(at.relief, mp, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).reshape(-1, 3)[:n_pts]
        # Only the flat part of a face carries marks; the rounding never shows ink.
        flat = ((np.abs(p) <= inner + 1e-4).sum(axis=1) >= 2).astype(np.float32)
        cov = ink[:, 3] * flat
        cut = rel[:, 0] * flat
        if self.swirl is not None:
            body = _marble(p / hs, self.mat, self.swirl)
        else:
            body = np.broadcast_to(self.mat.body.astype(np.float32), (n_pts, 3))
        albedo = body * (1.0 - cov[:, None]) + ink[:, :3] * flat[:, None]
        k = np.float32(0.45 / 8.0 * tex / 2.0) * flat
        n_l = n_l + k[:, None] * (rel[:, 1:2] * U + rel[:, 2:3] * V)
        n_l /= np.sqrt(np.einsum("ij,ij->i", n_l, n_l))[:, None]
        n_w = n_l @ self.rot.T
        v = -(dd @ self.rot.T)
        colour[idx] = _shade(albedo.astype(np.float32), n_w, v, cov, cut, self.mat, self.light, self.key, self.ldir)
        hit[idx] = True
        depth[idx] = t / dnorm[idx]
        side_out[idx] = side
        return colour, hit, depth, side_out, dnorm


# Sub-pixel offsets for pixels on silhouettes and face boundaries (rotated grid).
_AA = np.array([(-0.375, -0.125), (0.125, -0.375), (0.375, 0.125), (-0.125, 0.375)], np.float32)


def render_die(
    cam: Camera, pose: DiePose, atlas: FaceAtlas, mat: Material, light: Light, swirl: np.ndarray | None = None, key_scale: float = 1.0
) -> DieRender | None:
    """Render one die into its window (which may reach beyond the image); None if it cannot be seen.

    One ray per pixel, then four more for every pixel on the silhouette or where
    the hit side changes (adaptive anti-aliasing).
    """
    px, z = cam.project(pose.corners())
    if (z <= 1.0).any():
        return None
    x0, y0 = int(math.floor(px[:, 0].min())) - 1, int(math.floor(px[:, 1].min())) - 1
    x1, y1 = int(math.ceil(px[:, 0].max())) + 1, int(math.ceil(px[:, 1].max())) + 1
    w, h = x1 - x0, y1 - y0
    if w > 2 * cam.width or h > 2 * cam.height or x1 < 0 or y1 < 0 or x0 > cam.width or y0 > cam.height:
        return None
    tr = _Tracer(cam, pose, atlas, mat, light, swirl, key_scale)
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float32) + (x0 + 0.5), np.arange(h, dtype=np.float32) + (y0 + 0.5))
    colour, hit, depth, side, _ = tr.trace(uu.ravel(), vv.ravel())
    alpha = hit.astype(np.float32)
    top = (side == tr.up).astype(np.float32)
    sg = side.reshape(h, w)
    edge = np.zeros((h, w), bool)
    edge[:, 1:] |= sg[:, 1:] != sg[:, :-1]
    edge[:, :-1] |= sg[:, 1:] != sg[:, :-1]
    edge[1:, :] |= sg[1:, :] != sg[:-1, :]
    edge[:-1, :] |= sg[1:, :] != sg[:-1, :]
    e = np.nonzero(edge.ravel())[0]
    if e.size:
        eu = (uu.ravel()[e][:, None] + _AA[:, 0]).ravel()
        ev = (vv.ravel()[e][:, None] + _AA[:, 1]).ravel()
        c2, h2, d2, s2, _ = tr.trace(eu, ev)
        k = len(_AA)
        colour[e] = c2.reshape(-1, k, 3).mean(axis=1)
        alpha[e] = h2.reshape(-1, k).mean(axis=1)
        depth[e] = d2.reshape(-1, k).min(axis=1)
        top[e] = (s2 == tr.up).reshape(-1, k).mean(axis=1)
    return DieRender(x0, y0, colour.reshape(h, w, 3), alpha.reshape(h, w), depth.reshape(h, w), top.reshape(h, w))


def _marble(p: np.ndarray, mat: Material, swirl: np.ndarray) -> np.ndarray:
    """Swirled two-colour plastic from a few sines of the local position (p in [-1, 1])."""
    k1, k2, f = swirl[:3], swirl[3:6], swirl[6]
    s = np.sin((p @ k1) * f + 2.5 * np.sin((p @ k2) * f * 0.7))
    m = np.clip((s - (1.0 - 2.0 * mat.vein_amount)) * 3.0, 0.0, 1.0)[:, None]
    assert mat.vein is not None
    return mat.body * (1.0 - m) + mat.vein * m
