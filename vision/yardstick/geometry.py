"""Pure-numpy geometry of the yardstick's scenes: cube orientations, the up face, a pinhole camera.

No bpy here, so the labelling maths is unit-tested without Blender. Conventions follow Blender:
world Z is up, the table is the plane z = 0, a camera looks down its local -Z with local +Y up.
A die's six faces are indexed by their outward normal in the die's own frame, in the order of
``FACE_NORMALS`` (+X, -X, +Y, -Y, +Z, -Z); a design lists its six face labels in that order.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

FACE_NORMALS: np.ndarray = np.array(
    [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=float
)

# One home for the readability thresholds: a die is readable when this much of its up face is
# unhidden and the die rests flat, its up face tilted at most this far from level (readable()).
READABLE_MIN_FACE_VISIBLE = 0.9
READABLE_MAX_TILT_DEG = 20.0


def cube_rotations() -> list[np.ndarray]:
    """The 24 proper rotations of a cube (signed permutation matrices with determinant +1)."""
    out: list[np.ndarray] = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for row, (col, sign) in enumerate(zip(perm, signs)):
                m[row, col] = sign
            if np.linalg.det(m) > 0:
                out.append(m)
    return out


def rotation_z(angle_rad: float) -> np.ndarray:
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation_x(angle_rad: float) -> np.ndarray:
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def up_face(rotation: np.ndarray) -> tuple[int, float]:
    """Index (into FACE_NORMALS) of the face whose world normal points most upward, and its tilt in degrees."""
    world = FACE_NORMALS @ np.asarray(rotation, dtype=float)[:3, :3].T
    idx = int(np.argmax(world[:, 2]))
    tilt = math.degrees(math.acos(max(-1.0, min(1.0, float(world[idx, 2])))))
    return idx, tilt


def face_corners(face_index: int, size: float) -> np.ndarray:
    """The 4 corners (die frame, metres) of the sharp cube's face ``face_index``, in winding order."""
    n = FACE_NORMALS[face_index]
    axis = int(np.flatnonzero(n)[0])
    a, b = [i for i in range(3) if i != axis]
    h = size / 2.0
    out = np.zeros((4, 3))
    for k, (sa, sb) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        out[k, axis] = n[axis] * h
        out[k, a] = sa * h
        out[k, b] = sb * h
    return out


def cube_corners(size: float) -> np.ndarray:
    h = size / 2.0
    return np.array(list(itertools.product((-h, h), repeat=3)), dtype=float)


