"""Whole-card labels (the yardstick's) trained on as corner indices."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import vision.train.card_indices as card_indices
from vision.evaluate.datasets import load_dataset
from vision.train.card_indices import NoIndexLabels, index_labelled
from vision.train.command import add_arguments, gather


def _index(corner: str, box: list[float], labelled: bool) -> dict:
    return {"corner": corner, "box": box, "quad": [], "visible": 1.0 if labelled else 0.3, "labelled": labelled}


def _labels(folder: Path, with_indices: bool = True, n: int = 4) -> Path:
    (folder / "images").mkdir(parents=True)
    lines = []
    for i in range(n):
        Image.fromarray(np.full((48, 64, 3), 90, np.uint8)).save(folder / "images" / f"dc-{i}.png")
        card = {"kind": "card", "face": "QH", "colour": None, "box": [20, 10, 50, 44], "readable": True}
        if with_indices:
            card["indices"] = [_index("top-left", [21, 11, 25, 19], True), _index("bottom-right", [45, 35, 49, 43], False)]
        face_down = {"kind": "card", "face": None, "colour": None, "box": [2, 2, 18, 30], "readable": False}
        out_of_frame = {"kind": "card", "face": "2C", "colour": None, "box": [0, 0, 0, 0], "readable": False}
        die = {"kind": "die", "face": "5", "colour": "white", "box": [52, 30, 62, 40], "readable": True, "face_px": 8.0}
        lines.append(json.dumps({"image": f"images/dc-{i}.png", "game": "doubt", "seed": i,
                                 "objects": [card, face_down, die, out_of_frame]}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_face_up_cards_become_their_labelled_indices(tmp_path: Path) -> None:
    folder = _labels(tmp_path / "ys")
    items = load_dataset(folder)
    assert all(item.whole_cards for item in items)
    out = index_labelled(items, folder)
    first = out[0]
    assert not first.whole_cards
    cards = [o for o in first.objects if o.kind.value == "card"]
    assert [(o.face, o.box) for o in cards] == [("QH", (21.0, 11.0, 25.0, 19.0))]  # the hidden index is not a label
    die = next(k for k, o in enumerate(first.objects) if o.kind.value == "die")
    assert first.objects[die].face == "5" and first.face_px[die] == 8.0 and first.is_readable(die)
    assert len(first.readable) == len(first.face_px) == len(first.objects)


def test_labels_without_indices_are_refused_with_what_to_do(tmp_path: Path) -> None:
    folder = _labels(tmp_path / "old", with_indices=False)
    with pytest.raises(NoIndexLabels, match="render it again"):
        index_labelled(load_dataset(folder), folder)


def test_card_training_reads_indices_and_dice_training_whole_labels(tmp_path: Path) -> None:
    folder = _labels(tmp_path / "ys", n=8)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cards = gather(parser.parse_args(["--cards", "--no-real", "--synth", str(folder), "--val-fraction", "0.25"]))
    assert cards and all(not item.whole_cards for _, item, _ in cards)
    assert {o.box for _, item, _ in cards for o in item.objects if o.kind.value == "card"} == {(21.0, 11.0, 25.0, 19.0)}
    dice = gather(parser.parse_args(["--no-real", "--synth", str(folder), "--val-fraction", "0.25"]))
    assert all(item.whole_cards for _, item, _ in dice)  # the dice reader's data is unchanged
    old = _labels(tmp_path / "old", with_indices=False)
    with pytest.raises(NoIndexLabels):
        gather(parser.parse_args(["--cards", "--no-real", "--synth", str(old)]))


def test_doctests() -> None:
    import doctest

    assert doctest.testmod(card_indices).failed == 0
