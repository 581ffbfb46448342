"""Face artwork drawn with PIL: die face atlases (pips, ship's wheels, katakana) and card textures.

A die's texture is an atlas of 3 x 2 square cells, cell ``i`` holding the face ``FACE_NORMALS[i]``
(geometry.py); ``scene.py`` maps each face of the bevelled cube onto its cell. Alongside the colour
atlas comes a mark mask (255 where ink is) that the material turns into relief: engraved marks sink,
painted marks stand up, printed marks are flat.
"""

from __future__ import annotations

import math

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from vision.read.detections import Card

from .designs import RGB, BodyColour, DeckDesign, DiceDesign
from .fonts import CARD_GLYPHS, KATAKANA, font_path

CELL = 256  # pixels per die face in the atlas
ATLAS_COLS, ATLAS_ROWS = 3, 2
WHEEL_STYLES = ("rope", "solid", "tapered", "outline")  # the val and test designs' wheels
TRAIN_WHEEL_STYLES = ("knobbed", "cross")  # only the training designs draw these

# Pip centres on a unit face, standard layout.
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}


def _u8(rgb: RGB) -> tuple[int, int, int]:
    return tuple(int(round(max(0.0, min(1.0, c)) * 255)) for c in rgb)  # type: ignore[return-value]


def _pip(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, shape: str) -> None:
    if shape == "square":
        draw.rounded_rectangle((cx - r, cy - r, cx + r, cy + r), radius=r * 0.3, fill=255)
    elif shape == "ring":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=255, width=max(2, int(r * 0.42)))
        draw.ellipse((cx - r * 0.22, cy - r * 0.22, cx + r * 0.22, cy + r * 0.22), fill=255)
    elif shape == "hex":
        pts = [(cx + r * math.cos(math.pi / 6 + k * math.pi / 3), cy + r * math.sin(math.pi / 6 + k * math.pi / 3))
               for k in range(6)]
        draw.polygon(pts, fill=255)
    else:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=255)


def _pips_mask(n: int, design: DiceDesign, s: int, big: bool) -> Image.Image:
    m = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(m)
    r = 0.085 * design.pip_scale * s
    if big:
        r = 0.19 * s
    for (u, v) in _PIPS[n]:
        _pip(d, u * s, v * s, r, "round" if big else design.pip_shape)
    return m


