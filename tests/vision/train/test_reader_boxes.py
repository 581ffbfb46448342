"""The reader's own boxes on a set of reveal stills (tableref synth --reveals --boxes-from)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from vision.evaluate.datasets import DatasetError, boxes_of, load_annotations
from vision.read.detections import Detection
from vision.read.reader import DEFAULT_MODEL_DIR, load_reader
from vision.train.reader_boxes import TRUTH, reboxed, use_reader_boxes
from vision.evaluate.scoring import greedy_match
from web.cli import main


def die(face: str, box: tuple[float, float, float, float], score: float = 1.0, unsure: bool = False) -> Detection:
    return Detection("die", face, "white", box, score, unsure)  # type: ignore[arg-type]


def test_each_found_die_keeps_its_label_and_takes_the_readers_box() -> None:
    truth = (die("ブ", (10, 10, 40, 40)), die("ス", (60, 10, 90, 40)), die("ガ", (120, 10, 150, 40)))
    read = (die("ガ", (118, 12, 149, 41), 0.9), die("プ", (12, 9, 41, 42), 0.4, True),
            Detection("card", "QS", None, (60, 10, 90, 40), 0.9))  # a card stage's box is no die
    assert reboxed(truth, read) == (die("ブ", (12.0, 9.0, 41.0, 42.0)), die("ガ", (118.0, 12.0, 149.0, 41.0)))


def test_a_box_off_the_die_is_not_taken() -> None:
    truth = (die("ブ", (10, 10, 40, 40)),)
    assert reboxed(truth, (die("ブ", (30, 30, 60, 60)),)) == ()
    assert reboxed(truth, ()) == ()


def render_stills(tmp_path_factory, game: str, n: int, seed: int) -> Path:
    out = tmp_path_factory.mktemp("reveals") / game
    assert main(["synth", "--out", str(out), "--n", str(n), "--seed", str(seed), "--reveals", game,
                 "--boxes-from", str(DEFAULT_MODEL_DIR), "--workers", "1", "--quiet"]) == 0
    return out


def check_reader_boxes(stills: Path, kind: str) -> dict:
    """Every kept label lies on a labelled object of ``kind`` with its face and colour, the
    counts add up, the YOLO labels match, and the reader's boxes are not the true ones;
    returns the set's meta."""
    meta = json.loads((stills / "meta.json").read_text(encoding="utf-8"))
    assert meta["boxes"]["from"] == "reader" and boxes_of(stills) == "reader"
    truth = load_annotations_from(stills / TRUTH, kind)
    boxed = [tuple(o for o in item.objects if o.kind == kind) for item in load_annotations(stills)]
    assert meta["boxes"]["kept"] == sum(len(b) for b in boxed)
    assert meta["boxes"]["kept"] + meta["boxes"]["lost"] == sum(len(t) for t in truth)
    moved = 0
    for item, objects, labelled in zip(load_annotations(stills), boxed, truth):
        assert len(objects) == len(item.objects)  # nothing of another kind
        pairs = greedy_match(_boxes(labelled), _boxes(objects))
        assert len(pairs) == len(objects)  # every box kept lies on a labelled object
        for t, b in pairs:
            assert labelled[t].face == objects[b].face and labelled[t].colour == objects[b].colour
            moved += labelled[t].box != objects[b].box
        lines = (stills / "labels" / (item.path.stem + ".txt")).read_text().splitlines()
        assert len(lines) == len(objects) and all(line.startswith("0 ") for line in lines)
    assert moved > 0  # the reader's boxes are not the labels
    return meta


@pytest.fixture(scope="module")
def stills(tmp_path_factory) -> Path:
    return render_stills(tmp_path_factory, "nine-dice", 4, 5)


def test_synth_labels_reveal_stills_with_the_readers_boxes_and_keeps_the_truth(stills: Path) -> None:
    meta = check_reader_boxes(stills, "die")
    assert meta["config"]["games"] == ["nine-dice"] and meta["classes"] == ["die"] and meta["boxes"]["kept"] > 30


