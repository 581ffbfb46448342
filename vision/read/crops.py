"""Square crops around detected dice: the classifier's input, shared by training and runtime.

A crop is the square of side ``expand * max(w, h)`` centred on the box, taken from the
full-resolution frame (never the letterboxed detector input: the marks that tell ブ from
フ are only 2-3 px wide on a small die), with replicated borders where it leaves the
frame, resized to ``size x size``.

>>> import numpy as np
>>> img = np.zeros((100, 100, 3), np.uint8); img[40:60, 40:60] = 255
>>> c = square_crop(img, (40, 40, 60, 60), size=20, expand=1.0)
>>> c.shape, int(c.min()), int(c.max())
((20, 20, 3), 255, 255)
>>> square_crop(img, (90, 90, 110, 110), size=8).shape
(8, 8, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np


def square_region(box: Sequence[float], expand: float) -> tuple[int, int, int]:
    """``(x0, y0, side)`` of the integer square crop around ``box``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(2, int(round(max(x2 - x1, y2 - y1) * expand)))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    return int(round(cx - side / 2)), int(round(cy - side / 2)), side


def cut_square(image: np.ndarray, x0: int, y0: int, side: int) -> np.ndarray:
    """The ``side x side`` window at ``(x0, y0)``, replicating edge pixels outside the image."""
    h, w = image.shape[:2]
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(w, x0 + side), min(h, y0 + side)
    if cx1 <= cx0 or cy1 <= cy0:
        # Entirely outside: nothing to replicate from but the nearest edge pixel.
        px = min(max(x0, 0), w - 1)
        py = min(max(y0, 0), h - 1)
        return np.broadcast_to(image[py, px], (side, side) + image.shape[2:]).copy()
    window = image[cy0:cy1, cx0:cx1]
    top, left = cy0 - y0, cx0 - x0
    bottom, right = side - top - (cy1 - cy0), side - left - (cx1 - cx0)
    if top or left or bottom or right:
        window = cv2.copyMakeBorder(window, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return window


def resize_square(patch: np.ndarray, size: int) -> np.ndarray:
    """Area-average when shrinking (no aliasing of fine marks), bilinear when enlarging."""
    side = patch.shape[0]
    if side == size:
        return np.ascontiguousarray(patch)
    interp = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


def square_crop(image: np.ndarray, box: Sequence[float], size: int, expand: float = 1.25) -> np.ndarray:
    """The classifier crop for one box (``uint8``, ``size x size x C``)."""
    x0, y0, side = square_region(box, expand)
    return resize_square(cut_square(image, x0, y0, side), size)


def crop_batch(image: np.ndarray, boxes: np.ndarray, size: int, expand: float = 1.25) -> np.ndarray:
    """All crops of one frame as an ``(N, 3, size, size)`` float32 tensor in [0, 1], BGR order."""
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    out = np.empty((len(boxes), size, size, 3), dtype=np.uint8)
    for i, b in enumerate(boxes):
        out[i] = square_crop(image, b, size, expand)
    return to_tensor(out)


def to_tensor(crops: np.ndarray) -> np.ndarray:
    """``(N, H, W, 3)`` uint8 -> ``(N, 3, H, W)`` float32 in [0, 1]."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)
