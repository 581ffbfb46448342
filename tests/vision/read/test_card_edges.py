"""vision.read.card_edges: a card's outline from its two corner indices and the frame's edges."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.read.test_card_outline import PAPER, draw_card
from vision.read.card_edges import edge_candidates, outline_between
from vision.read.card_outline import find_outline


def true_corners(centre: tuple[float, float], height: float, angle: float) -> np.ndarray:
    """The corners of the card :func:`draw_card` draws."""
    w, h = height * 63 / 88, height
    c, s = np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))
    card = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return card @ np.array([[c, s], [-s, c]]) + np.array(centre)


def blotchy_table(seed: int, zoom: int = 1) -> np.ndarray:
    """A grey table (320 x 240 px times ``zoom``) splashed with blots of the cards' paper colour,
    like a pale marble: the paper runs into the table, so the paper's region around an index
    is not one card."""
    rng = np.random.default_rng(seed)
    img = np.full((240 * zoom, 320 * zoom, 3), (200, 204, 198), np.uint8)
    for _ in range(60):
        centre = (int(rng.integers(0, 320)) * zoom, int(rng.integers(0, 240)) * zoom)
        cv2.circle(img, centre, int(rng.integers(4, 10)) * zoom, PAPER, -1)
    return img


@pytest.mark.parametrize("seed, angle", [(0, 25.0), (1, -40.0), (2, 80.0), (3, 0.0)])
def test_a_card_on_a_table_of_its_papers_colour_is_found_from_its_edges(seed, angle):
    img = blotchy_table(seed)
    a, b = draw_card(img, (160, 120), 110, angle=angle)
    assert isinstance(find_outline(img, a), str), "the paper's region is no card here"
    found = outline_between(img, a, b)
    assert found is not None
    truth = true_corners((160, 120), 110, angle)
    # each corner found lies near one of the card's (its indices sit a little off the model's)
    nearest = np.hypot(*(found.corners[:, None] - truth[None]).transpose(2, 0, 1)).min(axis=1)
    assert nearest.max() < 0.08 * 110
    assert 0.9 * 110 < found.long_side < 1.1 * 110


def test_the_indices_alone_make_no_card():
    img = np.full((240, 320, 3), (200, 204, 198), np.uint8)
    card = np.zeros_like(img)
    a, b = draw_card(card, (160, 120), 110, angle=25)
    ink = (card[..., 0] < 120) & (card[..., 2] > 100)  # only the index glyphs, on the bare table
    img[ink] = (30, 30, 200)
    assert outline_between(img, a, b) is None


def test_a_card_is_not_found_in_its_mirror_image():
    img = np.full((240, 320, 3), (60, 60, 60), np.uint8)
    a, b = draw_card(img, (160, 120), 110, angle=25)
    flipped = np.ascontiguousarray(img[:, ::-1])  # the card's back to the camera, as it were
    fa, fb = ((320 - x2, y1, 320 - x1, y2) for x1, y1, x2, y2 in (a, b))
    assert outline_between(img, a, b) is not None
    found = edge_candidates(flipped, fa, fb)
    assert found is not None and found[1] < found[2], "the mirrored candidates step more"
    assert outline_between(flipped, fa, fb) is None


def test_indices_too_near_or_too_far_apart_are_no_card():
    img = np.full((240, 320, 3), (60, 60, 60), np.uint8)
    assert outline_between(img, (100.0, 100.0, 110.0, 115.0), (112.0, 104.0, 122.0, 119.0)) is None
    assert outline_between(img, (10.0, 10.0, 16.0, 20.0), (300.0, 220.0, 306.0, 230.0)) is None


def test_a_card_running_off_the_frame_is_not_outlined():
    img = np.full((240, 320, 3), (60, 60, 60), np.uint8)
    a, b = draw_card(img, (40, 120), 110, angle=25)  # its left corners off the frame
    assert outline_between(img, a, b) is None


def test_a_large_card_is_found_in_a_shrunk_frame_where_it_is():
    img = blotchy_table(1, zoom=5)  # a phone's photo: the indices some 370 px apart
    a, b = draw_card(img, (800, 600), 550, angle=-40.0)
    assert isinstance(find_outline(img, a), str)
    found = outline_between(img, a, b)
    assert found is not None
    truth = true_corners((800, 600), 550, -40.0)
    nearest = np.hypot(*(found.corners[:, None] - truth[None]).transpose(2, 0, 1)).min(axis=1)
    assert nearest.max() < 0.08 * 550
    assert 0.9 * 550 < found.long_side < 1.1 * 550
