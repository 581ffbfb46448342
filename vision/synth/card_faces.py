"""Flat playing-card faces: corner indices, pips, aces, court cards and backs.

A :class:`CardDesign` is one deck's look (size, card stock, index font and
size, suit style, inks, court style, back); :func:`sample_design` draws one,
and :func:`draw_face` paints any card of that deck at a given resolution,
returning where its corner indices are (in millimetres on the card, origin at
the card's top-left corner) so a scene can label them.

Cards are French-suited: ranks A 2-10 J Q K, suits S H D C (spades and clubs
black, hearts and diamonds red; a rare four-colour deck prints clubs green and
diamonds blue). The pip layouts of 2-10 are the standard ones; pips on the
lower half are turned upside down, as printed.

>>> design = sample_design(np.random.default_rng(0))
>>> face = draw_face("10H", design, px_per_mm=4.0)
>>> face.rgb.shape[2], face.card, [m.corner for m in face.indices][:2]
(3, '10H', ['tl', 'br'])
>>> parse_card("QS")
('Q', 'S')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision.read.detections import CARD_RANKS, CARD_SUITS, Card, InvalidCard
from vision.synth import card_art, card_fonts
from vision.synth.card_suits import ALL_SUIT_STYLES, EXTRA_SUIT_STYLES, SUIT_STYLES, draw_suit, suit_aspect
from vision.synth.errors import UnknownCard

Colour = tuple[int, int, int]

ALL_CARDS: tuple[str, ...] = tuple(r + s for s in CARD_SUITS for r in CARD_RANKS)
# The share of wide decks with the font pool that take a pool font (sample_design).
POOL_SHARE = 0.5
DECK_SIZES_MM: dict[str, tuple[float, float]] = {"poker": (63.0, 88.0), "bridge": (57.0, 89.0)}
STOCKS: dict[str, Colour] = {"white": (247, 247, 244), "bright": (252, 252, 251), "cream": (243, 235, 216), "ivory": (246, 241, 228), "cool": (240, 244, 249)}
BORDERS: tuple[str, ...] = ("none", "edge", "pip-frame")

# Pip centres for 2-10 as fractions of the pip area (0, 0 = top-left pip, 1, 1 = bottom-right).
PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((0.5, 0.0), (0.5, 1.0)),
    3: ((0.5, 0.0), (0.5, 0.5), (0.5, 1.0)),
    4: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)),
    5: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0)),
    6: ((0.0, 0.0), (1.0, 0.0), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    7: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.0, 1.0), (1.0, 1.0)),
    8: ((0.0, 0.0), (1.0, 0.0), (0.5, 0.25), (0.0, 0.5), (1.0, 0.5), (0.5, 0.75), (0.0, 1.0), (1.0, 1.0)),
    9: ((0.0, 0.0), (1.0, 0.0), (0.0, 1 / 3), (1.0, 1 / 3), (0.5, 0.5), (0.0, 2 / 3), (1.0, 2 / 3), (0.0, 1.0), (1.0, 1.0)),
    10: ((0.0, 0.0), (1.0, 0.0), (0.5, 1 / 6), (0.0, 1 / 3), (1.0, 1 / 3), (0.0, 2 / 3), (1.0, 2 / 3), (0.5, 5 / 6), (0.0, 1.0), (1.0, 1.0)),
}


def parse_card(code: str) -> tuple[str, str]:
    """``"10H"`` -> ``("10", "H")``; anything else raises :class:`UnknownCard`."""
    try:
        card = Card.parse(code)
    except InvalidCard:
        raise UnknownCard(str(code)) from None
    return card.rank, card.suit


@dataclass(frozen=True)
class CardDesign:
    """One deck's look; every card of a deck shares it."""

    deck: str  # "poker" (63 x 88 mm) or "bridge" (57 x 89 mm)
    stock: Colour  # card colour, sRGB
    corner_mm: float  # corner radius
    border: str  # see BORDERS
    index_font: str  # a name in card_fonts.INDEX_FONTS or card_fonts.POOL_INDEX_FONTS
    rank_mm: float  # cap height of the index rank
    suit_mm: float  # height of the index suit symbol
    index_cx_mm: float  # centre of the index column from the card's left edge
    index_top_mm: float  # top of the rank from the card's top edge
    index_gap_mm: float  # between rank and suit
    stretch: float  # horizontal scale of the rank glyphs
    ten_squeeze: float  # extra horizontal scale of "10" (1 = as the font draws it)
    embolden_mm: float  # extra stroke added to the rank (0 = the font's weight)
    four_index: bool  # indices in all four corners
    suit_style: str  # a name in card_suits.ALL_SUIT_STYLES
    four_colour: bool  # clubs green, diamonds blue
    red: Colour
    black: Colour
    pip_mm: float  # pip height
    pip_inset: tuple[float, float]  # pip area inset from the edges, as fractions of width and height
    ace_scale: float  # ace pip height / pip height
    fancy_ace: bool  # a decorated ace of spades
    court_style: str  # a name in card_art.COURT_STYLES
    palette: tuple[Colour, ...]
    back_pattern: str  # a name in card_art.BACK_PATTERNS
    back_colour: Colour
    back_accent: Colour
    back_margin_mm: float
    gloss: float  # strength of the lamp's reflection on the card's finish
    shininess: float

    @property
    def size_mm(self) -> tuple[float, float]:
        return DECK_SIZES_MM[self.deck]

    def ink(self, suit: str) -> Colour:
        if self.four_colour and suit == "C":
            return (20, 120, 50)
        if self.four_colour and suit == "D":
            return (25, 70, 180)
        return self.red if suit in "HD" else self.black

    def to_json(self) -> dict:
        def plain(v: object) -> object:
            if isinstance(v, float):
                return round(v, 3)
            if isinstance(v, (tuple, list)):
                return [plain(x) for x in v]
            return v

        return {k: plain(v) for k, v in dataclasses.asdict(self).items()}


