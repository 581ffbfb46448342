"""The headline numbers of ``tableref eval`` on hand-made labels and readings with known answers."""

from __future__ import annotations

import pytest

from vision.evaluate.card_scoring import score_cards
from vision.read.detections import Detection
from vision.evaluate.scoring import face_px_bin, held_share, score


def die(face: str, x: float, colour: str | None = None, uncertain: bool = False, side: float = 10.0) -> Detection:
    return Detection("die", face, colour, (x, 0.0, x + side, side), 0.5 if uncertain else 0.95, uncertain)


# Scene 1: four dice; one read right and sure, one right but unsure, one wrong and sure, one missed.
# Scene 2: two dice, both read right and sure, and a box where no die is read surely.
# Scene 3: one die read right and sure; a second die under a hand (not readable) read too.
TRUTH = [
    [die("1", 0, "white"), die("2", 20, "white"), die("3", 40, "red"), die("4", 60, "red")],
    [die("5", 0, "blue"), die("6", 20, "blue")],
    [die("wheel", 0, "white"), die("3", 20, "white")],
]
READ = [
    [die("1", 0), die("2", 20, uncertain=True), die("5", 40)],
    [die("5", 0), die("6", 20), die("2", 200)],
    [die("wheel", 0), die("6", 20)],
]
READABLE = [None, None, [True, False]]


def scored():
    return score(list(zip(TRUTH, READ)), readable=READABLE)


def test_found_coverage_right_among_sure_and_confidently_wrong() -> None:
    m = scored()
    assert (m.gt_dice, m.matched, m.confident_matched, m.confident_correct) == (7, 6, 5, 4)
    h = m.headline()
    assert h["found"] == pytest.approx(6 / 7)
    assert h["sure_coverage"] == pytest.approx(5 / 7)
    assert h["right_among_sure"] == pytest.approx(4 / 5)
    assert h["die_accuracy"] == pytest.approx(4 / 7)
    assert h["confidently_wrong"] == pytest.approx(1 / 7)


def test_a_scene_is_sure_exact_only_with_every_die_right_and_sure_and_nothing_extra_sure() -> None:
    m = scored()
    assert m.scenes_sure_exact == 1 and m.headline()["scene_exact"] == pytest.approx(1 / 3)  # scene 3 only
    assert m.scenes_exact == 1  # the old rule: scene 3 as well (every die found and read, nothing extra)
    unsure_extra = score([(TRUTH[1], [die("5", 0), die("6", 20), die("2", 200, uncertain=True)])])
    assert unsure_extra.scenes_sure_exact == 1 and unsure_extra.scenes_exact == 0
    cards_only = [([Detection("card", "7H", None, (0, 0, 10, 20), 1.0)], [])]  # a Doubt scene: no die to read
    with_cards = score(cards_only + list(zip(TRUTH, READ)), readable=[None, *READABLE])
    assert (with_cards.scenes_with_dice, with_cards.scenes_sure_exact) == (3, 1) and with_cards.images == 4


def test_a_reading_on_a_die_no_one_could_read_is_neither_hit_nor_false_alarm() -> None:
    m = scored()
    assert (m.unreadable, m.on_unreadable) == (1, 1)
    assert m.predicted == 7 and m.extra_sure == 1  # the stray 2 of scene 2, not the 6 on the hidden 3
    everything = score(list(zip(TRUTH, READ)))
    assert everything.gt_dice == 8 and everything.confident_matched == 6  # readable: the 6 is a sure mistake


def test_by_face_colour_and_face_size() -> None:
    m = score(list(zip(TRUTH, READ)), readable=READABLE, face_px=[[9.0, 16.0, 25.0, 45.0], None, [30.0, 30.0]])
    per_face = dict(m.per_face)
    assert (per_face["2"].matched, per_face["2"].sure, per_face["2"].correct) == (1, 0, 1)
    assert (per_face["3"].gt, per_face["3"].sure, per_face["3"].sure_correct) == (1, 1, 0)  # the hidden 3 is not counted
    colour = dict(m.by_colour)
    assert list(colour) == ["white", "blue", "red"]  # most dice first
    assert (colour["white"].gt, colour["white"].sure_correct) == (3, 2)
    assert (colour["red"].gt, colour["red"].matched, colour["red"].sure_correct) == (2, 1, 0)
    px = dict(m.by_face_px)
    # scene 2 has no face_px: its dice go by their boxes' shorter side (10 px)
    assert {b: st.gt for b, st in px.items()} == {"<14 px": 3, "14-20 px": 1, "20-28 px": 1, "28-40 px": 1, ">=40 px": 1}
    assert px["<14 px"].headline()["die_accuracy"] == pytest.approx(3 / 3)
    assert px[">=40 px"].matched == 0
    assert face_px_bin(13.99) == "<14 px" and face_px_bin(40.0) == ">=40 px"
    j = m.to_json()
    assert j["by_colour"]["white"]["die_accuracy"] == pytest.approx(2 / 3)
    assert j["headline"]["found"] == pytest.approx(6 / 7) and j["unreadable"] == {"labelled": 1, "read": 1}
    assert j["scene_exact"]["exact"] == 1  # the old keys stay


def card(face: str, box: tuple[float, float, float, float], uncertain: bool = False, readable: bool = True) -> Detection:
    return Detection("card", face, None, box, 0.5 if uncertain else 0.95, uncertain)


def test_whole_cards_are_matched_to_cards_read_from_their_corners_and_scored_by_rank_and_suit() -> None:
    truth = (card("7H", (0, 0, 100, 150)), card("QS", (200, 0, 300, 150)), card("", (400, 0, 500, 150)))
    read = (card("7H", (5, 5, 95, 145)), card("QC", (205, 5, 220, 30)), card("3D", (405, 5, 420, 30)))  # last: face down
    m = score_cards([(truth, read, read)], readable=[(True, True, False)], overlap=held_share)
    assert (m.card.gt_dice, m.card.matched, m.card.confident_correct, m.card.on_unreadable) == (2, 2, 1, 1)
    assert m.card.headline()["confidently_wrong"] == 0.5
    assert dict(m.rank.per_face)["Q"].sure_correct == 1 and dict(m.suit.per_face)["S"].sure_correct == 0
    assert m.scenes == 1 and m.scenes_exact == 0
