"""Labelled image sets on disk, read into :class:`LabelledImage` values.

Three layouts are understood:

- a synthetic set from ``tableref synth``: ``annotations.jsonl`` with one read-json
  shaped object per image (``image`` relative to the set's folder);
- a YOLO set: ``images/[SPLIT/]*.jpg`` beside ``labels/[SPLIT/]*.txt`` with lines
  ``class cx cy w h`` (normalised), class 0..5 = faces "1".."6" (the real dice tray);
- a labels file of ``tableref teach`` (../shared/docs/teach.md): JSON Lines, one photo a
  line, given as the file or as a folder holding ``labels.jsonl`` (the foreign yardstick's
  splits are such folders, their lines with extra keys: ``game``, ``seed``, and per object
  ``readable`` and ``face_px``; read by :func:`vision.teach.labels.load_labels`).

>>> YOLO_FACES
('1', '2', '3', '4', '5', '6')
>>> parse_yolo_line("2 0.5 0.5 0.1 0.2", 200, 100)
Detection(kind='die', face='3', colour=None, box=(90.0, 40.0, 110.0, 60.0), score=1.0, uncertain=False)
"""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from vision.read.detections import Detection
from vision.read.image_io import photos_in
from vision.teach.labels import LABELS, DatasetError, LabelledImage, load_labels, upright_size

YOLO_FACES = ("1", "2", "3", "4", "5", "6")
SYNTH_META = "meta.json"
ANNOTATIONS = "annotations.jsonl"


def parse_yolo_line(line: str, width: int, height: int, classes: tuple[str, ...] = YOLO_FACES) -> Detection:
    parts = line.split()
    if len(parts) != 5:
        raise DatasetError(f"expected 'class cx cy w h', got {line!r}")
    try:
        cls = int(parts[0])
        cx, cy, w, h = (float(p) for p in parts[1:])
    except ValueError:
        raise DatasetError(f"non-numeric YOLO label {line!r}") from None
    if not 0 <= cls < len(classes):
        raise DatasetError(f"class {cls} outside 0..{len(classes) - 1} in {line!r}")
    box = ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)
    return Detection(kind="die", face=classes[cls], colour=None, box=tuple(round(v, 3) for v in box), score=1.0)  # type: ignore[arg-type]


def load_yolo(root: Path, split: str | None = None, classes: tuple[str, ...] = YOLO_FACES) -> tuple[LabelledImage, ...]:
    images = root / "images" / split if split else root / "images"
    labels = root / "labels" / split if split else root / "labels"
    if not images.is_dir():
        raise DatasetError(f"no image folder {images}")
    files = photos_in(images)
    if not files:
        splits = sorted(p.name for p in images.iterdir() if p.is_dir())
        hint = f" (splits here: {', '.join(splits)}; pass --split)" if splits and not split else ""
        raise DatasetError(f"no images in {images}{hint}")
    out = []
    for f in files:
        with Image.open(f) as im:
            width, height = upright_size(im)
        label = labels / (f.stem + ".txt")
        lines = label.read_text(encoding="utf-8").splitlines() if label.is_file() else []
        objects = tuple(parse_yolo_line(ln, width, height, classes) for ln in lines if ln.strip())
        out.append(LabelledImage(f, objects, width, height))
    return tuple(out)


def load_annotations(root: Path, name: str = ANNOTATIONS) -> tuple[LabelledImage, ...]:
    """The images and labels a synthetic set's ``annotations.jsonl`` (or ``name``) lists."""
    path = root / name
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                objects = tuple(Detection.from_json(o) for o in obj["objects"])
                out.append(LabelledImage(root / obj["image"], objects, int(obj["width"]), int(obj["height"])))
            except (ValueError, KeyError, TypeError) as exc:
                raise DatasetError(f"{path}:{n}: {exc}") from None
    if not out:
        raise DatasetError(f"{path} lists no images")
    return tuple(out)


def load_dataset(root: Path, split: str | None = None) -> tuple[LabelledImage, ...]:
    """Read the labelled set at ``root``: a teach labels file (``*.jsonl``), a folder with
    ``labels.jsonl`` (``split``: the folder under ``root``, as the yardstick's ``val``), a
    synthetic set (``annotations.jsonl``) or a YOLO set."""
    root = Path(root)
    if root.is_file():
        return load_labels(root)
    if not root.is_dir():
        raise DatasetError(f"no dataset folder {root}")
    if split is None and (root / ANNOTATIONS).is_file():
        return load_annotations(root)
    if split is not None and (root / split / ANNOTATIONS).is_file():
        return load_annotations(root / split)
    folder = root / split if split is not None else root
    if (folder / LABELS).is_file():
        return load_labels(folder)
    if (root / "images").is_dir():
        return load_yolo(root, split)
    raise DatasetError(f"{root} has neither {ANNOTATIONS}, {LABELS} nor an images/ folder")


READER_TRUTH = "annotations-truth.jsonl"  # a reader-boxed set's labels as rendered (vision.train.reader_boxes)


def _synth_meta(root: Path) -> dict:
    """A ``tableref synth`` set's ``meta.json``, or ``{}`` where there is none to read."""
    try:
        meta = json.loads((Path(root) / SYNTH_META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _reader_boxes(root: Path) -> dict | None:
    """The ``"boxes"`` record of a set labelled with a reader's boxes, or None."""
    boxes = _synth_meta(root).get("boxes")
    return boxes if isinstance(boxes, dict) and boxes.get("from") == "reader" else None


def boxes_of(root: Path) -> str:
    """Whose boxes a set's labels hold: ``"truth"`` (a rendered set as drawn, or photos), or
    ``"reader"`` after :func:`vision.train.reader_boxes.use_reader_boxes` (a set to train a
    classifier on, not to score a reader or train a detector on).

    >>> boxes_of(Path("/nonexistent"))
    'truth'
    """
    return "truth" if _reader_boxes(root) is None else "reader"


def truth_of(root: Path) -> tuple[LabelledImage, ...] | None:
    """A set with a reader's boxes (:func:`boxes_of`): its labels as rendered, every object
    with its true box, including those the reader did not find and the set leaves out; None
    for any other set.

    >>> truth_of(Path("/nonexistent")) is None
    True
    """
    boxes = _reader_boxes(root)
    return None if boxes is None else load_annotations(Path(root), str(boxes.get("truth", READER_TRUTH)))


def renderer_of(root: Path) -> int | None:
    """Which renderer drew a ``tableref synth`` set (see ``vision.synth.scene.RENDERER``).

    Sets written before the renderer was stamped are renderer 1; a set that is not a
    synthetic one (a YOLO set of photos) gives None.

    >>> renderer_of(Path("/nonexistent")) is None
    True
    """
    meta = _synth_meta(root)
    if "rng" not in meta:
        return None
    renderer = meta.get("renderer", 1)
    return renderer if isinstance(renderer, int) else None