def _wheel_mask(style: str, s: int) -> Image.Image:
    """A ship's wheel in one of this renderer's own drawings (``WHEEL_STYLES``, ``TRAIN_WHEEL_STYLES``)."""
    m = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(m)
    c = s / 2.0

    def circle(r: float, **kw: object) -> None:
        d.ellipse((c - r, c - r, c + r, c + r), **kw)  # type: ignore[arg-type]

    if style == "rope":  # a twisted-rope rim of slanted beads, six plain spokes, a round hub
        rim = 0.33 * s
        for k in range(28):
            a = 2 * math.pi * k / 28
            x, y = c + rim * math.cos(a), c + rim * math.sin(a)
            bead = Image.new("L", (int(0.12 * s), int(0.06 * s)), 0)
            ImageDraw.Draw(bead).ellipse((0, 0, bead.width - 1, bead.height - 1), fill=255)
            bead = bead.rotate(-math.degrees(a) + 50, expand=True)
            m.paste(255, (int(x - bead.width / 2), int(y - bead.height / 2)), bead)
        for k in range(6):
            a = 2 * math.pi * k / 6 + 0.3
            d.line((c, c, c + rim * math.cos(a), c + rim * math.sin(a)), fill=255, width=int(0.04 * s))
        circle(0.085 * s, fill=255)
    elif style == "solid":  # a filled disc with window cut-outs between the spokes
        circle(0.37 * s, fill=255)
        for k in range(6):
            a0 = 60 * k + 8
            d.pieslice((c - 0.29 * s, c - 0.29 * s, c + 0.29 * s, c + 0.29 * s), a0, a0 + 44, fill=0)
        circle(0.11 * s, fill=255)
        circle(0.045 * s, fill=0)
    elif style == "tapered":  # ten wedge spokes from a star hub to a heavy rim, nothing beyond the rim
        circle(0.36 * s, outline=255, width=int(0.055 * s))
        for k in range(10):
            a = 2 * math.pi * k / 10
            w = 0.05 * s
            tip = 0.34 * s
            pts = [(c + w * math.cos(a + math.pi / 2), c + w * math.sin(a + math.pi / 2)),
                   (c + tip * math.cos(a), c + tip * math.sin(a)),
                   (c + w * math.cos(a - math.pi / 2), c + w * math.sin(a - math.pi / 2))]
            d.polygon(pts, fill=255)
        star = [(c + (0.12 if k % 2 == 0 else 0.06) * s * math.cos(math.pi * k / 5),
                 c + (0.12 if k % 2 == 0 else 0.06) * s * math.sin(math.pi * k / 5)) for k in range(10)]
        d.polygon(star, fill=255)
    elif style == "outline":  # double-line rim, hollow spokes, ring hub: a line drawing
        lw = max(2, int(0.022 * s))
        circle(0.38 * s, outline=255, width=lw)
        circle(0.30 * s, outline=255, width=lw)
        for k in range(8):
            a = 2 * math.pi * k / 8 + math.pi / 8
            for off in (-0.025 * s, 0.025 * s):
                ox, oy = off * math.cos(a + math.pi / 2), off * math.sin(a + math.pi / 2)
                d.line((c + 0.09 * s * math.cos(a) + ox, c + 0.09 * s * math.sin(a) + oy,
                        c + 0.44 * s * math.cos(a) + ox, c + 0.44 * s * math.sin(a) + oy), fill=255, width=lw)
        circle(0.09 * s, outline=255, width=lw)
    elif style == "knobbed":  # the classic helm: a thin rim, eight spokes running out to round handles
        rim = 0.27 * s
        circle(rim, outline=255, width=max(2, int(0.04 * s)))
        for k in range(8):
            a = 2 * math.pi * k / 8
            d.line((c, c, c + 0.38 * s * math.cos(a), c + 0.38 * s * math.sin(a)), fill=255, width=int(0.035 * s))
            kx, ky = c + 0.41 * s * math.cos(a), c + 0.41 * s * math.sin(a)
            d.ellipse((kx - 0.04 * s, ky - 0.04 * s, kx + 0.04 * s, ky + 0.04 * s), fill=255)
        circle(0.07 * s, fill=255)
    elif style == "cross":  # four broad spokes in a plus, a broad rim, a square hub
        circle(0.35 * s, outline=255, width=int(0.07 * s))
        for k in range(4):
            a = math.pi / 2 * k
            d.line((c, c, c + 0.43 * s * math.cos(a), c + 0.43 * s * math.sin(a)), fill=255, width=int(0.075 * s))
        d.rectangle((c - 0.09 * s, c - 0.09 * s, c + 0.09 * s, c + 0.09 * s), fill=255)
    else:
        raise ValueError(f"unknown wheel style {style!r}")
    return m


def _kana_mask(ch: str, font_key: str, s: int) -> Image.Image:
    font = ImageFont.truetype(font_path(font_key, KATAKANA), int(0.66 * s))
    m = Image.new("L", (s, s), 0)
    ImageDraw.Draw(m).text((s / 2, s / 2), ch, font=font, fill=255, anchor="mm")
    return m


def face_layers(label: str, design: DiceDesign, colour: BodyColour, s: int = CELL) -> list[tuple[Image.Image, RGB]]:
    """The marks of one face as (mask, ink colour) layers."""
    accent = colour.accent or colour.ink
    if label == "wheel":
        assert design.wheel is not None
        return [(_wheel_mask(design.wheel, s), accent)]
    if label in KATAKANA:
        assert design.font is not None
        return [(_kana_mask(label, design.font, s), colour.ink)]
    n = int(label)
    big = n == 1 and design.big_red_one
    return [(_pips_mask(n, design, s, big), accent if (big or n == 1) else colour.ink)]