def _jitter(rng: np.random.Generator, c: Colour, amount: float) -> Colour:
    return tuple(int(np.clip(v + rng.normal(0.0, amount), 0, 255)) for v in c)  # type: ignore[return-value]


def sample_design(rng: np.random.Generator, heldout: bool = False, wide: bool = False, pool: bool = False) -> CardDesign:
    """A random deck. ``heldout`` decks use only the held-out index font and court style.

    ``wide`` training decks also draw the extra index fonts and court styles
    (``card_fonts.EXTRA_INDEX_FONTS``, ``card_art.EXTRA_COURT_STYLES``), and half of them
    one of the extra suit styles (``card_suits.EXTRA_SUIT_STYLES``, drawn after the rest);
    the other draws are the same either way, so a seed picks the same deck but for its
    font, court style and suits. A wide deck with the font ``pool`` takes, in
    :data:`POOL_SHARE` of decks, one of Debian's fonts (``card_fonts.POOL_INDEX_FONTS``)
    instead, drawn last: otherwise the deck its seed gives as a wide deck.

    >>> sample_design(np.random.default_rng(1), wide=True).court_style in card_art.COURT_STYLES
    True
    """
    if heldout and wide:
        raise ValueError("a held-out deck cannot also be a wide training deck")
    if pool and not wide:
        raise ValueError("the font pool is for wide training decks")
    deck = "poker" if rng.random() < 0.7 else "bridge"
    w, h = DECK_SIZES_MM[deck]
    stock_name = str(rng.choice(list(STOCKS), p=[0.45, 0.2, 0.15, 0.12, 0.08]))
    fonts = card_fonts.HELDOUT_INDEX_FONTS if heldout else card_fonts.TRAIN_INDEX_FONTS + (card_fonts.EXTRA_INDEX_FONTS if wide else ())
    font = str(fonts[int(rng.choice(len(fonts), p=card_fonts.font_weights(fonts)))])
    jumbo = rng.random() < 0.12
    rank_mm = float(rng.uniform(8.5, 11.0) if jumbo else rng.uniform(5.6, 8.0))
    suit_mm = rank_mm * float(rng.uniform(0.55, 0.82))
    border = str(rng.choice(BORDERS, p=[0.7, 0.15, 0.15]))
    edge_pad = 1.8 if border == "edge" else 0.0
    cx = float(rng.uniform(3.6, 5.2)) + rank_mm * 0.12 + edge_pad
    courts = card_art.HELDOUT_COURT_STYLES if heldout else card_art.TRAIN_COURT_STYLES + (card_art.EXTRA_COURT_STYLES if wide else ())
    pip_mm = float(rng.uniform(0.13, 0.18)) * w
    # The pip columns stay clear of the index column.
    min_x = (cx + rank_mm * 0.75 + pip_mm * 0.6 + 1.0) / w
    back_colour = ((170, 30, 40), (30, 60, 150), (30, 110, 70), (40, 40, 40), (90, 40, 110), (20, 30, 70), (120, 30, 30))[int(rng.integers(7))]
    design = CardDesign(
        deck=deck,
        stock=_jitter(rng, STOCKS[stock_name], 2.0),
        corner_mm=float(rng.uniform(2.4, 4.2)),
        border=border,
        index_font=font,
        rank_mm=rank_mm,
        suit_mm=suit_mm,
        index_cx_mm=cx,
        index_top_mm=float(rng.uniform(2.6, 4.6)) + edge_pad,
        index_gap_mm=float(rng.uniform(0.3, 1.3)),
        stretch=float(rng.uniform(0.82, 1.12)),
        ten_squeeze=float(rng.uniform(0.6, 0.8)) if rng.random() < 0.35 else 1.0,
        embolden_mm=float(rng.uniform(0.08, 0.25)) if rng.random() < 0.25 else 0.0,
        four_index=bool(rng.random() < 0.1),
        suit_style=str(rng.choice(list(SUIT_STYLES))),
        four_colour=bool(rng.random() < 0.05),
        red=_jitter(rng, (200, 24, 36), 10.0),
        black=_jitter(rng, (22, 22, 26), 5.0),
        pip_mm=pip_mm,
        pip_inset=(max(min_x, float(rng.uniform(0.25, 0.31))), float(rng.uniform(0.17, 0.21))),
        ace_scale=float(rng.uniform(1.8, 3.0)),
        fancy_ace=bool(rng.random() < 0.6),
        court_style=str(courts[int(rng.integers(len(courts)))]),
        palette=card_art.PALETTES[int(rng.integers(len(card_art.PALETTES)))],
        back_pattern=str(card_art.BACK_PATTERNS[int(rng.integers(len(card_art.BACK_PATTERNS)))]),
        back_colour=_jitter(rng, back_colour, 8.0),
        back_accent=_jitter(rng, (235, 232, 225), 8.0) if rng.random() < 0.8 else _jitter(rng, (200, 170, 80), 10.0),
        back_margin_mm=float(rng.uniform(2.0, 5.0)) if rng.random() < 0.75 else 0.0,
        gloss=float(rng.uniform(0.03, 0.35)),
        shininess=float(rng.uniform(20.0, 220.0)),
    )
    if wide and rng.random() < 0.5:  # drawn last, so a wide deck is otherwise the deck its seed gives
        design = dataclasses.replace(design, suit_style=str(rng.choice(list(EXTRA_SUIT_STYLES))))
    if pool and rng.random() < POOL_SHARE:
        names = tuple(card_fonts.POOL_INDEX_FONTS)
        design = dataclasses.replace(design, index_font=names[int(rng.integers(len(names)))])
    return design


