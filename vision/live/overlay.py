"""Boxes and face labels drawn over a frame, for the live view and snapshots.

>>> import numpy as np
>>> from vision.read.detections import Detection
>>> frame = np.zeros((120, 160, 3), np.uint8)
>>> out = draw_overlay(frame, [Detection("die", "プ", "blue", (20, 40, 60, 80), 0.93)], highlight={0})
>>> out.shape, bool(out.any()), bool(frame.any())
((120, 160, 3), True, False)
>>> encode_jpeg(out)[:2]
b'\\xff\\xd8'

Katakana faces are drawn with Pillow and a CJK font: the subset fonts shipped in
``vision/synth/fonts/`` first, then common system fonts (Noto CJK, IPAex). Only if none
has the glyphs do labels fall back to ASCII names ("pu", "ra", ...). A font is accepted
only if it really draws the katakana: fonts without them draw identical "tofu" boxes
that Pillow does not report, so every glyph is rendered and compared.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.read.boxes import intersection_matrix
from vision.read.detections import Detection, Reading

log = logging.getLogger(__name__)

KATAKANA_FACES = ("プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "フ", "カ")
ASCII_FACE_NAMES: dict[str, str] = {
    "プ": "pu", "ラ": "ra", "ス": "su", "ベ": "be", "ガ": "ga",
    "ブ": "bu", "レ": "re", "フ": "fu", "カ": "ka",
}  # fmt: skip

FONT_DIR = Path(__file__).resolve().parents[1] / "synth" / "fonts"
# Preferred order inside FONT_DIR (bold sans reads best at small sizes), then system fonts.
_FONT_PREFERENCE = ("NotoSansCJKjp-Bold", "NotoSansCJKjp-Regular", "TablerefKanaGothic")
SYSTEM_FONTS = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
    "/System/Library/Fonts/ヒラギノ角ゴシック W6.ttc",
    "C:/Windows/Fonts/YuGothB.ttc",
    "C:/Windows/Fonts/msgothic.ttc",
)

Colour = tuple[int, int, int]  # BGR


@dataclass(frozen=True)
class OverlayStyle:
    """Colours (BGR) and proportions. ``label_px`` 0 scales the text with the image height."""

    box: Colour = (60, 200, 60)
    uncertain: Colour = (200, 60, 230)
    highlight: Colour = (0, 215, 255)
    text: Colour = (255, 255, 255)
    label_bg: Colour = (30, 30, 30)
    thickness: int = 2
    label_px: int = 0
    scores: bool = True
    colours: bool = True


DEFAULT_STYLE = OverlayStyle()

# Body colours for the small swatch in each label.
SWATCHES: dict[str, Colour] = {
    "white": (235, 235, 235),
    "black": (20, 20, 20),
    "blue": (200, 90, 20),
    "green": (60, 160, 40),
    "red": (40, 40, 210),
    "yellow": (30, 210, 230),
    "purple": (150, 50, 130),
    "orange": (20, 130, 240),
}


def _has_katakana(path: str) -> bool:
    """True if the font draws every Nine Dice katakana as a distinct, non-empty glyph."""
    from PIL import ImageFont

    try:
        font = ImageFont.truetype(path, 24)
    except OSError:
        return False
    masks = []
    for ch in KATAKANA_FACES:
        mask = np.asarray(font.getmask(ch, mode="L"), dtype=np.uint8)
        if mask.size == 0 or not mask.any():
            return False
        masks.append(mask.tobytes())
    return len(set(masks)) == len(masks)


def font_candidates() -> list[str]:
    """Font files to try, best first: ``$TABLEREF_FONT``, the shipped subsets, system fonts."""
    out: list[str] = []
    env = os.environ.get("TABLEREF_FONT")
    if env:
        out.append(env)
    if FONT_DIR.is_dir():
        shipped = sorted(p for p in FONT_DIR.iterdir() if p.suffix.lower() in (".otf", ".ttf", ".ttc"))
        rank = {name: k for k, name in enumerate(_FONT_PREFERENCE)}
        shipped.sort(key=lambda p: (rank.get(p.stem.replace("-kana", ""), len(rank)), p.name))
        out.extend(str(p) for p in shipped)
    out.extend(p for p in SYSTEM_FONTS if os.path.exists(p))
    return out


@functools.lru_cache(maxsize=1)
def find_cjk_font() -> str | None:
    """Path of the first usable katakana font, or ``None`` (labels then use ASCII names)."""
    for path in font_candidates():
        if _has_katakana(path):
            return path
    log.warning("no font with katakana found; face labels use ASCII names (pu, ra, ...)")
    return None


def face_text(face: str, *, cjk: bool) -> str:
    """What a label shows for ``face``.

    >>> face_text("プ", cjk=False), face_text("wheel", cjk=False), face_text("プ", cjk=True)
    ('pu', 'wheel', 'プ')
    """
    if cjk:
        return face
    return ASCII_FACE_NAMES.get(face, face if face.isascii() else "?")


@functools.lru_cache(maxsize=256)
def _glyph_mask(text: str, px: int, font_path: str) -> np.ndarray:
    """Alpha mask (uint8, H x W) of ``text`` drawn with Pillow at about ``px`` pixels high."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_path, max(6, int(px * 1.15)))
    x0, y0, x1, y1 = (int(v) for v in font.getbbox(text))
    img = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
    ImageDraw.Draw(img).text((-x0, -y0), text, font=font, fill=255)
    mask = np.asarray(img, dtype=np.uint8)
    if mask.shape[0] != px:
        scale = px / mask.shape[0]
        mask = cv2.resize(mask, (max(1, round(mask.shape[1] * scale)), px), interpolation=cv2.INTER_AREA)
    return mask


