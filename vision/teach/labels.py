"""Teach labels files (../shared/docs/teach.md) read into :class:`LabelledImage` values.

A labels file is JSON Lines, one photo a line, given as the file or as a folder holding
``labels.jsonl`` (the foreign yardstick's splits are such folders, their lines with extra
keys: ``game``, ``seed``, and per object ``readable`` and ``face_px``; see
:func:`load_labels`). The dashboard's teaching, ``tableref teach`` and the profiles read
them at run time, so they live here, apart from :mod:`vision.evaluate.datasets`, which reads whole
labelled sets (synthetic, YOLO, or these files) for evaluation and training.

>>> LABELS
'labels.jsonl'
>>> issubclass(LabelsError, DatasetError)
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from vision.read.detections import DIE_FACES, Card, Detection, InvalidCard

LABELS = "labels.jsonl"  # a teach labels file's name in a folder (the yardstick's splits)
BOX_SLACK_PX = 1.0
"""How far past its image's edge a labelled box may reach (rounding of a box clipped to the
frame) before the label is refused as outside the image."""
_EXIF_ORIENTATION = 0x0112
_QUARTER_TURNS = frozenset({5, 6, 7, 8})  # EXIF orientations that swap width and height


class DatasetError(ValueError):
    """A labelled set or labels file is missing, has an unknown layout, or is malformed."""


class LabelsError(DatasetError):
    """A line of a teach labels file that cannot be used: ``reason`` says why, ``line`` where
    (1-based; ``tableref teach`` prints both as ``{"error": ..., "line": N}``)."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


@dataclass(frozen=True)
class LabelledImage:
    """One image and its ground-truth objects (``score`` 1.0; ``colour`` None when unknown).

    Sets that say more about their objects give it object by object, in ``objects``' order:
    ``readable`` (None: every object is; a yardstick scene's die under a hand is not, and a
    reading on it is neither a hit nor a false alarm) and ``face_px``, the up face's size in
    pixels (None where not known). ``game`` and ``seed`` name the game a scene is of and the
    seed it was drawn from, ``design`` the set of dice or deck in it; ``whole_cards`` says
    the card labels hold whole cards (teach labels) rather than one corner index each
    (``tableref synth``)."""

    path: Path
    objects: tuple[Detection, ...]
    width: int
    height: int
    readable: tuple[bool, ...] | None = None
    face_px: tuple[float | None, ...] | None = None
    game: str | None = None
    seed: int | None = None
    design: str | None = None
    whole_cards: bool = False

    def is_readable(self, index: int) -> bool:
        """Whether ``objects[index]`` is one a reader should read."""
        return self.readable is None or self.readable[index]

    def dice(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind == "die")

    def cards(self) -> tuple[Detection, ...]:
        """Playing-card corner indices (face ``<rank><suit>``, e.g. ``"10H"``), from sets with cards."""
        return tuple(o for o in self.objects if o.kind == "card")


def upright_size(im: Image.Image) -> tuple[int, int]:
    """``(width, height)`` of ``im`` as shown, after its EXIF orientation.

    A phone photo is often stored sideways with an orientation tag. ``read_image`` (like
    ``cv2.imread`` and Ultralytics) turns it upright, and YOLO labels are normalised to
    the upright image, so the labels must be scaled by the upright size too.
    """
    width, height = im.size
    try:
        orientation = im.getexif().get(_EXIF_ORIENTATION, 1)
    except (OSError, ValueError, SyntaxError):  # a broken EXIF block: the stored size is what loads
        orientation = 1
    return (height, width) if orientation in _QUARTER_TURNS else (width, height)


def _reason(condition: bool, reason: str) -> None:
    if not condition:
        raise ValueError(reason)


