"""Photos as other cameras would take them: fixed, named changes for `tableref eval --camera`.

The reader will be judged on photos from cameras it never saw. Those differ from the
real tray's phone and from the renderer mostly in white balance, exposure, sensor noise,
resolution, compression, focus and the phone's own sharpening and colour boost. Each
:class:`CameraShift` makes one of those changes, strong but within what a real camera
does, so that ``tableref eval DATASET --camera warm`` says how much of the reading
survives it, and whether the reader stays quiet (uncertain) rather than wrong.

Each shift is a pure function of the image (the noise of ``dim`` and ``grainy`` is
seeded by the pixels), so two runs score the same images.

>>> import numpy as np
>>> grey = np.full((4, 4, 3), 128, np.uint8)
>>> warm = CameraShift.WARM.apply(grey)
>>> int(warm[0, 0, 2]) > 128 > int(warm[0, 0, 0])   # BGR: more red, less blue
True
>>> CameraShift("lowres").apply(grey).shape
(4, 4, 3)
"""

from __future__ import annotations

import enum
import math
import zlib

import cv2
import numpy as np

GAMMA = 2.2  # sRGB, near enough: exposure and white balance act on light, not on pixel values


def _to_linear(image: np.ndarray) -> np.ndarray:
    return (image.astype(np.float32) / 255.0) ** GAMMA


def _to_pixels(linear: np.ndarray) -> np.ndarray:
    return (np.clip(linear, 0.0, 1.0) ** (1.0 / GAMMA) * 255.0 + 0.5).astype(np.uint8)


def gains(image: np.ndarray, blue: float, green: float, red: float) -> np.ndarray:
    """``image`` (BGR, uint8) with each channel's light multiplied, as exposure and white
    balance do; also the classifier's white-balance augmentation (:mod:`vision.train.augment`)."""
    return _to_pixels(_to_linear(image) * np.float32([blue, green, red]))


def motion_kernel(length: float, angle: float) -> np.ndarray:
    """A normalised line of ``length`` px at ``angle`` (radians): the blur of a straight move,
    for :func:`cv2.filter2D` (the renderer's camera and the classifier's training crops).

    >>> k = motion_kernel(5.0, 0.0)
    >>> k.shape, round(float(k.sum()), 6), int((k.sum(axis=1) > 0).sum())
    ((5, 5), 1.0, 1)
    """
    n = int(math.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2.0
    dx, dy = math.cos(angle), math.sin(angle)
    for t in np.linspace(-length / 2.0, length / 2.0, 4 * n):
        k[int(round(c + t * dy)), int(round(c + t * dx))] += 1.0
    return k / k.sum()


def _dim(image: np.ndarray) -> np.ndarray:
    # A quarter of the light at the same exposure: darker, with the sensor's noise.
    rng = np.random.default_rng(zlib.crc32(image[::7, ::7].tobytes()))
    lin = _to_linear(image) * 0.25
    lin = lin + rng.normal(0.0, 0.004, lin.shape).astype(np.float32)  # read noise, in linear light
    dark = _to_pixels(lin).astype(np.float32)
    return np.clip(dark + rng.normal(0.0, 3.0, dark.shape), 0, 255).astype(np.uint8)


def _grainy(image: np.ndarray) -> np.ndarray:
    # ``dim``'s quarter of the light brought back up four times by the sensor's gain, as a
    # webcam's automatic exposure does in a dim room: as bright as before, four times as noisy.
    return _to_pixels(_to_linear(_dim(image)) * 4.0)


def _lowres(image: np.ndarray) -> np.ndarray:
    # Half the pixels each way, shown at the original size so the labels still hold.
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _jpeg(image: np.ndarray, quality: int = 25) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def _soft(image: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), 1.5)