def transform(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 4x4 world matrix to (N, 3) points."""
    m = np.asarray(matrix, dtype=float)
    return points @ m[:3, :3].T + m[:3, 3]


def diagonal_to_horizontal_fov(diagonal_deg: float, width: int, height: int) -> float:
    """A webcam's data sheet gives the diagonal field of view; Blender's camera wants the horizontal one."""
    half_diag = math.tan(math.radians(diagonal_deg) / 2.0)
    diag_px = math.hypot(width, height)
    return math.degrees(2.0 * math.atan(half_diag * width / diag_px))


def look_at(position: np.ndarray, target: np.ndarray, up: np.ndarray | None = None) -> np.ndarray:
    """Rotation (3x3, columns = camera axes in world) of a camera at ``position`` looking at ``target``."""
    up = np.array([0.0, 0.0, 1.0]) if up is None else up
    forward = np.asarray(target, float) - np.asarray(position, float)
    forward /= np.linalg.norm(forward)
    z = -forward
    x = np.cross(up, z)
    if np.linalg.norm(x) < 1e-9:  # looking straight down: any right vector; pick world +X
        x = np.array([1.0, 0.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.stack([x, y, z], axis=1)


@dataclass(frozen=True)
class PinholeCamera:
    """A pinhole camera in Blender's convention; pixel (0, 0) is the top-left corner of the image."""

    position: tuple[float, float, float]
    rotation: tuple[tuple[float, float, float], ...]  # 3x3, columns are the camera's x, y, z axes in world
    width: int
    height: int
    fov_h_deg: float

    @staticmethod
    def make(position: np.ndarray, rotation: np.ndarray, width: int, height: int, fov_h_deg: float) -> "PinholeCamera":
        return PinholeCamera(
            tuple(float(v) for v in position),  # type: ignore[arg-type]
            tuple(tuple(float(v) for v in row) for row in np.asarray(rotation)),
            width,
            height,
            fov_h_deg,
        )

    @property
    def focal_px(self) -> float:
        return (self.width / 2.0) / math.tan(math.radians(self.fov_h_deg) / 2.0)

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        r = np.array(self.rotation)
        return (np.asarray(points, float) - np.array(self.position)) @ r

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, 2) pixel coordinates and (N,) depths in front of the camera (positive = visible side)."""
        pc = self.to_camera(points)
        depth = -pc[:, 2]
        safe = np.where(depth > 1e-9, depth, 1e-9)
        f = self.focal_px
        u = self.width / 2.0 + f * pc[:, 0] / safe
        v = self.height / 2.0 - f * pc[:, 1] / safe
        return np.stack([u, v], axis=1), depth

    def ray(self, pixels: np.ndarray) -> np.ndarray:
        """World directions (N, 3, unit) of the rays through pixel positions (N, 2)."""
        px = np.asarray(pixels, float)
        f = self.focal_px
        d = np.stack(
            [(px[:, 0] - self.width / 2.0) / f, -(px[:, 1] - self.height / 2.0) / f, -np.ones(len(px))], axis=1
        )
        d = d @ np.array(self.rotation).T
        return d / np.linalg.norm(d, axis=1, keepdims=True)

    def table_point(self, pixel: tuple[float, float]) -> np.ndarray | None:
        """Where the ray through ``pixel`` meets the table plane z = 0 (None when it misses)."""
        d = self.ray(np.array([pixel]))[0]
        if d[2] >= -1e-9:
            return None
        t = -self.position[2] / d[2]
        return np.array(self.position) + t * d


def clip_box(points: np.ndarray, width: int, height: int) -> tuple[float, float, float, float] | None:
    """Pixel box [x1, y1, x2, y2] of projected points, clipped to the image; None when nothing is inside."""
    x1, y1 = points.min(axis=0)
    x2, y2 = points.max(axis=0)
    x1, x2 = max(0.0, float(x1)), min(float(width), float(x2))
    y1, y2 = max(0.0, float(y1)), min(float(height), float(y2))
    if x2 <= x1 or y2 <= y1:
        return None
    return (x1, y1, x2, y2)


def polygon_area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull (monotone chain) of (N, 2) points."""
    pts = sorted(set(map(tuple, np.round(np.asarray(points, float), 6))))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o: tuple, a: tuple, b: tuple) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def inside_convex(polygon: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Which (N, 2) points lie inside a counter-clockwise (in x-right, y-down: either winding) convex polygon."""
    poly = np.asarray(polygon, float)
    p = np.asarray(points, float)
    signs = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        signs.append((b[0] - a[0]) * (p[:, 1] - a[1]) - (b[1] - a[1]) * (p[:, 0] - a[0]))
    s = np.stack(signs, axis=1)
    return np.all(s >= 0, axis=1) | np.all(s <= 0, axis=1)


def samples_in_polygon(polygon: np.ndarray, count: int = 160) -> np.ndarray:
    """About ``count`` pixel positions on a regular grid inside a convex polygon (at least its centroid)."""
    poly = np.asarray(polygon, float)
    area = max(polygon_area(poly), 1e-6)
    step = math.sqrt(area / count)
    (x1, y1), (x2, y2) = poly.min(axis=0), poly.max(axis=0)
    xs = np.arange(x1 + step / 2, x2, step)
    ys = np.arange(y1 + step / 2, y2, step)
    grid = np.array([(x, y) for y in ys for x in xs]) if len(xs) and len(ys) else np.zeros((0, 2))
    inside = grid[inside_convex(poly, grid)] if len(grid) else grid
    if len(inside) == 0:
        inside = poly.mean(axis=0, keepdims=True)
    return inside


def in_frame(points: np.ndarray, width: int, height: int) -> np.ndarray:
    p = np.asarray(points, float)
    return (p[:, 0] >= 0) & (p[:, 0] <= width) & (p[:, 1] >= 0) & (p[:, 1] <= height)


def readable(face_in_frame: bool, face_visible: float, tilt_deg: float) -> bool:
    """The yardstick's readability rule: up face wholly in frame, at least 90 % unhidden, resting flat."""
    return bool(face_in_frame and face_visible >= READABLE_MIN_FACE_VISIBLE and tilt_deg <= READABLE_MAX_TILT_DEG)


def squares_overlap(
    c1: tuple[float, float], yaw1: float, size1: float, c2: tuple[float, float], yaw2: float, size2: float, gap: float = 0.0
) -> bool:
    """Whether two squares on the table (centre, yaw, side) overlap, by the separating axis test.

    Touching (distance >= ``gap``) is allowed, so dice can sit side by side as on a real table.
    """

    def corners(c: tuple[float, float], yaw: float, s: float) -> np.ndarray:
        h = s / 2.0 + gap / 2.0
        r = rotation_z(yaw)[:2, :2]
        return np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ r.T + np.array(c)

    a, b = corners(c1, yaw1, size1), corners(c2, yaw2, size2)
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() + 1e-12 or pb.max() <= pa.min() + 1e-12:
                return False
    return True