@dataclass(frozen=True, eq=False)
class IndexMark:
    """One corner index (rank + suit) on a flat card, in card millimetres (x right, y down)."""

    corner: str  # "tl", "br" (turned 180 degrees), and on four-index decks "tr", "bl"
    rect_mm: np.ndarray  # (4, 2) the tight rectangle around the ink, clockwise from top-left
    hull_mm: np.ndarray  # (k, 2) convex hull of the ink


@dataclass(frozen=True, eq=False)
class CardFace:
    """A drawn card: sRGB pixels, coverage (rounded corners), and where its indices are."""

    card: str  # "10H", or "back"
    design: CardDesign
    rgb: np.ndarray  # (h, w, 3) uint8 sRGB
    alpha: np.ndarray  # (h, w) float32
    px_per_mm: float
    indices: tuple[IndexMark, ...]
    pip_box_mm: tuple[float, float, float, float] | None  # where the pips of 2-10 are (x0, y0, x1, y1)

    @property
    def size_mm(self) -> tuple[float, float]:
        """Width and height of the drawn card (the pixel grid, so it maps exactly)."""
        h, w = self.alpha.shape
        return w / self.px_per_mm, h / self.px_per_mm


@lru_cache(maxsize=256)
def _rank_mask(font: str, rank: str, cap_px: float, stretch: float, embolden_px: float) -> np.ndarray:
    """Coverage (float32, tight) of the rank text ``cap_px`` tall."""
    size = max(4, int(round(cap_px / card_fonts.cap_ratio(font))))
    f = card_fonts.load(font, size)
    x0, y0, x1, y1 = f.getbbox(rank)
    pad = 2 + int(embolden_px + 1)
    im = Image.new("L", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), 0)
    ImageDraw.Draw(im).text((pad - x0, pad - y0), rank, font=f, fill=255)
    m = np.asarray(im, np.float32) / 255.0
    if embolden_px >= 0.4:
        r = int(round(embolden_px))
        m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) if r >= 1 else cv2.dilate(m, np.ones((2, 2), np.uint8))
    if abs(stretch - 1.0) > 0.02:
        m = cv2.resize(m, (max(1, int(round(m.shape[1] * stretch))), m.shape[0]), interpolation=cv2.INTER_AREA if stretch < 1 else cv2.INTER_LINEAR)
    ys, xs = np.nonzero(m > 0.02)
    if not len(ys):  # too small to draw anything: keep the (blank) canvas rather than fail
        return np.ascontiguousarray(m)
    return np.ascontiguousarray(m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


@lru_cache(maxsize=256)
def _suit_mask(suit: str, style: str, height_px: float) -> np.ndarray:
    st = ALL_SUIT_STYLES[style]
    w = int(np.ceil(height_px * suit_aspect(suit, st))) + 4
    h = int(np.ceil(height_px)) + 4
    m = np.zeros((h, w), np.uint8)
    draw_suit(m, suit, st, w / 2.0, h / 2.0, height_px, 255)
    ys, xs = np.nonzero(m)
    if len(ys):
        m = m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    return np.ascontiguousarray(m.astype(np.float32) / 255.0)


def _index_mask(design: CardDesign, rank: str, suit: str, k: float) -> tuple[np.ndarray, int, int]:
    """The index (rank over suit) as one coverage mask, and its top-left on the card in px."""
    squeeze = design.ten_squeeze if rank == "10" else 1.0
    r = _rank_mask(design.index_font, rank, round(design.rank_mm * k, 1), round(design.stretch * squeeze, 3), round(design.embolden_mm * k, 1))
    s = _suit_mask(suit, design.suit_style, round(design.suit_mm * k, 1))
    gap = int(round(design.index_gap_mm * k))
    w = max(r.shape[1], s.shape[1])
    m = np.zeros((r.shape[0] + gap + s.shape[0], w), np.float32)
    rx, sx = (w - r.shape[1]) // 2, (w - s.shape[1]) // 2
    m[: r.shape[0], rx : rx + r.shape[1]] = r
    m[r.shape[0] + gap :, sx : sx + s.shape[1]] = np.maximum(m[r.shape[0] + gap :, sx : sx + s.shape[1]], s)
    x = int(round(design.index_cx_mm * k - w / 2.0))
    x = max(x, int(round(1.2 * k)))  # a wide "10" never runs off the card
    return m, x, int(round(design.index_top_mm * k))


def _ink_outline(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Convex hull and tight box of the ink in ``mask``, in its pixel frame (pixel edges, not centres)."""
    ys, xs = np.nonzero(mask > 0.35)
    if not len(ys):  # a mark too faint to see still needs a place: its whole window
        ys, xs = np.nonzero(np.ones_like(mask))
    pts = np.stack([xs, ys], axis=1).astype(np.int32)
    hull = cv2.convexHull(pts)[:, 0].astype(np.float64) + 0.5
    # Push the hull of pixel centres out by half a pixel so it wraps whole pixels.
    c = hull.mean(axis=0)
    d = hull - c
    hull = c + d * (1.0 + 0.5 / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6))
    box = np.array([xs.min(), ys.min(), xs.max() + 1.0, ys.max() + 1.0])
    return hull, box


def _mark(corner: str, hull: np.ndarray, box: np.ndarray, shape: tuple[int, int], x: int, y: int, k: float) -> IndexMark:
    """The index mark of ``corner``, its mask painted with its top-left at (x, y) (turned 180 on the bottom)."""
    h, w = shape
    x0, y0, x1, y1 = box
    if corner in ("br", "bl"):
        hull = np.array([w, h]) - hull
        x0, y0, x1, y1 = w - x1, h - y1, w - x0, h - y0
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return IndexMark(corner, (rect + [x, y]) / k, (hull + [x, y]) / k)


def _paint(img: np.ndarray, mask: np.ndarray, x: int, y: int, colour: Colour) -> None:
    card_art.blend(img, mask, x, y, colour)


def _rounded_alpha(h: int, w: int, r: float) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    rc = max(1.0, r)
    pts = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    for cx, cy, sx, sy in ((rc, rc, -1, -1), (w - rc, rc, 1, -1), (w - rc, h - rc, 1, 1), (rc, h - rc, -1, 1)):
        x0, x1 = (0, int(np.ceil(rc))) if sx < 0 else (int(np.floor(w - rc)), w)
        y0, y1 = (0, int(np.ceil(rc))) if sy < 0 else (int(np.floor(h - rc)), h)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32) + 0.5
        d = np.hypot(xx - cx, yy - cy)
        outside = ((xx - cx) * sx > 0) & ((yy - cy) * sy > 0)
        cov = np.clip(rc - d + 0.5, 0.0, 1.0) * 255.0
        m[y0:y1, x0:x1] = np.where(outside, np.minimum(m[y0:y1, x0:x1], cov), m[y0:y1, x0:x1]).astype(np.uint8)
    return m.astype(np.float32) / 255.0


def _pip_layout(design: CardDesign, n: int, w_mm: float, h_mm: float, index_right: float) -> tuple[list[tuple[float, float, bool]], float, tuple[float, float, float, float]]:
    """Pip centres (mm, upside down?), the pip height, and the pip area (pip centres' box).

    ``index_right`` is where the corner index ends (mm from the left edge): pips keep clear of it.
    """
    fx, fy = design.pip_inset
    aspect = max(suit_aspect(s, ALL_SUIT_STYLES[design.suit_style]) for s in "SHDC")
    pip = design.pip_mm
    x0 = max(fx * w_mm, index_right + 0.8 + pip * aspect / 2.0)
    x1, y0, y1 = w_mm - x0, fy * h_mm, (1.0 - fy) * h_mm
    # Never so big that neighbours touch: columns half the area apart, rows a third (9, 10) of it.
    pip = min(pip, 0.8 * (x1 - x0) / 2.0 / aspect, 0.78 * (y1 - y0) / 3.0)
    x0 = max(fx * w_mm, index_right + 0.8 + pip * aspect / 2.0)
    x1 = w_mm - x0
    out = []
    for px, py in PIP_LAYOUTS[n]:
        out.append((x0 + px * (x1 - x0), y0 + py * (y1 - y0), py > 0.5 + 1e-6))
    return out, pip, (x0, y0, x1, y1)


def _ornate_ace(img: np.ndarray, design: CardDesign, k: float, w_mm: float, h_mm: float, ink: Colour) -> None:
    style = ALL_SUIT_STYLES[design.suit_style]
    cx, cy = w_mm / 2 * k, h_mm / 2 * k
    big = min(w_mm * 0.62, h_mm * 0.45) * k
    draw_suit(img, "S", style, cx, cy, big, ink)
    draw_suit(img, "S", style, cx, cy + big * 0.02, big * 0.86, design.stock)
    draw_suit(img, "S", style, cx, cy + big * 0.04, big * 0.74, ink)
    gold = design.palette[2]
    cv2.ellipse(img, (int(cx * 16), int((cy - big * 0.02) * 16)), (int(big * 0.12 * 16), int(big * 0.16 * 16)), 0, 0, 360, gold, -1, cv2.LINE_AA, 4)
    r = big * 0.62
    for a in np.linspace(0.0, 2.0 * np.pi, 16, endpoint=False):
        p = (cx + np.cos(a) * r * 0.78, cy + np.sin(a) * r)
        cv2.circle(img, (int(p[0] * 16), int(p[1] * 16)), max(1, int(big * 0.025 * 16)), ink, -1, cv2.LINE_AA, 4)


def draw_face(card: str, design: CardDesign, px_per_mm: float = 8.0, rng: np.random.Generator | None = None) -> CardFace:
    """Paint ``card`` (e.g. ``"10H"``) of ``design``'s deck, face up, ``px_per_mm`` pixels per mm.

    ``rng`` varies the court artwork and the print registration; the same
    generator state gives the same pixels.
    """
    rank, suit = parse_card(card)
    rng = rng if rng is not None else np.random.default_rng(0)
    k = float(px_per_mm)
    w_mm, h_mm = design.size_mm
    W, H = int(round(w_mm * k)), int(round(h_mm * k))
    w_mm, h_mm = W / k, H / k
    img = np.empty((H, W, 3), np.uint8)
    img[:] = design.stock
    ink = design.ink(suit)
    style = ALL_SUIT_STYLES[design.suit_style]
    lw = max(1, int(round(0.3 * k)))
    if design.border == "edge":
        m = int(round(1.2 * k))
        cv2.rectangle(img, (m, m), (W - 1 - m, H - 1 - m), design.palette[1] if rng.random() < 0.5 else ink, lw, cv2.LINE_AA)
    pip_box = None
    index, ix, iy = _index_mask(design, rank, suit, k)
    ih, iw = index.shape
    if rank in ("J", "Q", "K"):
        fx0 = (ix + iw) / k + 1.2
        fy0 = max(design.index_top_mm + 1.0, h_mm * 0.09)
        box = (int(round(fx0 * k)), int(round(fy0 * k)), int(round((w_mm - fx0) * k)), int(round((h_mm - fy0) * k)))
        card_art.draw_court(img, rng, design.court_style, rank, box, design.palette, ink, design.index_font)
        draw_suit(img, suit, style, box[0] + design.suit_mm * k * 0.9, box[1] + design.suit_mm * k * 0.9, design.suit_mm * k, ink)
        draw_suit(img, suit, style, box[2] - design.suit_mm * k * 0.9, box[3] - design.suit_mm * k * 0.9, design.suit_mm * k, ink, upside_down=True)
    elif rank == "A":
        if suit == "S" and design.fancy_ace:
            _ornate_ace(img, design, k, w_mm, h_mm, ink)
        else:
            size = min(design.pip_mm * design.ace_scale, w_mm * 0.6)
            draw_suit(img, suit, style, w_mm / 2 * k, h_mm / 2 * k, size * k, ink)
    else:
        pips, pip, area = _pip_layout(design, int(rank), w_mm, h_mm, (ix + iw) / k + 0.3)
        for px, py, down in pips:
            draw_suit(img, suit, style, px * k, py * k, pip * k, ink, upside_down=down)
        half_w = pip * max(suit_aspect(suit, style), 0.5) / 2
        pip_box = (area[0] - half_w, area[1] - pip / 2, area[2] + half_w, area[3] + pip / 2)
        if design.border == "pip-frame":
            pad = 1.5
            cv2.rectangle(img, (int((pip_box[0] - pad) * k * 16), int((pip_box[1] - pad) * k * 16)), (int((pip_box[2] + pad) * k * 16), int((pip_box[3] + pad) * k * 16)), ink, lw, cv2.LINE_AA, 4)
    # Corner indices, the print a little off-register now and then.
    dx, dy = (int(v) for v in np.round(rng.normal(0.0, 0.15 * k, 2)))
    marks = []
    hull, box = _ink_outline(index)
    corners = ("tl", "br", "tr", "bl") if design.four_index else ("tl", "br")
    for corner in corners:
        m = index if corner in ("tl", "tr") else index[::-1, ::-1]
        x = ix + dx if corner in ("tl", "bl") else W - ix - iw - dx
        y = iy + dy if corner in ("tl", "tr") else H - iy - ih - dy
        _paint(img, m, x, y, ink)
        marks.append(_mark(corner, hull, box, index.shape, x, y, k))
    alpha = _rounded_alpha(H, W, design.corner_mm * k)
    return CardFace(card, design, img, alpha, k, tuple(marks), pip_box)


def draw_back(design: CardDesign, px_per_mm: float = 8.0, rng: np.random.Generator | None = None) -> CardFace:
    """The back of ``design``'s deck (no indices)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    k = float(px_per_mm)
    w_mm, h_mm = design.size_mm
    W, H = int(round(w_mm * k)), int(round(h_mm * k))
    img = np.empty((H, W, 3), np.uint8)
    img[:] = design.stock
    card_art.draw_back(img, rng, design.back_pattern, design.back_colour, design.back_accent, design.back_margin_mm * k, k)
    return CardFace("back", design, img, _rounded_alpha(H, W, design.corner_mm * k), k, (), None)
