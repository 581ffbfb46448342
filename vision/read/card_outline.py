"""The card around a corner index, found from its paper: which indices are one card's corners.

A face-up card shows its index twice, at opposite corners, and the two can read
differently (a sure 5H and an unsure 3H). Distance cannot tell them from a neighbouring
card's index: on validation renders a neighbour's index lay as near as often (model card,
*Live Doubt reveals*). The card itself can. From the index, the card's paper (the
brightest pixels inside the index box) is followed outward as one region of that colour;
the region's outline must look like one card seen from above, and the other index must
lie inside it, at the far end of the card.

A region is one card only when it is convex (overlapping cards are not), has four
straight sides (a fan has a rounded edge), is longer than it is wide (a square heap is
not), and its long side is a card's length in index lengths, the index measured along
that side, as its rank over its suit runs: a camera's tilt shortens both alike, and two
cards edge to edge are far too long for it. When the region runs into the table (a
table near the card's colour), it is followed again more narrowly; on a table of the
card's own colour no outline is found, and the indices then stay apart. Two cards side by
side can make one card's shape too; the gap or shadow between them, a line across it that
is almost all not paper, tells them apart. Cards stacked almost squarely on each other
look like one card; their corners can be paired wrongly (see the model card).

>>> import numpy as np, cv2
>>> table = np.full((200, 200, 3), 40, np.uint8)
>>> card = cv2.rectangle(table.copy(), (60, 30), (130, 130), (240, 240, 240), -1)
>>> for y in (36, 106):  # the index at the top left and, turned, at the bottom right
...     x = 66 if y == 36 else 116
...     _ = cv2.rectangle(card, (x, y), (x + 6, y + 8), (30, 30, 30), -1)
...     _ = cv2.circle(card, (x + 3, y + 12 if y == 36 else y - 4), 2, (30, 30, 30), -1)
>>> same_card(card, (64.0, 34.0, 74.0, 52.0), (114.0, 100.0, 124.0, 118.0))
True
>>> same_card(table, (64.0, 34.0, 74.0, 52.0), (114.0, 100.0, 124.0, 118.0))
False
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.read.detections import Box

# How far out from the index the card is looked for, in index lengths. A card's far corner
# lies about 7 index lengths along and 5 across (poker and bridge cards).
WINDOW = 11.0
# Paper: pixels within this much of the index's paper in lightness (L*, 0-100) and in
# colour (a*b* distance). Tuned on validation renders (see the model card).
TOL_L = 16.0
TOL_AB = 12.0
# When the paper so found runs into the table (a table near the card's colour), it is
# followed again this much more narrowly, each in turn.
TIGHTER = (0.6, 0.35)
# The paper's colour: the median of the index box's pixels at or above this percentile of
# lightness. On a webcam-sized index most of the box is ink and blur, so a lower
# percentile (the 70th) reads the paper darker than it is.
PAPER_PERCENTILE = 90.0
# Ink: pixels farther from the paper than this many times the paper's tolerances.
INK_MARGIN = 1.25
# The window is looked at with an index this many pixels long at most.
WORK_SIDE = 10.0
# One card: convex (region / its convex hull), four straight sides (the hull simplified
# to within this share of its perimeter has four corners, and their quadrilateral covers
# this share of it: rounded card corners lose a little), and its long side this many
# index lengths.
MIN_SOLIDITY = 0.9
QUAD_EPS = 0.04
MIN_QUAD_FILL = 0.85
CARD_LENGTHS = (4.5, 10.0)
# and its long side at least this many times its short side: 1.40 on poker cards, 1.57 on
# bridge cards; a camera tilted 45 degrees can shorten one side by 30 %. Two cards in a
# square heap look about square (on validation photos the false pairs had a median of 1.2,
# one card's corners 1.44).
MIN_ASPECT = 1.1
# The two indices of one card sit at opposite corners, each within this many index lengths
# of its corner.
CORNER_REACH = 1.5
# Two cards side by side, their long edges touching, can make one card-shaped region. The
# gap or shadow between them is a line across it that is almost all not paper: a line
# within SPLIT_TILT degrees of the region's short sides, through its middle (SPLIT_SPAN of
# its length), at least SPLIT_SHARE not paper. Across one card such a line meets paper in
# its margins and between its pips. On validation clip stills and photos, no line across
# the 133 outlines that paired one card's two corners was more than 0.78 not paper; of the
# 30 that paired two cards' corners, 3 gave 1.0 and the rest at most 0.86.
SPLIT_SHARE = 0.9
SPLIT_SPAN = (0.2, 0.8)
SPLIT_TILT = 15.0
SPLIT_TILT_STEP = 3.0


@dataclass(frozen=True)
class CardOutline:
    """The card around one index: its four corners (pixels, in order around it), the mean
    lengths of its long and short sides, and the index's length along the long side."""

    corners: np.ndarray
    long_side: float
    short_side: float
    index_length: float

    def contains(self, point: tuple[float, float], margin: float = 0.5) -> bool:
        """Whether ``point`` is on the card: inside its four sides, or within ``margin``
        index lengths outside (a turned index's box reaches past the straight sides' corners)."""
        inside = cv2.pointPolygonTest(self.corners, (float(point[0]), float(point[1])), True)
        return inside >= -margin * self.index_length

    def at_corner(self, index: Box) -> bool:
        """Whether the index box ``index`` lies at a corner of this card (within
        :data:`CORNER_REACH` index lengths of one), where a card prints its indices."""
        p = np.array(_centre(index))
        return float(np.hypot(*(self.corners - p).T).min()) <= CORNER_REACH * self.index_length

    def pairs(self, index: Box, other: Box) -> bool:
        """Whether ``other`` is this card's second index, ``index`` the one it was found from:
        each at a corner of it (within :data:`CORNER_REACH` index lengths), opposite corners."""
        if not self.contains(_centre(other)):
            return False
        points = [np.array(_centre(x)) for x in (index, other)]
        ends = [int(np.argmin(np.hypot(*(self.corners - p).T))) for p in points]
        if (ends[1] - ends[0]) % 4 != 2:
            return False
        reach = CORNER_REACH * self.index_length
        return all(float(np.hypot(*(self.corners[e] - p))) <= reach for e, p in zip(ends, points))


