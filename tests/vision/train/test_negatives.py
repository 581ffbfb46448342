"""Hard negatives for the classifiers: a detector's false alarms become a "none" class (no index, no die)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.train import negatives
from vision.evaluate.datasets import LabelledImage
from vision.read.detections import CARD_RANKS, CARD_SUITS, NOT_AN_INDEX, Detection
from vision.read.manifest import ManifestError
from vision.read.reader import DEFAULT_MODEL_DIR
from vision.train.classifier import IGNORE, collect_crops, face_counts

WITH_NONE = (*CARD_RANKS, NOT_AN_INDEX)


def card_image(tmp_path: Path, name: str = "a.jpg", cards: tuple[Detection, ...] | None = None) -> LabelledImage:
    img = np.full((120, 160, 3), 90, np.uint8)
    cv2.rectangle(img, (10, 10), (30, 40), (250, 250, 250), -1)
    cv2.rectangle(img, (100, 60), (120, 90), (20, 20, 200), -1)
    path = tmp_path / name
    cv2.imwrite(str(path), img)
    if cards is None:
        cards = (Detection("card", "10H", None, (10, 10, 30, 40), 1.0), Detection("die", "3", "red", (60, 60, 80, 80), 1.0))
    return LabelledImage(path, cards, 160, 120)


def test_false_alarms_are_boxes_overlapping_no_label():
    found = np.array([[10, 10, 30, 40], [12, 10, 32, 40], [100, 60, 120, 90], [25, 10, 45, 40]], np.float32)
    labelled = np.array([[10, 10, 30, 40]], np.float32)
    # a match, a loose box on the index (IoU 0.82) and a half-overlapping one (IoU 0.14) are not false alarms
    assert negatives.false_alarms(found, labelled).tolist() == [[100, 60, 120, 90]]
    assert len(negatives.false_alarms(found, labelled, max_iou=0.2)) == 2
    assert len(negatives.false_alarms(found, np.zeros((0, 4)))) == 4  # nothing labelled: every box
    assert negatives.false_alarms(np.zeros((0, 4)), labelled).shape == (0, 4)


def test_mine_keeps_each_images_false_alarms_and_skips_clean_or_unreadable_images(tmp_path):
    good = card_image(tmp_path)
    clean = card_image(tmp_path, "b.jpg")
    (tmp_path / "broken.jpg").write_bytes(b"not a jpeg")
    broken = LabelledImage(tmp_path / "broken.jpg", (), 160, 120)
    calls = []

    def detect(image: np.ndarray) -> np.ndarray:
        calls.append(image.shape)
        boxes = [[10, 10, 30, 40]] + ([[100, 60, 120, 90]] if len(calls) == 1 else [])
        return np.array(boxes, np.float32)

    mined = negatives.mine([("s", good), ("s", clean), ("s", broken)], detect)
    assert calls == [(120, 160, 3), (120, 160, 3)]
    assert list(mined) == [good.path] and mined[good.path].tolist() == [[100, 60, 120, 90]]


def test_collect_crops_labels_false_alarms_no_index_without_a_suit(tmp_path):
    item = card_image(tmp_path)
    only_alarm = card_image(tmp_path, "c.jpg", cards=())  # no labelled index, one false alarm
    mined = {item.path: np.array([[100, 60, 120, 90]], np.float32), only_alarm.path: np.array([[0, 0, 20, 20]], np.float32)}
    crops = collect_crops([("s", item), ("s", only_alarm)], list(CARD_SUITS), 40, 1.25, context=False,
                          log=lambda _: None, kind="card", faces=WITH_NONE, negatives=mined)
    assert [WITH_NONE[f] for f in crops.faces] == ["10", NOT_AN_INDEX, NOT_AN_INDEX]
    assert crops.colours.tolist() == [CARD_SUITS.index("H"), IGNORE, IGNORE]
    assert face_counts(crops, WITH_NONE) == {"10": 1, NOT_AN_INDEX: 2}
    red = crops.crops[1].reshape(-1, 3).mean(axis=0)
    assert red[2] > 120 and red[0] < 60  # the crop is the false alarm's box, the red patch
    with pytest.raises(ValueError, match=NOT_AN_INDEX):
        collect_crops([("s", item)], list(CARD_SUITS), 40, 1.25, context=False, log=lambda _: None, kind="card",
                      negatives=mined)


def test_card_detector_comes_from_a_model_folder(tmp_path):
    with pytest.raises(ManifestError, match="card-reader.json"):
        negatives.card_detector(tmp_path)
    detect, record = negatives.card_detector(DEFAULT_MODEL_DIR, conf=0.3, threads=1)
    assert record["detector"] == "card-detector.onnx" and record["conf"] == 0.3 and len(record["sha256"]) == 64
    assert detect(np.full((240, 320, 3), 128, np.uint8)).shape == (0, 4)  # a blank table has no index


def _dice_table() -> np.ndarray:
    """A rendered 640x480 table with five dice (the renderer's seed 5, scene 1): tests need no
    data outside the repo."""
    from vision.synth.scene import render_scene
    from vision.synth.writer import scene_rng

    scene = render_scene(scene_rng(5, 1))
    assert sum(o.kind == "die" for o in scene.objects) == 5
    return scene.image


def test_dice_detector_comes_from_a_model_folder(tmp_path):
    with pytest.raises(ManifestError, match="dice-reader.json"):
        negatives.dice_detector(tmp_path)
    detect, record = negatives.dice_detector(DEFAULT_MODEL_DIR, conf=0.3, threads=1)
    assert record["detector"] == "dice-detector.onnx" and record["conf"] == 0.3 and len(record["sha256"]) == 64
    assert "photo" in record["passes"]
    assert detect(np.full((240, 320, 3), 128, np.uint8)).shape == (0, 4)  # a blank table has no die
    assert len(detect(_dice_table())) >= 3  # a table of five dice has dice


def test_mine_takes_each_image_once_and_the_kind_asked(tmp_path):
    item = card_image(tmp_path)  # a card index at (10, 10, 30, 40), a die at (60, 60, 80, 80)
    calls = []

    def detect(image: np.ndarray) -> np.ndarray:
        calls.append(1)
        return np.array([[10, 10, 30, 40], [60, 60, 80, 80]], np.float32)

    as_dice = negatives.mine([("real", item)] * 8, detect, kind="die")
    assert len(calls) == 1  # the real photos are listed --real-repeat times, and read once
    assert as_dice[item.path].tolist() == [[10, 10, 30, 40]]  # the die matches; the index is no die
    assert negatives.mine([("s", item)], detect)[item.path].tolist() == [[60, 60, 80, 80]]


def test_mine_finds_no_false_alarm_on_an_object_the_labels_leave_out(tmp_path):
    item = card_image(tmp_path, cards=())

    def detect(image: np.ndarray) -> np.ndarray:
        return np.array([[10, 10, 30, 40], [100, 60, 120, 90]], np.float32)

    assert len(negatives.mine([("s", item)], detect)[item.path]) == 2
    mined = negatives.mine([("s", item)], detect, unlabelled={item.path: [(11, 10, 31, 40)]})
    assert mined[item.path].tolist() == [[100, 60, 120, 90]]


def test_train_mines_a_reader_boxed_set_against_its_true_labels(tmp_path, monkeypatch):
    """A set with a reader's boxes leaves out what that reader missed; mining at a lower
    confidence may find it, and it is no false alarm."""
    from vision.evaluate.datasets import load_annotations
    from vision.train.command import add_arguments, mine_negatives

    stills = tmp_path / "stills"
    (stills / "images").mkdir(parents=True)
    card_image(stills / "images", "0.jpg", cards=())
    index = {"kind": "card", "face": "10H", "colour": None, "box": [10, 10, 30, 40], "score": 1.0}
    row = {"image": "images/0.jpg", "width": 160, "height": 120}
    (stills / "annotations.jsonl").write_text(json.dumps({**row, "objects": []}) + "\n")
    (stills / "annotations-truth.jsonl").write_text(json.dumps({**row, "objects": [index]}) + "\n")
    (stills / "meta.json").write_text(json.dumps({"boxes": {"from": "reader", "truth": "annotations-truth.jsonl"}}))
    found = np.array([[10, 10, 30, 40], [100, 60, 120, 90]], np.float32)
    monkeypatch.setattr(negatives, "card_detector", lambda folder, conf: ((lambda image: found), {}))
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--cards", "--cls-negatives", str(tmp_path), "--synth", str(stills)])
    item = load_annotations(stills)[0]
    mined, record = mine_negatives(args, [("synth0", item, False)])
    assert mined[item.path].tolist() == [[100, 60, 120, 90]] and record["train"] == 1


def test_train_mines_the_dice_detector_for_dice_and_refuses_the_specialist(tmp_path):
    from vision.train.command import add_arguments, mine_negatives

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert mine_negatives(parser.parse_args(["--cards"]), []) == ({}, None)
    for stage in ("specialist", "second-opinion"):
        with pytest.raises(SystemExit, match="--stage classifier"):
            mine_negatives(parser.parse_args(["--stage", stage, "--cls-negatives", str(tmp_path)]), [])
    with pytest.raises(SystemExit, match="card-reader.json"):
        mine_negatives(parser.parse_args(["--cards", "--cls-negatives", str(tmp_path)]), [])
    with pytest.raises(SystemExit, match="dice-reader.json"):
        mine_negatives(parser.parse_args(["--cls-negatives", str(tmp_path)]), [])
    blank = card_image(tmp_path, cards=())
    with pytest.raises(SystemExit, match="no false alarms"):
        mine_negatives(parser.parse_args(["--cards", "--cls-negatives", str(DEFAULT_MODEL_DIR)]), [("s", blank, False)])
    with pytest.raises(SystemExit, match="the die detector .* no false alarms"):
        mine_negatives(parser.parse_args(["--cls-negatives", str(DEFAULT_MODEL_DIR)]), [("s", blank, False)])


def train_on_rendered_cards(tmp_path: Path, n: int, seed: int, models: tuple[str, ...], argv: list[str]) -> Path:
    """Render ``n`` card scenes, copy the committed ``models`` files to a folder, and run one
    tiny epoch of ``tableref train --cards`` + ``argv`` into it; returns the folder."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import shutil

    from web.cli import main

    assert main(["synth", "--out", str(tmp_path / "cards"), "--n", str(n), "--seed", str(seed), "--cards",
                 "--workers", "1", "--quiet"]) == 0
    out = tmp_path / "models"
    out.mkdir()
    for name in models:
        shutil.copy(DEFAULT_MODEL_DIR / name, out / name)
    assert main(["train", "--cards", *argv, "--synth", str(tmp_path / "cards"), "--cls-epochs", "1", "--cls-samples", "64",
                 "--cls-batch", "32", "--workers", "0", "--runs", str(tmp_path / "runs"), "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_train_teaches_the_card_classifier_no_index_and_the_reader_loads_it(tmp_path):
    """``tableref train --cards --stage classifier --cls-negatives --cls-illegible unsure``: one
    tiny epoch on rendered cards, exported with a fourteenth rank class that the runtime reader
    accepts."""
    out = train_on_rendered_cards(tmp_path, 6, 3, ("card-reader.json", "card-detector.onnx", "card-detector.pt",
                                                   "card-classifier.onnx", "card-body.onnx"),
                                  ["--stage", "classifier", "--cls-negatives", str(DEFAULT_MODEL_DIR),
                                   "--cls-negatives-conf", "0.01", "--cls-illegible", "unsure"])
    from vision.read.manifest import ReaderManifest, load_training_record
    from vision.read.reader import load_card_reader

    manifest = ReaderManifest.load(out / "card-reader.json")
    assert manifest.classifier.faces == WITH_NONE and manifest.classifier.turns == 4
    training = load_training_record(out / "card-reader.json")
    record = training["classifier"]["negatives"]
    assert record["conf"] == 0.01 and record["train"] + record["val"] > 0
    assert record["sha256"] == ReaderManifest.load(DEFAULT_MODEL_DIR / "card-reader.json").detector.sha256
    illegible = training["classifier"]["illegible"]  # and smudged indices were taught "don't know"
    assert illegible["rule"]["min_glyph_px"] == 8.0 and illegible["train"] + illegible["val"] > 0
    assert manifest.body is not None  # training the classifier keeps the body classifier named
    reader = load_card_reader(out, threads=1)
    assert reader.rejects
    image = cv2.imread(str(next((tmp_path / "cards" / "images").iterdir())))
    assert all(d.face[:-1] in CARD_RANKS for d in reader.read_indices(image))


@pytest.mark.slow
def test_train_teaches_the_dice_classifier_no_die_and_the_reader_loads_it(tmp_path):
    """``tableref train --stage classifier --cls-negatives``: one tiny epoch on rendered dice from
    the committed classifier, exported with a seventeenth face class, ``none``, that the reader
    loads and uses."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import shutil

    from vision.read.detections import DIE_FACES
    from vision.read.manifest import ReaderManifest, load_training_record
    from vision.read.reader import load_reader
    from vision.read.policy import Mode
    from web.cli import main

    assert main(["synth", "--out", str(tmp_path / "dice"), "--n", "6", "--seed", "4", "--workers", "1", "--quiet"]) == 0
    out = tmp_path / "models"
    shutil.copytree(DEFAULT_MODEL_DIR, out, ignore=shutil.ignore_patterns("*.pt", "card-*", "MODEL_CARD.md"))
    # Six scenes show a few of the body colours only, and the second opinion reads them all.
    doc = json.loads((out / "dice-reader.json").read_text(encoding="utf-8"))
    doc.pop("second_opinion")
    (out / "dice-reader.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["train", "--stage", "classifier", "--no-real", "--synth", str(tmp_path / "dice"),
                 "--cls-negatives", str(DEFAULT_MODEL_DIR), "--cls-negatives-conf", "0.01",
                 "--cls-init", str(out / "dice-classifier.onnx"), "--cls-arch", "efficientnet-lite0", "--crop", "96", "--cls-epochs", "1",
                 "--cls-samples", "64", "--cls-batch", "32", "--cls-lr", "1e-5", "--workers", "0",
                 "--runs", str(tmp_path / "runs"), "--out", str(out)]) == 0
    manifest = ReaderManifest.load(out / "dice-reader.json")
    assert manifest.classifier.faces == (*DIE_FACES, NOT_AN_INDEX)
    record = load_training_record(out / "dice-reader.json")["classifier"]["negatives"]
    assert record["conf"] == 0.01 and record["train"] + record["val"] > 0
    assert record["sha256"] == ReaderManifest.load(DEFAULT_MODEL_DIR / "dice-reader.json").detector.sha256
    reader = load_reader(out).in_mode(Mode.PHOTO)
    assert reader.rejects
    image = cv2.imread(str(next((tmp_path / "dice" / "images").iterdir())))
    assert all(d.face in DIE_FACES for d in reader.read(image).dice())


def _tray(tmp_path: Path, n: int = 8) -> Path:
    """A real-tray-like YOLO set: photos of dice, no card."""
    real = tmp_path / "tray"
    for split in ("train", "test"):
        (real / "images" / split).mkdir(parents=True)
        (real / "labels" / split).mkdir(parents=True)
        for i in range(n):
            img = np.full((120, 160, 3), 90, np.uint8)
            cv2.rectangle(img, (60, 60), (80, 80), (240, 240, 240), -1)
            cv2.imwrite(str(real / "images" / split / f"{split}{i}.jpg"), img)
            (real / "labels" / split / f"{split}{i}.txt").write_text("2 0.4375 0.5833 0.125 0.1667\n")
    return real


def test_real_negatives_put_the_trays_photos_into_the_card_data_as_places_with_no_index(tmp_path):
    """``--cards --real-negatives``: the real tray's training photos join the card data; all
    they hold for the card classifier is the detector's false alarms on them, as ``none``."""
    from vision.train.command import add_arguments, gather, recipe

    real = _tray(tmp_path)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--cards", "--real-negatives", "--real", str(real), "--val-fraction", "0.25"])
    items = gather(args)
    assert sorted(it.path.name for _, it, _ in items) == [f"train{i}.jpg" for i in range(8)]  # never the test split
    assert {s for s, _, _ in items} == {"real"} and not any(it.cards() for _, it, _ in items)
    r = recipe(args, items)
    assert r["sources"]["real"] == str(real / "images" / "train") and r["real_negatives"] is True
    assert "real_negatives" not in recipe(parser.parse_args(["--real", str(real)]), items)  # dice: always real

    def detect(image: np.ndarray) -> np.ndarray:  # the card detector takes the die for an index
        return np.array([[60, 60, 80, 80]], np.float32)

    from vision.train.detector import write_dataset_view

    counts = write_dataset_view(items, tmp_path / "view", log=lambda _: None, kind="card")
    assert counts["train"] + counts["val"] == 8 and counts["train_cards"] == counts["val_cards"] == 0
    labels = list((tmp_path / "view" / "labels").rglob("*.txt"))
    assert len(labels) == 8 and all(f.read_text() == "" for f in labels)  # background for a card detector

    mined = negatives.mine([(s, it) for s, it, _ in items], detect, kind="card")
    assert len(mined) == 8  # the die is labelled, but as a die: for cards it is a false alarm
    crops = collect_crops([(s, it) for s, it, _ in items], list(CARD_SUITS), 40, 1.25, context=False,
                          log=lambda _: None, kind="card", faces=WITH_NONE, negatives=mined)
    assert face_counts(crops, WITH_NONE) == {NOT_AN_INDEX: 8} and (crops.colours == IGNORE).all()


def test_real_negatives_are_for_the_card_reader_and_its_none_class(tmp_path, capsys):
    from vision.train.command import add_arguments, gather, run

    real = _tray(tmp_path, 2)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    synth = ["--synth", str(tmp_path / "nowhere")]
    for argv, says in ((["--real-negatives"], "give --cards, without --no-real"),
                       (["--cards", "--real-negatives", "--no-real"], "give --cards, without --no-real"),
                       (["--cards", "--real-negatives", "--stage", "classifier"], "give --cls-negatives DIR too"),
                       (["--cards", "--real-negatives", "--stage", "specialist"], "the card reader has no specialists"),
                       (["--cards", "--real-negatives", "--stage", "specialist", "--cls-negatives", str(tmp_path)],
                        "the card reader has no specialists")):
        args = parser.parse_args([*argv, *synth, "--real", str(real), "--out", str(tmp_path / "models")])
        assert run(args) == 2, argv
        assert says in capsys.readouterr().err
    assert not (tmp_path / "models").exists()
    with pytest.raises(SystemExit, match="no training data"):  # without the option the tray is no card data
        gather(parser.parse_args(["--cards", "--real", str(real)]))
