"""``tableref calibrate``: fit the dice classifier's temperatures and the reporting threshold.

Reads the labelled dice of one or more sets (any format ``tableref eval`` reads) from their
true boxes with the model folder's classifier, fits one temperature for the face head and
one for the colour head (:mod:`vision.read.calibration`), then reads the sets' photos as
``tableref read`` does with those temperatures and picks the one threshold that keeps the
dice read sure and wrong (a wrong face, or a die where none is) at or under ``--max-wrong``
of the labelled dice. The whole read path is measured, not the classifier alone: boxes a
little off, a die read twice, a speck read as a die are mistakes a player sees too. All
three numbers go into the folder's ``dice-reader.json``, and a record of what they were
fitted on into the training record beside it (``dice-reader.training.json``, under
``calibration``)::

    tableref calibrate runs/yardstick/teach-ld-wheel-rope-engraved ... --models models

Calibrate on a set kept apart for it (the yardstick's teach splits of its ``val`` designs),
never on the sets the reader is scored on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.calibration import MAX_WRONG, THRESHOLDS, calibrate_head, indices
from vision.evaluate.datasets import load_dataset
from vision.read.detections import NOT_AN_INDEX
from vision.teach.labels import DatasetError, LabelledImage
from vision.read.manifest import MANIFEST_NAME, ManifestError, ReaderManifest, load_training_record, save_training_record
from vision.read.stages import classify_crops


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sets", type=Path, nargs="+", metavar="SET",
                        help="labelled sets to fit on (a folder or labels file; SET:SPLIT for a YOLO split)")
    parser.add_argument("--models", type=Path, default=None,
                        help="model folder whose manifest and training record are rewritten (default: models/)")
    parser.add_argument("--max-wrong", type=float, default=MAX_WRONG,
                        help="the share of sure and wrong readings the threshold allows (default %(default)s)")
    parser.add_argument("--dry-run", action="store_true", help="report what would be written; write nothing")


def labelled_dice(items: Sequence[LabelledImage], faces: Sequence[str]) -> list[tuple[Path, list[Any]]]:
    """Per image, its readable dice showing one of ``faces``."""
    out = []
    for item in items:
        dice = [o for o in item.objects if o.kind == "die" and o.face in faces and getattr(o, "readable", True)]
        if dice:
            out.append((item.path, dice))
    return out


def readings(reader, images: list[tuple[Path, list[Any]]]) -> tuple[np.ndarray, np.ndarray, list[str], list[str | None]]:
    """The classifier's untempered probabilities for every die, read from its true box, its
    crop cut as the reader cuts it (small crops sharpened by the reader's policy)."""
    spec = replace(reader.manifest.classifier, temperature=1.0, colour_temperature=1.0)
    face_ps, colour_ps, faces, colours = [], [], [], []
    for path, dice in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise DatasetError(f"{path}: not an image")
        f, c = classify_crops(reader.classifier, spec, image, np.array([d.box for d in dice], np.float32),
                              sharpen=reader.policy.dice.sharpen)
        face_ps.append(f)
        colour_ps.append(c)
        faces += [d.face for d in dice]
        colours += [d.colour for d in dice]
    return np.concatenate(face_ps), np.concatenate(colour_ps), faces, colours


def tempered_copy(model_dir: Path, manifest: ReaderManifest, into: Path) -> Path:
    """A model folder in ``into`` holding ``manifest`` and links to ``model_dir``'s model files."""
    for path in Path(model_dir).iterdir():
        if path.suffix == ".onnx":
            (into / path.name).symlink_to(path.resolve())
    manifest.save(into / MANIFEST_NAME)
    return into


def read_path_share(model_dir: Path, items: Sequence[LabelledImage], threshold: float) -> tuple[float, float]:
    """The photo read path's share of the labelled dice read sure, and sure and wrong (a wrong
    face, or a die read surely where none is), with ``threshold``."""
    from vision.evaluate.photos import predict
    from vision.read.reader import load_reader
    from vision.evaluate.scoring import score
    from vision.read.policy import Mode

    reader = load_reader(model_dir, threshold=threshold, cards=False).in_mode(Mode.PHOTO)
    pairs, _, _, _, scored = predict(reader, tuple(items), per_game=True)
    metrics = score(pairs, readable=[item.readable for item in scored], face_px=[item.face_px for item in scored])
    head = metrics.headline()
    gt = max(1, metrics.gt_dice)
    return float(head["sure_coverage"] or 0.0), float(head["confidently_wrong"] or 0.0) + metrics.extra_sure / gt


def choose_on_read_path(
    model_dir: Path, items: Sequence[LabelledImage], max_wrong: float,
) -> tuple[float, float, float, int]:
    """The lowest of :data:`THRESHOLDS` at which photos read by ``model_dir``'s reader are
    sure and wrong for at most ``max_wrong`` of the labelled dice, found by bisection (a higher
    threshold is never surer); with its sure and wrong shares, and how many reads it took."""
    lo, hi = 0, len(THRESHOLDS) - 1
    seen: dict[int, tuple[float, float]] = {}

    def at(i: int) -> tuple[float, float]:
        if i not in seen:
            seen[i] = read_path_share(model_dir, items, THRESHOLDS[i])
        return seen[i]

    while lo < hi:
        mid = (lo + hi) // 2
        if at(mid)[1] <= max_wrong:
            hi = mid
        else:
            lo = mid + 1
    sure, wrong = at(lo)
    return float(THRESHOLDS[lo]), sure, wrong, len(seen)


def _load(arg: Path) -> tuple[LabelledImage, ...]:
    text = str(arg)
    root, _, split = text.rpartition(":") if ":" in text and not Path(text).exists() else (text, "", "")
    return load_dataset(Path(root), split or None)


def run(args: argparse.Namespace) -> int:
    from vision.read.reader import DEFAULT_MODEL_DIR, load_reader

    model_dir = args.models or DEFAULT_MODEL_DIR
    if not 0.0 <= args.max_wrong < 1.0:
        raise SystemExit("tableref calibrate: --max-wrong is a share, from 0 to under 1")
    try:
        reader = load_reader(model_dir, cards=False)
        training = load_training_record(model_dir / MANIFEST_NAME)
        items = [item for s in args.sets for item in _load(s)]
    except (ManifestError, DatasetError) as exc:
        raise SystemExit(f"tableref calibrate: {exc}") from None
    spec = reader.manifest.classifier
    images = labelled_dice(items, spec.faces)
    if not images:
        raise SystemExit("tableref calibrate: no labelled die with a face the classifier reads in these sets")
    face_p, colour_p, faces, colours = readings(reader, images)
    truth = indices(faces, spec.faces)
    face = calibrate_head(face_p, truth)
    has_colour = np.array([c in spec.colours for c in colours], bool)
    colour = (calibrate_head(colour_p[has_colour], indices([c for c, h in zip(colours, has_colour) if h], spec.colours))
              if has_colour.any() else None)
    # A classifier's "no die" class is not a face: a photo's reading is its likeliest face, as
    # sure as that face's own probability (vision.read.reader: DiceReader._faces).
    real = len(spec.faces) - (spec.faces[-1] == NOT_AN_INDEX)
    before = face_p[:, :real]
    crops_right = before.argmax(axis=1) == truth
    new_spec = replace(spec, temperature=face.temperature, colour_temperature=colour.temperature if colour else 1.0)
    with tempfile.TemporaryDirectory() as tmp:
        tempered_dir = tempered_copy(model_dir, replace(reader.manifest, classifier=new_spec), Path(tmp))
        threshold, sure, wrong, reads = choose_on_read_path(tempered_dir, items, args.max_wrong)
    before_sure, before_wrong = read_path_share(model_dir, items, reader.manifest.threshold)
    record = {
        "fitted": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "sets": [str(s) for s in args.sets],
        "images": len(images),
        "faces": face.as_json(),
        **({"colours": colour.as_json()} if colour else {}),
        "max_wrong": args.max_wrong,
        "threshold": threshold,
        "sure": round(sure, 4),
        "sure_wrong": round(wrong, 4),
        "reads": reads,
        "before": {"threshold": reader.manifest.threshold, "sure": round(before_sure, 4),
                   "sure_wrong": round(before_wrong, 4), "crops_right": round(float(crops_right.mean()), 4)},
    }
    print(f"faces: {face.n} dice, best guess right {face.accuracy:.1%}, temperature {face.temperature:.2f} "
          f"(NLL {face.nll_before:.3f} -> {face.nll_after:.3f})")
    if colour:
        print(f"colours: {colour.n} dice, best guess right {colour.accuracy:.1%}, temperature {colour.temperature:.2f} "
              f"(NLL {colour.nll_before:.3f} -> {colour.nll_after:.3f})")
    print(f"threshold {threshold:.3g}: photos read sure {sure:.1%}, sure and wrong {wrong:.2%} of the labelled dice "
          f"(was {reader.manifest.threshold:.3g} untempered: sure {before_sure:.1%}, sure and wrong {before_wrong:.2%})")
    if args.dry_run:
        print(json.dumps(record, ensure_ascii=False))
        return 0
    save_training_record(model_dir / MANIFEST_NAME, {**training, "calibration": record})
    replace(reader.manifest, classifier=new_spec, threshold=threshold).save(model_dir / MANIFEST_NAME)
    print(f"wrote {model_dir / MANIFEST_NAME} and its training record")
    return 0