def die_atlas(design: DiceDesign, faces: tuple[str, ...], colour: BodyColour) -> tuple[Image.Image, Image.Image]:
    """(colour atlas RGB, mark mask L) for one die: cell i holds ``faces[i]``; glyphs upright in their cell."""
    w, h = CELL * ATLAS_COLS, CELL * ATLAS_ROWS
    rgb = Image.new("RGB", (w, h), _u8(colour.body))
    mask = Image.new("L", (w, h), 0)
    for i, label in enumerate(faces):
        x, y = (i % ATLAS_COLS) * CELL, (i // ATLAS_COLS) * CELL
        for m, ink in face_layers(label, design, colour):
            m = m.filter(ImageFilter.GaussianBlur(0.8))
            rgb.paste(_u8(ink), (x, y), m)
            mask.paste(m, (x, y), m)
    return rgb, mask


# ---- playing cards ------------------------------------------------------------------------------

CARD_MM = (63.0, 88.0)
CARD_PX_PER_MM = 8
_CARD_PX = (int(CARD_MM[0] * CARD_PX_PER_MM), int(CARD_MM[1] * CARD_PX_PER_MM))  # a card texture's width, height
_INDEX_MARGIN = int(0.025 * _CARD_PX[0])  # the corner index's offset from the face's edges, in texture px


def _suit(draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, size: float, fill: tuple) -> None:
    r = size / 2.0
    if suit == "D":
        draw.polygon([(cx, cy - r), (cx + r * 0.72, cy), (cx, cy + r), (cx - r * 0.72, cy)], fill=fill)
        return
    lobe = r * 0.52
    if suit in ("H", "S"):
        sign = 1 if suit == "H" else -1
        ly = cy - sign * r * 0.38
        draw.ellipse((cx - 2 * lobe + r * 0.04, ly - lobe, cx + r * 0.04, ly + lobe), fill=fill)
        draw.ellipse((cx - r * 0.04, ly - lobe, cx + 2 * lobe - r * 0.04, ly + lobe), fill=fill)
        draw.polygon([(cx - r * 0.98, ly + sign * lobe * 0.35), (cx + r * 0.98, ly + sign * lobe * 0.35),
                      (cx, cy + sign * r)], fill=fill)
        if suit == "S":
            draw.polygon([(cx, cy + r * 0.1), (cx - r * 0.35, cy + r), (cx + r * 0.35, cy + r)], fill=fill)
        return
    # clubs: three balls and a flared stem
    b = r * 0.44
    for (dx, dy) in ((0.0, -0.5), (-0.5, 0.1), (0.5, 0.1)):
        draw.ellipse((cx + dx * r - b, cy + dy * r - b, cx + dx * r + b, cy + dy * r + b), fill=fill)
    draw.polygon([(cx, cy - r * 0.1), (cx - r * 0.35, cy + r), (cx + r * 0.35, cy + r)], fill=fill)


def _rounded_alpha(w: int, h: int, radius: int) -> Image.Image:
    a = Image.new("L", (w, h), 0)
    ImageDraw.Draw(a).rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=255)
    return a


def _index_patch(deck: DeckDesign, card: str) -> Image.Image:
    """RGBA patch of one corner index (rank over suit) as printed at the card's top left."""
    shown = Card.parse(card)
    rank, suit = shown.rank, shown.suit
    w, h = _CARD_PX
    ink = _u8(deck.red_ink if suit in "HD" else deck.black_ink)
    font = ImageFont.truetype(font_path(deck.index_font, CARD_GLYPHS), int(0.14 * h))
    corner = Image.new("RGBA", (int(0.2 * w), int(0.3 * h)), (0, 0, 0, 0))
    cd = ImageDraw.Draw(corner)
    cw = corner.width
    glyphs = Image.new("L", (int(0.3 * w), int(0.18 * h)), 0)
    ImageDraw.Draw(glyphs).text((glyphs.width / 2, glyphs.height / 2), rank, font=font, fill=255, anchor="mm")
    bbox = glyphs.getbbox() or (0, 0, 1, 1)
    glyphs = glyphs.crop(bbox)
    gw = min(glyphs.width, int(cw * 0.92))  # "10" is squeezed into the corner's width, as printed decks do
    glyphs = glyphs.resize((gw, glyphs.height))
    corner.paste(ink + (255,), (int((cw - gw) / 2), int(0.085 * h - glyphs.height / 2)), glyphs)
    _suit(cd, suit, cw / 2, int(0.215 * h), 0.095 * h, ink + (255,))
    return corner


