"""Overlay: boxes in the right colours, katakana labels (or ASCII names), placard, JPEG."""

from __future__ import annotations

import doctest
import os

import cv2
import numpy as np
import pytest

import vision.live.overlay as overlay
from vision.read.boxes import intersection_matrix
from vision.read.detections import Detection, Reading
from vision.live.overlay import (
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


def _cluster(rows: int = 3, cols: int = 4, size: int = 30, step: int = 34) -> list[Detection]:
    faces = ["2", "3", "4", "5", "6", "wheel"]
    return [Detection("die", faces[(r * cols + c) % 6], "red", (250 + c * step, 200 + r * step, 250 + c * step + size,
                                                                  200 + r * step + size), 0.9)
            for r in range(rows) for c in range(cols)]


def test_labels_of_a_cluster_do_not_overlap() -> None:
    """Twelve touching dice: every label finds its own spot, clear of the banner, inside the frame."""
    dets = _cluster()
    boxes = [tuple(int(v) for v in d.box) for d in dets]
    px = overlay.label_px_for(np.zeros((480, 640, 3), np.uint8))
    sizes = [overlay._label_patch(d.face, "90%", d.colour, px, (255, 255, 255), (30, 30, 30), None)[0].shape[1::-1]
             for d in dets]
    banner = (4, 4, 240, 4 + px + 8)
    places = overlay.layout_labels(boxes, sizes, (640, 480), reserved=[banner])
    rects = [r for r, _ in places]
    assert len(rects) == len(dets)
    assert all(r[2] - r[0] == w and r[3] - r[1] == h for r, (w, h) in zip(rects, sizes))
    assert all(0 <= r[0] and r[2] <= 640 and 0 <= r[1] and r[3] <= 480 for r in rects)
    overlaps = np.argwhere(np.triu(intersection_matrix(rects, rects), 1) > 0).tolist()
    assert overlaps == [] and not intersection_matrix(rects, banner).any()
    assert any(away for _, away in places) and not all(away for _, away in places)  # the outer ones stay by their die


def test_a_lone_die_keeps_its_label_just_above() -> None:
    (rect, away), = overlay.layout_labels([(100, 100, 140, 140)], [(50, 20)], (320, 240), gap=2)
    assert rect == (100, 78, 150, 98) and not away


def test_brackets_in_ascii_text_are_narrow() -> None:
    """The headline's "(2 uncertain)": Hershey's brackets fill a whole character cell and read
    as full-width "（ ）"; drawn at their ink width they add little more than a Latin bracket."""
    px = 22
    plain = overlay._text_mask("2 uncertain", px).shape[1]
    bracketed = overlay._text_mask("(2 uncertain)", px).shape[1]
    assert (bracketed - plain) / 2 <= 0.7 * px
    assert overlay._text_mask("dice", px).shape[1] == pytest.approx(cv2.getTextSize("dice", cv2.FONT_HERSHEY_SIMPLEX, 1, 2)[0][0], abs=4)


def test_the_wheel_face_is_drawn_as_a_wheel_not_a_word() -> None:
    """The live view and annotated photos carry no English word: "wheel" is a wheel icon."""
    px = 24
    icon = overlay._label_patch("wheel", "", None, px, (255, 255, 255), (30, 30, 30), None)[0]
    word = overlay._text_mask("wheel", px)
    assert icon.shape[1] <= px + 2 * (px // 6) + 1 < word.shape[1]
    mask = overlay._wheel_mask(px)
    assert mask.shape == (px, px) and mask[px // 2, px // 2] > 128  # the hub
    between = np.deg2rad(22.5)  # halfway between two spokes, between hub and rim: open
    y, x = (round(px / 2 + np.sin(between) * px * 0.22), round(px / 2 + np.cos(between) * px * 0.22))
    assert mask[y, x] < 128
