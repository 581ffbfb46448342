"""Boxes and face labels drawn over a frame, for the live view and snapshots.

>>> import numpy as np
>>> from vision.detections import Detection
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

from vision.detections import Detection, Reading

log = logging.getLogger(__name__)

KATAKANA_FACES = ("プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "フ", "カ")
ASCII_FACE_NAMES: dict[str, str] = {
    "プ": "pu", "ラ": "ra", "ス": "su", "ベ": "be", "ガ": "ga",
    "ブ": "bu", "レ": "re", "フ": "fu", "カ": "ka",
}  # fmt: skip

FONT_DIR = Path(__file__).resolve().parent / "synth" / "fonts"
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


def _text_mask(text: str, px: int) -> np.ndarray:
    """Alpha mask of ASCII ``text`` drawn with OpenCV's Hershey font, ``px`` high."""
    scale = px / 22.0
    thick = max(1, round(px / 12))
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    mask = np.zeros((h + base + 2, w + 2), np.uint8)
    cv2.putText(mask, text, (1, h + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick, cv2.LINE_AA)
    ys = np.flatnonzero(mask.any(axis=1))
    if ys.size:
        mask = mask[max(0, ys[0] - 1) : ys[-1] + 2]
    return mask


@functools.lru_cache(maxsize=512)
def _label_patch(face: str, rest: str, colour: str | None, px: int, fg: Colour, bg: Colour, font_path: str | None) -> tuple[np.ndarray, np.ndarray]:
    """A label as a BGR patch and an alpha mask: face glyph, colour swatch, ASCII rest."""
    pad = max(2, px // 6)
    parts: list[np.ndarray] = []
    if font_path is not None and not face.isascii():
        parts.append(_glyph_mask(face, px, font_path))
    else:
        parts.append(_text_mask(face_text(face, cjk=False), px))
    if rest:
        parts.append(_text_mask(rest, max(6, int(px * 0.8))))
    height = px + 2 * pad
    swatch = SWATCHES.get(colour or "") if colour else None
    sw = px if swatch is not None else 0
    width = pad + sum(p.shape[1] + pad for p in parts) + (sw + pad if sw else 0)
    patch = np.empty((height, width, 3), np.uint8)
    patch[:] = bg
    alpha = np.full((height, width), 215, np.uint8)
    x = pad
    for k, part in enumerate(parts):
        h, w = part.shape
        y = pad + (px - h) // 2 if h <= px else pad
        part = part[: height - y]
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
    for k, det in enumerate(objs):
        x1, y1, x2, y2 = (int(round(v)) for v in det.box)
        colour = style.uncertain if det.uncertain else style.box
        if k in marked:
            cv2.rectangle(out, (x1 - 2 * t, y1 - 2 * t), (x2 + 2 * t, y2 + 2 * t), style.highlight, 2 * t, cv2.LINE_AA)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, t if (k in marked or not marked) else 1, cv2.LINE_AA)
        rest = (f"{det.score * 100:.0f}%" if style.scores else "") + ("?" if det.uncertain else "")
        fg = style.highlight if k in marked else (colour if det.uncertain else style.text)
        patch, alpha = _label_patch(
            det.face, rest, det.colour if style.colours and det.kind == "die" else None, px, fg, style.label_bg, font
        )
        _blit(out, patch, alpha, x1, y1 - patch.shape[0] - t if y1 - patch.shape[0] - t >= 0 else y2 + t)
    if banner:
        patch, alpha = _label_patch(banner, "", None, px, style.text, style.label_bg, None)
        _blit(out, patch, alpha, 4, 4)
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
