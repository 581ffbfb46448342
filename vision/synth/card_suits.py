"""Suit symbols (spades, hearts, diamonds, clubs) as vector outlines, in a few styles.

Every symbol is built from curves in a unit box (x right, y down, height 2,
centred on 0) and filled with OpenCV at sub-pixel precision, so it is as sharp
at 6 px as at 600 px and a deck's pips and indices share one drawing.

>>> mask = np.zeros((40, 40), np.uint8)
>>> draw_suit(mask, "H", SUIT_STYLES["classic"], 20.0, 20.0, 30.0, 255)
>>> bool(mask[20, 20] == 255), bool(mask[2, 20] == 0)  # filled body, the notch at the top is empty
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.synth.errors import UnknownCard


@dataclass(frozen=True)
class SuitStyle:
    """How one deck draws its suits."""

    name: str
    heart_power: float  # exponent of the heart's sine: higher = narrower lobes
    heart_notch: float  # depth of the notch between the lobes
    stem_base: float  # half-width of a spade's or club's foot (unit box)
    stem_curve: float  # how much the stem's sides curve in
    club_r: float  # radius of a club's leaves
    diamond_w: float  # half-width of a diamond
    diamond_bulge: float  # < 0: sides curve in, > 0: out
    width: float  # overall width scale
    spade_body: float = 0.74  # share of a spade's height its body takes; the foot shows below it
    club_spread: float = 1.0  # how far a club's side leaves sit from its centre (< 1: bunched)


SUIT_STYLES: dict[str, SuitStyle] = {
    "classic": SuitStyle("classic", 3.0, 5.0, 0.36, 0.6, 0.42, 0.74, -0.06, 1.0),
    "round": SuitStyle("round", 2.4, 4.2, 0.42, 0.4, 0.46, 0.8, 0.04, 1.08),
    "sharp": SuitStyle("sharp", 3.6, 6.0, 0.3, 0.9, 0.38, 0.66, -0.16, 0.92),
    "wide": SuitStyle("wide", 2.8, 4.6, 0.5, 0.5, 0.44, 0.86, 0.0, 1.16),
}
"""Every deck's suit styles: each draws a spade's long thin stem and a club's three
separate leaves, which tell them apart even when the symbol is a few pixels tall."""

EXTRA_SUIT_STYLES: dict[str, SuitStyle] = {
    "stubby": SuitStyle("stubby", 2.6, 4.4, 0.40, 0.2, 0.50, 0.8, 0.0, 1.1, spade_body=0.9, club_spread=0.78),
    "stout": SuitStyle("stout", 2.2, 3.8, 0.46, 0.3, 0.52, 0.84, 0.06, 1.2, spade_body=0.84, club_spread=0.7),
    "lean": SuitStyle("lean", 3.2, 5.4, 0.28, 0.7, 0.47, 0.7, -0.1, 0.94, spade_body=0.88, club_spread=0.82),
}
"""Styles only wide training decks draw (``card_faces.sample_design(wide=True)``): a spade
whose body reaches nearly to its foot and clubs whose leaves merge, as many decks print
them, so that small spades and clubs are told apart by the top (a point or a leaf) and not
by the stem alone."""

ALL_SUIT_STYLES: dict[str, SuitStyle] = {**SUIT_STYLES, **EXTRA_SUIT_STYLES}


def _quad(p0: tuple[float, float], c: tuple[float, float], p1: tuple[float, float], n: int = 12) -> np.ndarray:
    t = np.linspace(0.0, 1.0, n)[:, None]
    a, b, d = np.array(p0), np.array(c), np.array(p1)
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * b + t**2 * d


def _heart(s: SuitStyle, n: int = 72) -> np.ndarray:
    """The classic heart curve (tip down), scaled to height 2 and centred."""
    t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    x = np.sign(np.sin(t)) * np.abs(np.sin(t)) ** s.heart_power
    y = -(13 * np.cos(t) - s.heart_notch * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)) / 16.0
    pts = np.stack([x, y], axis=1)
    pts[:, 1] = (pts[:, 1] - pts[:, 1].min()) / np.ptp(pts[:, 1]) * 2.0 - 1.0
    pts[:, 0] *= 0.98 * s.width
    return pts


def _stem(s: SuitStyle, top: float) -> np.ndarray:
    """A flared foot from ``top`` down to the bottom of the box, sides curving in."""
    b, k = s.stem_base, s.stem_curve
    right = _quad((0.06, top), (0.06 + k * 0.05, 0.6 + 0.25 * k), (b, 1.0))
    left = _quad((-b, 1.0), (-0.06 - k * 0.05, 0.6 + 0.25 * k), (-0.06, top))
    return np.concatenate([right, left])


@lru_cache(maxsize=64)
def suit_outline(suit: str, style: SuitStyle) -> tuple[np.ndarray, ...]:
    """Filled polygons (unit box, y down) whose union is the symbol."""
    if suit == "H":
        return (_heart(style),)
    if suit == "S":
        body = _heart(style) * np.array([1.0, -1.0])  # tip up
        body[:, 1] = body[:, 1] * style.spade_body - (1.0 - style.spade_body)
        return (body, _stem(style, 0.1))
    if suit == "D":
        w, b = style.diamond_w * style.width, style.diamond_bulge
        corners = [(0.0, -1.0), (w, 0.0), (0.0, 1.0), (-w, 0.0)]
        pts = []
        for i in range(4):
            p0, p1 = corners[i], corners[(i + 1) % 4]
            mx, my = (p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2
            # Push the side's middle out along its normal (in when b < 0).
            c = (mx + b * math.copysign(1.0, mx), my + b * math.copysign(1.0, my))
            pts.append(_quad(p0, c, p1)[:-1])
        return (np.concatenate(pts),)
    if suit == "C":
        r = style.club_r
        ring = np.linspace(0.0, 2.0 * math.pi, 36, endpoint=False)
        circle = np.stack([np.cos(ring), np.sin(ring)], axis=1) * r
        dx = (0.96 * r + 0.06) * style.club_spread
        leaves = tuple(circle + np.array(c) for c in ((0.0, -1.0 + r), (-dx * style.width, 0.12 + r * 0.2 - 0.1), (dx * style.width, 0.12 + r * 0.2 - 0.1)))
        hub = np.array([[0.0, -0.5], [0.32, 0.1], [0.0, 0.4], [-0.32, 0.1]])
        return leaves + (hub, _stem(style, 0.1))
    raise UnknownCard(suit)


def suit_aspect(suit: str, style: SuitStyle) -> float:
    """Width / height of the symbol."""
    pts = np.concatenate(suit_outline(suit, style))
    return float(np.ptp(pts[:, 0]) / np.ptp(pts[:, 1]))


def draw_suit(
    canvas: np.ndarray,
    suit: str,
    style: SuitStyle,
    cx: float,
    cy: float,
    height: float,
    colour: int | tuple[int, ...],
    upside_down: bool = False,
) -> None:
    """Fill the symbol ``height`` px tall centred on (cx, cy) into ``canvas`` (in place)."""
    polys = []
    sign = -1.0 if upside_down else 1.0
    for p in suit_outline(suit, style):
        q = p * (sign * height / 2.0) + np.array([cx, cy])
        polys.append(np.round(q * 16.0).astype(np.int32))
    for q in polys:  # one at a time: a union, not an even-odd fill of overlapping leaves
        cv2.fillPoly(canvas, [q], colour, cv2.LINE_AA, 4)
