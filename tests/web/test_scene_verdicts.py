"""The verdicts a table gives on labelled scenes (``tableref eval`` on sets that name their game)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.evaluate.datasets import LabelledImage
from vision.read.detections import Detection
from web.verdict_eval import scene_table, scene_verdict, scene_verdicts

FACES = ["2", "3", "wheel", "5", "5", "6"]  # seed 0 draws a bid on 5s: three counted (5, 5, wheel), bid four


def die(face: str, k: int, uncertain: bool = False, alternatives: tuple[str, ...] = ()) -> Detection:
    return Detection("die", face, "white", (k * 20.0, 0.0, k * 20.0 + 10.0, 10.0), 1.0 if not uncertain else 0.5,
                     uncertain, alternatives=alternatives)


def stored(dice: list[Detection]) -> list[dict]:
    out = []
    for d in dice:
        o = d.to_json()
        if d.alternatives:
            o["alternatives"] = list(d.alternatives)
        out.append(o)
    return out


TRUTH = [die(f, k) for k, f in enumerate(FACES)]


def test_the_bid_is_drawn_from_the_seed_one_off_the_true_count() -> None:
    bid = scene_table("liars-dice", stored(TRUTH), 0).state.to_json()["bid"]
    assert (bid["face"], bid["quantity"]) == ("5", 4)
    assert scene_table("liars-dice", stored(TRUTH), 0) == scene_table("liars-dice", stored(TRUTH), 0)


@pytest.mark.parametrize(("reading", "outcome"), [
    (TRUTH, "sure"),
    ([*TRUTH[:3], die("6", 3), *TRUTH[4:]], "sure wrong"),  # a 5 read as a 6, surely: two 5s counted, not three
    ([TRUTH[0], die("3", 1, True, ("3", "2")), *TRUTH[2:]], "unsure"),  # a 2 or a 3: no 5 either way
    ([*TRUTH[:5], die("6", 5, True, ("6", "5"))], "re-read"),  # a 6 or a 5 changes the count
    (TRUTH[:5], "re-read"),  # a die not found: another number of dice than in play
])
def test_a_reading_gets_the_verdict_the_table_would_give(reading: list[Detection], outcome: str) -> None:
    assert scene_verdict("liars-dice", 0, stored(TRUTH), stored(reading)) == outcome


def test_doubt_plays_the_cards_face_up_declared_as_a_drawn_rank() -> None:
    cards = [{"kind": "card", "face": f, "colour": None, "box": [k * 50, 0, k * 50 + 40, 60], "score": 1.0}
             for k, f in enumerate(["7H", "7S"])]
    assert {scene_table("doubt", cards, s).state.to_json()["rank"] for s in range(4)} == {"7", "8", "10"}
    misread = [cards[0], {**cards[1], "face": "9S"}]
    assert scene_verdict("doubt", 1, cards, cards) == "sure"  # declared 7: the truth
    assert scene_verdict("doubt", 1, cards, misread) == "sure wrong"  # a 9 read: a lie, which it was not
    assert scene_verdict("doubt", 0, cards, misread) == "sure"  # declared 8: a lie either way
    assert scene_verdict("doubt", 0, cards, cards[:1]) == "re-read"  # one card of two


def test_the_share_of_scenes_given_a_verdict_untouched(tmp_path: Path) -> None:
    hidden = die("4", 9)  # under a hand: not readable, still in play
    items = [
        LabelledImage(tmp_path / "a.png", (*TRUTH, hidden), 640, 480, readable=(True,) * 6 + (False,), game="liars-dice", seed=0),
        LabelledImage(tmp_path / "b.png", tuple(TRUTH), 640, 480, game="liars-dice", seed=0),
        LabelledImage(tmp_path / "c.png", tuple(TRUTH), 640, 480, game="liars-dice", seed=0),
        LabelledImage(tmp_path / "d.png", tuple(TRUTH), 640, 480),  # no game: not judged
    ]
    readings = [TRUTH, TRUTH, [*TRUTH[:3], die("6", 3), *TRUTH[4:]], TRUTH]
    summary = scene_verdicts(items, readings)
    assert summary is not None
    # a: the hidden die was not read, so the count is short: a re-read. b: right. c: wrong.
    assert (summary["scenes"], summary["untouched"], summary["right"], summary["wrong"], summary["re_read"]) == (3, 2, 1, 1, 1)
    assert summary["share_right"] == pytest.approx(1 / 3) and summary["share_untouched"] == pytest.approx(2 / 3)
    assert summary["by_game"]["liars-dice"]["scenes"] == 3
    assert scene_verdicts(items[3:], readings[3:]) is None
