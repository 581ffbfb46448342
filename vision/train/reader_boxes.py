"""Put the reader's own boxes on a rendered set's dice, to train a classifier on them.

A classifier (or the ブ/プ specialist) is trained on crops cut round the *labelled* box of
each die, while at read time it is handed crops round the *detector's* box, which sits a
pixel or two off and is drawn a little larger or smaller. On a 30 px die that moves the
mark that tells ブ from プ by a tenth of the crop. ``tableref synth ... --boxes-from
MODELS`` reads every image of the set it has just written with that reader, as the live
table reads a frame (no card stages; a reveal still with its game's vocabulary), and gives
each labelled die the box the reader drew on it, paired at IoU 0.5 as ``tableref eval``
pairs them. A die the reader did not find is left out of the labels (it stays in the
picture), and the truth is kept in ``annotations-truth.jsonl``.

A set of Doubt stills (``--reveals doubt``) is labelled with corner indices, which the card
classifier reads from crops of the card detector's boxes. Each labelled index takes the box
the card detector drew on it in the live frame (at the live input size), before the
classifier looks: a classifier trained on the set is handed every one of those boxes.

The set's ``meta.json`` then says ``"boxes": {"from": "reader", ...}``
(:func:`vision.evaluate.datasets.boxes_of`): ``tableref eval`` and detector training refuse it.

>>> truth = (Detection("die", "ブ", "blue", (10, 10, 40, 40), 1.0), Detection("die", "ス", "white", (60, 10, 90, 40), 1.0))
>>> read = (Detection("die", "プ", "blue", (11, 12, 41, 43), 0.7, True),)
>>> reboxed(truth, read)
(Detection(kind='die', face='ブ', colour='blue', box=(11.0, 12.0, 41.0, 43.0), score=1.0, uncertain=False),)
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.read.card_reader import CardReader
from vision.evaluate.datasets import ANNOTATIONS, READER_TRUTH, SYNTH_META, DatasetError, load_annotations
from vision.read.detections import Detection
from vision.read.image_io import UnreadableImage, read_image
from vision.read.manifest import MANIFEST_NAME, sha256_of
from vision.read.reader import DiceReader
from vision.train.reveal_stills import CARD_GAME
from vision.evaluate.scoring import match_detections
from vision.synth.scene import RenderedScene
from vision.synth.writer import Progress, yolo_lines
from vision.read.vocabulary import game_vocabulary

TRUTH = READER_TRUTH
SCENES = "scenes.jsonl"


@dataclass(frozen=True)
class ReboxReport:
    """How many labelled dice got the reader's box, and how many it did not find."""

    images: int
    kept: int
    lost: int

    def to_json(self) -> dict[str, int]:
        return {"images": self.images, "kept": self.kept, "lost": self.lost}


def reboxed(truth: Sequence[Detection], read: Sequence[Detection]) -> tuple[Detection, ...]:
    """Each labelled object the reader found (IoU >= 0.5, an object of the same kind), with
    its own face and colour and the reader's box, in label order; objects the reader did not
    find are left out."""
    kinds = {t.kind for t in truth}
    found = [d for d in read if d.kind in kinds]
    box_of = {t: tuple(round(float(v), 2) for v in found[d].box) for t, d in match_detections(truth, found)
              if truth[t].kind == found[d].kind}
    return tuple(Detection(t.kind, t.face, t.colour, box_of[i], 1.0)  # type: ignore[arg-type]
                 for i, t in enumerate(truth) if i in box_of)


def index_boxes(reader: CardReader, image: np.ndarray) -> tuple[Detection, ...]:
    """The corner-index boxes ``reader``'s detector draws on a live frame, as ``card``
    objects with no reading (the classifier has not looked at them)."""
    found = reader.detect(image)
    return tuple(Detection("card", "?", None, tuple(float(v) for v in box), float(score))  # type: ignore[arg-type]
                 for box, score in zip(found.boxes, found.scores))


def _games(folder: Path, n: int) -> list[str | None]:
    """Each image's game (reveal stills record it in scenes.jsonl), or None."""
    games: list[str | None] = [None] * n
    path = folder / SCENES
    if path.is_file():
        with open(path, encoding="utf-8") as f:
            for k, line in enumerate(f):
                if k < n:
                    game = json.loads(line).get("game")
                    games[k] = game if isinstance(game, str) else None
    return games


def use_reader_boxes(folder: Path, reader: DiceReader, model_dir: Path, progress: bool = True,
                     log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> ReboxReport:
    """Rewrite ``folder``'s labels (``annotations.jsonl``, ``labels/``) with ``reader``'s
    boxes (see the module doc); ``meta.json`` records the reader and the counts."""
    folder = Path(folder)
    meta_path = folder / SYNTH_META
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if isinstance(meta.get("boxes"), dict):
        raise DatasetError(f"{folder} already holds a reader's boxes")
    items = load_annotations(folder)
    games = _games(folder, len(items))
    cards = CARD_GAME in games
    if cards and reader.cards is None:
        raise DatasetError(f"{folder} holds card stills, and {model_dir} has no card reader (card-reader.json)")
    live = reader.without_cards()
    readers: dict[str | None, DiceReader] = {}
    rows: list[str] = []
    kept = lost = 0
    bar = Progress(len(items), label="reader boxes") if progress else None
    for item, game in zip(items, games):
        if game not in readers and game != CARD_GAME:
            readers[game] = live.with_vocabulary(game_vocabulary(game)) if game else live
        try:
            image = read_image(item.path)
        except UnreadableImage as exc:
            raise DatasetError(f"{item.path}: {exc}") from None
        if game == CARD_GAME:
            truth = item.cards()
            boxed = reboxed(truth, index_boxes(reader.cards, image))  # type: ignore[arg-type]
        else:
            truth = item.dice()
            boxed = reboxed(truth, readers[game].read(image).objects)
        kept += len(boxed)
        lost += len(truth) - len(boxed)
        name = item.path.relative_to(folder).as_posix()
        rows.append(json.dumps({"image": name, "width": item.width, "height": item.height,
                                "objects": [d.to_json() for d in boxed]}, ensure_ascii=False))
        label = folder / "labels" / (item.path.stem + ".txt")
        if label.parent.is_dir():
            label.write_text(yolo_lines(RenderedScene(image, boxed), ("card",) if game == CARD_GAME else ("die",)),
                             encoding="utf-8")
        if bar:
            bar.update()
    shutil.copyfile(folder / ANNOTATIONS, folder / TRUTH)
    (folder / ANNOTATIONS).write_text("\n".join(rows) + "\n", encoding="utf-8")
    report = ReboxReport(len(items), kept, lost)
    boxes: dict[str, Any] = {"from": "reader", "models": str(model_dir), "manifest_sha256": sha256_of(model_dir / MANIFEST_NAME),
                             "paired_at_iou": 0.5, "truth": TRUTH, **report.to_json()}
    meta["boxes"] = boxes
    meta_path.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    what = "corner indices" if cards else "dice"
    log(f"reader boxes: {kept} labelled {what} got the reader's box, {lost} it did not find were left out")
    return report
