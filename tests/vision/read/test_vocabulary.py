"""A table's vocabulary: faces merged and restricted, colours restricted, scores not inflated."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.read.vocabulary import Vocabulary, VocabularyError, game_vocabulary, merge_shades, plain_colour

NAMES = ("1", "2", "wheel", "プ")


def test_merged_faces_add_up() -> None:
    v = Vocabulary.of({"1": "wheel", "wheel": "wheel", "2": "2"})
    p = np.array([[0.40, 0.10, 0.40, 0.10],   # 1 and wheel merge: wheel 0.8
                  [0.05, 0.60, 0.05, 0.30]])  # 2 wins; プ is not kept
    faces, score = v.decode_faces(p, NAMES)
    assert faces == ["wheel", "2"]
    assert score == pytest.approx([0.8, 0.6], abs=1e-6)


def test_a_face_the_game_lacks_keeps_a_low_score() -> None:
    v = Vocabulary.of(["1", "2"])
    faces, score = v.decode_faces(np.array([[0.02, 0.03, 0.05, 0.90]]), NAMES)
    assert faces == ["2"] and score[0] == pytest.approx(0.03)  # not renormalised to 0.6


def test_empty_rows_decode_to_nothing() -> None:
    faces, score = Vocabulary.of(["1"]).decode_faces(np.zeros((0, 4), np.float32), NAMES)
    assert faces == [] and score.shape == (0,)
    colours, p = Vocabulary.of(["1"], ["red"]).decode_colours(np.zeros((0, 2), np.float32), ("red", "blue"))
    assert colours == [] and p.shape == (0,)


def test_colours_are_restricted_to_the_allowed_ones() -> None:
    names = ("ivory", "white", "black", "navy", "red")
    p = np.array([[0.5, 0.3, 0.05, 0.05, 0.1], [0.1, 0.05, 0.25, 0.55, 0.05]])
    colours, prob = Vocabulary.of(["1"], ["white", "black"]).decode_colours(p, names)
    assert colours == ["white", "black"] and prob.tolist() == pytest.approx([0.8, 0.25])  # not renormalised
    colours, prob = Vocabulary.of(["1"]).decode_colours(p, names)
    assert colours == ["white", "blue"]
    assert prob.tolist() == pytest.approx([0.8, 0.55])


def test_shades_are_reported_as_their_plain_colour() -> None:
    names = ("ivory", "white", "navy", "blue", "grey")
    out, p = merge_shades(np.array([[0.4, 0.35, 0.05, 0.05, 0.15]]), names)
    assert out == ("white", "blue", "grey") and p[0].tolist() == pytest.approx([0.75, 0.1, 0.15])
    assert [plain_colour(c) for c in names] == ["white", "white", "blue", "blue", "grey"]
    # a reading never names a shade, so a vocabulary may not allow one
    with pytest.raises(VocabularyError, match="no colour ivory"):
        Vocabulary.of(["1"], ["ivory"]).check(None, names)


def test_names_the_model_lacks_are_refused() -> None:
    with pytest.raises(VocabularyError, match="no face ス"):
        Vocabulary.of(["ス"], name="x").decode_faces(np.ones((1, 4)), NAMES)
    with pytest.raises(VocabularyError, match="no colour gold"):
        Vocabulary.of(["1"], ["gold"]).check(NAMES, ("white",))
    with pytest.raises(VocabularyError):
        Vocabulary.of([])
    with pytest.raises(VocabularyError):
        Vocabulary.of(["1"], [])


def test_game_vocabularies_follow_the_rules() -> None:
    liars = game_vocabulary("liars-dice")
    assert liars is not None and liars.reported_faces == ("2", "3", "4", "5", "6", "wheel")
    assert dict(liars.faces)["1"] == "wheel" and liars.colours is None
    nine = game_vocabulary("nine-dice")
    assert nine is not None and set(nine.reported_faces) == set("プラスベガブレフカ")
    assert nine.colours == {"white", "black", "blue", "green"}
    pin = game_vocabulary("pin456")
    assert pin is not None and pin.reported_faces == ("1", "4", "5", "6")
    assert game_vocabulary("doubt") is None
    with pytest.raises(VocabularyError, match="unknown game"):
        game_vocabulary("poker")


def test_the_reader_reads_with_a_vocabulary() -> None:
    # tiny classifier: blue -> プ, green -> 2, red -> wheel (detector unsure), grey -> a 3-way tie
    plain = tiny.fake_reader()
    merged = plain.with_vocabulary(Vocabulary.of({"プ": "プ", "2": "プ"}, ["blue", "red"]))
    dice = merged.read(tiny.scene()).dice()
    blue, grey, green, red = dice
    assert [d.face for d in dice] == ["プ"] * 4
    assert not blue.uncertain and blue.score > 0.99
    # green is not allowed: read as the likelier allowed colour, which the model barely
    # believes, so the die is unsure although its face is sure
    assert green.uncertain and green.colour in {"blue", "red"} and green.score > 0.99
    assert grey.score == pytest.approx(2 / 3, abs=0.02)  # プ + 2 of a 3-way tie
    assert grey.uncertain  # its colour is a 3-way tie too
    assert red.uncertain and red.score < 0.01  # a wheel: almost nothing on プ or 2
    assert merged.without_cards().vocabulary is merged.vocabulary
    assert merged.info["vocabulary"]["faces"] == {"2": "プ", "プ": "プ"}
    assert plain.with_vocabulary(None).read(tiny.scene()).faces() == plain.read(tiny.scene()).faces()


def test_colour_leaves_a_die_unsure_only_on_a_table_whose_words_depend_on_it() -> None:
    faces = {"プ": "プ", "2": "プ"}
    blind = tiny.fake_reader().with_vocabulary(Vocabulary.of(faces))
    blue, grey, green, _ = blind.read(tiny.scene()).dice()
    assert not blue.uncertain and not green.uncertain and not grey.uncertain  # colours are not read for the game
    assert green.colour == "green"
    coloured = tiny.fake_reader().with_vocabulary(Vocabulary.of(faces, ["blue", "green", "red"]))
    blue, grey, green, _ = coloured.read(tiny.scene()).dice()
    assert not blue.uncertain and not green.uncertain  # each colour read surely
    assert grey.uncertain and grey.face == "プ"  # a grey die: a 3-way tie of colours


def test_a_die_outside_the_vocabulary_is_never_sure() -> None:
    reader = tiny.fake_reader().with_vocabulary(Vocabulary.of(["2", "wheel"]))
    blue = reader.read(tiny.scene()).dice()[0]
    assert blue.face in {"2", "wheel"} and blue.uncertain  # a プ die on a table whose dice have no プ
    with pytest.raises(VocabularyError, match="no colour white"):
        tiny.fake_reader().with_vocabulary(Vocabulary.of(["2"], ["white"]))
