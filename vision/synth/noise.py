"""Smooth random fields sampled at arbitrary world coordinates (for procedural textures).

>>> rng = np.random.default_rng(0)
>>> x, y = np.meshgrid(np.arange(64, dtype=np.float32), np.arange(48, dtype=np.float32))
>>> f = value_noise(rng, x, y, scale=8.0)
>>> f.shape, bool(-0.2 <= f.min() and f.max() <= 1.2)
((48, 64), True)
"""

from __future__ import annotations

import math

import cv2
import numpy as np

_GRID = 256  # noise repeats every _GRID cells, far beyond anything a scene shows at once


def value_noise(
    rng: np.random.Generator,
    x: np.ndarray,
    y: np.ndarray,
    scale: float,
    angle: float = 0.0,
    stretch: float = 1.0,
    footprint: np.ndarray | None = None,
    interp_linear: bool = False,
) -> np.ndarray:
    """Bicubic (or bilinear) value noise, about [0, 1], with features ``scale`` units across.

    ``stretch`` > 1 elongates features along ``angle`` (wood fibres, brushed metal).
    With ``footprint`` (world units per pixel), detail finer than two pixels fades to
    its mean instead of aliasing.
    """
    grid = rng.random((_GRID, _GRID), dtype=np.float32)
    c, s = math.cos(angle), math.sin(angle)
    off = rng.uniform(0, _GRID, 2)
    ax, ay = c / (scale * stretch), s / (scale * stretch)
    bx, by = -s / scale, c / scale
    # remap keeps coordinates as 16-bit integers internally: keep them small.
    x0, y0 = float(x.flat[0]), float(y.flat[0])
    ox = off[0] - math.floor((ax * x0 + ay * y0) / _GRID) * _GRID
    oy = off[1] - math.floor((bx * x0 + by * y0) / _GRID) * _GRID
    gx = cv2.addWeighted(x, ax, y, ay, ox)
    gy = cv2.addWeighted(x, bx, y, by, oy)
    out = cv2.remap(grid, gx, gy, cv2.INTER_LINEAR if interp_linear else cv2.INTER_CUBIC, borderMode=cv2.BORDER_WRAP)
    if footprint is not None and scale < 3.0 * float(footprint.max()):
        keep = np.clip(np.float32(scale / 2.0) / footprint - 0.5, 0.0, 1.0)
        out = 0.5 + (out - 0.5) * keep
    return out


def hash_values(rng: np.random.Generator, idx: np.ndarray, n: int = 997) -> np.ndarray:
    """A random value in [0, 1) per integer cell index (planks, tiles, stripes)."""
    table = rng.random(n, dtype=np.float32)
    return table[np.mod(idx, n).astype(np.int64)]