def _phone(image: np.ndarray) -> np.ndarray:
    # A phone's processing: unsharp mask, then colours boosted by half.
    blur = cv2.GaussianBlur(image, (0, 0), 2.0)
    sharp = cv2.addWeighted(image, 2.0, blur, -1.0, 0)
    hsv = cv2.cvtColor(sharp, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * 1.5, 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


class CameraShift(enum.Enum):
    """One way another camera's photo differs. The value is the name on the command line."""

    WARM = "warm"  # white balance left at daylight under a tungsten lamp (about 3,000 K)
    COOL = "cool"  # white balance left at tungsten in daylight or shade
    DIM = "dim"  # a quarter of the light, with the sensor's noise
    GRAINY = "grainy"  # a quarter of the light, brought back up by the sensor's gain (and its noise)
    BRIGHT = "bright"  # twice the exposure, highlights clipped
    LOWRES = "lowres"  # half the pixels each way
    JPEG = "jpeg"  # compressed at quality 25
    SOFT = "soft"  # out of focus (Gaussian, sigma 1.5 px)
    PHONE = "phone"  # sharpened, colours boosted

    def apply(self, image: np.ndarray) -> np.ndarray:
        """``image`` (BGR, uint8) as this camera would have taken it; the same size."""
        match self:
            case CameraShift.WARM:
                return gains(image, blue=0.55, green=0.9, red=1.3)
            case CameraShift.COOL:
                return gains(image, blue=1.35, green=1.0, red=0.7)
            case CameraShift.DIM:
                return _dim(image)
            case CameraShift.GRAINY:
                return _grainy(image)
            case CameraShift.BRIGHT:
                return gains(image, 2.0, 2.0, 2.0)
            case CameraShift.LOWRES:
                return _lowres(image)
            case CameraShift.JPEG:
                return _jpeg(image)
            case CameraShift.SOFT:
                return _soft(image)
            case CameraShift.PHONE:
                return _phone(image)
        raise AssertionError(self)


NAMES: tuple[str, ...] = tuple(shift.value for shift in CameraShift)
"""The names ``--camera`` takes."""


def random_camera(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``image`` (BGR, uint8) as a camera drawn at random from ``rng`` would take it; the same size.

    For training (``tableref train --real-cameras``), so that what the detector learns from the
    real tray's photos does not hang on that phone's exposure and colour. Each draw mixes the
    kinds of change :class:`CameraShift` names, each over a range rather than at one strong
    point: light from a fifth to 1.6 times as much, with sensor noise that grows as the gain
    rises; red and blue up to 1.8 times apart either way; sometimes defocus, half resolution
    or a phone's sharpening and colour boost; JPEG at quality 30-95 half the time. The named
    shifts stay what ``tableref eval --camera`` scores; these draws are not tuned to them.

    >>> img = np.full((8, 8, 3), 120, np.uint8)
    >>> a = random_camera(img, np.random.default_rng(3))
    >>> b = random_camera(img, np.random.default_rng(3))
    >>> a.shape, a.dtype, bool((a == b).all())
    ((8, 8, 3), dtype('uint8'), True)
    """
    light = math.exp(rng.uniform(math.log(0.2), math.log(1.6)))
    tint = math.exp(rng.uniform(-math.log(1.8), math.log(1.8)))  # red over blue
    lin = _to_linear(image) * np.float32([light / math.sqrt(tint), light, light * math.sqrt(tint)])
    # The less light, the more the sensor's gain lifts its noise with the picture.
    gain = max(1.0, 0.6 / light)
    lin = lin + rng.normal(0.0, 0.002 * gain, lin.shape).astype(np.float32)
    out = _to_pixels(lin)
    out = np.clip(out + rng.normal(0.0, 0.8 * gain, out.shape), 0, 255).astype(np.uint8)
    look = rng.random(3)
    if look[0] < 0.25:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.6, 1.6))
    if look[1] < 0.2:
        out = _lowres(out)
    if look[2] < 0.2:
        out = _phone(out)
    if rng.random() < 0.5:
        out = _jpeg(out, int(rng.integers(30, 96)))
    return out