def _window(image: np.ndarray, box: Box) -> tuple[np.ndarray, int, int, tuple[int, int, int, int]] | None:
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1, 1.0)
    cx, cy, r = (x1 + x2) / 2.0, (y1 + y2) / 2.0, WINDOW * side
    h, w = image.shape[:2]
    wx0, wy0 = max(0, int(cx - r)), max(0, int(cy - r))
    wx1, wy1 = min(w, int(cx + r) + 1), min(h, int(cy + r) + 1)
    bx0, by0 = max(0, int(round(x1)) - wx0), max(0, int(round(y1)) - wy0)
    bx1, by1 = min(wx1 - wx0, int(round(x2)) - wx0), min(wy1 - wy0, int(round(y2)) - wy0)
    if bx1 - bx0 < 2 or by1 - by0 < 2:
        return None
    return image[wy0:wy1, wx0:wx1], wx0, wy0, (bx0, by0, bx1, by1)


def _index_length(ink: np.ndarray, axis: np.ndarray) -> float:
    """The index's extent along ``axis`` (a unit vector): the spread of its ink pixels."""
    ys, xs = np.nonzero(ink)
    if len(xs) < 4:
        return 0.0
    t = xs * axis[0] + ys * axis[1]
    lo, hi = np.percentile(t, (2, 98))
    return float(hi - lo) + 1.0


def outline_at(image: np.ndarray, box: Box) -> CardOutline | None:
    """The outline of the card whose corner index is ``box`` in a BGR ``image``, or ``None``
    when the paper around it is not one card's shape (overlapping cards, a table of the
    card's colour, a card cut by the frame edge)."""
    found = find_outline(image, box)
    return found if isinstance(found, CardOutline) else None