def index_rects(deck: DeckDesign, card: str) -> tuple[tuple[float, float, float, float], ...]:
    """The inked extent of the card's two corner indices (top left, then bottom right as
    printed) as ``(x0, y0, x1, y1)`` fractions of the face's width and height, measured on
    the very patch :func:`card_face` pastes."""
    w, h = _CARD_PX
    corner = _index_patch(deck, card)
    margin = _INDEX_MARGIN
    x0, y0, x1, y1 = corner.getchannel("A").getbbox() or (0, 0, corner.width, corner.height)
    top_left = ((margin + x0) / w, (margin + y0) / h, (margin + x1) / w, (margin + y1) / h)
    bottom_right = (1.0 - top_left[2], 1.0 - top_left[3], 1.0 - top_left[0], 1.0 - top_left[1])
    return top_left, bottom_right


def card_face(deck: DeckDesign, card: str) -> Image.Image:
    """RGBA texture of a card's face: corner indices (rank over suit) at two corners and a simple centre."""
    shown = Card.parse(card)
    rank, suit = shown.rank, shown.suit
    w, h = _CARD_PX
    img = Image.new("RGB", (w, h), _u8(deck.paper))
    d = ImageDraw.Draw(img)
    ink = _u8(deck.red_ink if suit in "HD" else deck.black_ink)
    corner = _index_patch(deck, card)
    margin = _INDEX_MARGIN
    img.paste(corner, (margin, margin), corner)
    flipped = corner.rotate(180)
    img.paste(flipped, (w - margin - corner.width, h - margin - corner.height), flipped)
    if deck.centre == "pip":
        _suit(d, suit, w / 2, h / 2, 0.34 * w, ink)
    else:
        fx1, fy1, fx2, fy2 = 0.24 * w, 0.2 * h, 0.76 * w, 0.8 * h
        d.rectangle((fx1, fy1, fx2, fy2), outline=ink, width=4)
        big = ImageFont.truetype(font_path(deck.index_font, CARD_GLYPHS), int(0.2 * h))
        d.text((w / 2, h / 2), rank, font=big, fill=ink, anchor="mm")
        _suit(d, suit, w / 2, fy1 + 0.09 * h, 0.08 * h, ink)
        _suit(d, suit, w / 2, fy2 - 0.09 * h, 0.08 * h, ink)
    d.rounded_rectangle((margin // 2, margin // 2, w - 1 - margin // 2, h - 1 - margin // 2), radius=int(0.05 * w),
                        outline=tuple(int(c * 0.85) for c in _u8(deck.paper)), width=2)
    out = img.convert("RGBA")
    out.putalpha(_rounded_alpha(w, h, int(0.06 * w)))
    return out


def card_back(deck: DeckDesign) -> Image.Image:
    w, h = _CARD_PX
    img = Image.new("RGB", (w, h), _u8(deck.paper))
    d = ImageDraw.Draw(img)
    b = int(0.07 * w)
    light = tuple(min(255, int(c * 255 * 0.55 + 110)) for c in deck.back)
    panel = Image.new("RGB", (w - 2 * b, h - 2 * b), _u8(deck.back))
    pd = ImageDraw.Draw(panel)
    pw, ph = panel.size
    if deck.back_pattern == "lattice":
        for k in range(-ph, pw + ph, 22):
            pd.line((k, 0, k + ph, ph), fill=light, width=2)
            pd.line((k, 0, k - ph, ph), fill=light, width=2)
    else:
        step = 18
        for yy in range(step // 2, ph, step):
            for xx in range(step // 2 + (yy // step % 2) * step // 2, pw, step):
                pd.ellipse((xx - 4, yy - 4, xx + 4, yy + 4), fill=light)
    img.paste(panel, (b, b))
    d.rectangle((b, b, w - b, h - b), outline=_u8(deck.paper), width=3)
    out = img.convert("RGBA")
    out.putalpha(_rounded_alpha(w, h, int(0.06 * w)))
    return out