#: Hershey glyphs drawn with a narrow, Latin-looking advance: the font's own brackets sit in a
#: full character cell and look like the full-width "（ ）" of Japanese text.
TIGHT_GLYPHS = frozenset("()[]")


def _text_mask(text: str, px: int) -> np.ndarray:
    """Alpha mask of ASCII ``text`` drawn with OpenCV's Hershey font, ``px`` high.

    Glyphs are laid side by side at the font's advances, except brackets, which get their
    ink plus a thin gap on each side (see ``TIGHT_GLYPHS``).
    """
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, px / 22.0
    thick = max(1, round(px / 12))
    (_, h), base = cv2.getTextSize(text, font, scale, thick)
    height = h + base + 2
    gap = max(1, px // 12)
    glyphs: list[tuple[int, np.ndarray]] = []  # (advance, ink drawn from the pen position)
    for ch in text:
        (cw, _), _ = cv2.getTextSize(ch, font, scale, thick)
        cell = np.zeros((height, cw + 2 * thick + 2), np.uint8)
        cv2.putText(cell, ch, (0, h + 1), font, scale, 255, thick, cv2.LINE_AA)
        ink = np.flatnonzero(cell.any(axis=0))
        if ch in TIGHT_GLYPHS and ink.size:
            cell = np.pad(cell[:, ink[0] : ink[-1] + 1], ((0, 0), (gap, gap)))
            cw = cell.shape[1]
        glyphs.append((cw, cell))
    mask = np.zeros((height, sum(a for a, _ in glyphs) + 2 * thick + 3), np.uint8)
    x = 1
    for advance, cell in glyphs:
        region = mask[:, x : x + cell.shape[1]]
        np.maximum(region, cell[:, : region.shape[1]], out=region)
        x += advance
    cols = np.flatnonzero(mask.any(axis=0))
    mask = mask[:, : int(cols[-1]) + 2] if cols.size else mask[:, :2]
    ys = np.flatnonzero(mask.any(axis=1))
    if ys.size:
        mask = mask[max(0, ys[0] - 1) : ys[-1] + 2]
    return mask


WHEEL = "wheel"  # Liar's Dice's ship's-wheel face: drawn as a wheel, a word in no language


@functools.lru_cache(maxsize=64)
def _wheel_mask(px: int) -> np.ndarray:
    """Alpha mask of a ship's wheel ``px`` square: rim, hub and eight spokes out past the rim."""
    scale = 4  # drawn large and shrunk, for smooth lines at label sizes
    n = px * scale
    mask = np.zeros((n, n), np.uint8)
    c, rim, hub = n / 2, n * 0.33, n * 0.09
    line = max(1, round(n * 0.08))
    cv2.circle(mask, (round(c), round(c)), round(rim), 255, line, cv2.LINE_AA)
    cv2.circle(mask, (round(c), round(c)), round(hub), 255, -1, cv2.LINE_AA)
    for k in range(8):
        a = k * np.pi / 4
        end = (round(c + np.cos(a) * n * 0.47), round(c + np.sin(a) * n * 0.47))
        cv2.line(mask, (round(c), round(c)), end, 255, line, cv2.LINE_AA)
    return cv2.resize(mask, (px, px), interpolation=cv2.INTER_AREA)


@functools.lru_cache(maxsize=512)
def _label_patch(face: str, rest: str, colour: str | None, px: int, fg: Colour, bg: Colour, font_path: str | None) -> tuple[np.ndarray, np.ndarray]:
    """A label as a BGR patch and an alpha mask: face glyph, colour swatch, ASCII rest."""
    pad = max(2, px // 6)
    parts: list[np.ndarray] = []
    if face == WHEEL:
        parts.append(_wheel_mask(px))
    elif font_path is not None and not face.isascii():
        parts.append(_glyph_mask(face, px, font_path))
    else:
        parts.append(_text_mask(face_text(face, cjk=False), px))
    if rest:
        parts.append(_text_mask(rest, max(6, int(px * 0.8))))
    inner = max(px, *(p.shape[0] for p in parts))  # brackets reach below the letters: keep them whole
    height = inner + 2 * pad
    swatch = SWATCHES.get(colour or "") if colour else None
    sw = px if swatch is not None else 0
    width = pad + sum(p.shape[1] + pad for p in parts) + (sw + pad if sw else 0)
    patch = np.empty((height, width, 3), np.uint8)
    patch[:] = bg
    alpha = np.full((height, width), 215, np.uint8)
    x = pad
    for k, part in enumerate(parts):
        h, w = part.shape
        y = pad + (inner - h) // 2
        a = part.astype(np.float32)[..., None] / 255.0
        region = patch[y : y + part.shape[0], x : x + w]
        region[:] = (region * (1 - a) + np.array(fg, np.float32) * a).astype(np.uint8)
        x += w + pad
        if k == 0 and swatch is not None:
            cv2.rectangle(patch, (x, pad + 1), (x + sw - 2, pad + px - 2), swatch, -1)
            cv2.rectangle(patch, (x, pad + 1), (x + sw - 2, pad + px - 2), (128, 128, 128), 1)
            x += sw + pad
    return patch, alpha


def _blit(image: np.ndarray, patch: np.ndarray, alpha: np.ndarray, x: int, y: int) -> None:
    h, w = image.shape[:2]
    ph, pw = patch.shape[:2]
    x = min(max(0, x), max(0, w - pw))
    y = min(max(0, y), max(0, h - ph))
    ph, pw = min(ph, h - y), min(pw, w - x)
    if ph <= 0 or pw <= 0:
        return
    a = alpha[:ph, :pw, None].astype(np.float32) / 255.0
    roi = image[y : y + ph, x : x + pw]
    roi[:] = (roi * (1 - a) + patch[:ph, :pw] * a).astype(np.uint8)


Rect = tuple[int, int, int, int]  # x1, y1, x2, y2 (exclusive ends)

#: How many label heights a label may move away from its box (straight up or down) to find
#: a free spot in a cluster; a label placed away from its box gets a leader line.
LABEL_SHIFTS = 4


def _candidates(box: Rect, w: int, h: int, gap: int) -> list[tuple[int, int, bool]]:
    """Top-left corners to try for a ``w`` x ``h`` label of ``box``, best first: above, below,
    right-aligned above and below, beside, then stepping away up and down (``True``: away)."""
    x1, y1, x2, y2 = box
    out = [(x1, y1 - h - gap, False), (x1, y2 + gap, False), (x2 - w, y1 - h - gap, False), (x2 - w, y2 + gap, False),
           (x2 + gap, y1, False), (x1 - w - gap, y1, False), (x2 + gap, y2 - h, False), (x1 - w - gap, y2 - h, False)]
    for k in range(1, LABEL_SHIFTS + 1):
        step = k * (h + gap)
        out += [(x1, y1 - h - gap - step, True), (x1, y2 + gap + step, True),
                (x2 - w, y1 - h - gap - step, True), (x2 - w, y2 + gap + step, True)]
    return out


def layout_labels(
    boxes: Sequence[Rect], sizes: Sequence[tuple[int, int]], frame: tuple[int, int], *,
    reserved: Sequence[Rect] = (), gap: int = 2,
) -> list[tuple[Rect, bool]]:
    """Where each box's label goes: ``(rect, away)`` per box, ``sizes`` as ``(w, h)``, inside
    ``frame`` (``(width, height)``), no label over another label or a ``reserved`` rect (the
    banner) while a free spot exists, and preferably over no box. ``away`` marks a label
    moved off its box (drawn with a leader line). Boxes are placed top to bottom.

    >>> cluster = [(100, 100, 130, 130), (132, 100, 162, 130), (100, 132, 130, 162), (132, 132, 162, 162)]
    >>> rects = [r for r, _ in layout_labels(cluster, [(60, 20)] * 4, (640, 480))]
    >>> bool(np.triu(intersection_matrix(rects, rects), 1).any())
    False
    """
    width, height = frame
    all_boxes = np.array(boxes, dtype=np.int64).reshape(-1, 4)
    taken_list: list[Rect] = list(reserved)
    placed: list[tuple[Rect, bool] | None] = [None] * len(boxes)
    for k in sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0])):
        w, h = sizes[k]
        cands = _candidates(boxes[k], w, h, gap)
        x, y, _ = cands[0]
        x, y = min(max(0, x), max(0, width - w)), min(max(0, y), max(0, height - h))
        first = (x, y, x + w, y + h)
        others = [b for j, b in enumerate(boxes) if j != k]
        if not intersection_matrix(first, taken_list).any() and not intersection_matrix(first, others).any():
            placed[k] = (first, False)  # the usual spot is free (most labels): no search
            taken_list.append(first)
            continue
        xy = np.array([(x, y) for x, y, _ in cands], dtype=np.int64)
        xy[:, 0] = np.clip(xy[:, 0], 0, max(0, width - w))
        xy[:, 1] = np.clip(xy[:, 1], 0, max(0, height - h))
        rects = np.concatenate([xy, xy + (w, h)], axis=1)
        # Total area each candidate shares with the labels placed and with the other boxes.
        on_labels = intersection_matrix(rects, np.array(taken_list, dtype=np.int64)).sum(axis=1)
        on_boxes = intersection_matrix(rects, np.delete(all_boxes, k, axis=0)).sum(axis=1)
        # Lexicographic: no label over a label, then over as little of other boxes, then the earliest candidate.
        best = int(np.lexsort((np.arange(len(cands)), on_boxes, on_labels))[0])
        rect = tuple(int(v) for v in rects[best])
        placed[k] = ((rect[0], rect[1], rect[2], rect[3]), cands[best][2])
        taken_list.append(placed[k][0])
    return [p for p in placed if p is not None]


