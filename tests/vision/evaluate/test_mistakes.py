"""vision.evaluate.mistakes: a photo's dice mistakes, and the picture ``tableref eval --mistakes`` draws of them."""

from __future__ import annotations

import doctest

import numpy as np

import vision.evaluate.mistakes as mistakes_mod
from vision.read.detections import Detection
from vision.evaluate.mistakes import MISSED_STYLE, dice_errors, draw_mistakes, picture_name, write_mistakes


def die(face: str, box: tuple[float, float, float, float], score: float = 0.95, uncertain: bool = False) -> Detection:
    return Detection("die", face, "white", box, score, uncertain=uncertain)


TRUTH = (die("3", (10, 10, 40, 40), 1.0), die("プ", (60, 10, 90, 40), 1.0), die("5", (110, 10, 140, 40), 1.0))


def test_doctests():
    assert doctest.testmod(mistakes_mod).failed == 0


def test_missed_wrong_and_extra_are_told_apart():
    reading = (die("3", (11, 11, 41, 41)), die("ブ", (60, 10, 90, 40), 0.6, uncertain=True),
               die("6", (150, 60, 180, 90), 0.9), Detection("card", "QH", None, (0, 0, 5, 5), 0.9))
    errors = dice_errors(TRUTH, reading)
    assert errors.missed == (TRUTH[2],)
    assert errors.wrong == ((TRUTH[1], reading[1]),)
    assert errors.extra == (reading[2],)  # the card is not a die: neither extra nor scored
    assert not errors.exact
    assert errors.headline() == "missed 1 (5) | wrong 1: pu read bu unsure | extra 1 (1 sure)"
    assert errors.headline().isascii()


def test_a_box_too_loose_to_match_is_a_miss_and_an_extra():
    errors = dice_errors(TRUTH[:1], (die("3", (10, 10, 80, 80)),))
    assert (len(errors.missed), len(errors.wrong), len(errors.extra)) == (1, 0, 1)
    assert dice_errors(TRUTH[:1], (die("3", (10, 10, 80, 80)),), iou_threshold=0.15).exact


def test_the_picture_marks_the_missed_die_red_and_writes_a_flat_name(tmp_path):
    image = np.full((120, 200, 3), 90, np.uint8)
    errors = dice_errors(TRUTH, TRUTH[:2])
    out = draw_mistakes(image, TRUTH[:2], errors)
    assert out.shape == image.shape and np.array_equal(image, np.full_like(image, 90))  # the input is untouched
    x1, _, x2, y2 = (int(v) for v in TRUTH[2].box)
    bottom = out[y2 - 1 : y2 + 2, (x1 + x2) // 2].astype(int)
    assert (abs(bottom - np.array(MISSED_STYLE.box)).sum(axis=1) < 40).any()
    assert not np.array_equal(out[:20, :100], image[:20, :100])  # the headline
    path = write_mistakes(tmp_path, "images/test/a.png", image, TRUTH[:2], errors)
    assert path == tmp_path / picture_name("images/test/a.png") == tmp_path / "images_test_a.jpg"
    assert path.read_bytes()[:2] == b"\xff\xd8"