def find_outline(image: np.ndarray, box: Box) -> CardOutline | str:
    """:func:`outline_at`, or why there is none (for measuring the rules)."""
    cut = _window(image, box)
    if cut is None:
        return "index off the frame"
    win, ox, oy, (bx0, by0, bx1, by1) = cut
    side = max(box[2] - box[0], box[3] - box[1], 1.0)
    scale = min(1.0, WORK_SIDE / side)  # the card's shape needs no more pixels than this
    if scale < 1.0:
        win = cv2.resize(win, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        bx0, by0 = int(bx0 * scale), int(by0 * scale)
        bx1, by1 = max(bx0 + 2, int(round(bx1 * scale))), max(by0 + 2, int(round(by1 * scale)))
    blurred = cv2.GaussianBlur(win, (0, 0), 0.8)
    lab = cv2.cvtColor(blurred.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    inside = lab[by0:by1, bx0:bx1].reshape(-1, 3)
    light = inside[:, 0]
    paper = np.median(inside[light >= np.percentile(light, PAPER_PERCENTILE)], axis=0)
    off = _off_paper(lab, paper)
    found = _outline(off, 1.0, (bx0, by0, bx1, by1), scale, (ox, oy))
    for narrower in TIGHTER:
        if found != "region too large":
            break
        found = _outline(off, narrower, (bx0, by0, bx1, by1), scale, (ox, oy))
    return found


def _outline(
    off: tuple[np.ndarray, np.ndarray], narrower: float, index: tuple[int, int, int, int], scale: float,
    origin: tuple[int, int],
) -> CardOutline | str:
    """The card of the paper's colour around the ``index`` box of a window (``off``: each
    pixel's distance from the paper, :func:`_off_paper`; the window at ``scale``, its top
    left at ``origin`` in the frame), its tolerances times ``narrower``."""
    (bx0, by0, bx1, by1), (ox, oy) = index, origin
    near = _paper_like(off, narrower)
    mask = cv2.morphologyEx(near.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(mask, connectivity=4)
    ids = labels[by0:by1, bx0:bx1]
    ids = ids[ids > 0]
    if n < 2 or len(ids) == 0:
        return "no paper"
    region = (labels == np.bincount(ids).argmax()).astype(np.uint8)
    if region[0].any() or region[-1].any() or region[:, 0].any() or region[:, -1].any():
        return "region too large"  # the table, or more than one card
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or cv2.contourArea(contour) < MIN_SOLIDITY * hull_area:
        return "not convex"
    quad = cv2.approxPolyDP(hull, QUAD_EPS * cv2.arcLength(hull, True), True).reshape(-1, 2).astype(np.float64)
    if len(quad) != 4:
        return f"{len(quad)} sides"  # a fan, or cards in a heap
    if cv2.contourArea(quad.astype(np.float32)) < MIN_QUAD_FILL * hull_area:
        return "not four straight sides"
    sides = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)
    long_side, short_side = float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2), float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2)
    if long_side < MIN_ASPECT * short_side:
        return f"{long_side / max(short_side, 1e-6):.2f} times as long as wide"
    k = 0 if sides[0] + sides[2] >= sides[1] + sides[3] else 1
    axis = (quad[k + 1] - quad[k]) / max(sides[k], 1e-6)
    card = cv2.erode(cv2.fillConvexPoly(np.zeros_like(region), hull, 1), np.ones((3, 3), np.uint8))
    # Ink is what is plainly not paper, whatever tolerance found the card: the rim of
    # blur round the glyphs would lengthen the index.
    ink = np.zeros_like(region)
    on_card = card[by0:by1, bx0:bx1] > 0  # not the table beside it
    ink[by0:by1, bx0:bx1] = ~_paper_like((off[0][by0:by1, bx0:bx1], off[1][by0:by1, bx0:bx1]), INK_MARGIN) & on_card
    index_length = _index_length(ink, axis)
    if index_length < 0.4 * max(bx1 - bx0, by1 - by0):
        # Print too faint or small to stand apart from the paper: the box's reach along
        # the card's long side, less the margin the detector draws.
        index_length = 0.8 * (abs(float(axis[0])) * (bx1 - bx0) + abs(float(axis[1])) * (by1 - by0))
    if index_length <= 0 or not CARD_LENGTHS[0] <= long_side / index_length <= CARD_LENGTHS[1]:
        return f"{long_side / max(index_length, 1e-6):.1f} index lengths long"
    if _split_share(near, quad) >= SPLIT_SHARE:
        return "two cards side by side"
    quad = quad / scale + np.array([ox, oy])
    return CardOutline(corners=quad.astype(np.float32), long_side=long_side / scale, short_side=short_side / scale,
                       index_length=index_length / scale)


