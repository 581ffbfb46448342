"""Procedural artwork of the playing cards: court figures (J, Q, K) and card backs.

The artwork only has to look like a card's, and to vary enough that a reader
learns the corner index rather than one deck's pictures: every court card is
drawn afresh from the deck's style and palette, and most styles are
double-headed (the lower half is the upper half turned 180 degrees, as on real
court cards).

>>> rng = np.random.default_rng(0)
>>> img = np.full((120, 80, 3), 250, np.uint8)
>>> draw_court(img, rng, "classic", "K", (10, 12, 70, 108), PALETTES[0], (20, 20, 20), "serif-bold")
>>> bool((img[12:108, 10:70] != 250).any())
True
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision.synth import card_fonts

Colour = tuple[int, int, int]

# Court palettes (sRGB): the traditional red / blue / gold / black, and a few modern ones.
PALETTES: tuple[tuple[Colour, ...], ...] = (
    ((196, 30, 40), (30, 60, 150), (232, 180, 40), (20, 20, 20)),
    ((180, 40, 50), (40, 90, 60), (220, 170, 60), (30, 30, 30)),
    ((200, 60, 40), (40, 40, 120), (240, 200, 90), (90, 60, 30)),
    ((120, 40, 120), (40, 120, 160), (230, 190, 70), (25, 25, 25)),
    ((210, 90, 40), (30, 100, 110), (240, 220, 160), (60, 40, 30)),
    ((150, 20, 30), (20, 30, 70), (200, 160, 60), (10, 10, 10)),
)
SKIN: tuple[Colour, ...] = ((246, 214, 180), (236, 200, 160), (250, 228, 200), (222, 180, 140))
COURT_STYLES: tuple[str, ...] = ("classic", "geometric", "silhouette", "minimal", "mosaic", "woodcut", "stained-glass", "portrait")
HELDOUT_COURT_STYLES: tuple[str, ...] = ("mosaic",)
# Drawn only when a training set asks for wider deck designs (``CardOptions.wide_decks``),
# so that the sets rendered before them keep their bytes. Busy, many-coloured artwork
# beside the index is what real court cards have and what the reader most often loses
# an index against.
EXTRA_COURT_STYLES: tuple[str, ...] = ("woodcut", "stained-glass", "portrait")
TRAIN_COURT_STYLES: tuple[str, ...] = tuple(s for s in COURT_STYLES if s not in HELDOUT_COURT_STYLES and s not in EXTRA_COURT_STYLES)
BACK_PATTERNS: tuple[str, ...] = ("lattice", "dots", "checker", "rings", "emblem", "swirl", "stripes")


def _pick(rng: np.random.Generator, items: tuple) -> object:
    return items[int(rng.integers(len(items)))]


def _poly(img: np.ndarray, pts: np.ndarray, colour: Colour) -> None:
    cv2.fillPoly(img, [np.round(np.asarray(pts) * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)


def _line(img: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], colour: Colour, width: float) -> None:
    cv2.line(img, (int(p0[0] * 16), int(p0[1] * 16)), (int(p1[0] * 16), int(p1[1] * 16)), colour, max(1, int(round(width))), cv2.LINE_AA, 4)


def _circle(img: np.ndarray, c: tuple[float, float], r: float, colour: Colour, width: int = -1) -> None:
    cv2.circle(img, (int(c[0] * 16), int(c[1] * 16)), max(1, int(r * 16)), colour, width, cv2.LINE_AA, 4)


def _letter(img: np.ndarray, text: str, font: str, cx: float, cy: float, height: float, colour: Colour) -> None:
    """A rank letter ``height`` px tall (cap height) centred on (cx, cy)."""
    size = max(4, int(round(height / card_fonts.cap_ratio(font))))
    f = card_fonts.load(font, size)
    x0, y0, x1, y1 = f.getbbox(text)
    w, h = x1 - x0 + 4, y1 - y0 + 4
    im = Image.new("L", (w, h), 0)
    ImageDraw.Draw(im).text((2 - x0, 2 - y0), text, font=f, fill=255)
    m = np.asarray(im, np.float32) / 255.0
    blend(img, m, int(round(cx - w / 2)), int(round(cy - h / 2)), colour)


def blend(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour: Colour) -> None:
    """Paint ``colour`` through coverage ``mask`` (float 0..1) with its top-left at (x, y)."""
    h, w = mask.shape
    X0, Y0, X1, Y1 = max(0, x), max(0, y), min(img.shape[1], x + w), min(img.shape[0], y + h)
    if X0 >= X1 or Y0 >= Y1:
        return
    m = mask[Y0 - y : Y1 - y, X0 - x : X1 - x, None]
    win = img[Y0:Y1, X0:X1].astype(np.float32)
    img[Y0:Y1, X0:X1] = (win * (1.0 - m) + np.array(colour, np.float32) * m + 0.5).astype(np.uint8)


def _half_figure(half: np.ndarray, rng: np.random.Generator, rank: str, palette: tuple[Colour, ...], ink: Colour) -> None:
    """The upper half of a double-headed court figure, drawn into ``half`` (h, w, 3)."""
    h, w = half.shape[:2]
    main, second, gold, dark = palette
    robe, trim = (main, second) if rng.random() < 0.5 else (second, main)
    cx = w * float(rng.uniform(0.42, 0.58))
    head_r = w * float(rng.uniform(0.1, 0.14))
    head_y = h * float(rng.uniform(0.3, 0.4))
    # Robe: shoulders down to the middle of the card, with a pattern.
    sh = head_y + head_r * 1.1
    _poly(half, [(cx - w * 0.42, h + 1), (cx - w * 0.3, sh), (cx + w * 0.3, sh), (cx + w * 0.42, h + 1)], robe)
    pattern = int(rng.integers(4))
    step = max(3.0, w * float(rng.uniform(0.06, 0.12)))
    if pattern == 0:
        for x in np.arange(cx - w * 0.4, cx + w * 0.4, step * 2):
            _poly(half, [(x, sh + step), (x + step, sh + step), (x + step * 0.8, h), (x + step * 0.2, h)], trim)
    elif pattern == 1:
        for y in np.arange(sh + step, h, step * 1.5):
            for x in np.arange(cx - w * 0.36, cx + w * 0.36, step * 1.5):
                _circle(half, (x, y), step * 0.3, gold)
    elif pattern == 2:
        for y in np.arange(sh + step, h + step, step * 1.4):
            xs = np.arange(cx - w * 0.4, cx + w * 0.4, step)
            pts = [(x, y + (step * 0.5 if i % 2 else 0.0)) for i, x in enumerate(xs)]
            cv2.polylines(half, [np.round(np.array(pts) * 16).astype(np.int32)], False, trim, max(1, int(step * 0.3)), cv2.LINE_AA, 4)
    else:
        _poly(half, [(cx - w * 0.08, sh), (cx + w * 0.08, sh), (cx + w * 0.16, h), (cx - w * 0.16, h)], gold)
    # Collar, hair, face.
    _poly(half, [(cx - w * 0.22, sh), (cx + w * 0.22, sh), (cx, sh + head_r * 0.9)], gold)
    hair = (dark, gold, (120, 70, 30), (40, 30, 25))[int(rng.integers(4))]
    cv2.ellipse(half, (int(cx * 16), int((head_y + head_r * 0.2) * 16)), (int(head_r * 1.25 * 16), int(head_r * 1.35 * 16)), 0, 0, 360, hair, -1, cv2.LINE_AA, 4)
    _circle(half, (cx, head_y), head_r, _pick(rng, SKIN))  # type: ignore[arg-type]
    eye = max(1.0, head_r * 0.12)
    _circle(half, (cx - head_r * 0.38, head_y - head_r * 0.1), eye, ink)
    _circle(half, (cx + head_r * 0.38, head_y - head_r * 0.1), eye, ink)
    _line(half, (cx - head_r * 0.3, head_y + head_r * 0.45), (cx + head_r * 0.3, head_y + head_r * 0.45), main, max(1.0, head_r * 0.12))
    top = head_y - head_r * 0.9
    if rank == "K":  # a pointed crown, and a beard
        n = int(rng.integers(3, 6))
        xs = np.linspace(cx - head_r * 1.1, cx + head_r * 1.1, 2 * n + 1)
        pts = [(xs[0], top)] + [(x, top - head_r * (0.9 if i % 2 else 0.2)) for i, x in enumerate(xs[1:-1], 1)] + [(xs[-1], top), (xs[-1], top + head_r * 0.3), (xs[0], top + head_r * 0.3)]
        _poly(half, pts, gold)
        _poly(half, [(cx - head_r * 0.7, head_y + head_r * 0.55), (cx + head_r * 0.7, head_y + head_r * 0.55), (cx, head_y + head_r * 1.6)], hair)
        item = "sword"
    elif rank == "Q":  # a rounded crown with jewels
        cv2.ellipse(half, (int(cx * 16), int(top * 16)), (int(head_r * 1.05 * 16), int(head_r * 0.55 * 16)), 0, 180, 360, gold, -1, cv2.LINE_AA, 4)
        for dx in (-0.6, 0.0, 0.6):
            _circle(half, (cx + dx * head_r, top - head_r * 0.35), head_r * 0.16, main)
        item = "flower"
    else:  # a cap with a feather
        _poly(half, [(cx - head_r * 1.2, top + head_r * 0.25), (cx + head_r * 1.0, top + head_r * 0.25), (cx + head_r * 0.6, top - head_r * 0.5), (cx - head_r * 0.8, top - head_r * 0.4)], second)
        _line(half, (cx + head_r * 0.5, top - head_r * 0.2), (cx + head_r * 1.6, top - head_r * 1.2), gold, max(2.0, head_r * 0.25))
        item = "staff"
    side = 1.0 if rng.random() < 0.5 else -1.0
    ix = cx + side * w * float(rng.uniform(0.28, 0.38))
    if item == "sword":
        _line(half, (ix, h * 0.15), (ix, h), (200, 200, 205), max(2.0, w * 0.03))
        _line(half, (ix - w * 0.07, h * 0.62), (ix + w * 0.07, h * 0.62), gold, max(2.0, w * 0.03))
    elif item == "flower":
        c = (ix, h * float(rng.uniform(0.45, 0.7)))
        for a in np.linspace(0, 2 * math.pi, 6, endpoint=False):
            _circle(half, (c[0] + math.cos(a) * w * 0.05, c[1] + math.sin(a) * w * 0.05), w * 0.04, main)
        _circle(half, c, w * 0.035, gold)
        _line(half, c, (ix, h), (40, 110, 50), max(1.0, w * 0.015))
    else:
        _line(half, (ix, h * 0.1), (ix, h), (120, 80, 40), max(2.0, w * 0.025))
        _poly(half, [(ix, h * 0.02), (ix + w * 0.05, h * 0.14), (ix, h * 0.2), (ix - w * 0.05, h * 0.14)], (190, 190, 195))


def _hatch(half: np.ndarray, rng: np.random.Generator, colour: Colour, where: np.ndarray) -> None:
    """Engraver's hatching: parallel thin lines in ``colour`` over the pixels ``where`` is true."""
    h, w = half.shape[:2]
    lines = half.copy()
    angle = float(rng.uniform(0, math.pi))
    step = max(2.0, w * float(rng.uniform(0.025, 0.05)))
    lw = max(1.0, step * 0.3)
    dx, dy = math.cos(angle), math.sin(angle)
    reach = float(h + w)
    for t in np.arange(-reach, reach, step):
        px, py = w / 2 - dy * t, h / 2 + dx * t
        _line(lines, (px - dx * reach, py - dy * reach), (px + dx * reach, py + dy * reach), colour, lw)
    half[where] = lines[where]


