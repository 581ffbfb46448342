"""A card's outline from its two corner indices and the frame's edges, where its paper does
not stand out from the table (a table of nearly the paper's colour, a marbled or dim one), so
:func:`vision.read.card_outline.outline_at` finds no region of the paper's colour.

A card prints its index at two opposite corners, the same distance in from each, so the two
indices fix the card's diagonal and its centre. What they leave open (which way the card's
long side runs, how long it is, how a tilted camera squashes and skews it) is searched: each
candidate card is scored by the colour step across its four sides, and the best must stand
out, also against its mirror image, which a card face up never shows.

>>> import numpy as np, cv2
>>> img = np.full((200, 200, 3), 60, np.uint8)
>>> corners = np.array([[60, 40], [124, 40], [124, 130], [60, 130]], np.int32)
>>> _ = cv2.fillConvexPoly(img, corners, (235, 235, 235))
>>> for x, y in ((64, 44), (113, 111)):  # the two indices, rank over suit
...     _ = cv2.rectangle(img, (x, y), (x + 6, y + 14), (30, 30, 30), -1)
>>> found = outline_between(img, (63.0, 43.0, 71.0, 59.0), (112.0, 110.0, 120.0, 126.0))
>>> bool(np.abs(np.sort(found.corners, axis=0) - np.sort(corners, axis=0)).max() < 6)
True
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.read.card_outline import CardOutline
from vision.read.detections import Box

# A card's index centres sit about this far in from its corners, in mm of a card this size
# (the renderer's decks are 57-63 mm wide and 88-89 mm long, their index centres 5-8 mm in
# and 8-13 mm down; the search below takes up the difference).
CARD_MM = (60.0, 88.0)
INDEX_MM = (6.5, 10.5)
INDEX_LENGTH_MM = 13.0  # rank over suit
# The candidates: the long side turned up to SEARCH_TURN degrees either way from the diagonal
# between the indices, at SEARCH_SCALE times the length the diagonal gives; a camera's tilt may
# squash one side against the other (SQUASH) and skew the corners off square by up to MAX_SKEW
# degrees. Looked at every COARSE step first, then every FINE step around the best few.
SEARCH_TURN = 70.0
SEARCH_SCALE = (0.5, 1.3)
COARSE = (4.0, 0.05)  # degrees, share of the diagonal's length
FINE = (1.0, 0.0125)
REFINED = 3
SQUASH = (0.55, 1.45)
MAX_SKEW = 25.0
# Each side is scored by the median colour step (L*a*b*) across it, a pixel and a half either
# side, over its middle 80 %: a card's edge steps all along, a line of pips only here and there.
# A candidate scores its weakest side's: every side of a card is an edge.
EDGE_REACH = 1.5
EDGE_SAMPLES = 24
# The best candidate must step at least this much, and this many times more than the best
# of the mirror-image candidates (a card face up shows one handedness to the camera).
MIN_EDGE_STEP = 3.0
MIN_EDGE_RATIO = 1.3
# The indices' distance apart, in index box sides, that a card's two corners can be.
PAIR_SPAN = (3.0, 10.0)
# Indices farther apart than this many pixels are looked at in a frame shrunk to it: the
# search steps by shares of the card, and a side is scored a pixel and a half either side of
# it, so on a large card the candidates would fall between its edges.
WORK_SPAN = 100.0


def outline_between(image: np.ndarray, a: Box, b: Box) -> CardOutline | None:
    """The card whose two opposite corner indices are ``a`` and ``b`` in a BGR ``image``, from
    the edges around them, or ``None`` where no card-shaped set of edges stands out.

    The indices fix the card's diagonal; the candidate cards along it are scored by the
    colour step across their four sides (:func:`edge_candidates`)."""
    found = edge_candidates(image, a, b)
    if found is None:
        return None
    outline, step, mirrored = found
    return outline if step >= MIN_EDGE_STEP and step >= MIN_EDGE_RATIO * mirrored else None


def edge_candidates(image: np.ndarray, a: Box, b: Box) -> tuple[CardOutline, float, float] | None:
    """:func:`outline_between`'s best candidate before its thresholds, with its colour step and
    the best mirrored candidate's (for measuring the rule)."""
    p, q = (np.array([(x[0] + x[2]) / 2.0, (x[1] + x[3]) / 2.0]) for x in (a, b))
    d = q - p
    span = float(np.hypot(*d))
    side = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1], 1.0)
    if not PAIR_SPAN[0] <= span / side <= PAIR_SPAN[1]:
        return None
    # The card's centre is midway between its indices; no candidate reaches this far from it.
    centre, reach = p + d / 2, 1.2 * span + EDGE_REACH + 2
    if span > WORK_SPAN:
        return _shrunk(image, a, b, centre, reach, WORK_SPAN / span)
    unit = span / float(np.hypot(CARD_MM[0] - 2 * INDEX_MM[0], CARD_MM[1] - 2 * INDEX_MM[1]))
    base = float(np.arctan2(d[1], d[0]))
    turns = np.deg2rad(np.arange(-SEARCH_TURN, SEARCH_TURN + 1e-6, COARSE[0]))
    scales = np.arange(SEARCH_SCALE[0], SEARCH_SCALE[1] + 1e-6, COARSE[1])
    turn, scale = (x.ravel() for x in np.meshgrid(turns, scales))
    crop, offset = _around(image, centre, reach)
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 1.0).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    coarse = _candidates(lab, offset, p, d, base + turn, scale * unit)
    if coarse is None:
        return None
    steps, facing = coarse[0], coarse[1]
    fine_turns, fine_scales = [], []
    for faces_up in (True, False):  # the best few of each handedness, looked at more closely
        pick = np.flatnonzero(facing == faces_up)
        for k in pick[np.argsort(steps[pick])[::-1][:REFINED]]:
            t, c = np.meshgrid(coarse[2][k] + np.deg2rad(np.arange(-COARSE[0], COARSE[0] + 1e-6, FINE[0])),
                               coarse[3][k] + unit * np.arange(-COARSE[1], COARSE[1] + 1e-6, FINE[1]))
            fine_turns.append(t.ravel())
            fine_scales.append(c.ravel())
    fine = _candidates(lab, offset, p, d, np.concatenate(fine_turns), np.concatenate(fine_scales))
    if fine is None:
        return None
    steps, facing, _, scale, corners, across = fine
    best = int(np.flatnonzero(facing)[np.argmax(steps[facing])])
    mirrored = float(steps[~facing].max()) if (~facing).any() else 0.0
    outline = CardOutline(corners=corners[best].astype(np.float32), long_side=float(scale[best] * CARD_MM[1]),
                          short_side=float(np.hypot(*across[best]) * CARD_MM[0]),
                          index_length=float(scale[best] * INDEX_LENGTH_MM))
    return outline, float(steps[best]), mirrored


