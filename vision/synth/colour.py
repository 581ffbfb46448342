"""Colour helpers: sRGB <-> linear light, colour temperature.

>>> round(float(srgb_to_linear(np.float32(0.5))), 3)
0.214
>>> [round(float(v), 2) for v in kelvin_rgb(6500.0)]
[1.0, 1.0, 1.0]
>>> round(delta_e((255, 255, 255), (0, 0, 0)))
100
"""

from __future__ import annotations

import numpy as np


def srgb_to_linear(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(x: np.ndarray) -> np.ndarray:
    x = np.clip(np.asarray(x, dtype=np.float32), 0.0, 1.0)
    return np.where(x <= 0.0031308, x * 12.92, 1.055 * np.power(x, 1.0 / 2.4) - 0.055).astype(np.float32)


_XYZ_D65 = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]], np.float64)
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883], np.float64)


def srgb_to_lab(rgb: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of an 8-bit sRGB colour."""
    lin = srgb_to_linear(np.asarray(rgb, np.float32) / 255.0).astype(np.float64)
    t = (_XYZ_D65 @ lin) / _WHITE_D65
    f = np.where(t > (6.0 / 29.0) ** 3, np.cbrt(t), t / (3.0 * (6.0 / 29.0) ** 2) + 4.0 / 29.0)
    return np.array([116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])])


def delta_e(a: tuple[int, int, int] | np.ndarray, b: tuple[int, int, int] | np.ndarray) -> float:
    """How different two 8-bit sRGB colours look (CIE76 distance in L*a*b*)."""
    return float(np.linalg.norm(srgb_to_lab(a) - srgb_to_lab(b)))


# Relative RGB of a black body, normalised to 6500 K (rough, enough for white-balance play).
_KELVIN = np.array([2000, 2700, 3500, 4500, 5500, 6500, 7500, 9000], np.float32)
_RGB = np.array(
    [
        [1.00, 0.54, 0.17],
        [1.00, 0.69, 0.38],
        [1.00, 0.80, 0.58],
        [1.00, 0.89, 0.78],
        [1.00, 0.95, 0.91],
        [1.00, 1.00, 1.00],
        [0.92, 0.95, 1.00],
        [0.83, 0.89, 1.00],
    ],
    np.float32,
)


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of light at a colour temperature, green channel 1 at 6500 K."""
    rgb = np.array([np.interp(kelvin, _KELVIN, _RGB[:, c]) for c in range(3)], np.float32)
    return rgb / max(float(rgb.max()), 1e-6)
