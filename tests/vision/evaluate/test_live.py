"""``tableref eval-live``: settled reveals scored against the dice (or cards) in play."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from types import SimpleNamespace
from pathlib import Path

import pytest

from vision.read.detections import Detection, Reading
from vision.evaluate.live import (
    OUTCOMES, ClipResult, DiceScore, piece_records, report, score_cards, score_reveal, summarise, unsure_by_face,
)
from vision.read.reader import DEFAULT_MODEL_DIR
from vision.live.settle import SettledReading
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


def test_each_die_in_play_is_recorded_with_what_the_table_was_handed() -> None:
    read = Reading((die(1, "5"), die(41, "プ", "blue", uncertain=True), die(300, "2")))
    rec = piece_records(ClipResult("nine-dice", 3, None, None, 5, 1.0, read, TRUTH))  # type: ignore[arg-type]
    assert [p["face"] for p in rec["in_play"]] == ["5", "ブ"] and rec["in_play"][0]["px"] == 20
    assert rec["in_play"][0]["read"] == {"face": "5", "colour": "white", "score": 0.9, "uncertain": False}
    assert rec["in_play"][1]["read"]["face"] == "プ" and rec["in_play"][1]["read"]["uncertain"]
    assert [(s["face"], s["px"]) for s in rec["strays"]] == [("2", 20)]
    missed = piece_records(ClipResult("nine-dice", 3, None, None, 5, 1.0, Reading((die(41, "ブ", "blue"),)), TRUTH))  # type: ignore[arg-type]
    assert missed["in_play"][0]["read"] is None and missed["in_play"][1]["read"]["face"] == "ブ"
    unsettled = piece_records(ClipResult("nine-dice", 3, None, None, None, 0.0, None, TRUTH))  # type: ignore[arg-type]
    assert [p["read"] for p in unsettled["in_play"]] == [None, None] and unsettled["strays"] == []
    assert unsettled["in_play"][1] == {"face": "ブ", "colour": "blue", "px": 20, "read": None}


def test_cards_in_play_are_recorded_by_face() -> None:
    read = Reading((card(61, "QS"), card(1, "10D", uncertain=True)))
    rec = piece_records(ClipResult("doubt", 3, None, None, 5, 0.0, read, CARDS))  # type: ignore[arg-type]
    assert rec["in_play"][0] == {"face": "QS", "read": {"face": "QS", "colour": None, "score": 0.9, "uncertain": False}}
    assert rec["in_play"][1]["read"] is None and [s["face"] for s in rec["strays"]] == ["10D"]
    twice = piece_records(ClipResult("doubt", 3, None, None, 5, 0.0, Reading((card(1, "QS"), card(61, "QS"))), CARDS))  # type: ignore[arg-type]
    assert twice["in_play"][0]["read"]["face"] == "QS" and [s["face"] for s in twice["strays"]] == ["QS"]


def test_unsure_dice_are_counted_by_the_face_in_play() -> None:
    def played(*read: Detection) -> ClipResult:
        vote = score_reveal(settled(*read), TRUTH, True)
        return ClipResult("nine-dice", 1, vote, vote, 5, 1.0, Reading(read), TRUTH)

    results = [played(die(1, "5"), die(41, "プ", "blue", uncertain=True)),
               played(die(1, "5", uncertain=True), die(41, "ブ", "blue", uncertain=True)),
               played(die(1, "5"), die(41, "ブ", "blue"))]
    counts = unsure_by_face([piece_records(r) for r in results])
    assert counts == {"ブ": {"unsure": 2, "read_right": 1}, "5": {"unsure": 1, "read_right": 1}}
    assert "by the face in play (read right all the same): ブ 2 (1), 5 1 (1)" in report(results)
    assert "by the face in play" not in report(results[2:])


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
    for r in metrics["reveals"]:  # every die in play is listed; those read are the ones the closer look found
        assert len(r["pieces"]["in_play"]) == r["closer"]["dice"]
        assert sum(p["read"] is not None for p in r["pieces"]["in_play"]) == r["closer"]["found"]
    unsure = sum(n["unsure"] for n in metrics["unsure_by_face"].values())
    assert unsure == sum(p["read"] is not None and p["read"]["uncertain"]
                         for r in metrics["reveals"] for p in r["pieces"]["in_play"])


@pytest.mark.parametrize("args", [["--n", "0"], ["--die-px", "30", "10"], ["--size", "64", "48"]])
def test_eval_live_refuses_bad_arguments(args, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-live", *args]) == 2
    assert "tableref eval-live:" in capsys.readouterr().err


def card(x: float, face: str, uncertain: bool = False, w: float = 50) -> Detection:
    return Detection("card", face, None, (x, 0, x + w, 80), 0.9, uncertain)


CARDS = (card(0, "QS"), card(60, "10H"))


@pytest.mark.parametrize(
    ("read", "outcome"),
    [
        ((card(1, "QS"), card(61, "10H")), "right"),
        ((card(1, "QS", w=12), card(61, "10H", w=12)), "right"),  # read from one corner each
        ((card(1, "QS"), card(61, "10D", uncertain=True)), "re-read"),
        ((card(1, "QS"), card(61, "10D")), "wrong"),
        ((card(1, "QS"),), "count"),
        ((card(1, "QS"), card(61, "10H"), card(200, "2C", uncertain=True)), "count"),
        ((card(1, "QS"), card(61, "10H"), card(61, "10H")), "count"),  # one card read twice
        ((card(61, "QS"), card(1, "10H")), "right"),  # one deck: the referee needs the set of cards
        ((card(1, "QS"), card(61, "10D"), card(200, "10H", uncertain=True)), "count"),
        ((card(1, "QS", uncertain=True), card(61, "KD")), "wrong"),  # a sure card not turned up
    ],
)
def test_each_settled_doubt_reveal_gets_one_outcome(read, outcome) -> None:
    assert score_cards(settled(*read), CARDS).outcome == outcome


def test_card_counts() -> None:
    score = score_cards(settled(card(1, "QS"), card(61, "10D", uncertain=True)), CARDS)
    assert (score.dice, score.found, score.right, score.uncertain, score.sure_wrong) == (2, 1, 1, 1, 0)
    assert score_cards(None, CARDS) == DiceScore("unsettled", 2, 0, 0, 0, 0)


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "card-reader.json").is_file(), reason="no committed card model")
def test_eval_live_plays_doubt_reveals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval-live", "--n", "2", "--seed", "5", "--games", "doubt", "--card-px", "90", "130", "--card-imgsz", "576",
            "--size", "800", "450"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    assert "doubt frames' vote" in capsys.readouterr().out
    metrics = json.loads((tmp_path / "live-metrics.json").read_text())
    assert [r["game"] for r in metrics["reveals"]] == ["doubt", "doubt"]
    assert metrics["config"]["card_px"] == [90.0, 130.0] and metrics["config"]["card_imgsz"] == 576
    assert metrics["config"]["clip"]["size"] == [800, 450]
    assert metrics["reader"]["cards"] is not None
    total = metrics["summary"]["vote"]["all"]
    assert sum(total[k] for k in OUTCOMES) == 2 and 2 <= total["dice"] <= 6


def test_eval_live_doubt_needs_a_card_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file():
        pytest.skip("no committed dice models")
    shutil.copytree(DEFAULT_MODEL_DIR, tmp_path / "m", ignore=shutil.ignore_patterns("card-*", "*.pt", "*.md"))
    assert main(["eval-live", "--n", "1", "--games", "doubt", "--models", str(tmp_path / "m")]) == 2
    assert "no card model" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--card-px", "100", "50"], ["--games", "doubt", "--card-imgsz", "500"]])
def test_eval_live_refuses_bad_card_arguments(args, capsys: pytest.CaptureFixture[str]) -> None:
    if not (DEFAULT_MODEL_DIR / "card-reader.json").is_file():
        pytest.skip("no committed card model")
    assert main(["eval-live", *args]) == 2
    assert "tableref eval-live:" in capsys.readouterr().err


def test_the_clips_frames_come_through_the_camera_asked_for() -> None:
    import numpy as np

    from vision.synth.camera_shifts import CameraShift
    from vision.evaluate.live import ClipSpec, clip_frames

    grey = np.full((8, 8, 3), 100, np.uint8)
    clip = SimpleNamespace(empty=grey, rolling=[grey], still=grey)
    spec = ClipSpec(empty=1, rolling=1, hold=2, noise_sigma=0.0)
    plain = list(clip_frames(np.random.default_rng(0), clip, spec))
    warm = list(clip_frames(np.random.default_rng(0), clip, replace(spec, camera="warm")))
    assert len(plain) == len(warm) == 4
    assert all((f == 100).all() for f in plain)
    assert all(np.array_equal(w, CameraShift.WARM.apply(grey)) for w in warm)


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file(), reason="no committed dice models")
def test_eval_live_records_the_camera(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-live", "--n", "1", "--seed", "7", "--camera", "dim", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "live-metrics.json").read_text())["config"]["clip"]["camera"] == "dim"