def label_px_for(image: np.ndarray, style: OverlayStyle = DEFAULT_STYLE) -> int:
    return style.label_px or int(np.clip(image.shape[0] / 30, 12, 40))


def draw_overlay(
    image: np.ndarray,
    objects: Reading | Iterable[Detection],
    *,
    highlight: Collection[int] = (),
    banner: str | None = None,
    style: OverlayStyle = DEFAULT_STYLE,
    font_path: str | None | bool = True,
) -> np.ndarray:
    """A copy of ``image`` (BGR) with each object's box and label drawn on it.

    Uncertain objects get ``style.uncertain`` and a ``?``; indices in ``highlight`` (into
    ``objects``) get a thick ``style.highlight`` frame and label, and the others thin
    boxes, so the highlighted set stands out. ``banner`` is a one-line ASCII status shown top-left.
    ``font_path=True`` finds a CJK font, ``None``/``False`` forces ASCII labels.
    """
    objs: Sequence[Detection] = objects.objects if isinstance(objects, Reading) else tuple(objects)
    out = np.array(image, dtype=np.uint8, copy=True)
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    font = find_cjk_font() if font_path is True else (font_path or None)
    px = label_px_for(out, style)
    marked = set(highlight)
    t = style.thickness
    boxes: list[Rect] = [tuple(int(round(v)) for v in det.box) for det in objs]  # type: ignore[misc]
    patches = []
    lines: list[Colour] = []  # each label's leader line colour: its box's
    for k, det in enumerate(objs):
        x1, y1, x2, y2 = boxes[k]
        colour = style.uncertain if det.uncertain else style.box
        if k in marked:
            cv2.rectangle(out, (x1 - 2 * t, y1 - 2 * t), (x2 + 2 * t, y2 + 2 * t), style.highlight, 2 * t, cv2.LINE_AA)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, t if (k in marked or not marked) else 1, cv2.LINE_AA)
        rest = (f"{det.score * 100:.0f}%" if style.scores else "") + ("?" if det.uncertain else "")
        fg = style.highlight if k in marked else (colour if det.uncertain else style.text)
        lines.append(style.highlight if k in marked else colour)
        patches.append(_label_patch(
            det.face, rest, det.colour if style.colours and det.kind == "die" else None, px, fg, style.label_bg, font
        ))
    reserved: list[Rect] = []
    if banner:
        patch, alpha = _label_patch(banner, "", None, px, style.text, style.label_bg, None)
        _blit(out, patch, alpha, 4, 4)
        reserved.append((4, 4, 4 + patch.shape[1], 4 + patch.shape[0]))
    sizes = [(p.shape[1], p.shape[0]) for p, _ in patches]
    places = layout_labels(boxes, sizes, (out.shape[1], out.shape[0]), reserved=reserved, gap=t)
    for k, ((patch, alpha), (rect, away)) in enumerate(zip(patches, places)):
        if away:  # a thin line from the label to its box, so a moved label still points at its die
            x1, y1, x2, y2 = boxes[k]
            lx, ly = (rect[0] + rect[2]) // 2, rect[3] if rect[3] <= y1 else rect[1]
            cv2.line(out, (lx, ly), (min(max(lx, x1), x2), y1 if ly <= y1 else y2), lines[k], 1, cv2.LINE_AA)
        _blit(out, patch, alpha, rect[0], rect[1])
    return out


def draw_placard(lines: Sequence[str], size: tuple[int, int] = (640, 480)) -> np.ndarray:
    """A dark frame with centred ASCII lines, e.g. shown in place of video while offline."""
    w, h = size
    out = np.full((h, w, 3), 40, np.uint8)
    px = int(np.clip(h / 22, 12, 36))
    masks = [_text_mask(line, px if k == 0 else int(px * 0.7)) for k, line in enumerate(lines) if line]
    masks = [m if m.shape[1] <= w - 8 else cv2.resize(m, (w - 8, max(1, m.shape[0] * (w - 8) // m.shape[1]))) for m in masks]
    total = sum(m.shape[0] + px // 2 for m in masks)
    y = max(0, (h - total) // 2)
    for k, m in enumerate(masks):
        colour = np.array((80, 180, 255) if k == 0 else (220, 220, 220), np.float32)
        x = (w - m.shape[1]) // 2
        _blit(out, np.broadcast_to(colour.astype(np.uint8), (*m.shape, 3)), m, x, y)
        y += m.shape[0] + px // 2
    return out


def encode_jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    """JPEG bytes of a BGR image (for the MJPEG stream and snapshots)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()
