"""``tableref read [--json] [--threshold T] [--models DIR] [--annotate DIR] IMAGE...``: read the dice and cards in photos.

The models are loaded once. With ``--json`` each image prints one JSON line exactly as
docs/read-json.md specifies; otherwise a short readable summary. An image that cannot be
read prints an error line (``{"image": ..., "error": ...}`` in JSON mode) and the others
are still read; the exit status is then 1. A folder stands for the photos in it, by name
(:func:`~vision.read.image_io.photos_in`); a folder with none is an error line. A missing
or broken model folder exits 2.
``--annotate DIR`` also writes each photo with what was read drawn on it (uncertain
objects in the overlay's warning colour, with a ``?``) to ``DIR/<name>.read.jpg``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

from referee.json_limits import json_line
from vision.read.backends import BACKENDS, PRECISIONS, BackendUnavailable
from vision.read.detections import DIE_FACES, Detection, Reading
from vision.read.image_io import IMAGE_SUFFIXES, UnreadableImage, photos_in, read_image
from vision.read.manifest import ManifestError
from vision.live.overlay import draw_overlay, encode_jpeg
from vision.read.policy import Mode
from vision.read.profile import Profile, ProfileError
from vision.read.reader import DiceReader, load_reader
from vision.read.vocabulary import VocabularyError, game_vocabulary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo(s) to read, or folders of them")
    parser.add_argument("--json", action="store_true", help="one JSON object per image (JSON Lines)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="face confidence below which a die is flagged uncertain (default: the model's)")
    parser.add_argument("--card-threshold", type=float, default=None,
                        help="rank x suit confidence below which a card is flagged uncertain (default: the card model's)")
    add_dice_options(parser)
    parser.add_argument("--no-cards", action="store_true", help="read dice only, even when the card model is there")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="model folder (default: models/)")
    parser.add_argument("--backend", choices=("auto", *BACKENDS), default="auto")
    parser.add_argument("--precision", choices=PRECISIONS, default="auto",
                        help="OpenVINO inference precision (auto: bf16 where the CPU has it)")
    parser.add_argument("--threads", type=int, default=None, help="inference threads (default: up to 4)")
    parser.add_argument("--annotate", type=Path, default=None, metavar="DIR",
                        help="also write each photo with its reading drawn on it to DIR/<name>.read.jpg")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="read with this table's profile (tableref teach; docs/teach.md)")


def add_dice_options(parser: argparse.ArgumentParser) -> None:
    """``--card-imgsz`` and ``--game``, shared by ``tableref read`` and ``tableref eval``."""
    parser.add_argument("--card-imgsz", type=int, default=None, metavar="N",
                        help="card detector input size, a multiple of 32 (default: the card model's photo size, "
                             "which finds smaller and fainter indices than the live frame's size)")
    parser.add_argument("--game", default=None, metavar="GAME",
                        help="read dice as this game's dice: liars-dice, nine-dice or pin456 (its faces and colours only)")


def with_dice_options(reader: DiceReader, args: argparse.Namespace, command: str) -> DiceReader | None:
    """``reader`` reading photos (:attr:`~vision.read.policy.Mode.PHOTO`), as ``--card-imgsz`` and
    ``--game`` ask; None (the reason printed) for an unknown game or a card input size the
    detector cannot take."""
    reader = reader.in_mode(Mode.PHOTO)
    try:
        reader = reader.with_card_imgsz(args.card_imgsz)
    except ValueError as exc:
        print(f"tableref {command}: --card-imgsz {args.card_imgsz}: {exc}", file=sys.stderr)
        return None
    if args.game is None:
        return reader
    try:
        return reader.with_vocabulary(game_vocabulary(args.game))
    except VocabularyError as exc:
        print(f"tableref {command}: --game {args.game}: {exc}", file=sys.stderr)
        return None


def made_folder(folder: Path, command: str, option: str) -> bool:
    """Make ``folder`` (and its parents) for ``tableref COMMAND``'s ``option``; False, the reason
    printed, when it cannot be made."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"tableref {command}: {option} {folder}: cannot make the folder: {exc}", file=sys.stderr)
        return False
    return True


def summary(name: str, reading: Reading) -> str:
    """Readable block for one image: face counts first, then one line per die and card.

    >>> from vision.read.detections import Detection
    >>> die = Detection("die", "5", "red", (0, 0, 9, 9), 0.95)
    >>> card = Detection("card", "QD", None, (20, 0, 29, 15), 0.7, uncertain=True)
    >>> print(summary("a.jpg", Reading((die, card), 640, 480, 3.0)))
    a.jpg: 640x480, 3.0 ms, 1 die - 1 x 5; 1 card - QD? (1 uncertain)
          5  red     score 0.95  box [0,0,9,9]
         QD  card    score 0.70  box [20,0,29,15]  ? uncertain
    """
    dice = reading.dice()
    counts = Counter(d.face for d in dice)
    order = sorted(counts, key=lambda f: (DIE_FACES.index(f) if f in DIE_FACES else len(DIE_FACES), f))
    unsure = sum(d.uncertain for d in dice)
    head = f"{name}: {reading.width}x{reading.height}, {reading.ms:.1f} ms, {len(dice)} {'die' if len(dice) == 1 else 'dice'}"
    if dice:
        head += " - " + ", ".join(f"{counts[f]} x {f}" for f in order)
    if unsure:
        head += f" ({unsure} uncertain)"
    cards = reading.cards()
    if cards:
        unsure_cards = sum(c.uncertain for c in cards)
        head += f"; {len(cards)} {'card' if len(cards) == 1 else 'cards'} - " + ", ".join(c.face + ("?" if c.uncertain else "") for c in cards)
        if unsure_cards:
            head += f" ({unsure_cards} uncertain)"
    lines = [head]
    for d in (*dice, *cards):
        box = ",".join(f"{v:.0f}" for v in d.box)
        flag = "  ? uncertain" if d.uncertain else ""
        what = d.colour or "-" if d.kind == "die" else "card"
        lines.append(f"  {d.face:>5}  {what:<7} score {d.score:.2f}  box [{box}]{flag}")
    return "\n".join(lines)


