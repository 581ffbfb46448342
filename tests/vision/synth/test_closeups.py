"""vision.synth.closeups: close-up windows cut from a large render hold whole, labelled dice only."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.datasets import load_dataset
from vision.synth.closeups import main, window_for, write_close_ups


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
