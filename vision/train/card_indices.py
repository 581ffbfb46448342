"""Corner-index labels from sets labelled with whole cards, for training the card reader.

The card detector and classifier learn corner indices (a rank over a small suit), one label
each, as ``tableref synth`` writes them. The yardstick labels a card whole (``box``,
``corners``), as a reader reports it; its renders also give each face-up card's two corner
indices (``indices``: the box round the index's ink, the share of it in view, and
``labelled``: in view and big enough to train on, as ``tableref synth`` decides). A set like
that is trained on as one card object per labelled index; a hidden or tiny index is left
unlabelled, as ``tableref synth`` leaves it.

>>> raw = {"objects": [{"kind": "die", "face": "3"},
...                    {"kind": "card", "face": "7S", "indices": [
...                        {"corner": "top-left", "box": [1, 2, 9, 20], "visible": 1.0, "labelled": True},
...                        {"corner": "bottom-right", "box": [50, 60, 58, 78], "visible": 0.2, "labelled": False}]}]}
>>> item = LabelledImage(Path("a.png"), (Detection("die", "3", "red", (0.0, 0.0, 9.0, 9.0), 1.0),
...                      Detection("card", "7S", None, (0, 0, 60, 80), 1.0)), 640, 480, readable=(True, True),
...                      face_px=(12.0, None), whole_cards=True)
>>> [(o.kind.value, o.face, o.box) for o in indexed(item, raw).objects]
[('die', '3', (0.0, 0.0, 9.0, 9.0)), ('card', '7S', (1.0, 2.0, 9.0, 20.0))]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.read.detections import Detection
from vision.teach.labels import LABELS, DatasetError, LabelledImage


class NoIndexLabels(DatasetError):
    """A set labelled with whole face-up cards whose labels do not give their corner indices."""

    def __init__(self, folder: Path) -> None:
        super().__init__(
            f"{folder} labels whole cards without their corner indices, which the card reader trains on: "
            "render it again with this version (tableref yardstick render --split train)")
        self.folder = folder


def indexed(item: LabelledImage, raw: Mapping[str, Any]) -> LabelledImage:
    """``item`` (a whole-card labelled image) with each face-up card replaced by its labelled
    corner indices from ``raw``, the item's labels line; dice stay as they are."""
    objects: list[Detection] = []
    readable: list[bool] = []
    face_px: list[float | None] = []
    for k, (obj, raw_obj) in enumerate(zip(item.objects, raw["objects"], strict=True)):
        if obj.kind.value != "card":
            objects.append(obj)
            readable.append(item.is_readable(k))
            face_px.append(item.face_px[k] if item.face_px else None)
            continue
        for index in raw_obj.get("indices") or ():
            if index.get("labelled"):
                objects.append(Detection("card", obj.face, None, tuple(float(v) for v in index["box"]), 1.0))
                readable.append(True)
                face_px.append(None)
    return replace(item, objects=tuple(objects), readable=tuple(readable), face_px=tuple(face_px), whole_cards=False)


def _needs_indices(raw_obj: Mapping[str, Any]) -> bool:
    """A readable face-up card must give its indices (one wholly out of frame has none)."""
    return (raw_obj.get("kind") == "card" and bool(raw_obj.get("face")) and raw_obj.get("readable", True)
            and "indices" not in raw_obj)


def index_labelled(items: Sequence[LabelledImage], labels: Path) -> tuple[LabelledImage, ...]:
    """The images of a whole-card labelled set (a labels file, or a folder's ``labels.jsonl``,
    as :func:`vision.evaluate.datasets.load_dataset` read them into ``items``) with
    corner-index card labels; :class:`NoIndexLabels` when a face-up card's line lacks
    ``indices``."""
    labels = Path(labels)
    if labels.is_dir():
        labels = labels / LABELS
    folder = labels.parent
    by_image: dict[Path, Mapping[str, Any]] = {}
    for line in labels.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            image = Path(raw["image"])
            by_image[(image if image.is_absolute() else folder / image).resolve()] = raw
    out = []
    for item in items:
        raw = by_image[item.path.resolve()]
        if any(_needs_indices(o) for o in raw["objects"]):
            raise NoIndexLabels(folder)
        out.append(indexed(item, raw))
    return tuple(out)
