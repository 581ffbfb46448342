"""Finding the card around a corner index, and telling one card's two corners from a neighbour's."""

from __future__ import annotations

import cv2
import numpy as np

from vision.read.card_outline import find_outline, outline_at, same_card

PAPER = (238, 240, 236)
INK = (30, 30, 200)

Box = tuple[float, float, float, float]


def draw_card(
    img: np.ndarray, centre: tuple[float, float], height: float, angle: float = 0.0, index_width: float = 0.12,
) -> tuple[Box, Box]:
    """A face-up card (63 x 88 proportions) with its index (``index_width`` of the card's
    width: a "10" is wider) drawn at two opposite corners, the second turned half round;
    returns the two index boxes, top-left corner's first."""
    w, h = height * 63 / 88, height
    c, s = np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))

    def to_img(pts: np.ndarray) -> np.ndarray:
        return pts @ np.array([[c, s], [-s, c]]) + np.array(centre)

    card = to_img(np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]))
    cv2.fillPoly(img, [np.round(card).astype(np.int32)], PAPER, cv2.LINE_AA)
    boxes = []
    for sign in (1, -1):  # rank over suit, 8 % of the width in from the side, 5 % down
        x0, y0 = sign * (-w / 2 + 0.08 * w), sign * (-h / 2 + 0.05 * h)
        iw, ih = index_width * w, 0.17 * h
        rank = np.array([[0, 0], [iw, 0], [iw, 0.55 * ih], [0, 0.55 * ih]]) * sign + [x0, y0]
        suit = np.array([[0.2 * iw, 0.7 * ih], [0.8 * iw, 0.7 * ih], [0.5 * iw, ih]]) * sign + [x0, y0]
        glyphs = [to_img(rank), to_img(suit)]  # a rank drawn in strokes, with paper between
        cv2.polylines(img, [np.round(glyphs[0]).astype(np.int32)], True, INK, max(1, int(iw / 5)), cv2.LINE_AA)
        cv2.fillPoly(img, [np.round(glyphs[1]).astype(np.int32)], INK, cv2.LINE_AA)
        pts = np.vstack(glyphs)
        boxes.append((float(pts[:, 0].min() - 1), float(pts[:, 1].min() - 1), float(pts[:, 0].max() + 1), float(pts[:, 1].max() + 1)))
    return boxes[0], boxes[1]


