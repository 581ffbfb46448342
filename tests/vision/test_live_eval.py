"""``tableref eval-live``: settled reveals scored against the dice in play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.detections import Detection, Reading
from vision.live_eval import OUTCOMES, ClipResult, DiceScore, score_reveal, summarise
from vision.reader import DEFAULT_MODEL_DIR
from vision.settle import SettledReading
from web.cli import main


def die(x: float, face: str, colour: str = "white", uncertain: bool = False) -> Detection:
    return Detection("die", face, colour, (x, 0, x + 20, 20), 0.9, uncertain)


def settled(*dice: Detection) -> SettledReading:
    return SettledReading(Reading(dice), (), frame_index=0, t=0.0, frames=5, seq=1)


TRUTH = (die(0, "5"), die(40, "ブ", "blue"))


@pytest.mark.parametrize(
    ("read", "colour_counts", "outcome"),
    [
        ((die(1, "5"), die(41, "ブ", "blue")), True, "right"),
        ((die(1, "5"), die(41, "プ", "blue", uncertain=True)), True, "re-read"),
        ((die(1, "5"), die(41, "プ", "blue")), True, "wrong"),
        ((die(1, "5"), die(41, "ブ", "black")), True, "wrong"),  # Nine Dice words depend on colours
        ((die(1, "5"), die(41, "ブ", "black")), False, "right"),
        ((die(1, "5"),), True, "count"),
        ((die(1, "6"),), True, "count"),  # the count goes first: no verdict is given on it
        ((die(1, "5"), die(41, "ブ", "blue"), die(80, "2", uncertain=True)), True, "count"),
        ((die(1, "5"), die(300, "ブ", "blue")), True, "wrong"),  # one in play missed, one stray read surely
        ((die(1, "5"), die(300, "ブ", "blue", uncertain=True)), True, "re-read"),
    ],
)
def test_each_settled_reveal_gets_one_outcome(read, colour_counts, outcome) -> None:
    assert score_reveal(settled(*read), TRUTH, colour_counts).outcome == outcome


def test_per_die_counts_and_the_summary() -> None:
    wrong = score_reveal(settled(die(1, "6"), die(41, "ブ", "blue", uncertain=True)), TRUTH, True)
    assert (wrong.found, wrong.right, wrong.uncertain, wrong.sure_wrong) == (2, 1, 1, 1)
    none = score_reveal(None, TRUTH, True)
    assert none == DiceScore("unsettled", 2, 0, 0, 0, 0)
    results = [ClipResult("liars-dice", 1, wrong, none, 7, 3.0), ClipResult("pin456", 2, none, wrong, None, 0.0)]
    vote = summarise(results, "vote")
    assert vote["reveals"] == 2 and vote["wrong"] == 1 and vote["unsettled"] == 1 and vote["dice"] == 4
    assert vote["dice_right"] == 1 and vote["right_pct"] == 50.0
    assert sum(vote[k] for k in OUTCOMES) == vote["reveals"]


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file(), reason="no committed dice models")
def test_eval_live_plays_rendered_reveals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-live", "--n", "3", "--seed", "7", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "frames' vote" in printed and "+ closer look" in printed and "per settled reveal" in printed
    metrics = json.loads((tmp_path / "live-metrics.json").read_text())
    assert [r["game"] for r in metrics["reveals"]] == ["liars-dice", "nine-dice", "pin456"]
    for which in ("vote", "closer"):
        total = metrics["summary"][which]["all"]
        assert total["reveals"] == 3 and sum(total[k] for k in OUTCOMES) == 3
        assert total["dice"] == sum(r[which]["dice"] for r in metrics["reveals"])
    assert metrics["config"]["tables"] == "demo" and metrics["reader"]["vocabulary"] is None


@pytest.mark.parametrize("args", [["--n", "0"], ["--die-px", "30", "10"]])
def test_eval_live_refuses_bad_arguments(args, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-live", *args]) == 2
    assert "tableref eval-live:" in capsys.readouterr().err
