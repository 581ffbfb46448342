"""The labels file of ``docs/teach.md``: one photo per line, every die and card in it.

A line has the shape of a ``tableref read --json`` line with its faces right::

    {"image": "calib/roll-01.jpg",
     "objects": [{"kind": "die", "face": "ブ", "colour": "blue", "box": [412, 233.5, 455.2, 279]}]}

``image`` is relative to the labels file's folder (or absolute); ``colour`` may be null
(unknown); extra keys are ignored, so the foreign yardstick's labels (which add ``game``,
``face_px``, ``readable`` ...) are labels files too. Every mistake is a
:class:`LabelsError` that names the line, and nothing is returned for a file with one.

>>> parse_object({"kind": "die", "face": "wheel", "colour": None, "box": [1, 2, 30, 40]}, 640, 480).face
'wheel'
>>> parse_object({"kind": "die", "face": "7", "box": [1, 2, 30, 40]}, 640, 480)
Traceback (most recent call last):
...
vision.labels.LabelsError: unknown die face '7' (one of 1 2 3 4 5 6 wheel プ ラ ス ベ ガ ブ レ フ カ)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from vision.datasets import upright_size
from vision.detections import CARD_RANKS, CARD_SUITS, DIE_FACES, Detection

KINDS = ("die", "card")
# A box may reach this far past the image's edge (rounding, a die cut by the frame) and is
# then clipped; farther out it is a mistake in the file, not a die at the edge.
EDGE_SLACK_PX = 2.0
MAX_LINE_CHARS = 1_000_000


class LabelsError(ValueError):
    """A labels file is missing, malformed, names an unknown face or an unreadable image,
    or has a box outside its image. ``line`` is the 1-based line number (None: the file)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class LabelledPhoto:
    """One labelled photo: where it is, its size, and every object in it (``score`` 1.0)."""

    path: Path
    objects: tuple[Detection, ...]
    width: int
    height: int
    extra: Mapping[str, Any]

    def dice(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind == "die")

    def cards(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind == "card")


def is_card_face(face: str) -> bool:
    """``<rank><suit>``, e.g. ``"10H"``.

    >>> is_card_face("10H"), is_card_face("1H"), is_card_face("QX")
    (True, False, False)
    """
    return len(face) >= 2 and face[:-1] in CARD_RANKS and face[-1] in CARD_SUITS


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LabelsError(f"box values must be finite numbers, not {value!r}")
    return float(value)


def parse_object(obj: Any, width: int, height: int) -> Detection:
    """One object of a labels line, checked against the vocabulary and its image's size."""
    if not isinstance(obj, dict):
        raise LabelsError("each object must be a JSON object")
    kind = obj.get("kind", "die")
    if kind not in KINDS:
        raise LabelsError(f"unknown kind {kind!r} (die or card)")
    face = obj.get("face")
    if not isinstance(face, str):
        raise LabelsError("each object needs a face (a string)")
    if kind == "die" and face not in DIE_FACES:
        raise LabelsError(f"unknown die face {face!r} (one of {' '.join(DIE_FACES)})")
    if kind == "card" and not is_card_face(face):
        raise LabelsError(f"unknown card {face!r} (rank {' '.join(CARD_RANKS)} then suit {' '.join(CARD_SUITS)})")
    colour = obj.get("colour")
    if colour is not None and (not isinstance(colour, str) or not colour.strip()):
        raise LabelsError(f"colour must be a name or null, not {colour!r}")
    box = obj.get("box")
    if not isinstance(box, list) or len(box) != 4:
        raise LabelsError("each object needs a box [x1, y1, x2, y2]")
    x1, y1, x2, y2 = (_number(v) for v in box)
    if not (x2 > x1 and y2 > y1):
        raise LabelsError(f"box {box} is empty (x2 must exceed x1 and y2 exceed y1)")
    slack = EDGE_SLACK_PX
    if x1 < -slack or y1 < -slack or x2 > width + slack or y2 > height + slack:
        raise LabelsError(f"box {box} lies outside the {width}x{height} image")
    clipped = (max(0.0, x1), max(0.0, y1), min(float(width), x2), min(float(height), y2))
    return Detection(kind=kind, face=face, colour=None if kind == "card" else colour, box=clipped, score=1.0)


def _image_size(path: Path) -> tuple[int, int]:
    if not path.is_file():
        raise LabelsError(f"image {path} is missing" if not path.exists() else f"image {path} is not a regular file")
    try:
        with Image.open(path) as im:
            im.verify()
        with Image.open(path) as im:
            return upright_size(im)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise LabelsError(f"image {path} cannot be read: {exc}") from None


def parse_line(text: str, folder: Path) -> LabelledPhoto:
    """One labels line (already stripped, not blank); ``folder`` resolves a relative ``image``."""
    if len(text) > MAX_LINE_CHARS:
        raise LabelsError("line too long for one photo's labels")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise LabelsError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise LabelsError("a line must be a JSON object with image and objects")
    image = data.get("image")
    if not isinstance(image, str) or not image:
        raise LabelsError("a line needs an image path")
    objects = data.get("objects")
    if not isinstance(objects, list):
        raise LabelsError("a line needs an objects list (empty when the photo holds none)")
    path = Path(image) if Path(image).is_absolute() else folder / image
    width, height = _image_size(path)
    parsed = tuple(parse_object(o, width, height) for o in objects)
    extra = {k: v for k, v in data.items() if k not in ("image", "objects")}
    return LabelledPhoto(path=path, objects=parsed, width=width, height=height, extra=extra)


def load_labels(path: Path) -> tuple[LabelledPhoto, ...]:
    """Every photo of a labels file, in its order; :class:`LabelsError` (with its line) at the
    first mistake. Blank lines are skipped."""
    path = Path(path)
    if not path.is_file():
        raise LabelsError(f"labels file {path} is missing" if not path.exists() else f"{path} is not a regular file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"labels file {path} cannot be read: {exc}") from None
    photos: list[LabelledPhoto] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            photos.append(parse_line(line.strip(), path.parent))
        except LabelsError as exc:
            raise LabelsError(str(exc), number) from None
    return tuple(photos)