def _label_object(raw: Any, k: int, width: int, height: int) -> tuple[Detection, bool, float | None]:
    """One object of a teach labels line: the labelled object, whether it is readable, its
    up face's size in pixels; ValueError with the reason when it cannot be used."""
    where = f"objects[{k}]"
    _reason(isinstance(raw, Mapping), f"{where} is not an object")
    kind = raw.get("kind", "die")
    _reason(kind in ("die", "card"), f"{where}: kind {kind!r} is neither 'die' nor 'card'")
    readable = raw.get("readable", True)
    _reason(isinstance(readable, bool), f"{where}: readable must be true or false")
    face = raw.get("face")
    if face is None and not readable:  # a card face down, a die seen from the side: in play, not read
        face = ""
    elif kind == "die":
        _reason(face in DIE_FACES, f"{where}: unknown die face {face!r}")
    else:
        try:
            Card.parse(face)
        except InvalidCard:
            raise ValueError(f"{where}: unknown card {face!r} (rank A 2..10 J Q K, suit S H D C)") from None
    colour = raw.get("colour")
    _reason(colour is None or (isinstance(colour, str) and bool(colour)), f"{where}: colour must be a name or null")
    box = raw.get("box")
    _reason(isinstance(box, list) and len(box) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in box),
            f"{where}: box must be 4 numbers [x1, y1, x2, y2]")
    x1, y1, x2, y2 = (float(v) for v in box)
    # a die wholly hidden (under a cup, out of frame) is in play but has no box to read
    _reason((x1 < x2 and y1 < y2) or not readable, f"{where}: box {box} is empty (x1 < x2 and y1 < y2)")
    _reason(x1 >= -BOX_SLACK_PX and y1 >= -BOX_SLACK_PX and x2 <= width + BOX_SLACK_PX and y2 <= height + BOX_SLACK_PX,
            f"{where}: box {box} is outside its {width}x{height} image")
    face_px = raw.get("face_px")
    _reason(face_px is None or (isinstance(face_px, (int, float)) and not isinstance(face_px, bool) and face_px >= 0),
            f"{where}: face_px must be a size in pixels")
    obj = Detection(kind=kind, face=str(face), colour=colour, box=(x1, y1, x2, y2), score=1.0)
    return obj, readable, None if face_px is None else float(face_px)


def _labels_line(raw: Any, folder: Path) -> LabelledImage:
    """One teach labels line as a labelled image; ValueError with the reason otherwise."""
    _reason(isinstance(raw, Mapping), "a line must be a JSON object")
    image = raw.get("image")
    _reason(isinstance(image, str) and bool(image), "image must be a path")
    path = Path(image) if Path(image).is_absolute() else folder / image
    try:
        with Image.open(path) as im:
            width, height = upright_size(im)
    except FileNotFoundError:
        raise ValueError(f"image {image} is missing ({path})") from None
    except (OSError, UnidentifiedImageError) as exc:
        raise ValueError(f"image {image} cannot be read: {exc}") from None
    objects = raw.get("objects")
    _reason(isinstance(objects, list), "objects must be a list")
    read = [_label_object(o, k, width, height) for k, o in enumerate(objects)]
    game = raw.get("game")
    seed = raw.get("seed")
    design = raw.get("design")
    _reason(design is None or isinstance(design, str), "design must be a name")
    _reason(game is None or isinstance(game, str), "game must be a name")
    _reason(seed is None or (isinstance(seed, int) and not isinstance(seed, bool)), "seed must be a whole number")
    return LabelledImage(path, tuple(o for o, _, _ in read), width, height, readable=tuple(r for _, r, _ in read),
                         face_px=tuple(p for _, _, p in read), game=game, seed=seed, design=design, whole_cards=True)


def load_labels(path: Path) -> tuple[LabelledImage, ...]:
    """The photos of a teach labels file (../shared/docs/teach.md), or of the ``labels.jsonl``
    in the folder ``path``: each ``image`` relative to the file's folder or absolute; every
    die face and card in the vocabulary of read-json.md, every box inside its image (within
    :data:`BOX_SLACK_PX`). Extra keys are ignored but for the yardstick's: ``game`` and
    ``seed`` per line, ``readable`` (default true; an object that is not may have no face)
    and ``face_px`` per object. Raises :class:`LabelsError` naming the first line that
    cannot be used and why, or :class:`DatasetError` for a file that cannot be read or
    lists no photo.
    """
    path = Path(path)
    if path.is_dir():
        path = path / LABELS
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read the labels file {path}: {exc}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise LabelsError(path, n, f"not a JSON line ({exc})") from None
        try:
            out.append(_labels_line(raw, path.parent))
        except ValueError as exc:
            raise LabelsError(path, n, str(exc)) from None
    if not out:
        raise DatasetError(f"{path} lists no photos")
    return tuple(out)
