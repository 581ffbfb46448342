"""A playing card read from its body: the pips (or the court figure) between its corners.

A corner index is small: on a webcam frame of a Doubt reveal a card's rank and suit are
5-15 px, and defocus or a glare can make them unreadable while the card's pips, several
times larger, still count plainly. So a card whose outline is found
(:mod:`vision.read.card_outline`) is also read from its body: the card is warped upright into a
square crop (its long side vertical, squashed to the square) and a classifier of the same
network as the index classifier reads the body's rank and suit.

The body's ranks are :data:`BODY_RANKS`: ace to ten, whose pip layouts are the same on
every French-suited deck, and one class ``"court"`` for jack, queen and king, whose
figures differ from deck to deck. Which court a card is comes from its index alone
(:func:`fuse`): a body reader trained on the renderer's court art must not outvote the
index of a real deck whose art it never saw.

The crop is upright up to a half turn (which short side is the top is not known from the
outline alone), so each body is read both ways up and the two readings averaged: pip
layouts and court cards are printed point-symmetric, nearly.

>>> import numpy as np
>>> quad = np.array([[10, 10], [10, 100], [70, 100], [70, 10]], np.float32)  # counter-clockwise on screen
>>> upright(quad).tolist()  # clockwise, from the bottom edge: the card upside down
[[70.0, 100.0], [10.0, 100.0], [10.0, 10.0], [70.0, 10.0]]
>>> body_crop(np.zeros((120, 100, 3), np.uint8), quad, 32).shape
(32, 32, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.read.backends import Model
from vision.read.boxes import to_tensor
from vision.read.detections import CARD_RANKS, CARD_SUITS
from vision.read.manifest import ClassifierSpec, ManifestError

COURT = "court"
COURTS = ("J", "Q", "K")
BODY_RANKS: tuple[str, ...] = (*(r for r in CARD_RANKS if r not in COURTS), COURT)
"""The body classifier's first head: ``A``, ``2`` .. ``10`` and ``court``."""

BODY_EXPAND = 1.12
"""The crop's side over the card's: a frame of table around the warped card, room for an
outline found a pixel or two off."""
BODY_ROTATION = 10.0
"""Training turn either way, degrees: the crop is upright from the card's outline, give or
take what the outline's corners miss by."""

# Column of each index rank (CARD_RANKS order) in the body's ranks.
_BODY_COLUMN = np.array([BODY_RANKS.index(COURT if r in COURTS else r) for r in CARD_RANKS])


