"""``eval-live --against``: two readers on the same clips, compared reveal by reveal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.evaluate.live_compare import LiveCompareError, compare_reveals, load_earlier, report_comparison, sign_test_p
from vision.read.reader import DEFAULT_MODEL_DIR
from web.cli import main


def reveal(game: str, seed: int, outcome: str, found: int = 3, dice: int = 3) -> dict:
    return {"game": game, "seed": seed, "closer": {"outcome": outcome, "found": found, "dice": dice}}


BEFORE = [reveal("liars-dice", 1, "right"), reveal("nine-dice", 2, "re-read"), reveal("pin456", 3, "right"),
          reveal("liars-dice", 4, "count", found=2), reveal("nine-dice", 5, "right")]
AFTER = [reveal("liars-dice", 1, "right"), reveal("nine-dice", 2, "right"), reveal("pin456", 3, "count", found=2),
         reveal("liars-dice", 4, "wrong"), reveal("nine-dice", 5, "right")]


def test_reveals_are_paired_and_counted() -> None:
    c = compare_reveals(BEFORE, AFTER)
    assert (c.reveals, c.right_both, c.right_before_only, c.right_after_only) == (5, 2, 1, 1)
    assert (c.wrong_before, c.wrong_after) == (0, 1)
    assert [(ch.seed, ch.outcomes) for ch in c.changed] == [
        (2, ("re-read", "right")), (3, ("right", "count")), (4, ("count", "wrong"))]
    assert c.changed[1].found == (3, 2) and c.changed[1].dice == 3
    printed = report_comparison(c, "old.json")
    assert "the earlier reader only 1, this one only 1" in printed and "pin456 seed 3: right -> count" in printed
    assert c.to_json()["changed"][2] == {"game": "liars-dice", "seed": 4, "before": "count", "after": "wrong",
                                         "found": [2, 3], "dice": 3}


def test_other_clips_are_refused() -> None:
    with pytest.raises(LiveCompareError, match="played 5 reveals, this one 4"):
        compare_reveals(BEFORE, AFTER[:4])
    shifted = [reveal(r["game"], r["seed"] + 1, "right") for r in AFTER]
    with pytest.raises(LiveCompareError, match="not the same clips"):
        compare_reveals(BEFORE, shifted)


@pytest.mark.parametrize(("a", "b", "p"), [(0, 0, 1.0), (9, 8, 1.0), (8, 9, 1.0), (5, 0, 0.0625), (0, 10, 0.001953125),
                                           (12, 4, 0.076812744140625)])
def test_the_sign_test_is_two_sided_and_exact(a: int, b: int, p: float) -> None:
    assert sign_test_p(a, b) == pytest.approx(p)


CONFIG = {"n": 5, "seed": 1, "games": ["liars-dice", "nine-dice", "pin456"], "tables": "demo", "die_px": None,
          "card_px": None, "camera": None, "clip": {"size": (640, 480), "camera": None}}


def test_an_earlier_run_must_have_played_the_same_clips(tmp_path: Path) -> None:
    path = tmp_path / "live-metrics.json"
    path.write_text(json.dumps({"config": {**CONFIG, "card_imgsz": 512}, "reveals": BEFORE}))
    # The clip spec's tuple comes back from JSON as a list; the reader's own options may differ.
    assert load_earlier(path, CONFIG) == BEFORE
    with pytest.raises(LiveCompareError, match="die_px was None, here \\[20.0, 30.0\\]"):
        load_earlier(path, {**CONFIG, "die_px": [20.0, 30.0]})
    with pytest.raises(LiveCompareError, match="frame size or camera differ"):
        load_earlier(path, {**CONFIG, "clip": {"size": (1280, 720), "camera": None}})
    path.write_text("{not json")
    with pytest.raises(LiveCompareError, match="not a live-metrics.json"):
        load_earlier(path, CONFIG)
    with pytest.raises(LiveCompareError, match="not a live-metrics.json"):
        load_earlier(tmp_path / "missing.json", CONFIG)


def test_a_wrong_file_is_refused_before_any_clip_is_played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "live-metrics.json"
    path.write_text(json.dumps({"config": {**CONFIG, "seed": 99}, "reveals": BEFORE}))
    assert main(["eval-live", "--n", "5", "--seed", "1", "--against", str(path)]) == 2
    captured = capsys.readouterr()
    assert "played other clips: seed was 99, here 1" in captured.err and "reveals" not in captured.out


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file(), reason="no committed dice models")
def test_one_reader_against_itself_changes_no_reveal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-live", "--n", "2", "--seed", "7", "--out", str(tmp_path / "a")]) == 0
    earlier = tmp_path / "a" / "live-metrics.json"
    assert main(["eval-live", "--n", "2", "--seed", "7", "--against", str(earlier), "--out", str(tmp_path / "b")]) == 0
    assert "reveal by reveal (2 reveals" in capsys.readouterr().out
    against = json.loads((tmp_path / "b" / "live-metrics.json").read_text())["against"]
    assert against["file"] == str(earlier) and against["changed"] == []
    assert against["right_before_only"] == against["right_after_only"] == 0 and against["sign_test_p"] == 1.0
    # Frames of another size are other clips, refused before any is played.
    assert main(["eval-live", "--n", "2", "--seed", "7", "--size", "1280", "720", "--against", str(earlier)]) == 2
    assert "frame size or camera differ" in capsys.readouterr().err


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file(), reason="no committed dice models")
def test_an_edited_earlier_run_is_reported_and_this_runs_numbers_are_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval-live", "--n", "2", "--seed", "7", "--out", str(tmp_path / "a")]) == 0
    earlier = tmp_path / "a" / "live-metrics.json"
    doc = json.loads(earlier.read_text())
    doc["reveals"][1]["seed"] = 99
    earlier.write_text(json.dumps(doc))
    assert main(["eval-live", "--n", "2", "--seed", "7", "--against", str(earlier), "--out", str(tmp_path / "b")]) == 2
    assert "not the same clips" in capsys.readouterr().err
    written = json.loads((tmp_path / "b" / "live-metrics.json").read_text())
    assert len(written["reveals"]) == 2 and "against" not in written


def test_doctests() -> None:
    import doctest

    import vision.evaluate.live_compare

    result = doctest.testmod(vision.evaluate.live_compare)
    assert result.attempted and not result.failed
