"""A roll's colours read as different dice of one set: the exact posterior, and the reader using it."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.read.detections import DIE_FACES
from vision.read.dice_set import SetDie, set_colours
from vision.read.policy import Mode
from vision.read.reader import Step
from vision.read.vocabulary import Vocabulary, VocabularyError, game_vocabulary


def _enumerated(face_p: np.ndarray, faces: tuple[str, ...], colour_p: np.ndarray, colours: tuple[str, ...],
                dice: list[SetDie]) -> np.ndarray:
    """The colour posterior by listing every matching of boxes to distinct dice and every
    face each matched die may show."""
    face_rel = face_p / face_p.sum(axis=1, keepdims=True)
    colour_rel = colour_p / colour_p.sum(axis=1, keepdims=True)
    out = np.zeros_like(colour_rel)
    for match in product(range(len(dice)), repeat=len(face_p)):
        if len(set(match)) < len(match):
            continue
        w = 1.0
        for i, d in enumerate(match):
            die = dice[d]
            w *= sum(face_rel[i, faces.index(f)] for f in die.faces) / len(die.faces)
            w *= colour_rel[i, colours.index(die.colour)]
        for i, d in enumerate(match):
            out[i, colours.index(dice[d].colour)] += w
    return out / out.sum(axis=1, keepdims=True) * colour_p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(4))
def test_the_forward_backward_pass_is_the_enumerated_posterior(seed: int) -> None:
    rng = np.random.default_rng(seed)
    faces, colours = ("A", "B", "C"), ("white", "black", "green")
    dice = [SetDie("white", ("A", "B", "B")), SetDie("white", ("A", "B", "B")), SetDie("white", ("A", "C", "C")),
            SetDie("black", ("A", "B", "B")), SetDie("green", ("C", "C", "C"))]
    n = int(rng.integers(1, 5))
    face_p, colour_p = rng.random((n, 3)), rng.random((n, 3)) * 0.9
    got = set_colours(face_p, faces, colour_p, colours, dice)
    assert got == pytest.approx(_enumerated(face_p, faces, colour_p, colours, dice), abs=1e-9)
    assert got.sum(axis=1) == pytest.approx(colour_p.sum(axis=1))  # each row's mass is kept


def test_four_boxes_read_black_cannot_all_be_black() -> None:
    nine = game_vocabulary("nine-dice")
    assert nine is not None
    faces = nine.reported_faces
    colours = ("black", "blue", "green", "white")
    face_p = np.full((4, len(faces)), 1.0 / len(faces))
    colour_p = np.array([[0.97, 0.02, 0.0, 0.01]] * 3 + [[0.7, 0.29, 0.0, 0.01]])  # the last one is a dim blue
    out = set_colours(face_p, faces, colour_p, colours, nine.dice)
    assert out[:, 0].sum() <= 3.0 + 1e-9
    assert out[3].argmax() == 1 and out[3, 1] > 0.8
    assert (out[:3].argmax(axis=1) == 0).all()


def test_a_face_only_the_green_die_has_reads_green() -> None:
    nine = game_vocabulary("nine-dice")
    assert nine is not None
    faces, colours = nine.reported_faces, ("black", "blue", "green", "white")
    face_p = np.zeros((2, len(faces)))
    face_p[0, faces.index("フ")] = 0.95
    face_p[0, faces.index("プ")] = 0.05
    face_p[1, faces.index("ラ")] = 1.0
    colour_p = np.array([[0.1, 0.1, 0.4, 0.4], [0.1, 0.1, 0.4, 0.4]])  # green or white, as the colour head sees it
    out = set_colours(face_p, faces, colour_p, colours, nine.dice)
    assert out[0].argmax() == 2 and out[0, 2] > 0.9  # フ: the expansion die
    assert out[1].argmax() == 3 and out[1, 2] < 0.01  # ラ: no green die shows it


def test_a_frame_with_more_boxes_than_the_set_has_dice_is_left_as_read() -> None:
    dice = [SetDie("white", ("A",) * 6), SetDie("black", ("A",) * 6)]
    colour_p = np.array([[0.1, 0.9]] * 3)
    assert (set_colours(np.ones((3, 1)), ("A",), colour_p, ("black", "white"), dice) == colour_p).all()
    assert set_colours(np.ones((0, 1)), ("A",), np.zeros((0, 2)), ("black", "white"), dice).shape == (0, 2)


def test_a_box_the_set_cannot_explain_keeps_its_colours_but_uses_up_a_die() -> None:
    dice = [SetDie("white", ("A",) * 6), SetDie("black", ("A",) * 6)]
    colour_p = np.array([[0.0, 0.0, 1.0], [0.5, 0.5, 0.0]])  # the first is red: no die of the set
    out = set_colours(np.ones((2, 1)), ("A",), colour_p, ("black", "white", "red"), dice)
    assert out[0].tolist() == [0.0, 0.0, 1.0]
    assert out[1, :2] == pytest.approx([0.5, 0.5])


def test_a_vocabulary_checks_its_set_against_its_faces_and_colours() -> None:
    with pytest.raises(VocabularyError, match="faces"):
        Vocabulary.of(["A"], ["white"], dice=[SetDie("white", ("A", "B"))])
    with pytest.raises(VocabularyError, match="colours"):
        Vocabulary.of(["A"], ["white"], dice=[SetDie("red", ("A",))])
    nine = game_vocabulary("nine-dice")
    assert nine is not None and len(nine.dice) == 10
    assert sorted(d.colour for d in nine.dice).count("blue") == 3
    liars, pin = game_vocabulary("liars-dice"), game_vocabulary("pin456")
    assert liars is not None and pin is not None and liars.dice == () and pin.dice == ()


def test_the_reader_reads_a_roll_by_its_set_unless_the_step_is_left_out() -> None:
    """Four sure boxes whose colour head says blue, one of them less surely, at a table whose
    set has three blue dice: that one reads as the green die it must be, and surely (the
    tiny reader's threshold is 0.5); without the step all four read blue, that one unsure.
    A doubted box takes no part."""
    colours = tiny.COLOURS
    blue, green = colours.index("blue"), colours.index("green")
    p = np.zeros((5, len(DIE_FACES) + 1), np.float32)
    p[:, DIE_FACES.index("プ")] = 0.95
    c = np.zeros((5, len(colours)), np.float32)
    c[:, blue], c[:, green] = 0.98, 0.02
    c[3, blue], c[3, green] = 0.45, 0.35  # the rest: red, which the table has not
    boxes = np.array([[10 + 40 * k, 10, 40 + 40 * k, 40] for k in range(5)], np.float32)
    scores = np.array([0.9, 0.9, 0.9, 0.9, 0.3])  # the fifth box is doubted
    vocab = Vocabulary.of(["プ"], ["blue", "green"], name="set",
                          dice=[SetDie(col, ("プ",) * 6) for col in ("blue",) * 3 + ("green",) * 3])
    reader = tiny.rejecting_reader(red_none=0.01).in_mode(Mode.PHOTO).with_vocabulary(vocab)
    read = reader.label_dice(boxes, p, c, scores)
    assert [d.colour for d in read] == ["blue", "blue", "blue", "green", "blue"]
    assert not read[3].uncertain and read[4].uncertain
    plain = reader.without(Step.DICE_SET).label_dice(boxes, p, c, scores)
    assert [d.colour for d in plain] == ["blue"] * 5 and plain[3].uncertain
