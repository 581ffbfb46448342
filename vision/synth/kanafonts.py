"""The katakana subset fonts shipped in ``fonts/`` (see fonts/README.md for licences).

>>> len(KANA_FONTS) >= 3
True
>>> all(has_glyph(p, "ブ") for p in KANA_FONTS)
True
>>> len(WIDE_KANA_FONTS) == len(WIDE_KANA_WEIGHTS), round(sum(WIDE_KANA_WEIGHTS), 6)
(True, 1.0)
>>> all(has_glyph(p, "ブ") and has_glyph(p, "プ") for p in EXTRA_KANA_FONTS)
True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"

KANA_FONTS: tuple[Path, ...] = (
    FONT_DIR / "NotoSansCJKjp-Regular-kana.otf",
    FONT_DIR / "NotoSansCJKjp-Bold-kana.otf",
    FONT_DIR / "NotoSerifCJKjp-Regular-kana.otf",
    FONT_DIR / "NotoSerifCJKjp-Bold-kana.otf",
    FONT_DIR / "TablerefKanaGothic.ttf",
    FONT_DIR / "TablerefKanaMincho.ttf",
)
# How often each font is drawn on a die: dice lettering is mostly a bold gothic.
KANA_WEIGHTS: tuple[float, ...] = (0.18, 0.3, 0.08, 0.14, 0.22, 0.08)

# Training-only fonts, drawn when a render asks for wider face designs (``SceneConfig.wide_faces``):
# a plain gothic, a brush-like mincho, a rounded and a hand-lettered kana, so the classifier
# learns the katakana's shapes rather than three families' strokes. Katakana only.
EXTRA_KANA_FONTS: tuple[Path, ...] = (
    FONT_DIR / "TablerefKanaPlain.ttf",
    FONT_DIR / "TablerefKanaBrushMincho.ttf",
    FONT_DIR / "TablerefKanaRound.ttf",
    FONT_DIR / "TablerefKanaHand.ttf",
)


# What a wide-face die's katakana is drawn in: half the draws keep KANA_WEIGHTS' mix, half go
# evenly to the extras.
WIDE_KANA_FONTS: tuple[Path, ...] = KANA_FONTS + EXTRA_KANA_FONTS
WIDE_KANA_WEIGHTS: tuple[float, ...] = tuple(0.5 * w for w in KANA_WEIGHTS) + (0.5 / len(EXTRA_KANA_FONTS),) * len(EXTRA_KANA_FONTS)


@lru_cache(maxsize=64)
def load(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def render_glyph(path: Path, ch: str, size: int = 64) -> np.ndarray:
    """The glyph's coverage on a ``(2*size, 2*size)`` canvas, uint8."""
    img = Image.new("L", (2 * size, 2 * size), 0)
    ImageDraw.Draw(img).text((size, size), ch, font=load(path, size), fill=255, anchor="mm")
    return np.asarray(img)


def has_glyph(path: Path, ch: str) -> bool:
    """True when the font draws ``ch`` itself rather than its .notdef box.

    A character missing from the cmap renders as .notdef, whatever it is, so it
    draws exactly like a private-use code point that no font here maps.
    """
    drawn = render_glyph(path, ch)
    return bool(drawn.any()) and not np.array_equal(drawn, render_glyph(path, "\ue000"))
