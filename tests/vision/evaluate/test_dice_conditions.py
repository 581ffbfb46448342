"""The dice of a rendered set split by how they were drawn (``tableref eval``'s "by scene")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.evaluate.datasets import load_dataset
from vision.read.detections import Detection
from vision.evaluate.dice_conditions import (
    BLUR_OF_DIE,
    CONDITIONS,
    PLAIN,
    STEEP_TILT_DEG,
    dataset_conditions,
    die_conditions,
    scene_conditions,
)
from vision.evaluate.scoring import score
from web.cli import main

SCENE = {"camera": {"tilt_deg": 10.0}, "light": {"mode": "normal"}, "sensor": {"defocus_px": 0.0}}
DIE = {"marbled": False, "up_face_visible": 1.0, "box": [0.0, 0.0, 40.0, 40.0], "labelled": True}


def _die(face: str, box: tuple[float, float, float, float]) -> Detection:
    return Detection("die", face, None, box, 1.0)


def test_each_condition_is_read_from_the_record() -> None:
    assert die_conditions(DIE, SCENE) == ()
    assert die_conditions({**DIE, "marbled": True}, SCENE) == ("marbled",)
    assert die_conditions(DIE, {**SCENE, "camera": {"tilt_deg": STEEP_TILT_DEG}}) == ("steep",)
    assert die_conditions(DIE, {**SCENE, "light": {"mode": "dim"}}) == ("dim",)
    assert die_conditions(DIE, {**SCENE, "light": {"mode": "glare"}}) == ("glare",)
    assert die_conditions({**DIE, "up_face_visible": 0.7}, SCENE) == ("partly hidden",)
    # blur counts against the die's size: 1.25 px blurs a 40 px die, not an 80 px one
    blurred = {**SCENE, "sensor": {"defocus_px": BLUR_OF_DIE * 40.0}}
    assert die_conditions(DIE, blurred) == ("blurred",)
    assert die_conditions({**DIE, "box": [0.0, 0.0, 80.0, 80.0]}, blurred) == ()
    assert die_conditions(DIE, {**SCENE, "sensor": {"motion_px": 5.0}}) == ("blurred",)  # motion blur too


def test_the_record_must_describe_the_labels() -> None:
    scene = {**SCENE, "dice": [DIE, {**DIE, "labelled": False, "box": [50, 0, 60, 10]}]}
    assert scene_conditions(scene, (_die("3", (0, 0, 40, 40)),)) == [()]
    assert scene_conditions(scene, (_die("3", (5, 0, 45, 40)),)) is None  # another die
    assert scene_conditions(scene, ()) is None


def test_scores_count_each_die_once_per_condition_and_plain_apart() -> None:
    gt = [_die("3", (0, 0, 10, 10)), _die("5", (20, 0, 30, 10)), _die("6", (40, 0, 50, 10))]
    pred = [_die("3", (0, 0, 10, 10)), _die("4", (20, 0, 30, 10))]
    scores = dict(score([(gt, pred), (gt, pred)], conditions=[[("marbled", "steep"), ("steep",), ()], None]).by_scene)
    assert list(scores) == ["marbled", "steep", PLAIN]  # no die was blurred, dim, ...; the unknown image is left out
    assert (scores["steep"].gt, scores["steep"].matched, scores["steep"].correct) == (2, 2, 1)
    assert (scores["marbled"].gt, scores["marbled"].correct) == (1, 1)
    assert (scores[PLAIN].gt, scores[PLAIN].matched) == (1, 0)


def test_a_rendered_set_is_split_die_by_die(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    assert main(["synth", "--out", str(out), "--n", "4", "--seed", "3", "--workers", "1", "--width", "320",
                 "--height", "240", "--marbled", "1.0", "--quiet"]) == 0
    items = load_dataset(out)
    conditions = dataset_conditions(out, items)
    assert conditions is not None and all(c is not None for c in conditions)
    assert [len(c) for c in conditions] == [len(i.dice()) for i in items]  # type: ignore[arg-type]
    scenes = [json.loads(line) for line in (out / "scenes.jsonl").read_text(encoding="utf-8").splitlines()]
    marbled = sum(d["marbled"] for s in scenes for d in s["dice"] if d.get("labelled"))
    pairs = [(i.objects, i.objects) for i in items]
    scores = dict(score(pairs, conditions=conditions).by_scene)
    assert marbled and scores["marbled"].gt == marbled and scores["marbled"].accuracy == 1.0
    assert set(scores) <= {*CONDITIONS, PLAIN}
    assert dataset_conditions(tmp_path, items) is None  # no scene records: photos


def test_eval_prints_the_split_for_a_rendered_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnx")
    from tests.vision import tiny_reader as tiny

    models = tiny.build_onnx(tmp_path / "models")
    out = tmp_path / "ds"
    assert main(["synth", "--out", str(out), "--n", "2", "--seed", "5", "--workers", "1", "--width", "320",
                 "--height", "240", "--quiet"]) == 0
    assert main(["eval", str(out), "--models", str(models), "--out", str(tmp_path / "eval")]) == 0
    assert "by scene" in capsys.readouterr().out
    metrics = json.loads((tmp_path / "eval" / "metrics.json").read_text(encoding="utf-8"))
    assert sum(s["gt"] for c, s in metrics["by_scene"].items() if c in (*CONDITIONS, PLAIN)) >= metrics["detection"]["gt_dice"]
