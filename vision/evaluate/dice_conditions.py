"""What a rendered die was drawn under that makes it hard to read, from the scene record of
``tableref synth``, by which :func:`~vision.evaluate.scoring.score` counts the reader's scores apart for each
(``tableref eval``'s "by scene" line).

The per-face scores mix easy dice with dice no reader could be sure of. The renderer records
how each die was drawn, so the scores can be split by the conditions that cost most
(measured on ``synth-val-train``):

- ``marbled``: a body with veins of a second colour, which cross the marks;
- ``blurred``: camera blur (defocus and motion, :func:`~vision.evaluate.legibility.blur_px`) of at
  least :data:`BLUR_OF_DIE` of the die's box side, about 1.25 px on a 40 px die;
- ``steep``: a camera tilted :data:`STEEP_TILT_DEG` or more from straight down;
- ``dim`` and ``glare``: the scene's light;
- ``partly hidden``: some of the up face behind a hand, a cup or another die.

A die may have several; ``plain`` is a die with none of them.

>>> tags = die_conditions({"marbled": True, "up_face_visible": 1.0, "box": [0, 0, 40, 40]},
...                       {"camera": {"tilt_deg": 35.0}, "light": {"mode": "dim"}, "sensor": {"defocus_px": 0.5}})
>>> tags
('marbled', 'steep', 'dim')
>>> die_conditions({"up_face_visible": 0.8, "box": [0, 0, 40, 40]}, {"camera": {"tilt_deg": 10.0},
...                "light": {"mode": "normal"}, "sensor": {"defocus_px": 2.0}})
('blurred', 'partly hidden')
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.read.detections import Detection
from vision.teach.labels import LabelledImage
from vision.evaluate.legibility import blur_px, load_scenes

BLUR_OF_DIE = 1.0 / 32.0
STEEP_TILT_DEG = 30.0
CONDITIONS: tuple[str, ...] = ("marbled", "blurred", "steep", "dim", "glare", "partly hidden")
PLAIN = "plain"


def die_conditions(die: dict[str, Any], scene: dict[str, Any]) -> tuple[str, ...]:
    """The :data:`CONDITIONS` one labelled die of a ``scenes.jsonl`` record was drawn under."""
    x0, y0, x1, y1 = (float(v) for v in die["box"])
    side = max(x1 - x0, y1 - y0, 1.0)
    light = scene.get("light", {}).get("mode")
    found = {
        "marbled": bool(die.get("marbled")),
        "blurred": blur_px(scene.get("sensor", {})) >= BLUR_OF_DIE * side,
        "steep": float(scene.get("camera", {}).get("tilt_deg", 0.0)) >= STEEP_TILT_DEG,
        "dim": light == "dim",
        "glare": light == "glare",
        "partly hidden": float(die.get("up_face_visible", 1.0)) < 1.0,
    }
    return tuple(c for c in CONDITIONS if found[c])


def scene_conditions(scene: dict[str, Any], objects: Sequence[Detection]) -> list[tuple[str, ...]] | None:
    """The conditions of each die among ``objects`` (a scene's labels, in order), or None when
    the record's labelled dice are not those labels (a set edited by hand)."""
    dice = [o for o in objects if o.kind == "die"]
    recorded = [d for d in scene.get("dice", []) if d.get("labelled")]
    if len(recorded) != len(dice):
        return None
    if any(not np.allclose(d["box"], o.box, atol=0.51) for d, o in zip(recorded, dice)):
        return None
    return [die_conditions(d, scene) for d in recorded]


def dataset_conditions(root: Path, items: Sequence[LabelledImage]) -> list[list[tuple[str, ...]] | None] | None:
    """:func:`scene_conditions` for each of ``items`` (images of the set at ``root``); None for
    a set with no scene records (photos)."""
    scenes = load_scenes(root)
    if scenes is None:
        return None
    out: list[list[tuple[str, ...]] | None] = []
    for item in items:
        scene = scenes.get(item.path.relative_to(root).as_posix())
        out.append(None if scene is None else scene_conditions(scene, item.objects))
    return out
