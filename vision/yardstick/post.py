"""A webcam's own processing, applied in numpy to Cycles' linear render.

Cycles gives scene-linear light; a webcam gives auto-exposed, tone-curved, noisy, slightly soft 8-bit
frames. This module makes the second from the first: auto exposure on the frame's log-average
luminance, a highlight shoulder (glare clips as on a cheap sensor), vignetting, lens softness, now and
then a shake blur, shot and read noise scaled by how dark the room is, then sRGB and 8 bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KEY = 0.18  # mid-grey the auto exposure aims the log-average luminance at
HIGHLIGHT = 1.0  # linear level (before the shoulder) the bright end of the frame is kept under
MAX_PROTECT = 0.5  # the highlight metering may darken the frame by one stop at most


@dataclass(frozen=True)
class Sensor:
    exposure_bias: float  # x the auto exposure's choice (webcams over- and under-shoot)
    full_well: float  # electrons at white: fewer in dim rooms (higher gain), so more noise
    read_noise: float  # electrons
    softness: float  # Gaussian sigma in pixels (lens + demosaic)
    vignette: float  # fraction of light lost at the corners
    shake_px: float  # motion blur length in pixels (0: none)
    shake_angle: float  # radians


def _blur_axis(img: np.ndarray, sigma: float, axis: int) -> np.ndarray:
    radius = max(1, int(3 * sigma))
    x = np.arange(-radius, radius + 1)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    k /= k.sum()
    pad = [(0, 0)] * img.ndim
    pad[axis] = (radius, radius)
    p = np.pad(img, pad, mode="edge")
    out = np.zeros_like(img)
    n = img.shape[axis]
    for i, w in enumerate(k):
        out += w * np.take(p, np.arange(i, i + n), axis=axis)
    return out


def gaussian_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    if sigma <= 0.05:
        return img
    return _blur_axis(_blur_axis(img, sigma, 0), sigma, 1)


def shake(img: np.ndarray, length: float, angle: float) -> np.ndarray:
    """Average of the frame shifted along a line: the blur of a camera nudged during the exposure."""
    if length < 1.0:
        return img
    steps = int(np.ceil(length)) + 1
    h, w = img.shape[:2]
    acc = np.zeros_like(img)
    ys, xs = np.mgrid[0:h, 0:w]
    for t in np.linspace(-0.5, 0.5, steps):
        dx, dy = t * length * np.cos(angle), t * length * np.sin(angle)
        sx = np.clip(np.round(xs + dx).astype(int), 0, w - 1)
        sy = np.clip(np.round(ys + dy).astype(int), 0, h - 1)
        acc += img[sy, sx]
    return acc / steps


def srgb_encode(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def develop(linear: np.ndarray, sensor: Sensor, rng: np.random.Generator) -> np.ndarray:
    """Linear RGB float (H, W, 3) -> webcam-like uint8 RGB (H, W, 3)."""
    img = np.asarray(linear, dtype=np.float64)[..., :3]
    h, w = img.shape[:2]
    lum = 0.2126 * img[..., 0] + 0.7152 * img[..., 1] + 0.0722 * img[..., 2]
    logavg = float(np.exp(np.mean(np.log(lum + 1e-4))))
    gain = KEY * sensor.exposure_bias / max(logavg, 1e-6)
    # Highlight-protecting metering, as webcams' auto exposure does: the brightest 0.05 % of the frame
    # (white dice on a dark cloth, a lit card) stays under the clip, so ink on white stays visible.
    bright = float(np.percentile(lum, 99.95))
    # At most one stop darker than the average metering would choose, so a glare spot on a glossy
    # table does not black out the frame.
    gain = max(min(gain, HIGHLIGHT / max(bright, 1e-6)), gain * MAX_PROTECT)
    img = img * gain
    yy, xx = np.mgrid[0:h, 0:w]
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img = img * (1.0 - sensor.vignette * r2)[..., None]
    img = gaussian_blur(img, sensor.softness)
    img = shake(img, sensor.shake_px, sensor.shake_angle)
    # Shot noise (Poisson, as a Gaussian of variance = electrons) and read noise, per channel.
    electrons = np.clip(img, 0.0, 1.5) * sensor.full_well
    noisy = electrons + rng.normal(0.0, 1.0, electrons.shape) * np.sqrt(electrons + sensor.read_noise**2)
    img = noisy / sensor.full_well
    # Highlight shoulder (extended Reinhard, white point 2.0): glare rolls off and clips.
    white = 2.0
    img = np.clip(img, 0.0, None)
    img = img * (1.0 + img / white**2) / (1.0 + img)
    out = srgb_encode(img)
    return np.clip(np.round(out * 255.0), 0, 255).astype(np.uint8)