def table(colour: tuple[int, int, int] = (40, 90, 40), seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), colour, np.float32) + rng.normal(0, 4, (480, 640, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def test_one_card_pairs_its_two_corners_at_any_angle():
    for angle in (0.0, 25.0, 90.0, 140.0):
        img = table()
        a, b = draw_card(img, (320, 240), 110, angle)
        outline = outline_at(img, a)
        assert outline is not None, (angle, find_outline(img, a))
        assert 5.0 < outline.long_side / outline.index_length < 8.0
        assert same_card(img, a, b) and same_card(img, b, a)


def test_webcam_sized_card_with_noise_still_pairs():
    img = table(seed=3)
    a, b = draw_card(img, (200, 200), 64, 10.0)
    noisy = np.clip(img.astype(np.float32) + np.random.default_rng(1).normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    assert same_card(noisy, a, b)


def test_neighbouring_cards_do_not_pair():
    img = table()
    a1, b1 = draw_card(img, (250, 240), 100)
    a2, b2 = draw_card(img, (360, 240), 100)
    assert same_card(img, a1, b1) and same_card(img, a2, b2)
    for x, y in ((a1, b2), (a2, b1), (b1, a2), (a1, a2)):
        assert not same_card(img, x, y)


def test_touching_cards_make_no_outline():
    img = table()
    a1, _ = draw_card(img, (280, 240), 100)
    _, b2 = draw_card(img, (280 + 100 * 63 / 88, 240), 100)  # edge to edge: one long paper region
    assert outline_at(img, a1) is None
    assert not same_card(img, a1, b2)


def test_a_corner_of_the_same_side_is_not_the_other_index():
    img = table()
    a, b = draw_card(img, (320, 240), 110)
    outline = outline_at(img, a)
    assert outline is not None
    x1, y1, x2, y2 = a
    shift = 110 * 63 / 88 * 0.85  # the same index moved to the top-right corner
    assert not outline.pairs(a, (x1 + shift, y1, x2 + shift, y2))
    assert not outline.pairs(a, (600, 400, 610, 415))  # off the card


def test_no_outline_on_a_table_of_the_cards_colour_or_at_the_frame_edge():
    pale = table(PAPER)
    a, b = draw_card(pale, (320, 240), 110)
    assert outline_at(pale, a) is None and find_outline(pale, a) == "region too large"
    cut = table()
    a, b = draw_card(cut, (20, 240), 110)  # half off the frame's left edge
    assert not same_card(cut, b, a)


def test_a_fan_of_cards_is_not_one_card():
    img = table()
    boxes = [draw_card(img, (300 + 14 * k, 260), 120, -20 + 10 * k) for k in range(4)]
    top_left_of_first, _ = boxes[0]
    _, far_corner_of_last = boxes[-1]
    assert not same_card(img, top_left_of_first, far_corner_of_last)


def test_a_table_near_the_cards_colour_is_followed_again_more_narrowly():
    pale = table((200, 206, 204))  # a light grey table: within the paper's first tolerance
    a, b = draw_card(pale, (320, 240), 110, 20.0)
    assert same_card(pale, a, b) and same_card(pale, b, a)
    other = table((200, 206, 204))
    a1, _ = draw_card(other, (250, 240), 100)
    _, b2 = draw_card(other, (360, 240), 100)
    assert not same_card(other, a1, b2)


def test_a_square_heap_is_not_one_card():
    img = table()
    a, _ = draw_card(img, (300, 240), 110)
    _, b = draw_card(img, (300 + 110 * 0.3, 240), 110)  # a second card over most of it: a square of paper
    found = find_outline(img, a)
    assert isinstance(found, str) and found.endswith("times as long as wide")
    assert not same_card(img, a, b)


def test_a_faint_index_is_measured_by_its_box():
    img = table()
    a, b = draw_card(img, (320, 240), 110, 10.0)
    faint = img.copy()
    paper = np.array(PAPER, np.float32)
    for x1, y1, x2, y2 in (a, b):  # the print washed out to near the paper's colour
        cut = faint[int(y1):int(y2) + 1, int(x1):int(x2) + 1].astype(np.float32)
        faint[int(y1):int(y2) + 1, int(x1):int(x2) + 1] = np.clip(paper + 0.25 * (cut - paper), 0, 255).astype(np.uint8)
    outline = outline_at(faint, a)
    assert outline is not None
    assert 4.5 < outline.long_side / outline.index_length < 8.0
    assert same_card(faint, a, b)


def _side_by_side(gap: float, angle: float) -> tuple[np.ndarray, tuple[Box, Box], tuple[Box, Box]]:
    """Two cards with wide indices (a "10") side by side, long edges ``gap`` pixels apart."""
    img = table()
    h = 110.0
    step = (h * 63 / 88 + gap) / 2
    c, s = np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))
    first = draw_card(img, (320 - step * c, 240 - step * s), h, angle, index_width=0.18)
    second = draw_card(img, (320 + step * c, 240 + step * s), h, angle, index_width=0.18)
    return img, first, second


def test_two_cards_side_by_side_are_split_by_the_gap_between_them(monkeypatch):
    for angle in (0.0, 30.0):
        img, (a1, _), (_, b2) = _side_by_side(4.0, angle)
        found = find_outline(img, a1)
        assert found == "two cards side by side", (angle, found)
        assert not same_card(img, a1, b2) and not same_card(img, b2, a1)
        with monkeypatch.context() as patch:  # without the check their paper is one card's shape
            patch.setattr("vision.read.card_outline.SPLIT_SHARE", 2.0)
            assert same_card(img, a1, b2)


def test_a_card_with_wide_indices_is_not_split():
    for angle in (0.0, 30.0, 100.0):
        img = table()
        a, b = draw_card(img, (320, 240), 110, angle, index_width=0.18)
        assert find_outline(img, a) != "two cards side by side" != find_outline(img, b)
        assert same_card(img, a, b) or same_card(img, b, a), angle  # the reader tries both ways
