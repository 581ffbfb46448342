"""``tableref teach --profile DIR [LABELS.jsonl ...]``: teach a reader profile a table's own set.

Follows ``docs/teach.md``: every labels file and photo is checked before anything is
written, so a malformed line, an unknown face, a missing or unreadable image or a box
outside its image exits 2 with ``{"error": "<reason>", "line": N}`` on one line and leaves
the profile as it was. Otherwise the photos are kept in the profile folder, the profile is
fitted on every photo it keeps (teaching again adds to it), and one JSON line says what it
holds. With no labels file, the profile is taught again from what it kept (after an
upgrade of the base models).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from vision.read.backends import BACKENDS, BackendUnavailable
from vision.read.image_io import UnreadableImage, read_image
from vision.teach.labels import DatasetError, LabelledImage, LabelsError, load_labels
from vision.read.manifest import ManifestError
from vision.read.policy import Mode
from vision.read.profile import ProfileError
from vision.teach.store import ProfileFolder
from vision.read.reader import load_reader
from vision.teach.fitting import teach


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("labels", nargs="*", type=Path, metavar="LABELS.jsonl",
                        help="labels files (docs/teach.md); none: teach again from the photos the profile keeps")
    parser.add_argument("--profile", type=Path, required=True, metavar="DIR", help="the profile folder (made if new)")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="model folder (default: models/)")
    parser.add_argument("--backend", choices=("auto", *BACKENDS), default="auto")


def _fail(message: str, line: int | None = None) -> int:
    print(json.dumps({"error": message, "line": line}, ensure_ascii=False), flush=True)
    return 2


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    new: list[LabelledImage] = []
    for labels in args.labels:
        try:
            photos = load_labels(labels)
        except LabelsError as exc:
            return _fail(f"{labels}: {exc.reason}", exc.line)
        except DatasetError as exc:
            return _fail(str(exc))
        new.extend(photos)
    folder = ProfileFolder(args.profile)
    if args.profile.exists() and not args.profile.is_dir():
        return _fail(f"{args.profile} is not a folder")
    try:
        kept = folder.kept()
    except ProfileError as exc:
        return _fail(str(exc))
    if not new and not kept:
        return _fail(f"{args.profile} keeps no photos yet: give a labels file to teach it")
    for photo in (*kept, *new):
        try:
            read_image(str(photo.path))
        except UnreadableImage as exc:
            return _fail(f"image {photo.path} cannot be read: {exc}")
    try:
        reader = load_reader(args.models, backend=args.backend).in_mode(Mode.PHOTO)
    except (ManifestError, BackendUnavailable, ValueError) as exc:
        return _fail(f"cannot load the models: {exc}")
    try:
        everything = folder.keep(new)
    except OSError as exc:
        return _fail(f"cannot write to {args.profile}: {exc}")
    pixels = ((p, read_image(str(p.path))) for p in everything)
    profile = teach(reader, pixels)
    try:
        folder.commit(everything, profile)
    except OSError as exc:
        return _fail(f"cannot write to {args.profile}: {exc}")
    faces = Counter(o.face for p in everything for k, o in enumerate(p.objects) if p.is_readable(k) and o.face)
    print(json.dumps({"profile": str(args.profile), "photos": profile.photos, "objects": profile.objects,
                      "faces": dict(sorted(faces.items())), "seconds": round(time.perf_counter() - start, 2)},
                     ensure_ascii=False), flush=True)
    return 0
