"""``tableref eval --ablate`` and ``tableref eval`` on a teach labels file, with the tiny reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.vision import tiny_reader as tiny
from tests.vision.evaluate.test_photos import write_tiny_set
from vision.evaluate.photos import ABLATIONS, CONTROL, ablated
from vision.read.reader import Step
from web.cli import main


@pytest.fixture
def tiny_set(tmp_path: Path) -> tuple[Path, Path]:
    pytest.importorskip("onnx")
    return tiny.build_onnx(tmp_path / "models"), write_tiny_set(tmp_path / "set")


def test_each_step_is_a_reader_view(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from vision.read.reader import load_reader
    from vision.read.policy import Mode

    reader = load_reader(tiny.build_onnx(tmp_path / "models")).in_mode(Mode.PHOTO)
    assert ablated(reader, "no-die-drop").skipped == frozenset({Step.NO_DIE_DROP}) and reader.skipped == frozenset()
    assert ablated(reader, "no-die-drop").with_vocabulary(None).skipped == frozenset({Step.NO_DIE_DROP})  # views keep it
    unsharpened = ablated(reader, "sharpen-soft")
    assert unsharpened is not reader and unsharpened.mode is Mode.PHOTO and unsharpened.skipped == {Step.SHARPEN_SOFT}
    for step in ("specialists", "second-opinion", "card-body", "card-turns"):  # the tiny reader has none
        assert ablated(reader, step) is reader
    with pytest.raises(ValueError, match="no read-path step"):
        ablated(reader, "sharpening")


def test_ablate_one_step_scores_with_that_view(tiny_set, tmp_path: Path, capsys) -> None:
    models, data = tiny_set
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--ablate", "sharpen-soft"]) == 0
    assert "without sharpen-soft: small or out-of-focus dice crops sharpened" in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["ablated"] == "sharpen-soft" and metrics["reader"]["skipped"] == ["sharpen-soft"]
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--ablate", "no-die-drop", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["ablated"] == "no-die-drop" and line["headline"]["found"] == 1.0
    assert json.loads((out / "metrics.json").read_text(encoding="utf-8"))["reader"]["skipped"] == ["no-die-drop"]
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--ablate", "specialists"]) == 0
    assert "this reader has no such step" in capsys.readouterr().err
    assert main(["eval", str(data), "--models", str(models), "--repeat", "0"]) == 2
    assert main(["eval", str(data), "--models", str(models), "--ablate", "all", "--mistakes", str(tmp_path / "m")]) == 2


def test_ablate_all_prints_each_steps_effect_and_cost(tiny_set, tmp_path: Path, capsys) -> None:
    models, data = tiny_set
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--ablate", "all"]) == 0
    text = capsys.readouterr().out
    assert "whole reader" in text and "- no-die-drop" in text and "not in this reader's read path: " in text
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--ablate", "all", "--json", "--repeat", "2"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table == json.loads((out / "ablation.json").read_text(encoding="utf-8"))
    steps = {row["step"]: row for row in table["steps"]}
    assert set(steps) | set(table["not_in_read_path"]) == {*ABLATIONS, CONTROL}
    assert all(v in (0.0, None) for v in steps[CONTROL]["delta"].values())  # the same reader, read again
    assert "specialists" in table["not_in_read_path"] and "sharpen-soft" in steps
    assert table["images"] == 2 and table["headline"]["found"] == 1.0
    assert all(isinstance(row["ms"], float) for row in steps.values())
    assert "zoom-out" in table["not_in_read_path"]  # the tiny manifest has no zoomed passes
    assert steps["no-die-drop"]["delta"]["found"] == 0.0  # no box of the tiny scene is read as no die


def test_a_teach_labels_file_of_game_scenes_is_scored_and_judged(tiny_set, tmp_path: Path, capsys) -> None:
    models, data = tiny_set
    lines = []
    for k, line in enumerate((data / "annotations.jsonl").read_text(encoding="utf-8").splitlines()):
        scene = json.loads(line)
        scene.update(game="liars-dice", seed=k)
        scene["objects"][1]["readable"] = False  # the green die under a hand
        for o, face in zip(scene["objects"], ("3", "2", "1", "4")):  # Liar's Dice faces, so the truth is a reveal
            o["face"] = face
        lines.append(json.dumps(scene, ensure_ascii=False))
    (data / "labels.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (data / "annotations.jsonl").unlink()
    out = tmp_path / "eval"
    assert main(["eval", str(data / "labels.jsonl"), "--models", str(models), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "verdicts   2 scenes judged as their table would" in text
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["unreadable"] == {"labelled": 2, "read": 2} and metrics["detection"]["gt_dice"] == 6
    assert metrics["per_game_vocabulary"] is True and metrics["verdicts"]["scenes"] == 2
    assert "1" not in metrics["face"]["per_face"] and metrics["face"]["per_face"]["wheel"]["correct"] == 2  # a plain 1 is the wheel
    assert metrics["verdicts"]["untouched"] + metrics["verdicts"]["re_read"] == 2 and metrics["verdicts"]["not_judged"] == 0
