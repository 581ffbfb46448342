"""vision.synth.closeups: close-up windows hold whole, labelled dice only; mosaics keep every label."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.evaluate.datasets import load_dataset
from vision.synth.closeups import main, window_for, write_close_ups, write_mosaics


def _scene_set(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    frame = np.zeros((400, 400, 3), np.uint8)
    frame[100:140, 100:140] = 255  # die A
    cv2.imwrite(str(root / "images" / "0.png"), frame)
    cv2.imwrite(str(root / "images" / "1.png"), frame)
    die = {"kind": "die", "face": "5", "colour": "white", "score": 1.0}
    rows = [
        {"image": "images/0.png", "width": 400, "height": 400,
         "objects": [dict(die, box=[100, 100, 140, 140]), dict(die, face="2", box=[300, 300, 340, 340])]},
        {"image": "images/1.png", "width": 400, "height": 400,  # every window of a half cuts one of these
         "objects": [dict(die, box=[150, 150, 250, 250]), dict(die, box=[30, 120, 130, 220]),
                     dict(die, box=[250, 120, 350, 220])]},
    ]
    (root / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_close_up_keeps_whole_dice_shifted_into_the_window(tmp_path: Path) -> None:
    _scene_set(tmp_path / "src")
    written, skipped = write_close_ups(tmp_path / "src", tmp_path / "out", zoom=2.0)
    assert (written, skipped) == (1, 1)
    (item,) = load_dataset(tmp_path / "out")
    assert (item.width, item.height) == (200, 200)
    (die,) = item.dice()  # the die at 300-340 lies outside the window, not cut by it
    assert die.face == "5" and die.box == (80.0, 80.0, 120.0, 120.0)  # the window starts at 20, 20
    image = cv2.imread(str(item.path))
    assert image.shape == (200, 200, 3) and image[85:115, 85:115].mean() > 240


def test_a_window_never_cuts_a_die_and_zoom_must_enlarge() -> None:
    boxes = [(150, 150, 250, 250), (30, 120, 130, 220)]
    assert window_for(boxes, 400, 400, 2.0) is None
    with pytest.raises(ValueError, match="at least 1"):
        window_for(boxes, 400, 400, 0.5)


def test_the_command_refuses_a_folder_that_is_not_a_synth_set(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--out", str(tmp_path / "out")])
    assert "not a tableref synth set" in capsys.readouterr().err


def test_a_mosaic_sets_four_scenes_side_by_side_with_their_labels(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "images").mkdir(parents=True)
    rows = []
    for k in range(5):  # the fifth scene makes no mosaic on its own
        frame = np.full((100, 120, 3), 40 * k, np.uint8)
        cv2.imwrite(str(src / "images" / f"{k}.png"), frame)
        rows.append({"image": f"images/{k}.png", "width": 120, "height": 100,
                     "objects": [{"kind": "die", "face": str(k + 1), "colour": None, "box": [10, 20, 30, 40], "score": 1.0}]})
    (src / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert write_mosaics(src, tmp_path / "wide") == 1
    (item,) = load_dataset(tmp_path / "wide")
    assert (item.width, item.height) == (240, 200)
    assert [(d.face, d.box) for d in item.dice()] == [
        ("1", (10.0, 20.0, 30.0, 40.0)), ("2", (130.0, 20.0, 150.0, 40.0)),
        ("3", (10.0, 120.0, 30.0, 140.0)), ("4", (130.0, 120.0, 150.0, 140.0))]
    image = cv2.imread(str(item.path))
    assert abs(int(image[150, 200, 0]) - 120) <= 3  # the fourth scene (40 * 3) lies bottom right


def test_a_mosaic_needs_scenes_of_one_size(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "images").mkdir(parents=True)
    rows = []
    for k, w in enumerate((120, 120, 120, 160)):
        cv2.imwrite(str(src / "images" / f"{k}.png"), np.zeros((100, w, 3), np.uint8))
        rows.append({"image": f"images/{k}.png", "width": w, "height": 100, "objects": []})
    (src / "annotations.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match="one size"):
        write_mosaics(src, tmp_path / "wide")
