"""Draw a face confusion matrix as a PNG: grid and numbers with cv2, katakana with Pillow.

Cells are shaded by their share of the row (the ground-truth face), so a perfect
reader is a dark diagonal. Katakana labels need a CJK font: the subset fonts in
``vision/synth/fonts/`` are used when present, otherwise a romaji label is drawn.

>>> from vision.evaluate.scoring import Confusion
>>> img = draw_confusion(Confusion(("1", "ブ"), ((3, 1, 0), (0, 2, 1), (1, 0, 0))))
>>> img.ndim, img.shape[2], img.dtype.name
(3, 3, 'uint8')
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.evaluate.scoring import Confusion

FONT_DIR = Path(__file__).resolve().parents[1] / "synth" / "fonts"
ROMAJI = {"プ": "pu", "ラ": "ra", "ス": "su", "ベ": "be", "ガ": "ga", "ブ": "bu", "レ": "re", "フ": "fu", "カ": "ka"}
CELL = 46
MARGIN = 96
TEXT = (30, 30, 30)


def _draws(font: ImageFont.FreeTypeFont, ch: str) -> bool:
    """True when ``font`` has a real glyph for ``ch`` (not its .notdef box)."""

    def render(c: str) -> bytes:
        img = Image.new("L", (64, 64), 0)
        ImageDraw.Draw(img).text((32, 32), c, font=font, fill=255, anchor="mm")
        return img.tobytes()

    drawn = render(ch)
    return any(drawn) and drawn != render("\ue000")


@lru_cache(maxsize=1)
def kana_font(size: int = 22) -> ImageFont.FreeTypeFont | None:
    candidates = sorted(FONT_DIR.glob("*Sans*Regular*")) + sorted(FONT_DIR.glob("*.otf")) + sorted(FONT_DIR.glob("*.ttf"))
    for path in candidates:
        try:
            font = ImageFont.truetype(str(path), size)
        except OSError:
            continue
        if all(_draws(font, ch) for ch in ROMAJI):
            return font
    return None


def _label(canvas: np.ndarray, text: str, centre: tuple[int, int], pending: list) -> None:
    if text.isascii():
        scale = 0.45 if len(text) > 4 else 0.6
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.putText(canvas, text, (centre[0] - w // 2, centre[1] + h // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, TEXT, 1, cv2.LINE_AA)
    elif kana_font() is not None:
        pending.append((text, centre))
    else:
        _label(canvas, ROMAJI.get(text, text.encode("unicode_escape").decode()), centre, pending)


def draw_confusion(confusion: Confusion, title: str = "face confusion (rows: truth, cols: read)") -> np.ndarray:
    """BGR image of the matrix."""
    rows, cols = confusion.rows, confusion.cols
    m = np.array(confusion.matrix, dtype=np.float64).reshape(len(rows), len(cols))
    h, w = MARGIN + CELL * len(rows) + 10, MARGIN + CELL * len(cols) + 10
    canvas = np.full((h, max(w, 420), 3), 255, np.uint8)
    cv2.putText(canvas, title, (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, TEXT, 1, cv2.LINE_AA)
    pending: list[tuple[str, tuple[int, int]]] = []
    row_sums = m.sum(axis=1, keepdims=True)
    share = np.divide(m, row_sums, out=np.zeros_like(m), where=row_sums > 0)
    for j, c in enumerate(cols):
        _label(canvas, c, (MARGIN + CELL * j + CELL // 2, MARGIN - 18), pending)
    for i, r in enumerate(rows):
        _label(canvas, r, (MARGIN // 2, MARGIN + CELL * i + CELL // 2), pending)
        for j in range(len(cols)):
            x0, y0 = MARGIN + CELL * j, MARGIN + CELL * i
            shade = int(255 - 200 * share[i, j])
            diagonal = i < len(confusion.labels) and j < len(confusion.labels) and i == j
            colour = (shade, 255, shade) if diagonal else (shade, shade, 255)
            cv2.rectangle(canvas, (x0, y0), (x0 + CELL, y0 + CELL), colour, -1)
            cv2.rectangle(canvas, (x0, y0), (x0 + CELL, y0 + CELL), (200, 200, 200), 1)
            if m[i, j]:
                txt = str(int(m[i, j]))
                (tw, th), _ = cv2.getTextSize(txt, cv2.FONT_HERSHEY_SIMPLEX, 0.45, 1)
                ink = (255, 255, 255) if share[i, j] > 0.6 else TEXT
                cv2.putText(canvas, txt, (x0 + (CELL - tw) // 2, y0 + (CELL + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.45, ink, 1, cv2.LINE_AA)
    if pending:
        font = kana_font()
        pil = Image.fromarray(canvas[:, :, ::-1])
        draw = ImageDraw.Draw(pil)
        for text, centre in pending:
            draw.text(centre, text, font=font, fill=TEXT[::-1], anchor="mm")
        canvas = np.ascontiguousarray(np.asarray(pil)[:, :, ::-1])
    return canvas


def save_confusion(confusion: Confusion, path: Path, title: str | None = None) -> Path:
    img = draw_confusion(confusion) if title is None else draw_confusion(confusion, title)
    if not cv2.imwrite(str(path), img):
        raise OSError(f"could not write {path}")
    return path
