"""Training-time augmentation of die crops (numpy/cv2 only; used by the classifier trainer).

A training sample is a *context crop*: the runtime crop square (see :mod:`vision.read.boxes`)
enlarged by :data:`CONTEXT` so that rotating it still finds real pixels.
:func:`augment` warps the centre of a context crop back to the classifier's input size
with a random rotation (at most ``rotation`` degrees: a tilted webcam sees the up face
above the side faces, a cue a full turn would destroy; the dice themselves already lie at
every angle in the data), scale, shift and perspective, then degrades it the
way a webcam does: resolution loss (dice are 15-40 px in a frame), blur (and, with
``p_motion``, the line blur of a move), noise, JPEG,
brightness/contrast and mild per-channel colour gain. No flips: katakana are chiral.

``white_balance`` (off by default, so older runs draw the same views) adds what another
camera's white balance does: a gain per channel in linear light, red against blue along
the warm-cool axis plus a little green tint, up to ``white_balance`` times between red
and blue at the extremes.

>>> import numpy as np
>>> ctx = np.full((context_size(48), context_size(48), 3), 128, np.uint8)
>>> augment(ctx, np.random.default_rng(0), 48).shape
(48, 48, 3)
>>> center_view(ctx, 48).shape
(48, 48, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.camera_shifts import gains, motion_kernel
from vision.read.boxes import cut_square, resize_square, square_region

CONTEXT = 1.6  # context crop side / runtime crop side


def context_size(size: int) -> int:
    return int(round(size * CONTEXT))


def context_crop(image: np.ndarray, box: Sequence[float], size: int, expand: float) -> np.ndarray:
    """The context crop (side :func:`context_size`) around ``box``, resized like the runtime crop."""
    x0, y0, side = square_region(box, expand * CONTEXT)
    return resize_square(cut_square(image, x0, y0, side), context_size(size))


def center_view(ctx: np.ndarray, size: int) -> np.ndarray:
    """The un-augmented runtime-equivalent crop at the centre of a context crop."""
    c = ctx.shape[0]
    k = (c / CONTEXT) / size  # context pixels per output pixel
    off = (c - c / CONTEXT) / 2
    m = np.float32([[k, 0, off], [0, k, off]])
    return cv2.warpAffine(ctx, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REFLECT_101)


@dataclass(frozen=True)
class AugmentConfig:
    """Ranges of the random changes. Moderate on purpose: the synthetic renderer already
    adds its own camera noise, blur and JPEG, and stacking both made crops unreadable."""

    rotation: float = 30.0  # degrees either way
    scale: tuple[float, float] = (0.85, 1.15)  # >1 shows more context (die looks smaller)
    shift: float = 0.08  # of the crop side, each axis
    perspective: float = 0.06  # corner jitter, of the crop side
    p_lowres: float = 0.35
    lowres_side: tuple[int, int] = (16, 40)
    p_blur: float = 0.2
    blur_sigma: tuple[float, float] = (0.3, 0.9)
    p_motion: float = 0.0  # a line blur, as a die or the camera moving shows it (0: no number drawn)
    motion_length: tuple[float, float] = (2.0, 8.0)  # crop px
    p_noise: float = 0.35
    noise_sigma: tuple[float, float] = (2.0, 6.0)
    p_jpeg: float = 0.35
    jpeg_quality: tuple[int, int] = (40, 95)
    contrast: tuple[float, float] = (0.75, 1.25)
    brightness: float = 25.0
    channel_gain: float = 0.06
    gamma: tuple[float, float] = (0.8, 1.25)
    white_balance: float = 1.0  # largest red/blue gain ratio either way (1 = off)
    p_white_balance: float = 0.5
    tint: float = 0.08  # green gain either way, in linear light, when white balance moves


def white_balance_gains(rng: np.random.Generator, ratio: float, tint: float) -> np.ndarray:
    """Linear-light gains (B, G, R) of a white balance set wrong: red over blue is
    ``ratio ** t`` for a uniform ``t`` in [-1, 1] (warm when t > 0), green within ``tint``;
    the geometric mean of red and blue stays 1, so exposure stays where it was.

    >>> g = white_balance_gains(np.random.default_rng(0), 2.0, 0.0)
    >>> 0.5 <= float(g[2] / g[0]) <= 2.0 and float(g[1]) == 1.0
    True
    """
    half = np.log(ratio) / 2 * rng.uniform(-1.0, 1.0)
    green = 1.0 + rng.uniform(-tint, tint)
    return np.float32([np.exp(-half), green, np.exp(half)])


def augment(ctx: np.ndarray, rng: np.random.Generator, size: int, cfg: AugmentConfig = AugmentConfig()) -> np.ndarray:
    """One random ``size x size`` view of a context crop."""
    c = ctx.shape[0]
    half = (c / CONTEXT) / 2 * rng.uniform(*cfg.scale)
    theta = np.deg2rad(rng.uniform(-cfg.rotation, cfg.rotation))
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * half
    src = corners @ rot.T + c / 2 + rng.uniform(-cfg.shift, cfg.shift, 2) * 2 * half
    src += rng.uniform(-cfg.perspective, cfg.perspective, (4, 2)) * 2 * half
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], dtype=np.float32)
    h = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
    out = cv2.warpPerspective(ctx, h, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)

    if rng.random() < cfg.p_lowres:
        side = int(rng.integers(cfg.lowres_side[0], cfg.lowres_side[1] + 1))
        if side < size:
            small = cv2.resize(out, (side, side), interpolation=cv2.INTER_AREA)
            out = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
    if rng.random() < cfg.p_blur:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(*cfg.blur_sigma))

    if cfg.p_motion > 0.0 and rng.random() < cfg.p_motion:
        out = cv2.filter2D(out, -1, motion_kernel(rng.uniform(*cfg.motion_length), rng.uniform(0.0, np.pi)),
                           borderType=cv2.BORDER_REFLECT_101)

    if cfg.white_balance > 1.0 and rng.random() < cfg.p_white_balance:
        out = gains(out, *white_balance_gains(rng, cfg.white_balance, cfg.tint))

    img = out.astype(np.float32)
    gain = 1 + rng.uniform(-cfg.channel_gain, cfg.channel_gain, 3).astype(np.float32)
    contrast = rng.uniform(*cfg.contrast)
    mean = img.mean()
    img = (img - mean) * contrast + mean + rng.uniform(-cfg.brightness, cfg.brightness)
    img = img * gain
    img = 255 * (img.clip(0, 255) / 255) ** rng.uniform(*cfg.gamma)
    if rng.random() < cfg.p_noise:
        img += rng.normal(0, rng.uniform(*cfg.noise_sigma), img.shape).astype(np.float32)
    out = img.clip(0, 255).astype(np.uint8)

    if rng.random() < cfg.p_jpeg:
        q = int(rng.integers(cfg.jpeg_quality[0], cfg.jpeg_quality[1] + 1))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