def _utf8(stream: TextIO) -> None:
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None and (getattr(stream, "encoding", "") or "").lower() not in ("utf-8", "utf8"):
        reconfigure(encoding="utf-8")


def banner(reading: Reading) -> str:
    """The annotated photo's one-line ASCII headline: how many objects, how many uncertain.

    >>> from vision.read.detections import Detection
    >>> banner(Reading((Detection("die", "5", "red", (0, 0, 9, 9), 0.5, uncertain=True),), 640, 480, 3.0))
    '1 die (1 uncertain)'
    """
    def counted(objs: tuple[Detection, ...], one: str, many: str) -> str:
        unsure = sum(o.uncertain for o in objs)
        return f"{len(objs)} {one if len(objs) == 1 else many}" + (f" ({unsure} uncertain)" if unsure else "")

    cards = reading.cards()
    return counted(reading.dice(), "die", "dice") + (f", {counted(cards, 'card', 'cards')}" if cards else "")


def annotated_path(folder: Path, image: str, taken: set[Path]) -> Path:
    """``folder/<stem>.read.jpg`` for ``image``, numbered (``<stem>-2.read.jpg``...) when another
    photo of this run, from another folder, has that name already; the path is added to ``taken``."""
    stem = Path(image).stem or "image"
    path, k = folder / f"{stem}.read.jpg", 1
    while path in taken:
        k += 1
        path = folder / f"{stem}-{k}.read.jpg"
    taken.add(path)
    return path


def photos_named(names: list[str]) -> list[str]:
    """``names`` with each folder replaced by the photos in it; a folder with none, or one
    that cannot be listed, stays, and is reported as having no photos found."""
    out: list[str] = []
    for name in names:
        path = Path(name)
        try:
            found = photos_in(path) if path.is_dir() else None
        except OSError:
            found = None
        out.extend([str(p) for p in found] if found else [name])
    return out


def read_all(
    reader: DiceReader, images: list[str], as_json: bool, out: TextIO, err: TextIO, annotate: Path | None = None
) -> int:
    """Read each of ``images``; 1 when any could not be read (or its annotated copy not written), else 0."""
    status = 0
    taken: set[Path] = set()
    for name in photos_named(images):
        try:
            if Path(name).is_dir():
                raise UnreadableImage(f"no photos found in this folder (files named {', '.join(IMAGE_SUFFIXES)})")
            image = read_image(name)
        except UnreadableImage as exc:
            status = 1
            if as_json:
                print(json_line({"image": name, "error": str(exc)}), file=out, flush=True)
            else:
                print(f"{name}: error: {exc}", file=err, flush=True)
            continue
        reading = reader.read(image)
        if as_json:
            print(json_line(reading.to_json(image=name)), file=out, flush=True)
        else:
            print(summary(name, reading), file=out, flush=True)
        if annotate is not None:
            path = annotated_path(annotate, name, taken)
            try:
                path.write_bytes(encode_jpeg(draw_overlay(image, reading, banner=banner(reading)), quality=90))
            except (OSError, ValueError) as exc:
                status = 1
                print(f"{name}: error: cannot write the annotated photo {path}: {exc}", file=err, flush=True)
            else:
                if not as_json:  # stdout stays the JSON Lines of docs/read-json.md
                    print(f"  annotated: {path}", file=out, flush=True)
    return status


def run(args: argparse.Namespace) -> int:
    _utf8(sys.stdout)
    try:
        reader = load_reader(args.models, threshold=args.threshold, backend=args.backend, threads=args.threads,
                             precision=args.precision, cards=not args.no_cards, card_threshold=args.card_threshold)
    except (ManifestError, BackendUnavailable, ValueError) as exc:
        print(f"tableref read: cannot load the models: {exc}", file=sys.stderr)
        return 2
    reader = with_dice_options(reader, args, "read")
    if reader is None:
        return 2
    if args.profile is not None:
        try:
            reader = reader.with_profile(Profile.load(args.profile))
        except ProfileError as exc:
            print(f"tableref read: --profile {args.profile}: {exc}", file=sys.stderr)
            return 2
    if args.annotate is not None and not made_folder(args.annotate, "read", "--annotate"):
        return 2
    return read_all(reader, list(args.images), args.json, sys.stdout, sys.stderr, args.annotate)