def _woodcut_half(half: np.ndarray, rng: np.random.Generator, rank: str, palette: tuple[Colour, ...], ink: Colour) -> None:
    """A court figure as an old woodcut: the figure, hatched over, and a hatched ground."""
    stock = half.copy()
    _half_figure(half, rng, rank, palette, ink)
    figure = np.any(np.abs(half.astype(np.int16) - stock) > 12, axis=2)
    dark = palette[3]
    _hatch(half, rng, dark, figure)
    if rng.random() < 0.6:  # the ground behind the figure, hatched at its own angle in a paler ink
        pale = tuple(int(v * 0.45 + 250 * 0.55) for v in palette[int(rng.integers(3))])
        _hatch(half, rng, pale, ~figure)  # type: ignore[arg-type]


def _glass_half(half: np.ndarray, rng: np.random.Generator, palette: tuple[Colour, ...]) -> None:
    """Stained glass: Voronoi cells in the palette's colours, leaded with dark lines."""
    h, w = half.shape[:2]
    n = int(rng.integers(12, 30))
    pts = rng.uniform([0, 0], [w, h], (n, 2)).astype(np.float32)
    yy, xx = np.mgrid[:h, :w].astype(np.float32)
    d = (xx[None] - pts[:, 0, None, None]) ** 2 + (yy[None] - pts[:, 1, None, None]) ** 2
    cell = np.argmin(d, axis=0)
    colours = np.array([_pick(rng, palette) if rng.random() < 0.8 else (236, 228, 200) for _ in range(n)], np.uint8)
    half[:] = colours[cell]
    lead = np.zeros((h, w), bool)
    lead[:, 1:] |= cell[:, 1:] != cell[:, :-1]
    lead[1:, :] |= cell[1:, :] != cell[:-1, :]
    k = max(1, int(round(w * 0.012)))
    lead = cv2.dilate(lead.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    half[lead] = palette[3]


def _portrait_half(half: np.ndarray, rng: np.random.Generator, rank: str, palette: tuple[Colour, ...], ink: Colour) -> None:
    """A shaded oval medallion round the figure, with scrolls in the corners."""
    h, w = half.shape[:2]
    main, second, gold, dark = palette
    yy, xx = np.mgrid[:h, :w].astype(np.float32)
    cx, cy = w / 2, h * 0.62
    r = np.sqrt(((xx - cx) / (w * 0.5)) ** 2 + ((yy - cy) / (h * 0.62)) ** 2)
    inside = r < 1.0
    shade = np.clip(r, 0, 1)[..., None]
    ground = np.array(_pick(rng, (second, main, gold)), np.float32)
    half[inside] = (ground * (1.0 - 0.55 * shade) + np.array(dark, np.float32) * 0.55 * shade)[inside].astype(np.uint8)
    _half_figure(half, rng, rank, palette, ink)
    half[~inside & (r < 1.06)] = gold
    for sx in (0.0, 1.0):  # scrolls: a few nested arcs in each top corner
        c = (int(sx * w * 16), 0)
        for i in range(int(rng.integers(2, 5))):
            rad = int(w * (0.1 + 0.06 * i) * 16)
            cv2.ellipse(half, c, (rad, rad), 0, 0, 360, _pick(rng, (gold, dark, main)), max(1, int(w * 0.015)), cv2.LINE_AA, 4)  # type: ignore[arg-type]


def _border_motifs(img: np.ndarray, rng: np.random.Generator, box: tuple[int, int, int, int], palette: tuple[Colour, ...]) -> None:
    """Small repeated diamonds along the inside of the artwork's frame."""
    x0, y0, x1, y1 = box
    step = max(4.0, (x1 - x0) * float(rng.uniform(0.05, 0.08)))
    s = step * 0.35
    colour = _pick(rng, palette)
    centres = [(x, y) for x in np.arange(x0 + step / 2, x1, step) for y in (y0 + s + 1, y1 - s - 1)]
    centres += [(x, y) for y in np.arange(y0 + step / 2, y1, step) for x in (x0 + s + 1, x1 - s - 1)]
    for x, y in centres:
        _poly(img, [(x, y - s), (x + s, y), (x, y + s), (x - s, y)], colour)  # type: ignore[arg-type]


def _double(img: np.ndarray, box: tuple[int, int, int, int], draw) -> None:
    """Draw the upper half with ``draw(half)`` and put it, turned 180 degrees, below too."""
    x0, y0, x1, y1 = box
    hh = (y1 - y0) // 2
    half = img[y0 : y0 + hh, x0:x1].copy()
    draw(half)
    img[y0 : y0 + hh, x0:x1] = half
    img[y1 - hh : y1, x0:x1] = half[::-1, ::-1]


def draw_court(
    img: np.ndarray,
    rng: np.random.Generator,
    style: str,
    rank: str,
    box: tuple[int, int, int, int],
    palette: tuple[Colour, ...],
    ink: Colour,
    font: str,
) -> None:
    """Court artwork for ``rank`` (J, Q or K) inside the pixel ``box`` (x0, y0, x1, y1) of ``img``."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    main, second, gold, dark = palette
    line_w = max(1.0, bw * 0.012)
    if style == "classic":
        _double(img, box, lambda half: _half_figure(half, rng, rank, palette, ink))
        if rng.random() < 0.6:
            _line(img, (x0, y0 + bh * 0.55), (x1, y0 + bh * 0.45), dark, line_w)
        else:
            _line(img, (x0, y0 + bh / 2), (x1, y0 + bh / 2), dark, line_w)
    elif style == "geometric":
        def shapes(half: np.ndarray) -> None:
            h, w = half.shape[:2]
            for _ in range(int(rng.integers(6, 14))):
                c = rng.uniform([0, 0], [w, h])
                r = float(rng.uniform(0.08, 0.3)) * w
                n = int(rng.integers(3, 6))
                a0 = float(rng.uniform(0, 2 * math.pi))
                pts = [(c[0] + r * math.cos(a0 + 2 * math.pi * i / n), c[1] + r * math.sin(a0 + 2 * math.pi * i / n)) for i in range(n)]
                _poly(half, pts, _pick(rng, palette))  # type: ignore[arg-type]
        _double(img, box, shapes)
        cx, cy = x0 + bw / 2, y0 + bh / 2
        _circle(img, (cx, cy), bw * 0.3, (248, 246, 240))
        _circle(img, (cx, cy), bw * 0.3, dark, max(1, int(round(line_w))))
        _letter(img, rank, font, cx, cy, bw * 0.32, ink)
    elif style == "silhouette":
        colour = _pick(rng, (main, second, dark))

        def bust(half: np.ndarray) -> None:
            h, w = half.shape[:2]
            cx = w * 0.5
            _circle(half, (cx, h * 0.4), w * 0.16, colour)  # type: ignore[arg-type]
            cv2.ellipse(half, (int(cx * 16), int(h * 1.05 * 16)), (int(w * 0.42 * 16), int(h * 0.45 * 16)), 0, 180, 360, colour, -1, cv2.LINE_AA, 4)  # type: ignore[arg-type]
            if rank != "J":
                _poly(half, [(cx - w * 0.16, h * 0.24), (cx - w * 0.1, h * 0.12), (cx, h * 0.2), (cx + w * 0.1, h * 0.12), (cx + w * 0.16, h * 0.24)], gold)
        _double(img, box, bust)
        _letter(img, rank, font, x0 + bw * 0.8, y0 + bh * 0.1, bw * 0.16, ink)
    elif style == "minimal":
        _letter(img, rank, font, x0 + bw / 2, y0 + bh / 2, min(bw, bh) * float(rng.uniform(0.35, 0.55)), ink)
    elif style == "woodcut":
        _double(img, box, lambda half: _woodcut_half(half, rng, rank, palette, ink))
        _line(img, (x0, y0 + bh / 2), (x1, y0 + bh / 2), dark, line_w)
    elif style == "stained-glass":
        _double(img, box, lambda half: _glass_half(half, rng, palette))
        if rng.random() < 0.7:
            cx, cy = x0 + bw / 2, y0 + bh / 2
            r = bw * float(rng.uniform(0.16, 0.24))
            _circle(img, (cx, cy), r, (248, 246, 240))
            _circle(img, (cx, cy), r, dark, max(1, int(round(line_w * 1.5))))
            _letter(img, rank, font, cx, cy, r * 1.1, ink)
    elif style == "portrait":
        _double(img, box, lambda half: _portrait_half(half, rng, rank, palette, ink))
        _border_motifs(img, rng, box, palette)
    else:  # mosaic (held out)
        n = int(rng.integers(5, 9))
        tile = bw / n
        for i in range(n):
            for j in range(int(bh / tile) + 1):
                col = _pick(rng, palette) if rng.random() < 0.7 else (248, 246, 240)
                _poly(img, [(x0 + i * tile + 1, y0 + j * tile + 1), (x0 + (i + 1) * tile - 1, y0 + j * tile + 1), (x0 + (i + 1) * tile - 1, min(y1, y0 + (j + 1) * tile) - 1), (x0 + i * tile + 1, min(y1, y0 + (j + 1) * tile) - 1)], col)  # type: ignore[arg-type]
        cx, cy = x0 + bw / 2, y0 + bh / 2
        _poly(img, [(cx, cy - bh * 0.25), (cx + bw * 0.35, cy), (cx, cy + bh * 0.25), (cx - bw * 0.35, cy)], (248, 246, 240))
        _letter(img, rank, font, cx, cy, bw * 0.28, ink)
    frame = (dark, main, second, gold)[int(rng.integers(4))]
    cv2.rectangle(img, (int(x0 * 16), int(y0 * 16)), (int((x1 - 1) * 16), int((y1 - 1) * 16)), frame, max(1, int(round(line_w))), cv2.LINE_AA, 4)


def draw_back(img: np.ndarray, rng: np.random.Generator, pattern: str, colour: Colour, accent: Colour, margin_px: float, k: float) -> None:
    """A card back pattern over ``img`` (sRGB uint8), leaving a ``margin_px`` border of the stock."""
    h, w = img.shape[:2]
    m = int(round(margin_px))
    inner = img[m : h - m, m : w - m]
    ih, iw = inner.shape[:2]
    inner[:] = colour
    step = max(3.0, float(rng.uniform(2.0, 5.0)) * k)
    lw = max(1, int(round(float(rng.uniform(0.25, 0.7)) * k)))
    if pattern == "lattice":
        for i in np.arange(-ih, iw + ih, step):
            _line(inner, (i, 0), (i + ih, ih), accent, lw)
            _line(inner, (i, ih), (i + ih, 0), accent, lw)
    elif pattern == "dots":
        for y in np.arange(step / 2, ih, step):
            for x in np.arange(step / 2 + (step / 2 if int(y / step) % 2 else 0), iw, step):
                _circle(inner, (x, y), step * 0.25, accent)
    elif pattern == "checker":
        cs = int(step)
        yy, xx = np.mgrid[:ih, :iw]
        inner[((yy // cs + xx // cs) % 2) == 1] = accent
    elif pattern == "rings":
        for r in np.arange(0, max(ih, iw) / 2, step):
            cv2.rectangle(inner, (int(r), int(r)), (int(iw - 1 - r), int(ih - 1 - r)), accent, lw, cv2.LINE_AA)
    elif pattern == "emblem":
        c = (iw / 2, ih / 2)
        cv2.ellipse(inner, (int(c[0] * 16), int(c[1] * 16)), (int(iw * 0.32 * 16), int(ih * 0.22 * 16)), 0, 0, 360, accent, -1, cv2.LINE_AA, 4)
        cv2.ellipse(inner, (int(c[0] * 16), int(c[1] * 16)), (int(iw * 0.26 * 16), int(ih * 0.17 * 16)), 0, 0, 360, colour, -1, cv2.LINE_AA, 4)
        for a in np.linspace(0, 2 * math.pi, 12, endpoint=False):
            _circle(inner, (c[0] + math.cos(a) * iw * 0.18, c[1] + math.sin(a) * ih * 0.11), step * 0.25, accent)
    elif pattern == "swirl":
        q = np.zeros((ih // 2 + 1, iw // 2 + 1, 3), np.uint8)
        q[:] = colour
        for _ in range(int(rng.integers(8, 20))):
            pts = rng.uniform([0, 0], [q.shape[1], q.shape[0]], (4, 2))
            t = np.linspace(0, 1, 24)[:, None]
            curve = (1 - t) ** 3 * pts[0] + 3 * (1 - t) ** 2 * t * pts[1] + 3 * (1 - t) * t**2 * pts[2] + t**3 * pts[3]
            cv2.polylines(q, [np.round(curve * 16).astype(np.int32)], False, accent, lw, cv2.LINE_AA, 4)
        full = np.concatenate([np.concatenate([q, q[:, ::-1]], axis=1), np.concatenate([q[::-1], q[::-1, ::-1]], axis=1)], axis=0)
        inner[:] = full[:ih, :iw]
    else:  # stripes
        for i in np.arange(-ih, iw, step):
            _line(inner, (i, 0), (i + ih, ih), accent, max(lw, int(step * 0.35)))
    if m > 2:
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), accent, max(1, lw // 2), cv2.LINE_AA)