def _signed_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def upright(quad: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """A card's four corners in reading order: clockwise on screen (a card seen from above,
    as printed, not mirrored), starting where a short side starts, so that the first side
    is the card's top or bottom edge. Which of the two it is stays open (a half turn)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    if _signed_area(q) < 0:
        q = q[::-1]
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    if sides[0] + sides[2] > sides[1] + sides[3]:
        q = np.roll(q, -1, axis=0)
    return np.ascontiguousarray(q)


def _target(size: int, expand: float, context: float) -> tuple[int, np.ndarray]:
    """The crop's side and where the card's corners land in it (the card's short and long
    sides both ``size / expand``, centred on the middle pixel's centre, so that a half turn of
    the card is a half turn of the crop)."""
    out = int(round(size * context))
    inner = size / expand
    off = (out - 1 - inner) / 2.0
    return out, np.array([[off, off], [off + inner, off], [off + inner, off + inner], [off, off + inner]], np.float32)


def body_crop(image: np.ndarray, quad: np.ndarray, size: int, expand: float = BODY_EXPAND, context: float = 1.0) -> np.ndarray:
    """The card whose corners are ``quad`` (taken in the order given: see :func:`upright`)
    warped into a ``size`` square with a frame of table around it (the card fills
    ``1/expand`` of the side). With ``context`` > 1 the square is that many times larger at
    the same scale (the training crops' room for augmentation, :mod:`vision.train.augment`).
    Large cards are first shrunk by area averaging, so their fine print does not alias."""
    src, q = _shrunk(image, quad, size, expand, context)
    return _warp(src, q, size, expand, context)


def _shrunk(image: np.ndarray, quad: np.ndarray, size: int, expand: float, context: float,
            ) -> tuple[np.ndarray, np.ndarray]:
    """The part of ``image`` a crop of the card ``quad`` takes, shrunk by area averaging to
    twice the crop's scale when the card is larger than that (else the whole image), and the
    card's corners in it. A turn of the corners' order makes the same part."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    long_side = float(np.hypot(*(np.roll(q, -1, axis=0) - q).T).max())
    scale = (size / expand) / max(long_side, 1.0)
    if scale >= 0.5:
        return image, q
    # Shrink only the part of the frame the crop takes, then warp from there.
    reach = 0.5 * context * expand * long_side
    centre = q.mean(axis=0)
    h, w = image.shape[:2]
    x0, y0 = max(0, int(centre[0] - reach)), max(0, int(centre[1] - reach))
    x1, y1 = min(w, int(centre[0] + reach) + 1), min(h, int(centre[1] + reach) + 1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return image, q
    k = 2.0 * scale  # leave the warp a factor of two to interpolate
    part = image[y0:y1, x0:x1]
    src = cv2.resize(part, (max(1, int(round(part.shape[1] * k))), max(1, int(round(part.shape[0] * k)))),
                     interpolation=cv2.INTER_AREA)
    return src, (q - np.array([x0, y0], np.float32)) * np.float32(src.shape[1] / part.shape[1])


def _warp(src: np.ndarray, q: np.ndarray, size: int, expand: float, context: float) -> np.ndarray:
    out, dst = _target(size, expand, context)
    warp = cv2.getPerspectiveTransform(q, dst)
    return cv2.warpPerspective(src, warp, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def read_bodies(
    model: Model, spec: ClassifierSpec, image: np.ndarray, quads: Sequence[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Rank (:data:`BODY_RANKS`) and suit probabilities of each card body, one batched call:
    each card upright (:func:`upright`) and turned a half turn, the two readings averaged."""
    if not quads:
        return np.zeros((0, len(BODY_RANKS)), np.float32), np.zeros((0, len(CARD_SUITS)), np.float32)
    crops = []
    for quad in quads:
        src, q = _shrunk(image, upright(quad), spec.size, spec.expand, 1.0)  # shrunk once for both ways up
        crops += [_warp(src, q, spec.size, spec.expand, 1.0), _warp(src, np.roll(q, -2, axis=0), spec.size, spec.expand, 1.0)]
    rank_p, suit_p = model.run(to_tensor(np.stack(crops)))[:2]
    if rank_p.shape != (len(crops), len(BODY_RANKS)) or suit_p.shape != (len(crops), len(CARD_SUITS)):
        raise ManifestError(f"card body model gave outputs {rank_p.shape} and {suit_p.shape}, expected "
                            f"{len(BODY_RANKS)} ranks and {len(CARD_SUITS)} suits")
    n = len(quads)
    return rank_p.reshape(n, 2, -1).mean(axis=1), suit_p.reshape(n, 2, -1).mean(axis=1)


def as_index_ranks(body_rank_p: np.ndarray) -> np.ndarray:
    """The body's rank probabilities over the index's ranks (:data:`CARD_RANKS`): each court
    rank gets the whole ``court`` probability, so in a product it leaves the index's own
    odds between jack, queen and king as they were.

    >>> p = np.zeros(len(BODY_RANKS)); p[BODY_RANKS.index("court")] = 0.9; p[BODY_RANKS.index("7")] = 0.1
    >>> [round(float(x), 2) for x in as_index_ranks(p)[-4:]]
    [0.0, 0.9, 0.9, 0.9]
    """
    return np.asarray(body_rank_p)[..., _BODY_COLUMN]


def check_spec(spec: ClassifierSpec) -> None:
    """A body classifier's classes must be :data:`BODY_RANKS` and the suits."""
    if tuple(spec.faces) != BODY_RANKS or tuple(spec.colours) != CARD_SUITS:
        raise ManifestError(f"card body classifier {spec.file} must read the ranks {list(BODY_RANKS)} and the suits "
                            f"{list(CARD_SUITS)}; it lists {list(spec.faces)} / {list(spec.colours)}")
