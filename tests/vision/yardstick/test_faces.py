"""The yardstick's face artwork: real glyphs (not .notdef boxes) in fonts vision/synth never uses."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vision.yardstick import faces
from vision.yardstick.designs import DECK_DESIGNS, DICE_DESIGNS, TRAIN_DECK_DESIGNS, TRAIN_DICE_DESIGNS
from vision.yardstick.fonts import FONTS, KATAKANA, FontMissing, font_path

pytest.importorskip("fontTools")


def _font_or_skip(key: str) -> str:
    try:
        return font_path(key, KATAKANA)
    except FontMissing as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("key", sorted({d.font for d in DICE_DESIGNS + TRAIN_DICE_DESIGNS if d.font}))
def test_katakana_fonts_draw_each_glyph_differently_from_notdef(key: str) -> None:
    path = _font_or_skip(key)
    font = ImageFont.truetype(path, 64)

    def draw(ch: str) -> np.ndarray:
        img = Image.new("L", (96, 96), 0)
        ImageDraw.Draw(img).text((48, 48), ch, font=font, fill=255, anchor="mm")
        return np.asarray(img) > 127

    notdef = draw("\ue000")  # a private-use code point no font here maps
    glyphs = [draw(ch) for ch in KATAKANA]
    for ch, g in zip(KATAKANA, glyphs):
        assert g.sum() > 50, ch
        assert (g != notdef).mean() > 0.02, ch
    # プ and ブ differ only by their marks: still different drawings
    assert (glyphs[0] != glyphs[5]).sum() > 10


def test_no_font_is_one_that_vision_synth_ships() -> None:
    for spec in FONTS.values():
        name = spec.path.lower()
        assert not any(s in name for s in ("noto", "ipaex", "dejavu", "liberation", "carlito", "cantarell"))


def test_die_atlas_puts_marks_in_every_cell() -> None:
    d = next(d for d in DICE_DESIGNS if d.wheel)
    kind = d.kinds[0]
    rgb, mask = faces.die_atlas(d, kind.faces, kind.colours[0])
    assert rgb.size == (faces.CELL * 3, faces.CELL * 2)
    m = np.asarray(mask) > 127
    for i in range(6):
        cell = m[(i // 3) * faces.CELL:(i // 3 + 1) * faces.CELL, (i % 3) * faces.CELL:(i % 3 + 1) * faces.CELL]
        assert 0.005 < cell.mean() < 0.5
        assert not cell[:4].any() and not cell[-4:].any()  # marks stay off the bevel


def test_card_faces_are_opaque_inside_and_cut_at_the_corners() -> None:
    deck = DECK_DESIGNS[0]
    try:
        img = faces.card_face(deck, "10H")
    except FontMissing as exc:
        pytest.skip(str(exc))
    a = np.asarray(img)[..., 3]
    assert a[0, 0] == 0 and a[a.shape[0] // 2, a.shape[1] // 2] == 255


@pytest.mark.parametrize("style", faces.TRAIN_WHEEL_STYLES)
def test_training_wheels_are_drawn_and_differ_from_every_measured_wheel(style: str) -> None:
    s = 128
    mine = np.asarray(faces._wheel_mask(style, s)) > 127
    assert 0.05 < mine.mean() < 0.5
    assert not mine[:4].any() and not mine[-4:].any()
    for other in faces.WHEEL_STYLES:
        theirs = np.asarray(faces._wheel_mask(other, s)) > 127
        assert (mine != theirs).mean() > 0.05, other


@pytest.mark.parametrize("deck", DECK_DESIGNS + TRAIN_DECK_DESIGNS, ids=lambda d: d.id)
def test_index_rects_hold_the_ink_of_both_corner_indices(deck) -> None:
    try:
        img = np.asarray(faces.card_face(deck, "10S").convert("RGB")).astype(int)
        rects = faces.index_rects(deck, "10S")
    except FontMissing as exc:
        pytest.skip(str(exc))
    h, w = img.shape[:2]
    ink = np.abs(img - np.array(faces._u8(deck.paper))).sum(axis=2) > 150
    top_left, bottom_right = rects
    assert bottom_right == pytest.approx((1 - top_left[2], 1 - top_left[3], 1 - top_left[0], 1 - top_left[1]))
    for x0, y0, x1, y1 in rects:
        inside = ink[int(y0 * h):int(np.ceil(y1 * h)), int(x0 * w):int(np.ceil(x1 * w))]
        assert inside.mean() > 0.1  # rank and suit drawn there
        assert (x1 - x0) < 0.25 and (y1 - y0) < 0.3  # a corner, not the card
    # nothing of the top-left index lies outside its rect, within the corner it is printed in
    x0, y0, x1, y1 = top_left
    corner = ink[: int(0.3 * h), : int(0.24 * w)].copy()
    corner[int(y0 * h):int(np.ceil(y1 * h)), int(x0 * w):int(np.ceil(x1 * w))] = False
    assert corner[int(0.02 * h):, int(0.02 * w):].sum() == 0
