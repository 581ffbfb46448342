"""Whether a frame carries colour at all: a black-and-white camera (an infrared webcam at
night, a machine-vision camera) or a greyscale photo does not.

The classifiers read a die's body colour and a card's suit largely from colour. On the
foreign yardstick's ``val`` scenes made greyscale they read 72 blue dice as black and 28 %
of the cards surely wrong (a heart as a spade), so in such a frame a die's colour and a
card's suit are left unknown rather than guessed (:class:`~vision.read.reader.DiceReader`,
:class:`~vision.read.card_reader.CardReader`).

A colour camera's chroma is never flat, even on a grey tray of white and black dice: its
noise and JPEG's chroma blocks move it. Of the pixels sampled here, at least 17 % lie more
than a level from the frame's median chroma (YCrCb) in every frame of the yardstick's
``val`` split and the real tray's 250 photos, and no frame of theirs through any named
camera shift, nor of 300 own renders, is taken for colourless; in a greyscale photo no
pixel lies off, nor in one with the same cast added everywhere.
:attr:`~vision.read.policy.ReadPolicy.colourless_within` is that level.

>>> grey = np.full((48, 64, 3), 90, np.uint8); grey[10:20, 10:20] = 200
>>> colourless(grey, 1.0)
True
>>> tinted = grey.copy(); tinted[..., 2] = np.clip(tinted[..., 2].astype(int) + 30, 0, 255)
>>> colourless(tinted, 1.0)  # an even sepia or infrared tint is still no colour
True
>>> colourless(grey, 1.0) and not colourless(np.dstack([grey[..., 0], grey[..., 1], 255 - grey[..., 2]]), 1.0)
True
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["colourless"]

#: Every how many pixels (each way) the chroma is sampled.
_STEP = 8


def colourless(image_bgr: np.ndarray, within: float) -> bool:
    """True when all but a thousandth of the frame's pixels have a chroma (Cr and Cb) within
    ``within`` levels of the frame's median: the frame holds no colour to read. Sampled every
    8th pixel each way: under 0.1 ms for a 1280x720 frame."""
    h, w = image_bgr.shape[:2]
    small = cv2.resize(image_bgr, (max(1, w // _STEP), max(1, h // _STEP)), interpolation=cv2.INTER_NEAREST)
    chroma = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)[..., 1:].reshape(-1, 2)
    n, reach = len(chroma), int(within)
    outside = 0
    for k in (0, 1):
        hist = np.bincount(chroma[:, k], minlength=256)
        median = int(np.searchsorted(np.cumsum(hist), (n + 1) // 2))
        outside += n - int(hist[max(0, median - reach): median + reach + 1].sum())
    return outside <= n // 1000
