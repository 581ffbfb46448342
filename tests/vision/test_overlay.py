"""Overlay: boxes in the right colours, katakana labels (or ASCII names), placard, JPEG."""

from __future__ import annotations

import doctest
import os

import cv2
import numpy as np
import pytest

import vision.overlay as overlay
from vision.detections import Detection, Reading
from vision.overlay import (
    ASCII_FACE_NAMES,
    KATAKANA_FACES,
    OverlayStyle,
    draw_overlay,
    draw_placard,
    encode_jpeg,
    face_text,
    find_cjk_font,
)

STYLE = OverlayStyle(thickness=2)


def blank() -> np.ndarray:
    return np.full((240, 320, 3), 90, np.uint8)


def test_doctests() -> None:
    assert doctest.testmod(overlay).failed == 0


def test_boxes_are_drawn_on_a_copy() -> None:
    image = blank()
    image.setflags(write=False)  # frames from sources are read-only
    out = draw_overlay(image, [Detection("die", "5", "white", (100, 100, 140, 140), 0.9)], style=STYLE)
    assert out.shape == image.shape and (image == 90).all()
    assert tuple(out[120, 100]) == STYLE.box  # left edge of the box
    assert (out[120, 120] == 90).all()  # inside untouched


def test_uncertain_and_highlight_colours() -> None:
    dets = Reading(
        objects=(
            Detection("die", "3", "red", (20, 100, 60, 140), 0.3, uncertain=True),
            Detection("die", "プ", "blue", (200, 100, 240, 140), 0.9),
        )
    )
    out = draw_overlay(blank(), dets, highlight={1}, style=STYLE)
    # Boxes outside the highlight are thin anti-aliased lines: compare with the nearest colour.
    edge = out[120, 19:22].astype(int)
    assert min(np.abs(edge - STYLE.uncertain).sum(axis=1)) < 40
    assert min(np.abs(edge - STYLE.box).sum(axis=1)) > 200
    assert tuple(out[120, 200]) == STYLE.box
    assert tuple(out[120, 196]) == STYLE.highlight  # the outer ring of the highlighted die


def _label_pixels(face: str, font: str | None | bool) -> np.ndarray:
    out = draw_overlay(blank(), [Detection("die", face, None, (100, 100, 140, 140), 0.9)], style=OverlayStyle(scores=False), font_path=font)
    return out[70:99, 95:200]  # the label sits above the box


def test_katakana_labels_use_a_cjk_font() -> None:
    font = find_cjk_font()
    assert font is not None, "the shipped subset fonts in vision/synth/fonts should draw katakana"
    drawn = {face: _label_pixels(face, font).tobytes() for face in KATAKANA_FACES}
    assert len(set(drawn.values())) == len(KATAKANA_FACES)  # ブ, プ and フ all look different


def test_ascii_fallback_names() -> None:
    assert face_text("ブ", cjk=False) == "bu" and face_text("wheel", cjk=False) == "wheel"
    assert set(ASCII_FACE_NAMES) == set(KATAKANA_FACES)
    no_font = {face: _label_pixels(face, None).tobytes() for face in ("プ", "ラ")}
    assert no_font["プ"] != no_font["ラ"]
    assert _label_pixels("プ", None).tobytes() != _label_pixels("プ", find_cjk_font()).tobytes()


def test_a_font_without_katakana_is_rejected() -> None:
    latin = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    if not os.path.exists(latin):
        pytest.skip("no DejaVu font on this machine")
    assert not overlay._has_katakana(latin)


def test_labels_near_the_edge_stay_inside() -> None:
    out = draw_overlay(blank(), [Detection("die", "6", "black", (300, 0, 320, 20), 0.5)], banner="moving")
    assert out.shape == (240, 320, 3)


def test_placard_and_jpeg() -> None:
    card = draw_placard(["camera offline", "camera 0 not found", "retrying in 4 s"], (320, 240))
    assert card.shape == (240, 320, 3) and card.std() > 1
    data = encode_jpeg(card, quality=70)
    back = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert back.shape == card.shape
