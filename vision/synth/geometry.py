"""A pinhole webcam above a table, in millimetres; the table is the plane z = 0.

Camera frame: x right, y down, z forward (depth). ``Camera.look_at`` places the
camera ``distance`` mm from a point on the table, tilted ``tilt`` degrees away
from straight down.

>>> cam = Camera.look_at(640, 480, hfov_deg=60.0, distance=500.0, tilt_deg=0.0, azimuth_deg=0.0)
>>> px, z = cam.project(np.array([[0.0, 0.0, 0.0]]))
>>> [round(float(v), 1) for v in px[0]], round(float(z[0]), 1)
([320.0, 240.0], 500.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def rotation_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation_axis(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues' rotation about a unit ``axis``."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


@dataclass(frozen=True, eq=False)
class Camera:
    width: int
    height: int
    f: float  # focal length in pixels (square pixels)
    cx: float
    cy: float
    rot: np.ndarray  # world -> camera rotation (rows: camera x, y, z axes in world)
    centre: np.ndarray  # camera position in world, mm

    @classmethod
    def look_at(
        cls,
        width: int,
        height: int,
        hfov_deg: float,
        distance: float,
        tilt_deg: float,
        azimuth_deg: float,
        target: tuple[float, float] = (0.0, 0.0),
        roll_deg: float = 0.0,
    ) -> "Camera":
        f = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        tilt, az = math.radians(tilt_deg), math.radians(azimuth_deg)
        h = np.array([math.cos(az), math.sin(az), 0.0])
        up = np.array([0.0, 0.0, 1.0])
        fwd = math.sin(tilt) * h - math.cos(tilt) * up
        x_axis = np.cross(h, up)
        y_axis = np.cross(fwd, x_axis)
        if roll_deg:
            r = rotation_axis(fwd, math.radians(roll_deg))
            x_axis, y_axis = r @ x_axis, r @ y_axis
        rot = np.stack([x_axis, y_axis, fwd])
        centre = np.array([target[0], target[1], 0.0]) - distance * fwd
        return cls(width, height, f, width / 2.0, height / 2.0, rot, centre)

    @property
    def hfov_deg(self) -> float:
        return math.degrees(2.0 * math.atan(self.width / 2.0 / self.f))

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, dtype=float) - self.centre) @ self.rot.T

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N, 3) -> pixels (N, 2) and depth along the optical axis (N,)."""
        pc = self.to_camera(pts)
        z = pc[:, 2]
        zs = np.where(np.abs(z) < 1e-6, 1e-6, z)
        px = np.stack([self.f * pc[:, 0] / zs + self.cx, self.f * pc[:, 1] / zs + self.cy], axis=1)
        return px, z

    def ray_dirs(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """World directions (..., 3) through pixel coordinates, scaled so their camera z is 1."""
        dc = np.stack([(u - self.cx) / self.f, (v - self.cy) / self.f, np.ones_like(u)], axis=-1)
        return dc @ self.rot

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 map from (x, y) on the plane at height ``z`` to pixels."""
        k = np.array([[self.f, 0.0, self.cx], [0.0, self.f, self.cy], [0.0, 0.0, 1.0]])
        t = -self.rot @ (self.centre - np.array([0.0, 0.0, z]))
        return k @ np.column_stack([self.rot[:, 0], self.rot[:, 1], t])

    def unproject_to_plane(self, px: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Pixels (N, 2) -> points (N, 2) on the plane at height ``z`` (rays must hit it)."""
        d = self.ray_dirs(px[:, 0], px[:, 1])
        t = (z - self.centre[2]) / d[:, 2]
        return self.centre[:2] + t[:, None] * d[:, :2]

    def mm_per_px(self, xy: tuple[float, float]) -> float:
        """Rough size of one pixel on the table at ``xy`` (for texture and blur scales)."""
        _, z = self.project(np.array([[xy[0], xy[1], 0.0]]))
        return float(z[0]) / self.f

    def to_json(self) -> dict[str, float]:
        tilt = math.degrees(math.acos(max(-1.0, min(1.0, -float(self.rot[2, 2])))))
        return {
            "width": self.width,
            "height": self.height,
            "focal_px": round(self.f, 2),
            "hfov_deg": round(self.hfov_deg, 2),
            "height_mm": round(float(self.centre[2]), 1),
            "tilt_deg": round(tilt, 2),
        }


def convex_hull(pts: np.ndarray) -> np.ndarray:
    """Monotone-chain convex hull of 2D points, counter-clockwise."""
    p = sorted(map(tuple, np.asarray(pts, dtype=float)))
    if len(p) <= 2:
        return np.array(p)

    def cross(o: tuple, a: tuple, b: tuple) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    for q in p:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    upper: list = []
    for q in reversed(p):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return np.array(lower[:-1] + upper[:-1])


def squares_overlap(c1: np.ndarray, yaw1: float, h1: float, c2: np.ndarray, yaw2: float, h2: float) -> bool:
    """Separating-axis test for two squares (centre, yaw, half-size) on the table."""
    d = np.asarray(c2, dtype=float) - np.asarray(c1, dtype=float)
    if float(d @ d) > 2.0 * (h1 + h2) ** 2:
        return False
    axes = []
    for yaw in (yaw1, yaw2):
        c, s = math.cos(yaw), math.sin(yaw)
        axes += [np.array([c, s]), np.array([-s, c])]
    for ax in axes:
        r1 = h1 * (abs(math.cos(yaw1) * ax[0] + math.sin(yaw1) * ax[1]) + abs(-math.sin(yaw1) * ax[0] + math.cos(yaw1) * ax[1]))
        r2 = h2 * (abs(math.cos(yaw2) * ax[0] + math.sin(yaw2) * ax[1]) + abs(-math.sin(yaw2) * ax[0] + math.cos(yaw2) * ax[1]))
        if abs(float(d @ ax)) > r1 + r2:
            return False
    return True
