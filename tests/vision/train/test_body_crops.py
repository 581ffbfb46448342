"""vision.train.body_crops and ``tableref train --cards --stage body``: card bodies cut from rendered
scenes, and a tiny body classifier trained, exported and read by the runtime."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.train.augment import center_view, context_size
from vision.train.body_crops import body_cards, body_rank, collect_bodies, collect_outlined
from vision.read.card_body import BODY_RANKS, COURT
from vision.evaluate.datasets import load_dataset
from vision.read.detections import CARD_SUITS
from vision.synth.card_scene import CardSceneConfig, render_card_scene


def write_reveal(folder: Path, hand: tuple[str, ...] = ("7H", "QS")) -> Path:
    """One rendered reveal of ``hand`` (a row of face-up cards), as ``tableref synth`` writes a set."""
    scene = render_card_scene(np.random.default_rng(5), CardSceneConfig(
        width=640, height=480, hand=hand, distractors=False, occluders=False, tilt_deg=(0.0, 10.0),
        card_px=(150.0, 170.0), camera_effects=False))
    (folder / "images").mkdir(parents=True)
    cv2.imwrite(str(folder / "images" / "000000.jpg"), scene.image)
    ann = {"image": "images/000000.jpg", "width": 640, "height": 480, "objects": [o.to_json() for o in scene.objects]}
    (folder / "annotations.jsonl").write_text(json.dumps(ann) + "\n", encoding="utf-8")
    (folder / "scenes.jsonl").write_text(json.dumps({"image": "images/000000.jpg", **scene.meta}) + "\n", encoding="utf-8")
    return folder


def test_body_rank_folds_the_courts():
    assert [body_rank(f) for f in ("AS", "10H", "JD", "QC", "KS")] == ["A", "10", COURT, COURT, COURT]


def test_cards_under_others_or_tiny_are_not_trained_on():
    card = {"face": "5C", "face_up": True, "visible": 1.0, "corners_px": [[0, 0], [60, 0], [60, 90], [0, 90]]}
    assert len(list(body_cards({"cards": [card]}))) == 1
    assert not list(body_cards({"cards": [{**card, "visible": 0.5}]}))
    assert not list(body_cards({"cards": [{**card, "face_up": False, "face": None}]}))
    tiny = {**card, "corners_px": [[0, 0], [10, 0], [10, 15], [0, 15]]}
    assert not list(body_cards({"cards": [tiny]}))


def test_collect_bodies_cuts_each_card_both_ways_up(tmp_path):
    root = write_reveal(tmp_path / "set")
    items = [("synth0", it) for it in load_dataset(root)]
    scene = json.loads((root / "scenes.jsonl").read_text())
    assert all("visible" in c for c in scene["cards"])  # the renderer records how much of each card shows
    crops = collect_bodies(items, {"synth0": root}, 48, 1.12, context=True, log=lambda _: None)
    assert crops.crops.shape == (4, context_size(48), context_size(48), 3)
    assert sorted(BODY_RANKS[f] for f in crops.faces) == ["7", "7", COURT, COURT]
    assert sorted(CARD_SUITS[s] for s in crops.colours) == ["H", "H", "S", "S"]
    plain = collect_bodies(items, {"synth0": root}, 48, 1.12, context=False, log=lambda _: None)
    assert plain.crops.shape == (4, 48, 48, 3)
    # the context crop's centre is the plain crop, and the two ways up are a half turn apart
    centre = center_view(crops.crops[0], 48).astype(int)
    assert np.abs(centre - plain.crops[0].astype(int)).mean() < 10
    assert np.abs(np.rot90(plain.crops[0], 2).astype(int) - plain.crops[1].astype(int)).mean() < 10
    with pytest.raises(FileNotFoundError, match="scenes.jsonl"):
        (root / "scenes.jsonl").unlink()
        collect_bodies(items, {"synth0": root}, 48, 1.12, context=True, log=lambda _: None)


def test_stage_body_is_for_the_card_reader(tmp_path, capsys):
    from web.cli import main

    assert main(["train", "--stage", "body", "--synth", str(tmp_path), "--out", str(tmp_path / "m")]) == 2
    assert "give --cards" in capsys.readouterr().err


def test_a_tiny_body_run_is_named_in_the_card_manifest_and_read(tmp_path):
    """One epoch of the body stage on one rendered reveal: the card manifest gains its body
    entry (the rest kept), and the runtime reads the model from it."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from tests.vision import tiny_card_reader, tiny_reader
    from vision.read.manifest import CARD_BODY_NAME, CARD_MANIFEST_NAME, ReaderManifest, load_training_record
    from vision.read.reader import load_reader
    from web.cli import main

    root = write_reveal(tmp_path / "set")
    models = tiny_card_reader.build_onnx(tiny_reader.build_onnx(tmp_path / "models"))
    before = ReaderManifest.load(models / CARD_MANIFEST_NAME)
    code = main(["train", "--cards", "--stage", "body", "--synth", str(root), "--val-fraction", "0", "--cls-epochs", "1",
                 "--cls-samples", "16", "--cls-batch", "8", "--workers", "0", "--crop", "32", "--out", str(models),
                 "--runs", str(tmp_path / "runs")])
    assert code == 0
    after = ReaderManifest.load(models / CARD_MANIFEST_NAME)
    assert after.body is not None and after.body.file == CARD_BODY_NAME and after.body.faces == BODY_RANKS
    assert after.classifier == before.classifier and after.detector == before.detector
    record = load_training_record(models / CARD_MANIFEST_NAME)
    assert record["body"]["crops"]["train"] == 4 and after.created == record["created"] != before.created
    cards = load_reader(models).cards
    assert cards is not None and cards.body is not None
    assert cards.info["body"]["file"] == CARD_BODY_NAME
    assert cards.without_body().body is None


