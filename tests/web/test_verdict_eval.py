"""``tableref eval-verdicts``: settled reveals judged as a table judges them, against the truth's verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.read.detections import Detection, Reading
from vision.evaluate.live import ClipResult, DiceScore
from vision.read.reader import DEFAULT_MODEL_DIR
from web.cli import main
from web.verdict_eval import LIARS_FACES, OUTCOMES, score_clip, tables_for

NINE = [("ベ", "black"), ("ブ", "black"), ("レ", "blue"), ("ブ", "blue"), ("ブ", "white"), ("ラ", "black"),
        ("ガ", "blue"), ("ラ", "white"), ("ブ", "white")]  # best: 黒ブベラ


def dice(faces: list[tuple[str, str | None]], **unsure: tuple[str, ...]) -> tuple[Detection, ...]:
    out = []
    for k, (face, colour) in enumerate(faces):
        alts = unsure.get(f"d{k}")
        out.append(Detection("die", face, colour, (20.0 * k, 0.0, 20.0 * k + 15, 15.0), 0.6 if alts is not None else 0.95,
                             uncertain=alts is not None, alternatives=alts or ()))
    return tuple(out)


def clip(game: str, read: tuple[Detection, ...] | None, truth: tuple[Detection, ...]) -> ClipResult:
    blank = DiceScore("right", len(truth), 0, 0, 0, 0)
    return ClipResult(game, 1, blank, blank, 3, 1.0, None if read is None else Reading(read, 640, 480), truth)


def test_each_game_is_judged_at_its_tables() -> None:
    def pieces(*faces: str) -> list[dict[str, str]]:
        return [{"face": f} for f in faces]

    assert len(tables_for("nine-dice", pieces(*"プラスベガスブレレ"))) == 1
    assert len(tables_for("pin456", pieces("1", "4", "5", "6"))) == 1
    liars = tables_for("liars-dice", pieces("2", "3", "4", "5", "6", "wheel", "2"))
    assert len(liars) == len(LIARS_FACES)
    assert all(t.state.to_json()["bid"]["face"] == f for t, f in zip(liars, LIARS_FACES))
    assert [sum(p["dice"] for p in t.state.to_json()["players"]) for t in liars] == [7] * 6
    assert all(p["dice"] <= 5 for p in liars[0].state.to_json()["players"])
    doubt = tables_for("doubt", pieces("8H", "QS", "8C"))  # declared as the rank most cards show
    assert len(doubt) == 1 and doubt[0].state.to_json()["rank"] == "8" and doubt[0].state.expects() == "reveal"
    with pytest.raises(ValueError):
        tables_for("poker", pieces("8H"))


def test_a_nine_dice_reveal_is_scored_by_its_verdict() -> None:
    truth = dice(NINE)
    assert score_clip(clip("nine-dice", truth, truth)) == ["sure"]
    assert score_clip(clip("nine-dice", None, truth)) == ["unsettled"]
    wrong = dice([("レ", "black"), *NINE[1:]])  # the black ベ read レ, surely: ブレブレ
    assert score_clip(clip("nine-dice", wrong, truth)) == ["sure wrong"]
    assert score_clip(clip("nine-dice", dice(NINE[:8]), truth)) == ["re-read"]  # 8 of 9 dice
    # the blue レ read unsurely, ブ or レ: 黒ブベラ is the best word either way
    assert score_clip(clip("nine-dice", dice(NINE, d2=("レ", "ブ")), truth)) == ["unsure"]
    # the black ベ read unsurely as a ブ or a ベ: the best word depends on it (ナシゴレン or 黒ブベラ)
    assert score_clip(clip("nine-dice", dice([("ブ", "black"), *NINE[1:]], d0=("ブ", "ベ")), truth)) == ["re-read"]


def test_a_liars_dice_reveal_is_judged_for_a_bid_on_each_face() -> None:
    truth = dice([("4", None), ("2", None), ("wheel", None), ("6", None)])
    read = dice([("4", None), ("3", None), ("wheel", None), ("6", None)], d1=("3", "2"))
    got = score_clip(clip("liars-dice", read, truth))
    # a 2 or a 3 matters only to bids on 2s and 3s
    assert got == ["re-read", "re-read", "unsure", "unsure", "unsure", "unsure"]
    # read surely as a 3, the die is wrong for bids on 2s and 3s only
    sure = dice([("4", None), ("3", None), ("wheel", None), ("6", None)])
    assert score_clip(clip("liars-dice", sure, truth)) == ["sure wrong", "sure wrong", "sure", "sure", "sure", "sure"]


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file(), reason="no committed dice models")
def test_eval_verdicts_plays_rendered_reveals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-verdicts", "--n", "3", "--seed", "7", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "liars-dice" in out and "unsure wrong" in out
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    assert [r["game"] for r in doc["reveals"]] == ["liars-dice", "nine-dice", "pin456"]
    assert all(v in OUTCOMES for r in doc["reveals"] for v in r["verdicts"])
    assert sum(doc["summary"]["all"].values()) == len(LIARS_FACES) + 2
    assert "closer look" in out and doc["live_summary"]["reveals"] == 3  # eval-live's outcomes of the same clips


def test_a_doubt_reveal_is_judged_on_its_ranks() -> None:
    truth = tuple(Detection("card", f, None, (60.0 * k, 0.0, 60.0 * k + 50, 80.0), 1.0) for k, f in enumerate(["8H", "8C"]))
    unsure_suit = (truth[0], Detection("card", "8S", None, truth[1].box, 0.6, uncertain=True, alternatives=("8S", "8C")))
    assert score_clip(clip("doubt", unsure_suit, truth)) == ["unsure"]  # an honest play, whatever the suit
    unsure_rank = (truth[0], Detection("card", "8C", None, truth[1].box, 0.6, uncertain=True, alternatives=("8C", "3C")))
    assert score_clip(clip("doubt", unsure_rank, truth)) == ["re-read"]
