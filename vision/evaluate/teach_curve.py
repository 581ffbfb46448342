"""``tableref teach-curve SET [--camera SHIFT] [--counts 1,3,5,10,30]``: how fast a profile learns a set.

The photos of a labelled set (any layout ``tableref eval`` reads: a teach labels file, a
yardstick split, a YOLO set with ``--split``) are shuffled with a fixed seed; a profile is
taught from the first N of them for each N of ``--counts``, and every profile is scored on
the same held-out photos (all after the largest N, or ``--held SET``). Each row gives the
dice found, read surely right (accuracy), confidently wrong, the found dice read in their
labelled colour (colour), and the accuracy on the held-out dice whose face no taught photo
showed (a profile must not make those worse), beside the base reader's row. ``--camera``
shows every photo as another camera would (:mod:`vision.synth.camera_shifts`): a colour
cast, blur or sensor noise the base reader never trained on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from vision.synth.camera_shifts import NAMES as CAMERA_NAMES, CameraShift
from vision.evaluate.datasets import load_dataset
from vision.read.image_io import UnreadableImage, read_image
from vision.teach.labels import DatasetError, LabelledImage
from vision.read.manifest import ManifestError
from vision.read.policy import Mode
from vision.read.reader import DiceReader, load_reader
from vision.teach.fitting import HeldOut, score_reading, teach

Photos = list[tuple[LabelledImage, np.ndarray]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, metavar="SET", help="labelled set to teach from")
    parser.add_argument("--split", default=None, help="split of SET (a YOLO split, or a yardstick split folder)")
    parser.add_argument("--held", type=Path, default=None, metavar="SET",
                        help="score on this set instead of SET's photos after the largest count")
    parser.add_argument("--held-split", default=None, help="split of --held")
    parser.add_argument("--counts", default="1,3,5,10,30", help="numbers of taught photos (default 1,3,5,10,30)")
    parser.add_argument("--camera", choices=CAMERA_NAMES, default=None, help="show every photo as this camera would")
    parser.add_argument("--design", default=None,
                        help="only the photos of this dice or deck design (the yardstick's labels name it)")
    parser.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="model folder (default: models/)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")


def _pixels(items: tuple[LabelledImage, ...], camera: str | None) -> Photos:
    shift = None if camera is None else CameraShift(camera)
    out = []
    for item in items:
        image = read_image(str(item.path))
        out.append((item, image if shift is None else shift.apply(image)))
    return out


def _of_design(items: tuple[LabelledImage, ...], design: str | None) -> list[LabelledImage]:
    return [item for item in items if design is None or item.design == design]


def unseen_faces_accuracy(reader: DiceReader, taught: Photos, held: Photos) -> HeldOut:
    """:func:`~vision.teach.fitting.score_reading` over the held-out dice whose face no taught photo shows."""
    seen = {o.face for item, _ in taught for o in item.dice()}
    kept = []
    for item, image in held:
        keep = [k for k, o in enumerate(item.objects) if o.kind == "die" and o.face not in seen]
        if keep:
            readable = tuple(k in keep and item.is_readable(k) for k in range(len(item.objects)))
            kept.append((LabelledImage(item.path, item.objects, item.width, item.height, readable=readable), image))
    return score_reading(reader, kept)


def curve(reader: DiceReader, photos: Photos, held: Photos, counts: list[int]) -> list[dict]:
    """The base reader's row, then one row per count of taught photos."""
    rows = [{"taught": 0, "seconds": 0.0, **score_reading(reader, held).to_json(), "unseen_faces": None}]
    for n in counts:
        taught = photos[:n]
        start = time.perf_counter()
        profile = teach(reader, taught)
        seconds = time.perf_counter() - start
        profiled = reader.with_profile(profile)
        unseen = unseen_faces_accuracy(reader, taught, held)
        unseen_after = unseen_faces_accuracy(profiled, taught, held)
        rows.append({"taught": n, "seconds": round(seconds, 2), **score_reading(profiled, held).to_json(),
                     "unseen_faces": {"dice": unseen.dice, "base": unseen.to_json()["accuracy"],
                                      "profile": unseen_after.to_json()["accuracy"]}})
    return rows


def _pct(v: float | None) -> str:
    return "   -  " if v is None else f"{100 * v:5.1f}%"


def run(args: argparse.Namespace) -> int:
    try:
        counts = sorted({int(c) for c in args.counts.split(",") if c.strip()})
        if not counts or counts[0] < 1:
            raise ValueError
    except ValueError:
        print(f"tableref teach-curve: --counts {args.counts!r}: give whole numbers of photos, e.g. 1,3,5,10", file=sys.stderr)
        return 2
    try:
        items = _of_design(load_dataset(args.dataset, args.split), args.design)
        held_items = None if args.held is None else _of_design(load_dataset(args.held, args.held_split), args.design)
        if not items or (held_items is not None and not held_items):
            raise DatasetError(f"no photos of design {args.design!r}" if args.design else "no photos")
        reader = load_reader(args.models).in_mode(Mode.PHOTO)
        rng = np.random.default_rng(args.seed)
        items = [items[i] for i in rng.permutation(len(items))]
        if held_items is None:
            if len(items) <= counts[-1]:
                print(f"tableref teach-curve: {len(items)} photos leave none to score after teaching {counts[-1]}",
                      file=sys.stderr)
                return 2
            held_items = items[counts[-1]:]
        photos = _pixels(tuple(items[:counts[-1]]), args.camera)
        held = _pixels(tuple(held_items), args.camera)
    except (DatasetError, ManifestError, UnreadableImage, ValueError) as exc:
        print(f"tableref teach-curve: {exc}", file=sys.stderr)
        return 2
    rows = curve(reader, photos, held, counts)
    if args.json:
        print(json.dumps({"set": str(args.dataset), "camera": args.camera, "held_photos": len(held), "rows": rows},
                         ensure_ascii=False))
        return 0
    print(f"{args.dataset} ({args.camera or 'as taken'}): {len(held)} held-out photos, {rows[0]['dice']} dice")
    print("taught  found  accuracy  conf.wrong  colour  unseen faces (base -> profile)  teach s")
    for r in rows:
        u = r["unseen_faces"]
        unseen = "" if u is None else f"{u['dice']:4d} dice {_pct(u['base'])} -> {_pct(u['profile'])}"
        found = r["found"] / r["dice"] if r["dice"] else None
        print(f"{r['taught']:6d}  {_pct(found)}  {_pct(r['accuracy'])}    {_pct(r['confidently_wrong'])}"
              f"   {_pct(r.get('colour_accuracy'))}  {unseen:30s}  {r['seconds']:6.2f}")
    return 0
