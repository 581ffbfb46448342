"""Teach labels files (../shared/docs/teach.md) and the yardstick's labels, read by ``vision.teach.labels``
(and, as one layout of labelled sets, by ``vision.evaluate.datasets.load_dataset``)."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.teach.labels
from vision.evaluate.datasets import load_dataset
from vision.teach.labels import DatasetError, LabelsError, load_labels


def photo(path: Path, width: int = 64, height: int = 48) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.zeros((height, width, 3), np.uint8))
    return path


def write(path: Path, lines: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) for line in lines)
                    + "\n", encoding="utf-8")
    return path


DIE = {"kind": "die", "face": "ブ", "colour": "blue", "box": [10.0, 10.0, 30.0, 28.0]}


def test_doctests() -> None:
    result = doctest.testmod(vision.teach.labels)
    assert result.attempted >= 2 and result.failed == 0


def test_paths_are_relative_to_the_labels_file_or_absolute(tmp_path: Path) -> None:
    photo(tmp_path / "set" / "calib" / "a.png")
    b = photo(tmp_path / "elsewhere" / "b.png", 80, 60)
    labels = write(tmp_path / "set" / "labels.jsonl", [
        {"image": "calib/a.png", "objects": [DIE, {"kind": "card", "face": "10H", "box": [40, 5, 60, 40]}], "note": "extra keys are ignored"},
        "",
        {"image": str(b), "objects": [{"face": "wheel", "colour": None, "box": [0, 0, 80, 60]}]},
    ])
    a_item, b_item = load_labels(labels)
    assert a_item.path == tmp_path / "set" / "calib" / "a.png" and (a_item.width, a_item.height) == (64, 48)
    assert [(o.kind, o.face, o.colour) for o in a_item.objects] == [("die", "ブ", "blue"), ("card", "10H", None)]
    assert a_item.readable == (True, True) and a_item.whole_cards and a_item.game is None
    assert b_item.path == b and b_item.dice()[0].colour is None and b_item.dice()[0].kind == "die"
    assert load_dataset(labels) == load_labels(labels) == load_dataset(tmp_path / "set")  # the file, or its folder


def test_the_yardstick_split_folder_and_its_extra_keys(tmp_path: Path) -> None:
    photo(tmp_path / "val" / "images" / "ld-val-0007.png")
    write(tmp_path / "val" / "labels.jsonl", [{
        "image": "images/ld-val-0007.png", "scene": "ld-val-0007", "game": "liars-dice", "seed": 80000007,
        "camera": {"height_cm": 52.0}, "objects": [
            {**DIE, "face": "wheel", "face_px": 14.5, "visible": 0.97, "readable": True, "design": "x"},
            {**DIE, "face": "3", "readable": False, "visible": 0.3},
            {"kind": "card", "face": None, "box": [0, 0, 20, 30], "readable": False},  # face down
            {**DIE, "box": [0.0, 0.0, 0.0, 0.0], "visible": 0.0, "readable": False},  # wholly hidden: no box
        ]}])
    (item,) = load_dataset(tmp_path, "val")
    assert item.game == "liars-dice" and item.seed == 80000007
    assert item.readable == (True, False, False, False) and item.face_px == (14.5, None, None, None)
    assert item.objects[2].face == "" and not item.is_readable(2)


@pytest.mark.parametrize(("line", "reason"), [
    ("{not json", "not a JSON line"),
    ({"image": "a.png", "objects": [{**DIE, "face": "7"}]}, "objects[0]: unknown die face '7'"),
    ({"image": "a.png", "objects": [{**DIE, "kind": "card", "face": "1H"}]}, "objects[0]: unknown card '1H'"),
    ({"image": "a.png", "objects": [DIE, {**DIE, "box": [50, 10, 70, 30]}]}, "objects[1]: box [50, 10, 70, 30] is outside its 64x48 image"),
    ({"image": "a.png", "objects": [{**DIE, "box": [10, 10, 5, 20]}]}, "is empty"),
    ({"image": "a.png", "objects": [{**DIE, "box": [10, 10, 20]}]}, "box must be 4 numbers"),
    ({"image": "a.png", "objects": [{**DIE, "face": None}]}, "unknown die face None"),  # only a piece not readable may have none
    ({"image": "missing.png", "objects": []}, "image missing.png is missing"),
    ({"image": "a.png"}, "objects must be a list"),
    ([1, 2], "a line must be a JSON object"),
])
def test_a_line_that_cannot_be_used_is_named_with_its_reason(tmp_path: Path, line, reason: str) -> None:
    photo(tmp_path / "a.png")
    labels = write(tmp_path / "labels.jsonl", [{"image": "a.png", "objects": [DIE]}, "", line])
    with pytest.raises(LabelsError) as caught:
        load_labels(labels)
    assert caught.value.line == 3 and reason in caught.value.reason
    assert str(caught.value).startswith(f"{labels}:3: ")


def test_an_unreadable_image_and_an_empty_file(tmp_path: Path) -> None:
    (tmp_path / "broken.png").write_bytes(b"not a png")
    with pytest.raises(LabelsError, match="image broken.png cannot be read"):
        load_labels(write(tmp_path / "a.jsonl", [{"image": "broken.png", "objects": []}]))
    with pytest.raises(DatasetError, match="lists no photos"):
        load_labels(write(tmp_path / "b.jsonl", [""]))
    with pytest.raises(DatasetError, match="cannot read the labels file"):
        load_labels(tmp_path / "none.jsonl")