def test_a_set_with_the_readers_boxes_is_not_scored_nor_reboxed_again(stills: Path, capsys) -> None:
    assert main(["eval", str(stills)]) == 2
    assert "would score that reader against itself" in capsys.readouterr().err
    with pytest.raises(DatasetError, match="already holds a reader's boxes"):
        use_reader_boxes(stills, load_reader(DEFAULT_MODEL_DIR, cards=False), DEFAULT_MODEL_DIR, progress=False)


def test_a_detector_is_not_trained_on_the_readers_boxes(stills: Path, tmp_path: Path, capsys) -> None:
    assert main(["train", "--stage", "detector", "--no-real", "--synth", str(stills), "--out", str(tmp_path)]) == 2
    assert "not a detector" in capsys.readouterr().err


def test_the_training_recipe_names_the_sets_with_the_readers_boxes(stills: Path, tmp_path: Path) -> None:
    from vision.train.command import add_arguments, gather, recipe

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--stage", "specialist", "--no-real", "--synth", str(stills)])
    assert recipe(args, gather(args))["reader_boxes"] == ["synth0"]


@pytest.mark.parametrize("argv, match", [
    (["--boxes-from", "models"], "--boxes-from needs --reveals"),
    (["--reveals", "nine-dice", "--cards"], "leave out --cards"),
    (["--reveals", "nine-dice", "--dice-sets", "nine"], "leave out --dice-sets"),
    (["--reveals", "nine-dice", "--marbled", "0"], "leave out --marbled"),
    (["--reveals", "doubt,pin456"], "render them apart"),
    (["--reveals", "yahtzee"], "no reveal for 'yahtzee'"),
])
def test_bad_reveal_options_exit_2_with_the_reason(tmp_path: Path, capsys, argv, match) -> None:
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--quiet", *argv]) == 2
    assert match in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_bad_model_folder_fails_before_anything_is_rendered(tmp_path: Path, capsys) -> None:
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--quiet", "--reveals", "nine-dice",
                 "--boxes-from", str(tmp_path / "nowhere")]) == 2
    assert "--boxes-from" in capsys.readouterr().err and not (tmp_path / "x").exists()


def card(face: str, box: tuple[float, float, float, float], score: float = 1.0) -> Detection:
    return Detection("card", face, None, box, score)  # type: ignore[arg-type]


def test_a_card_index_takes_an_index_box_and_never_a_dies() -> None:
    truth = (card("10H", (10, 10, 22, 30)), card("10H", (60, 60, 72, 80)))
    read = (die("4", (10, 10, 22, 30)), card("?", (61, 59, 73, 81), 0.6))
    assert reboxed(truth, read) == (card("10H", (61.0, 59.0, 73.0, 81.0)),)


@pytest.fixture(scope="module")
def card_stills(tmp_path_factory) -> Path:
    return render_stills(tmp_path_factory, "doubt", 6, 53)


def test_doubt_stills_take_the_card_detectors_index_boxes(card_stills: Path) -> None:
    meta = check_reader_boxes(card_stills, "card")
    assert meta["config"]["games"] == ["doubt"] and meta["classes"] == ["card"] and meta["boxes"]["kept"] >= 20


def test_a_card_detector_is_not_trained_on_the_readers_boxes(card_stills: Path, tmp_path: Path, capsys) -> None:
    assert main(["train", "--cards", "--stage", "detector", "--synth", str(card_stills), "--out", str(tmp_path)]) == 2
    assert "not a detector" in capsys.readouterr().err


def test_doubt_stills_need_a_model_folder_with_a_card_reader(tmp_path: Path, capsys) -> None:
    import shutil

    dice_only = tmp_path / "models"
    shutil.copytree(DEFAULT_MODEL_DIR, dice_only, ignore=shutil.ignore_patterns("card-*"))
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--quiet", "--reveals", "doubt",
                 "--boxes-from", str(dice_only)]) == 2
    assert "no card reader" in capsys.readouterr().err and not (tmp_path / "x").exists()


def _boxes(dice):
    import numpy as np

    return np.array([d.box for d in dice], np.float32).reshape(-1, 4)


def load_annotations_from(path: Path, kind: str = "die") -> list[tuple[Detection, ...]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [tuple(Detection.from_json(o) for o in r["objects"] if o["kind"] == kind) for r in rows]


def test_doctests() -> None:
    import doctest

    import vision.train.reader_boxes

    assert doctest.testmod(vision.train.reader_boxes).failed == 0