def test_outlined_crops_are_labelled_by_the_card_they_lie_on_and_part_cards_are_unreadable(tmp_path):
    root = write_reveal(tmp_path / "set")
    items = [("synth0", it) for it in load_dataset(root)]
    scene = json.loads((root / "scenes.jsonl").read_text())
    seven = next(np.float32(c["corners_px"]) for c in scene["cards"] if c["face"] == "7H")
    top_half = np.float32([seven[0], seven[1], (seven[1] + seven[2]) / 2, (seven[0] + seven[3]) / 2])
    nowhere = np.float32([[600, 440], [630, 440], [630, 470], [600, 470]])
    crops = collect_outlined(items, {"synth0": root}, lambda img: [seven, top_half, nowhere], 32, 1.12,
                             context=True, log=lambda _: None)
    assert crops.crops.shape == (6, context_size(32), context_size(32), 3)
    assert [BODY_RANKS[f] for f in crops.faces[:4]] == ["7", "7", "7", "7"]  # the top half is the seven's, in part
    assert crops.unreadable_mask().tolist() == [False, False, True, True, True, True]
    plain = collect_outlined(items, {"synth0": root}, lambda img: [seven], 32, 1.12, context=False, log=lambda _: None)
    assert plain.crops.shape == (2, 32, 32, 3)


def test_crop_sets_join_with_their_unreadable_marks():
    from vision.train.classifier import CropSet

    a = CropSet(np.zeros((2, 4, 4, 3), np.uint8), np.array([0, 1]), np.array([0, 0]), ["a", "a"])
    b = CropSet(np.ones((1, 4, 4, 3), np.uint8), np.array([2]), np.array([1]), ["b"], np.array([True]))
    both = a.joined(b)
    assert len(both) == 3 and both.faces.tolist() == [0, 1, 2] and both.sources == ["a", "a", "b"]
    assert both.unreadable_mask().tolist() == [False, False, True]
    assert a.joined(CropSet(np.zeros((0, 4, 4, 3), np.uint8), np.array([], int), np.array([], int))) is a