def _off_paper(lab: np.ndarray, paper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How far each pixel of ``lab`` (L*a*b*) is from ``paper``: in lightness, and in colour
    (a*b*). Worked out once a window: each tolerance tried compares against the same."""
    return np.abs(lab[..., 0] - paper[0]), np.hypot(lab[..., 1] - paper[1], lab[..., 2] - paper[2])


def _paper_like(off: tuple[np.ndarray, np.ndarray], factor: float) -> np.ndarray:
    """Which pixels (their distances ``off`` from the paper, :func:`_off_paper`) are within
    ``factor`` times the tolerances of it."""
    return (off[0] < TOL_L * factor) & (off[1] < TOL_AB * factor)


def _split_share(paper: np.ndarray, quad: np.ndarray) -> float:
    """The largest share of not-``paper`` along a line across ``quad`` (a boolean mask and
    the four corners in its pixels): lines within :data:`SPLIT_TILT` degrees of the quad's
    short sides (every :data:`SPLIT_TILT_STEP` degrees), their middles in :data:`SPLIT_SPAN`
    of its length, from one long side to the other. The quad, its sides drawn a pixel inward
    (the outline is found to a pixel), is first warped to an upright rectangle, where such
    lines are its sheared columns."""
    centre = quad.mean(axis=0)
    reach = float(np.min(np.hypot(*(quad - centre).T)))
    if reach <= 2.0:
        return 0.0
    q = centre + (quad - centre) * (1.0 - 1.0 / reach)
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    k = 0 if sides[0] + sides[2] >= sides[1] + sides[3] else 1
    length, width = (sides[k] + sides[k + 2]) / 2.0, (sides[k + 1] + sides[(k + 3) % 4]) / 2.0
    n, m = max(2, int(round(length))), max(2, int(round(width)))
    rect = np.array([[0, 0], [n - 1, 0], [n - 1, m - 1], [0, m - 1]], np.float32)
    warp = cv2.getPerspectiveTransform(np.roll(q, -k, axis=0).astype(np.float32), rect)
    flat = cv2.warpPerspective(paper.astype(np.float32), warp, (n, m), flags=cv2.INTER_NEAREST,
                               borderMode=cv2.BORDER_REPLICATE)
    lo, hi = int(np.floor(SPLIT_SPAN[0] * (n - 1))), int(np.ceil(SPLIT_SPAN[1] * (n - 1))) + 1
    share = 0.0
    for tilt in np.deg2rad(np.arange(-SPLIT_TILT, SPLIT_TILT + 1e-6, SPLIT_TILT_STEP)):
        slope = float(np.tan(tilt))  # each column leans this far along per row, about the middle row
        shear = np.array([[1.0, slope, -slope * (m - 1) / 2.0], [0.0, 1.0, 0.0]], np.float32)
        lines = cv2.warpAffine(flat, shear, (n, m), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        share = max(share, 1.0 - float(lines[:, lo:hi].mean(axis=0).min()))
    return share


def _centre(box: Box) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0)


def same_card(image: np.ndarray, a: Box, b: Box) -> bool:
    """Whether index boxes ``a`` and ``b`` are the two corners of one card in ``image``: at
    opposite corners of the card found around ``a``."""
    outline = outline_at(image, a)
    return outline is not None and outline.pairs(a, b)
