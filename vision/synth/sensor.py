"""What the webcam does to the light: exposure, glare bloom, vignetting, defocus and
motion blur, white-balance error, sensor noise, tone curve, sharpening, JPEG.

>>> rng = np.random.default_rng(0)
>>> img, meta = develop(rng, np.full((48, 64, 3), 0.2, np.float32), kelvin=4000.0, mode="normal")
>>> img.shape, img.dtype.name, "jpeg_quality" in meta
((48, 64, 3), 'uint8', True)
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth.camera_shifts import motion_kernel
from vision.synth.colour import kelvin_rgb, linear_to_srgb

_LUT_MAX = 4.0  # linear values above this all map to white
_LUT_N = 8192


def soft_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones are done on a smaller copy (same look, far cheaper)."""
    if sigma < 0.3:
        return img
    if sigma < 4.0:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    k = int(sigma // 2)
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / k)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _tone_lut(contrast: float) -> np.ndarray:
    """Linear light -> 8-bit: soft shoulder above 0.8, sRGB encoding, a contrast tweak."""
    x = np.linspace(0.0, _LUT_MAX, _LUT_N, dtype=np.float32)
    knee = np.float32(0.8)
    over = np.maximum(x - knee, 0.0)
    y = np.minimum(x, knee) + over / (1.0 + over / (1.0 - knee))
    s = linear_to_srgb(y)
    s = (s - 0.5) * np.float32(contrast) + 0.5
    return np.clip(s * 255.0 + 0.5, 0, 255).astype(np.uint8)


def develop(rng: np.random.Generator, scene: np.ndarray, kelvin: float, mode: str) -> tuple[np.ndarray, dict]:
    """Linear RGB scene radiance -> an 8-bit BGR webcam frame, and what was done."""
    h, w = scene.shape[:2]
    scale = w / 640.0
    meta: dict = {}

    # Auto exposure aims the mean at mid grey, with error; dim scenes stay underexposed.
    small = cv2.resize(scene, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
    target = float(rng.uniform(0.16, 0.3))
    gain = target / max(float(small.mean()), 1e-4) * 2.0 ** float(rng.normal(0.0, 0.3))
    # Like a webcam's metering, do not let the brightest things (white dice) burn out wholesale.
    peak = float(np.percentile(small.max(axis=2), 99.5))
    gain = min(gain, float(rng.uniform(0.9, 1.6)) / max(peak, 1e-4))
    if mode == "dim":
        gain *= float(rng.uniform(0.35, 0.7))
    gain = float(np.clip(gain, 0.05, 20.0))
    meta["exposure_gain"] = round(gain, 3)

    # White balance: the camera corrects the lamp's colour only partly, and errs.
    alpha = float(rng.uniform(0.4, 1.0))
    wb = (1.0 / kelvin_rgb(kelvin)) ** alpha * (1.0 + rng.normal(0.0, 0.05, 3))
    wb = (wb / wb[1]).astype(np.float32)
    meta["white_balance"] = [round(float(v), 3) for v in wb]

    vig = float(rng.uniform(0.0, 0.45))
    yy, xx = np.ogrid[:h, :w]
    r2 = ((xx - w / 2.0) / (w / 2.0)) ** 2 + ((yy - h / 2.0) / (w / 2.0)) ** 2
    factor = (1.0 - vig * 0.5 * r2).astype(np.float32)[..., None] * (wb * np.float32(gain))
    img = scene * factor
    meta["vignette"] = round(vig, 3)

    # Bloom around over-exposed highlights (glare on glossy dice and tables).
    if float(small.max()) * gain * float(wb.max()) > 1.0:
        bright = np.maximum(img - 1.0, 0.0)
        img += soft_blur(bright, max(1.0, w / 320.0)) * np.float32(rng.uniform(0.05, 0.35))

    defocus = float(rng.uniform(1.0, 1.8) if rng.random() < 0.1 else rng.uniform(0.0, 0.8)) * scale
    if defocus > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), defocus)
    meta["defocus_px"] = round(defocus, 2)
    if rng.random() < 0.08:
        length = float(rng.uniform(2.0, 5.0)) * scale
        img = cv2.filter2D(img, -1, motion_kernel(length, float(rng.uniform(0, math.pi))))
        meta["motion_px"] = round(length, 2)

    luma = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    sat = float(rng.uniform(0.8, 1.25))
    if abs(sat - 1.0) > 0.02:
        img = cv2.addWeighted(img, sat, cv2.merge([luma, luma, luma]), 1.0 - sat, 0.0)

    # Shot and read noise (from the luminance), luminance grain at full resolution,
    # chroma grain softer as demosaicing leaves it.
    iso = float(rng.uniform(0.15, 0.8)) * (1.8 if mode == "dim" else 1.0) * min(max(1.0, gain), 6.0) ** 0.5
    a, b = 0.0025 * iso, (0.003 * iso) ** 2
    sigma = np.sqrt(np.maximum(luma, 0.0) * np.float32(a) + np.float32(b))
    grain = rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.8)
    chroma = cv2.resize(rng.standard_normal((h // 2 + 1, w // 2 + 1, 3), dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img += (chroma * np.float32(0.6) + grain[..., None]) * sigma[..., None]
    meta["noise_iso"] = round(iso, 3)

    contrast = float(rng.uniform(0.9, 1.15))
    codes = np.clip(img * np.float32((_LUT_N - 1) / _LUT_MAX), 0, _LUT_N - 1).astype(np.uint16)
    rgb8 = _tone_lut(contrast)[codes]
    sharpen = float(rng.uniform(0.0, 0.9))
    if sharpen > 0.1:
        rgb8 = cv2.addWeighted(rgb8, 1.0 + sharpen, cv2.GaussianBlur(rgb8, (0, 0), 1.0 * scale), -sharpen, 0.0)
    meta["sharpen"] = round(sharpen, 2)
    bgr = cv2.cvtColor(rgb8, cv2.COLOR_RGB2BGR)
    quality = int(rng.choice([rng.integers(30, 70), rng.integers(60, 96), rng.integers(75, 96), 100]))
    if quality < 100:
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    meta["jpeg_quality"] = quality
    return bgr, meta


def finish(rng: np.random.Generator, scene: np.ndarray, kelvin: float, mode: str, camera_effects: bool) -> tuple[np.ndarray, dict]:
    """:func:`develop` the scene like a webcam, or (``camera_effects=False``) only expose
    it to a mid-grey mean and convert to 8-bit BGR, with no random draw."""
    if camera_effects:
        return develop(rng, scene, kelvin, mode)
    srgb = linear_to_srgb(scene * np.float32(0.18 / max(float(scene.mean()), 1e-4)))
    return np.ascontiguousarray((srgb * 255.0 + 0.5).astype(np.uint8)[..., ::-1]), {}