def _shrunk(image: np.ndarray, a: Box, b: Box, centre: np.ndarray, reach: float, factor: float,
            ) -> tuple[CardOutline, float, float] | None:
    """:func:`edge_candidates` on the frame within ``reach`` of ``centre`` shrunk by ``factor``."""
    crop, offset = _around(image, centre, reach)
    small = cv2.resize(crop, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    found = edge_candidates(small, *(tuple(float(v) for v in (np.array(box) - np.tile(offset, 2)) * factor)
                                     for box in (a, b)))
    if found is None:
        return None
    outline, step, mirrored = found
    return replace(outline, corners=(outline.corners / factor + offset).astype(np.float32),
                   long_side=outline.long_side / factor, short_side=outline.short_side / factor,
                   index_length=outline.index_length / factor), step, mirrored


def _candidates(lab: np.ndarray, offset: np.ndarray, p: np.ndarray, d: np.ndarray, turn: np.ndarray,
                scale: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """The candidate cards a camera could show with their long side at ``turn`` (radians) and
    ``scale`` pixels a mm, one index at ``p`` and the other ``d`` from it: (their colour steps
    on ``lab``, the frame around them smoothed and in L*a*b*, its top left at ``offset``; whether each faces up; turn;
    scale; corners; the short side's pixels a mm), or None when none faces up."""
    (w, h), (u, v) = CARD_MM, INDEX_MM
    along = np.stack([np.cos(turn), np.sin(turn)], 1) * scale[:, None]  # the long side, a mm
    across = (d[None] - (h - 2 * v) * along) / (w - 2 * u)  # the short side, a mm
    squash = np.hypot(*across.T) / scale
    cross = (across[:, 0] * along[:, 1] - across[:, 1] * along[:, 0]) / (np.hypot(*across.T) * scale)
    ok = (squash >= SQUASH[0]) & (squash <= SQUASH[1]) & (np.abs(cross) >= np.cos(np.deg2rad(MAX_SKEW))) & (scale > 0)
    # Face up, a card's long side runs a quarter turn clockwise from its short one on screen.
    facing = cross > 0
    if not (ok & facing).any():
        return None
    along, across = along[ok], across[ok]
    origin = p[None] - across * u - along * v
    corners = np.stack([origin, origin + across * w, origin + across * w + along * h, origin + along * h], 1)
    return _edge_steps(lab, corners - offset), facing[ok], turn[ok], scale[ok], corners, across


def _edge_steps(lab: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Each candidate card's (``corners``: n x 4 x 2, in ``lab``'s pixels) least over its sides of
    the median colour step across the side; 0 for a candidate reaching off ``lab``."""
    h, w = lab.shape[:2]
    flat = lab.reshape(-1, 3)
    start = corners.astype(np.float32)
    edge = np.roll(start, -1, axis=1) - start
    normal = np.stack([-edge[..., 1], edge[..., 0]], -1) / np.maximum(np.hypot(edge[..., 0], edge[..., 1]), 1e-6)[..., None]
    t = np.linspace(0.1, 0.9, EDGE_SAMPLES, dtype=np.float32)
    points = start[:, :, None] + t[None, None, :, None] * edge[:, :, None]  # n x 4 x samples x 2
    shift = EDGE_REACH * normal[:, :, None]
    whole = np.ones(len(corners), bool)
    sides = []
    for at in (np.rint(points + shift).astype(np.int32), np.rint(points - shift).astype(np.int32)):
        x, y = at[..., 0], at[..., 1]
        whole &= ((x >= 0) & (x < w) & (y >= 0) & (y < h)).all(axis=(1, 2))
        sides.append(np.take(flat, np.clip(y, 0, h - 1) * w + np.clip(x, 0, w - 1), axis=0))
    diff = sides[0] - sides[1]
    step = np.sqrt(np.einsum("...c,...c->...", diff, diff))
    return np.where(whole, np.median(step, axis=2).min(axis=1), 0.0)


def _around(image: np.ndarray, centre: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """The frame within ``reach`` pixels of ``centre`` (cut at its edges), and its top left."""
    x0, y0 = max(0, int(centre[0] - reach)), max(0, int(centre[1] - reach))
    x1, y1 = min(image.shape[1], int(centre[0] + reach) + 1), min(image.shape[0], int(centre[1] + reach) + 1)
    return image[y0:y1, x0:x1], np.array([x0, y0], np.float64)
