"""``tableref eval DATASET [--split S] [--models DIR] [--out DIR] [--ablate STEP|all [--json]]``: score the reader.

DATASET is a synthetic set (``annotations.jsonl``), a YOLO set (``images/`` +
``labels/``, class 0..5 = faces 1..6), e.g. the real dice tray with ``--split test``, or a
teach labels file (../shared/docs/teach.md: the file, or a folder holding ``labels.jsonl``,
e.g. the foreign yardstick's ``runs/yardstick --split val``).
Prints a readable report and writes ``metrics.json`` and ``confusion.png`` to ``--out``.
The headline numbers are over the readable labelled dice (:mod:`vision.evaluate.scoring`): found,
sure coverage, right among the sure, die accuracy, confidently wrong, scenes sure-exact;
each by face, colour and the up face's size in pixels. A scene that names its ``game`` is
read as that game's table reads it (its dice vocabulary), and ``tableref eval`` (through
:mod:`web.eval_cmd`) also judges it as the table would (:mod:`web.verdict_eval`).
``--ablate STEP`` scores the set with one step of the read path left out (:data:`ABLATIONS`);
``--ablate all`` reads it with the whole reader and with each step left out, image by image
in one process, and prints each step's effect on the headline numbers and its cost in ms
(``--json``: that table as JSON, for the model card).
``--mistakes DIR`` also draws each photo whose dice are not read exactly (:mod:`vision.evaluate.mistakes`).
A set with playing cards (``tableref synth --cards`` or ``--mixed``) is also scored for
cards when the card model is loaded: corner-index detection, rank and suit accuracy, the
look-alike rank pairs, and ``card-rank-confusion.png`` / ``card-suit-confusion.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from vision.read.backends import BACKENDS, PRECISIONS, BackendUnavailable
from vision.synth.camera_shifts import NAMES as CAMERA_NAMES, CameraShift
from vision.evaluate.card_scoring import CardMetrics, LegibilitySplit, score_cards, score_legibility
from vision.evaluate.confusion_plot import save_confusion
from vision.evaluate.datasets import boxes_of, load_dataset, renderer_of
from vision.read.detections import Detection
from vision.read.image_io import UnreadableImage, read_image
from vision.teach.labels import DatasetError, LabelledImage
from vision.evaluate.legibility import MIN_GLYPH_PX, dataset_flags, max_blur_fraction
from vision.evaluate.dice_conditions import dataset_conditions
from vision.read.manifest import QUARTER_TURNS, ManifestError
from vision.evaluate.mistakes import dice_errors, write_mistakes
from vision.commands.read import add_dice_options, made_folder, with_dice_options
from vision.read.reader import DiceReader, Step, load_reader
from vision.evaluate.scoring import FaceStats, Metrics, SureMistake, held_share, score
from vision.read.vocabulary import Vocabulary, VocabularyError, game_vocabulary

ABLATIONS: dict[str, str] = {
    "second-opinion": "dice under 0.9 read again by the wider classifier",
    "specialists": "the ブ/プ specialist",
    "zoom-out": "the detector's zoomed-out pass (close-ups, frames with no die)",
    "zoom-in": "the detector's zoomed-in pass (wide photos)",
    "no-die-drop": "boxes the classifier reads as no die left out",
    "cross-checks": "die boxes holding a card index, and index boxes holding a die, left out",
    "sharpen-soft": "small or out-of-focus dice crops sharpened before they are resized",
    "dice-set": "a roll's colours read as different dice of the game's set (Nine Dice)",
    "card-closer-look": "card indices found at the photo's larger detector input, not the live frame's",
    "card-body": "cards read from their bodies too, not their corners alone",
    "card-turns": "each card index read at its quarter turns, not once",
}
"""The steps of the photo read path that ``--ablate`` leaves out, one at a time."""


def ablated(reader: DiceReader, step: str, live_card_imgsz: int | None = None) -> DiceReader:
    """``reader`` without ``step`` (one of :data:`ABLATIONS`): a reader view over the same
    models; ``reader`` itself when it has no such step (a card step without a card model). ``live_card_imgsz``: the card detector's input
    size for live frames, which ``card-closer-look`` reads photos at (default: the photo's).

    >>> ablated(None, "sharpening")  # type: ignore[arg-type]
    Traceback (most recent call last):
    ...
    ValueError: no read-path step 'sharpening'; choose from second-opinion, specialists, zoom-out, zoom-in, no-die-drop, cross-checks, sharpen-soft, dice-set, card-closer-look, card-body, card-turns
    """
    if step not in ABLATIONS:
        raise ValueError(f"no read-path step {step!r}; choose from {', '.join(ABLATIONS)}")
    views: dict[str, Callable[[], DiceReader]] = {
        "second-opinion": reader.without_second_opinion,
        "specialists": reader.without_specialists,
        "zoom-out": reader.without_zoom_out,
        "zoom-in": reader.without_zoom_in,
        "no-die-drop": lambda: reader.without(Step.NO_DIE_DROP),
        "cross-checks": lambda: reader.without(Step.CROSS_CHECKS),
        "sharpen-soft": lambda: reader.without(Step.SHARPEN_SOFT),
        "dice-set": lambda: reader.without(Step.DICE_SET),
        "card-closer-look": lambda: reader if reader.cards is None or live_card_imgsz in (None, reader.cards.imgsz)
        else reader.with_card_imgsz(live_card_imgsz),
        "card-body": reader.without_card_body,
        "card-turns": reader.without_card_turns,
    }
    return views[step]()


class SceneVerdicts(Protocol):
    """Judges the scenes that name their game as a table would (:func:`web.verdict_eval.scene_verdicts`):
    a summary (``scenes``, ``untouched``, ``right``, ``wrong``, ``re_read``, ``by_game``), or
    None when no scene names a game."""

    def __call__(self, items: Sequence[LabelledImage], readings: Sequence[Sequence[Detection]]) -> dict[str, Any] | None: ...

REPO = Path(__file__).resolve().parents[2]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, metavar="DATASET", help="synthetic set or YOLO set folder")
    parser.add_argument("--split", default=None, help="YOLO split under images/ (e.g. test)")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="model folder (default: models/)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="where metrics.json and confusion.png go (default: runs/eval/<dataset>[-<split>])")
    parser.add_argument("--threshold", type=float, default=None, help="reporting threshold (default: the model's)")
    parser.add_argument("--card-threshold", type=float, default=None, help="card reporting threshold (default: the card model's)")
    parser.add_argument("--card-turns", type=int, choices=range(1, QUARTER_TURNS + 1), default=None,
                        help="read each card index this many ways, a quarter turn apart (default: the card model's)")
    parser.add_argument("--iou", type=float, default=0.5, help="IoU needed to match a die (default 0.5)")
    parser.add_argument("--backend", choices=("auto", *BACKENDS), default="auto")
    parser.add_argument("--precision", choices=PRECISIONS, default="auto",
                        help="OpenVINO inference precision (auto: bf16 where the CPU has it)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N images")
    add_dice_options(parser)
    parser.add_argument("--camera", choices=CAMERA_NAMES, default=None,
                        help="score the photos as another camera would take them (see vision/synth/camera_shifts.py)")
    parser.add_argument("--mistakes", type=Path, default=None, metavar="DIR",
                        help="also draw each photo whose dice are not read exactly (missed, misread or extra) into DIR")
    parser.add_argument("--gt-boxes", action="store_true",
                        help="skip the detector: classify the ground-truth boxes (scores the classifier alone)")
    parser.add_argument("--ablate", default=None, metavar="STEP", choices=("all", *ABLATIONS),
                        help="score with one step of the read path left out (" + ", ".join(ABLATIONS)
                             + "), or 'all': the whole reader and each step left out, as a table of deltas and ms")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="read each image N times (per reader, with --ablate all) and keep the fastest time: "
                             "steadier ms on a busy machine, N times the reading")
    parser.add_argument("--json", action="store_true",
                        help="with --ablate: print its table (or the ablated reader's headline) as JSON instead")


Pairs = list[tuple[tuple[Detection, ...], tuple[Detection, ...]]]
CardTriples = list[tuple[tuple[Detection, ...], tuple[Detection, ...], tuple[Detection, ...]]]


def classify_boxes(
    reader: DiceReader, image: np.ndarray, truth: tuple[Detection, ...],
) -> tuple[tuple[Detection, ...], tuple[Detection, ...], tuple[Detection, ...]]:
    """The reader's reading of the ground-truth boxes, detector bypassed: the dice, the card
    indices one by one, and the cards the card reader merges them into (as it merges the
    indices it finds)."""
    dice = [d for d in truth if d.kind == "die"]
    boxes = np.array([d.box for d in dice], np.float32).reshape(-1, 4)
    read = reader.label_dice(boxes, *reader.classify(image, boxes))
    if reader.cards is None:
        return read, (), ()
    corners = reader.cards.corners_at(image, np.array([o.box for o in truth if o.kind == "card"], np.float32))
    return read, corners.indices, reader.cards.merge(corners, image)


def read_item(
    reader: DiceReader, image: np.ndarray, item: LabelledImage, gt_boxes: bool = False,
) -> tuple[tuple[Detection, ...], tuple[Detection, ...], float]:
    """One image's reading: its objects (dice and merged cards), its card corner indices one by
    one, and the ms it took. With ``gt_boxes`` the labelled boxes are classified instead."""
    if gt_boxes:
        t0 = time.perf_counter()
        dice, indices, cards = classify_boxes(reader, image, item.objects)
        ms = (time.perf_counter() - t0) * 1000
        return dice + cards, indices, ms
    reading, indices = reader.read_detailed(image)
    return reading.objects, indices, reading.ms


class GameReaders:
    """``reader`` as each game's table reads dice (its vocabulary), for the scenes that name a
    game; ``reader`` itself for the others, and for all when ``per_game`` is false (``tableref
    eval --game``: then every scene's truth is named in ``reader``'s own vocabulary)."""

    def __init__(self, reader: DiceReader, per_game: bool = True) -> None:
        self.reader, self.per_game = reader, per_game
        self._views: dict[str, tuple[DiceReader, Vocabulary | None]] = {}

    def _view(self, item: LabelledImage) -> tuple[DiceReader, Vocabulary | None]:
        if not self.per_game or item.game is None:
            return self.reader, self.reader.vocabulary
        if item.game not in self._views:
            try:
                vocabulary = game_vocabulary(item.game)
            except VocabularyError:
                vocabulary = None
            self._views[item.game] = (self.reader if vocabulary is None else self.reader.with_vocabulary(vocabulary),
                                      vocabulary)
        return self._views[item.game]

    def __call__(self, item: LabelledImage) -> DiceReader:
        return self._view(item)[0]

    def truth(self, item: LabelledImage) -> LabelledImage:
        """``item`` with its dice's faces named as its game's table names them (a Liar's Dice
        die's plain 1 is the wheel it stands for), so they compare with what that table reads."""
        vocabulary = self._view(item)[1]
        if vocabulary is None:
            return item
        names = dict(vocabulary.faces)
        objects = tuple(replace(o, face=names.get(o.face, o.face)) if o.kind == "die" else o for o in item.objects)
        return item if objects == item.objects else replace(item, objects=objects)


@dataclass
class Predictions:
    """What one reader made of a set: per scored image, (truth, reading) for dice, (truth,
    card indices, merged cards) for cards, and the ms; the images that could not be read."""

    pairs: Pairs
    cards: CardTriples
    times: list[float]
    scored: list[LabelledImage]
    failures: list[str]


def predict_each(
    readers: dict[str, DiceReader], items: Sequence[LabelledImage], gt_boxes: bool = False,
    camera: CameraShift | None = None, per_game: bool = True, repeat: int = 1,
) -> dict[str, Predictions]:
    """Every image read by each of ``readers`` in turn (an image is loaded once, and the
    readers take it one after the other, so a slow spell of a shared machine slows them
    alike; the reader that goes first, into caches the image has not warmed yet, changes from
    one image to the next). With ``camera``, each image is first changed as that camera would
    have taken it; with ``per_game``, a scene that names its game is read with its game's
    vocabulary. With ``repeat`` above 1 each reader reads each image that many times, and its
    time is the fastest (the readings are the same): a shared machine's slow spells only ever
    add time."""
    games = list({name: GameReaders(r, per_game) for name, r in readers.items()}.items())
    out = {name: Predictions([], [], [], [], []) for name in readers}
    for index, item in enumerate(items):
        try:
            image = read_image(item.path)
        except UnreadableImage as exc:
            for p in out.values():
                p.failures.append(f"{item.path}: {exc}")
            continue
        if camera is not None:
            image = camera.apply(image)
        first = index % len(games)
        for name, reader_for in games[first:] + games[:first]:
            truth = reader_for.truth(item)
            objects, indices, ms = read_item(reader_for(item), image, truth, gt_boxes)
            for _ in range(repeat - 1):
                ms = min(ms, read_item(reader_for(item), image, truth, gt_boxes)[2])
            p = out[name]
            p.pairs.append((truth.objects, objects))
            p.cards.append((truth.cards(), indices, tuple(o for o in objects if o.kind == "card")))
            p.times.append(ms)
            p.scored.append(truth)
    return out


def predict(
    reader: DiceReader, items: tuple[LabelledImage, ...], gt_boxes: bool = False, camera: CameraShift | None = None,
    per_game: bool = False,
) -> tuple[Pairs, CardTriples, list[float], list[str], list[LabelledImage]]:
    """Per image read: (truth, reading) for dice and (truth, card indices, merged cards) for
    cards; the times, the images that could not be read, and the items that were. With
    ``camera``, each image is first changed as that camera would have taken it."""
    p = predict_each({"": reader}, items, gt_boxes, camera, per_game)[""]
    return p.pairs, p.cards, p.times, p.failures, p.scored


@dataclass(frozen=True)
class SetScores:
    """One reader's scores on a set: dice, cards (None when not scored), the cards split by
    legibility (rendered sets), the cards read on a set that labels none, and the verdicts."""

    dice: Metrics
    cards: CardMetrics | None
    legibility: LegibilitySplit | None
    stray_cards: dict[str, int] | None
    verdicts: dict[str, Any] | None
    has_cards: bool

    def headline(self) -> dict[str, float | None]:
        """The numbers ``--ablate all`` compares: the dice headline, the cards' die accuracy
        (sure and right over the readable labelled cards) and the share of scenes given a right
        verdict untouched."""
        out = dict(self.dice.headline()) if self.dice.gt_dice else {}
        if self.cards is not None:
            card = self.cards.card.headline()
            out["card_found"], out["card_accuracy"], out["card_confidently_wrong"] = (
                card["found"], card["die_accuracy"], card["confidently_wrong"])
        if self.verdicts is not None:
            out["verdict_right"] = self.verdicts["share_right"]
            out["verdict_wrong"] = self.verdicts["share_wrong"]
        return out


def score_set(
    root: Path, predictions: Predictions, iou: float, reads_cards: bool, verdicts: SceneVerdicts | None = None,
) -> SetScores:
    """Score one reader's :class:`Predictions` on the set at ``root`` (its folder: scene records
    of a rendered set are looked for there)."""
    scored, pairs, card_items = predictions.scored, predictions.pairs, predictions.cards
    readable = [item.readable for item in scored]
    metrics = score(pairs, iou, conditions=dataset_conditions(root, scored), readable=readable,
                    face_px=[item.face_px for item in scored])
    has_cards = any(item.cards() for item in scored)
    card_metrics = legibility = None
    if has_cards and reads_cards:
        if any(item.whole_cards for item in scored):  # whole cards labelled: the merged cards are scored
            card_metrics = score_cards([(item.objects, merged, merged) for item, (_, _, merged) in zip(scored, card_items)],
                                       iou, readable=readable, overlap=held_share)
        else:
            card_metrics = score_cards(card_items, iou)
            legibility = legibility_split(root, scored, card_items, iou)
    stray_cards: dict[str, int] | None = None  # on a set with no cards, every card read is a phantom
    if not has_cards and reads_cards:
        stray = [o for _, _, merged in card_items for o in merged]
        stray_cards = {"read": len(stray), "read_surely": sum(not o.uncertain for o in stray)}
    judged = None if verdicts is None else verdicts(scored, [reading for _, reading in pairs])
    return SetScores(metrics, card_metrics, legibility, stray_cards, judged, has_cards)


def legibility_split(
    root: Path, scored: list[LabelledImage], card_items: CardTriples, iou: float
) -> LegibilitySplit | None:
    """Card scores split by :mod:`vision.evaluate.legibility`, for a synthetic set with scene records
    for every labelled index; None otherwise (photos, older sets)."""
    flags = dataset_flags(root, scored)
    if flags is None or any(f is None for f in flags):
        return None
    return score_legibility(card_items, flags, iou)  # type: ignore[arg-type]


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}%"


def image_name(root: Path, path: Path) -> str:
    """How ``tableref eval`` names an image of the set at ``root``: its path inside the set."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def sure_mistakes_line(mistakes: Sequence[SureMistake], image_names: Sequence[str], show: int = 6) -> str:
    """The report's line of wrong readings that were not flagged uncertain, the first ``show``
    named (all of them are in metrics.json).

    A reading where no die is labelled names the die it overlaps most, and the count says how
    many such boxes read that die's face: a second box on a die already matched, or one the
    match does not take for the die (IoU under its threshold).

    >>> sure_mistakes_line([SureMistake(0, (0, 0, 9, 9), "6", 0.861, "4"), SureMistake(1, (0, 0, 9, 9), "5", 0.9)],
    ...                    ["images/a.jpg", "images/b.jpg"])
    '  sure wrong 2: images/a.jpg 4 read 6 (0.86); images/b.jpg no die, read 5 (0.90)'
    >>> sure_mistakes_line([SureMistake(0, (0, 0, 9, 9), "3", 0.91, near=("3", 0.48))], ["images/a.jpg"])
    '  sure wrong 1 (1 of them on a labelled die whose face they read, not matched to it): images/a.jpg no die (IoU 0.48 with a 3), read 3 (0.91)'
    """
    shown = [f"{image_names[w.image]} " + _mistake(w) + f" ({w.score:.2f})" for w in mistakes[:show]]
    more = f"; and {len(mistakes) - show} more in metrics.json" if len(mistakes) > show else ""
    loose = sum(w.on_a_die_read_right for w in mistakes)
    why = f" ({loose} of them on a labelled die whose face they read, not matched to it)" if loose else ""
    return f"  sure wrong {len(mistakes)}{why}: " + "; ".join(shown) + more


def _mistake(w: SureMistake) -> str:
    if w.truth is not None:
        return f"{w.truth} read {w.read}"
    if w.near is not None:
        return f"no die (IoU {w.near[1]:.2f} with a {w.near[0]}), read {w.read}"
    return f"no die, read {w.read}"


def report(name: str, metrics: Metrics, times: list[float], image_names: Sequence[str] | None = None) -> str:
    """``tableref eval``'s dice block; ``image_names`` (one per scored image) names the images
    of the wrong sure readings it lists."""
    m = metrics
    lines = [
        f"dataset {name}: {m.images} images, {m.gt_dice} dice" + (
            f" ({m.unreadable} more labelled but not readable, not scored; {m.on_unreadable} readings on them set aside)"
            if m.unreadable else ""),
        headline_line(m.overall, m.scenes_sure_exact, m.scenes_with_dice),
        f"  detection  recall {_pct(m.recall)} ({m.matched}/{m.gt_dice})   precision {_pct(m.precision)} ({m.matched}/{m.predicted}; {m.extra_sure} extra read surely)   IoU >= {m.iou_threshold}",
        f"  face       accuracy {_pct(m.face_accuracy_matched)} of matched dice, {_pct(m.face_accuracy_all)} of all dice",
        f"  uncertain  {m.uncertain} flagged; confident readings right {_pct(None if not m.confident_matched else m.confident_correct / m.confident_matched)} ({m.confident_correct}/{m.confident_matched})",
        f"  unsure     {m.alternatives[0]} matched dice unsure of their face alone list the faces they may show"
        f" ({m.alternatives[2] / max(1, m.alternatives[0]):.1f} each); the true face is among them for {m.alternatives[1]}",
        f"  colour     accuracy {_pct(m.colour_accuracy)} ({m.colour_correct}/{m.colour_evaluated} matched dice with a colour label)",
        f"  scenes     exact {_pct(m.scene_exact_rate)} ({m.scenes_exact}/{m.images}: every die found and read, nothing extra)",
    ]
    if m.sure_mistakes and image_names is not None:
        lines.append(sure_mistakes_line(m.sure_mistakes, image_names))
    if m.per_colour:
        lines.append("  per colour " + "   ".join(f"{c}: {_pct(k / n)} ({k}/{n})" for c, n, k in m.per_colour))
    if m.colour_mistakes:
        lines.append("  colour as  " + "   ".join(f"{t}→{r}: {n}" for t, r, n in m.colour_mistakes[:8])
                     + ("   ..." if len(m.colour_mistakes) > 8 else "") + "  (true colour→read, most first)")
    if times:
        lines.append(f"  speed      median {np.median(times):.1f} ms/image, p90 {np.percentile(times, 90):.1f} ms")
    lines.append("  per face   " + "   ".join(
        f"{f}: {_pct(s.accuracy)} ({s.correct}/{s.gt})" for f, s in m.per_face))
    lines.append(breakdown_line("by face", m.per_face))
    if m.by_colour:
        lines.append(breakdown_line("by colour", m.by_colour))
    lines.append(breakdown_line("by face px", m.by_face_px))
    if m.by_size:
        lines.append("  by size    " + "   ".join(
            f"{b}: found {_pct(s.matched / s.gt)}, right {_pct(s.accuracy)} ({s.gt})" for b, s in m.by_size))
    if m.by_scene:
        lines.append("  by scene   " + "   ".join(
            f"{c}: found {_pct(s.matched / s.gt)}, right {_pct(s.accuracy)} ({s.gt})" for c, s in m.by_scene)
            + "  (as rendered; a die may be in several)")
    return "\n".join(lines)


def headline_line(st: FaceStats, exact: int | None = None, scenes: int | None = None) -> str:
    """The headline numbers of some labelled dice (or cards) in one line.

    >>> headline_line(FaceStats(gt=10, matched=9, correct=8, sure=7, sure_correct=6), 1, 4)
    '  headline   found 90.0%   sure 70.0%   right among sure 85.7%   die accuracy 60.0%   confidently wrong 10.0%   scenes sure-exact 25.0% (1/4)'
    """
    h = st.headline()
    line = (f"  headline   found {_pct(h['found'])}   sure {_pct(h['sure_coverage'])}   right among sure "
            f"{_pct(h['right_among_sure'])}   die accuracy {_pct(h['die_accuracy'])}   confidently wrong {_pct(h['confidently_wrong'])}")
    if exact is not None and scenes is not None:
        line += f"   scenes sure-exact {_pct(exact / scenes if scenes else None)} ({exact}/{scenes})"
    return line


def breakdown_line(title: str, groups: Sequence[tuple[str, FaceStats]]) -> str:
    """One group per entry: its dice found, read sure and right, read sure and wrong, of all.

    >>> breakdown_line("by colour", [("white", FaceStats(4, 4, 3, 3, 3))])
    '  by colour  white: found 100.0%, sure right 75.0%, conf-wrong 0.0% (4)'
    """
    return f"  {title:<10s} " + "   ".join(
        f"{g}: found {_pct(st.headline()['found'])}, sure right {_pct(st.headline()['die_accuracy'])}, "
        f"conf-wrong {_pct(st.headline()['confidently_wrong'])} ({st.gt})" for g, st in groups)


def card_report(name: str, cm: CardMetrics, imgsz: int | None = None, whole_cards: bool = False) -> str:
    """The card block of ``tableref eval``'s report (``imgsz``: the detector input the cards were
    found at; ``whole_cards``: the labels are whole cards, each matched by the cards read)."""
    c, r, s = cm.card, cm.rank, cm.suit
    conf = None if not c.confident_matched else c.confident_correct / c.confident_matched
    at = "" if imgsz is None else f" (indices found at {imgsz} px)"
    what = "readable cards (each matched by the card read from its corners)" if whole_cards else "corner indices"
    lines = [
        f"cards in {name}: {c.gt_dice} labelled {what} in {cm.scenes} images with cards{at}",
        f"  detection  recall {_pct(c.recall)} ({c.matched}/{c.gt_dice})   precision {_pct(c.precision)} ({c.matched}/{c.predicted}; {c.extra_sure} extra read surely)   IoU >= {c.iou_threshold}",
        f"  rank       accuracy {_pct(r.face_accuracy_matched)} of matched indices, {_pct(r.face_accuracy_all)} of all",
        f"  suit       accuracy {_pct(s.face_accuracy_matched)} of matched indices, {_pct(s.face_accuracy_all)} of all",
        f"  card       rank and suit right {_pct(c.face_accuracy_matched)} of matched indices",
        f"  uncertain  {c.uncertain} flagged; confident readings right {_pct(conf)} ({c.confident_correct}/{c.confident_matched})",
        f"  scenes     exact {_pct(cm.scene_exact_rate)} ({cm.scenes_exact}/{cm.scenes}: the merged cards are exactly the cards with a labelled index, all sure)",
        "  look-alike " + "   ".join(f"{k}: {v}" for k, v in cm.pairs.items()) + "  (matched indices read as the other, both ways)",
        "  per rank   " + "   ".join(f"{f}: {_pct(st.accuracy)} ({st.correct}/{st.gt})" for f, st in r.per_face),
        "  per suit   " + "   ".join(f"{f}: {_pct(st.accuracy)} ({st.correct}/{st.gt})" for f, st in s.per_face),
        "  threshold  " + "   ".join(f"{t}: {_pct(v['confident_accuracy'])} right, {_pct(v['flagged'])} flagged"
                                   for t, v in cm.sweep.items()) + "  (by the classifier score alone)",
        headline_line(c.overall),
        breakdown_line("by rank", r.per_face),
        breakdown_line("by suit", s.per_face),
    ]
    return "\n".join(lines)


def stray_cards_line(name: str, stray: dict[str, int]) -> str:
    """The report's line for the cards read on a set that labels none, said even when none
    was read (silence would not tell that they were looked for).

    >>> stray_cards_line("tray", {"read": 3, "read_surely": 1})
    'cards in tray: none labelled, 3 read (false detections; 1 read surely)'
    >>> stray_cards_line("tray", {"read": 0, "read_surely": 0})
    'cards in tray: none labelled, none read'
    """
    if not stray["read"]:
        return f"cards in {name}: none labelled, none read"
    return f"cards in {name}: none labelled, {stray['read']} read (false detections; {stray['read_surely']} read surely)"


def legibility_report(split: LegibilitySplit) -> str:
    g, b = split.legible, split.illegible
    return "\n".join([
        f"  legible    {g.indices} indices (rank glyph >= {MIN_GLYPH_PX:.0f} px, blur <= {max_blur_fraction():.3f} of it): "
        f"found {_pct(g.recall)}; rank {_pct(g.rank_accuracy_matched)} of matched, {_pct(g.rank_accuracy_all)} of all; "
        f"suit {_pct(g.suit_accuracy_matched)}, {_pct(g.suit_accuracy_all)}; {g.sure} read surely, {g.sure_wrong} of them wrong",
        f"  illegible  {b.indices} indices: {b.sure} read surely, {b.sure_wrong} of them wrong (guessed); "
        f"{b.found - b.sure} flagged uncertain, {b.indices - b.found} not found",
        f"  scenes     {split.scenes} with every index legible, {split.scenes_exact} of them exact",
    ])


def set_name(args: argparse.Namespace) -> str:
    """How a run is named (its default ``--out`` folder): the set, its split and the options
    that change what is scored."""
    dataset = args.dataset.resolve()
    base = dataset.name if dataset.is_dir() else f"{dataset.parent.name}-{dataset.stem}"
    ablate = getattr(args, "ablate", None)
    return (base + (f"-{args.split}" if args.split else "") + ("-gtboxes" if args.gt_boxes else "")
            + (f"-{args.game}" if args.game else "") + (f"-camera-{args.camera}" if args.camera else "")
            + (f"-without-{ablate}" if ablate and ablate != "all" else "") + ("-ablations" if ablate == "all" else ""))


def set_root(args: argparse.Namespace) -> Path:
    """The folder the scored images' scene records would be in."""
    if args.dataset.is_file():
        return args.dataset.parent
    return args.dataset / args.split if args.split and (args.dataset / args.split).is_dir() else args.dataset


def verdicts_line(v: dict[str, Any]) -> str:
    """The report's line of the verdicts a table gives on the scenes that name their game.

    >>> print(verdicts_line({"scenes": 4, "untouched": 3, "right": 2, "wrong": 1, "re_read": 1, "share_untouched": 0.75,
    ...                      "share_right": 0.5, "share_wrong": 0.25, "by_game": {"pin456": {"scenes": 4, "right": 2, "wrong": 1}}}))
    verdicts   4 scenes judged as their table would: 3 given a verdict untouched (75.0%), 2 right (50.0%), 1 wrong (25.0%), 1 re-read
      by game  pin456: 2/4 right, 1 wrong
    """
    line = (f"verdicts   {v['scenes']} scenes judged as their table would: {v['untouched']} given a verdict untouched "
            f"({_pct(v['share_untouched'])}), {v['right']} right ({_pct(v['share_right'])}), {v['wrong']} wrong "
            f"({_pct(v['share_wrong'])}), {v['re_read']} re-read"
            + (f"; {v['not_judged']} not judged (their true pieces make no reveal such a table takes)" if v.get("not_judged") else ""))
    games = "   ".join(f"{g}: {c['right']}/{c['scenes']} right, {c['wrong']} wrong" for g, c in v["by_game"].items())
    return line + ("\n  by game  " + games if games else "")


def run(args: argparse.Namespace, verdicts: SceneVerdicts | None = None) -> int:
    """``tableref eval``; ``verdicts`` judges the scenes that name their game as a table would
    (``tableref eval`` hands :func:`web.verdict_eval.scene_verdicts`: vision/ holds no game rules)."""
    if boxes_of(args.dataset) == "reader":
        print(f"tableref eval: {args.dataset} is labelled with a reader's boxes (tableref synth --boxes-from), which "
              "would score that reader against itself; score a set as rendered", file=sys.stderr)
        return 2
    try:
        items = load_dataset(args.dataset, args.split)
    except DatasetError as exc:
        print(f"tableref eval: {exc}", file=sys.stderr)
        return 2
    if args.limit is not None:
        items = items[: args.limit]
    if args.repeat < 1:
        print(f"tableref eval: --repeat {args.repeat}: read each image at least once", file=sys.stderr)
        return 2
    if args.ablate == "all" and args.mistakes is not None:
        print("tableref eval: --mistakes draws one reader's mistakes; --ablate all reads with many", file=sys.stderr)
        return 2
    try:
        reader = load_reader(args.models, threshold=args.threshold, backend=args.backend, precision=args.precision,
                             card_threshold=args.card_threshold, card_turns=args.card_turns)
    except (ManifestError, BackendUnavailable, ValueError) as exc:
        print(f"tableref eval: cannot load the models: {exc}", file=sys.stderr)
        return 2
    live_card_imgsz = None if reader.cards is None else reader.cards.imgsz
    reader = with_dice_options(reader, args, "eval")
    if reader is None:
        return 2
    name = set_name(args)
    out = args.out if args.out is not None else REPO / "runs" / "eval" / name
    out.mkdir(parents=True, exist_ok=True)
    camera = None if args.camera is None else CameraShift(args.camera)
    per_game = args.game is None  # a scene naming its game is read as its table reads it
    if args.ablate == "all":
        return run_ablations(args, items, reader, live_card_imgsz, verdicts, name, out, camera, per_game)
    if args.ablate is not None:
        view = ablated(reader, args.ablate, live_card_imgsz)
        if view is reader:
            print(f"tableref eval: --ablate {args.ablate}: this reader has no such step; scored as it is", file=sys.stderr)
        reader = view

    if args.mistakes is not None and not made_folder(args.mistakes, "eval", "--mistakes"):
        return 2
    predictions = predict_each({"": reader}, items, args.gt_boxes, camera, per_game, args.repeat)[""]
    pairs, times, failures, scored = predictions.pairs, predictions.times, predictions.failures, predictions.scored
    for f in failures:
        print(f"tableref eval: skipped {f}", file=sys.stderr)
    scores = score_set(set_root(args), predictions, args.iou, reader.cards is not None, verdicts)
    metrics, card_metrics, legibility, stray_cards = scores.dice, scores.cards, scores.legibility, scores.stray_cards
    names = [image_name(args.dataset if args.dataset.is_dir() else args.dataset.parent, item.path) for item in scored]
    has_cards = scores.has_cards
    doc: dict[str, Any] = {
        "dataset": str(args.dataset),
        "renderer": renderer_of(args.dataset),  # None for photos; which renderer drew a synthetic set
        "split": args.split,
        "gt_boxes": args.gt_boxes,
        "camera": args.camera,  # None: the photos as they are
        "ablated": args.ablate,  # None: the whole read path
        "per_game_vocabulary": per_game and any(item.game for item in scored),
        "reader": reader.info,
        "unreadable_images": failures,
        "ms": {"median": float(np.median(times)), "p90": float(np.percentile(times, 90))} if times else None,
        **metrics.to_json(names),
        "cards": None if card_metrics is None else card_metrics.to_json(),
        "verdicts": scores.verdicts,
    }
    if card_metrics is not None:
        doc["cards"]["headline"] = card_metrics.card.headline()
        doc["cards"]["whole_cards"] = any(item.whole_cards for item in scored)
    if legibility is not None:
        doc["cards"]["by_legibility"] = legibility.to_json()
    if stray_cards is not None:
        doc["cards_read_unlabelled"] = stray_cards
    (out / "metrics.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written = [out / "metrics.json"]
    if args.json and args.ablate is not None:
        print(json.dumps({"dataset": name, "ablated": args.ablate, "headline": scores.headline(),
                          "ms_median": float(np.median(times)) if times else None}, ensure_ascii=False))
        return 1 if failures else 0
    dice_report = bool(metrics.gt_dice) or not has_cards  # its own block prints the speed
    if args.ablate is not None:
        print(f"without {args.ablate}: {ABLATIONS[args.ablate]}")
    if dice_report:
        save_confusion(metrics.confusion, out / "confusion.png", f"{name}: face confusion (rows: truth, cols: read)")
        written.append(out / "confusion.png")
        print(report(name, metrics, times, names))
    elif metrics.predicted:
        print(f"dice in {name}: none labelled, {metrics.predicted} read (false detections; {metrics.extra_sure} read surely)")
    if card_metrics is not None:
        save_confusion(card_metrics.rank.confusion, out / "card-rank-confusion.png", f"{name}: card rank confusion (rows: truth, cols: read)")
        save_confusion(card_metrics.suit.confusion, out / "card-suit-confusion.png", f"{name}: card suit confusion (rows: truth, cols: read)")
        written += [out / "card-rank-confusion.png", out / "card-suit-confusion.png"]
        print(card_report(name, card_metrics, None if reader.cards is None else reader.cards.imgsz,
                          any(item.whole_cards for item in scored)))
        if legibility is not None:
            print(legibility_report(legibility))
    elif stray_cards is not None:
        print(stray_cards_line(name, stray_cards))
    elif has_cards:
        print(f"tableref eval: {name} has playing cards but no card model is loaded (models/card-reader.json); cards not scored")
    if scores.verdicts is not None:
        print(verdicts_line(scores.verdicts))
    if times and not dice_report:
        print(f"  speed      median {np.median(times):.1f} ms/image, p90 {np.percentile(times, 90):.1f} ms (dice and cards)")
    print("wrote " + ", ".join(str(p) for p in written))
    not_drawn = 0
    if args.mistakes is not None:  # after metrics.json: a picture that cannot be written loses no score
        drawn, not_drawn = draw_each_mistake(args.mistakes, args.dataset, scored, pairs, args.iou, camera)
        print(f"drew {drawn} photo{'' if drawn == 1 else 's'} whose dice were not read exactly into {args.mistakes}")
    return 1 if failures or not_drawn else 0


CONTROL = "nothing (control)"
CONTROL_WHAT = "nothing left out: the whole reader read each image again, so its ms show the chance spread"

HEADLINE = (("found", "found"), ("sure_coverage", "sure"), ("right_among_sure", "right|sure"),
            ("die_accuracy", "die acc"), ("confidently_wrong", "conf wrong"), ("scene_exact", "scenes"),
            ("card_accuracy", "card acc"), ("verdict_right", "verdicts"))
"""The headline numbers of the ``--ablate all`` table (key, column), those the set has."""


def ablation_table(
    name: str, scores: dict[str, SetScores], times: dict[str, list[float]], absent: Sequence[str],
) -> dict[str, Any]:
    """The ``--ablate all`` table: the whole reader's headline numbers and median ms (key
    ``""`` of ``scores`` and ``times``), and per step left out the change to each (ablated
    minus whole, in points of 0..1) and what the step costs: the median over the images of the
    whole reader's ms minus the ablated reader's (``times`` are per image, in the same order).

    >>> whole = SetScores(score([]), None, None, None, None, False)
    >>> t = ablation_table("s", {"": whole, "zoom-in": whole}, {"": [5.0, 7.0], "zoom-in": [4.0, 4.0]}, ["mirror"])
    >>> t["steps"][0]["ms"], t["not_in_read_path"], t["ms_median"]
    (2.0, ['mirror'], 6.0)

    A row ``--ablate all`` adds, :data:`CONTROL`, is the whole reader read again: its deltas
    are nought and its ms is the spread a step's cost has by chance.
    """
    base = scores[""].headline()
    steps = []
    for step, sc in scores.items():
        if not step:
            continue
        head = sc.headline()
        delta = {k: None if base.get(k) is None or head.get(k) is None else round(head[k] - base[k], 4)
                 for k in base}
        cost = float(np.median(np.array(times[""]) - np.array(times[step]))) if times[step] else None
        steps.append({"step": step, "what": ABLATIONS.get(step, CONTROL_WHAT), "delta": delta, "headline": head,
                      "ms": None if cost is None else round(cost, 2)})
    return {"dataset": name, "images": scores[""].dice.images, "headline": base,
            "ms_median": float(np.median(times[""])) if times[""] else None,
            "steps": steps, "not_in_read_path": list(absent)}


def _points(delta: float | None) -> str:
    return "n/a" if delta is None else f"{100 * delta:+.1f}"


def ablation_report(table: dict[str, Any]) -> str:
    """``--ablate all``'s table as text: the whole reader's numbers, then each step's deltas
    in percentage points and its cost in ms a photo (median)."""
    keys = [(k, col) for k, col in HEADLINE if k in table["headline"]]
    head = f"{'':22s}" + "".join(f"{col:>11s}" for _, col in keys) + f"{'ms/image':>10s}"
    whole = f"{'whole reader':22s}" + "".join(f"{_pct(table['headline'][k]):>11s}" for k, _ in keys)
    whole += f"{table['ms_median']:>10.1f}" if table["ms_median"] is not None else f"{'':>10s}"
    lines = [f"ablations on {table['dataset']} ({table['images']} images): each step left out, change in points; "
             "ms: what the step costs a photo (median)", head, whole]
    for row in table["steps"]:
        cells = "".join(f"{_points(row['delta'][k]):>11s}" for k, _ in keys)
        ms = "" if row["ms"] is None else f"{row['ms']:+.1f}"
        lines.append(f"{'- ' + row['step']:22s}{cells}{ms:>10s}")
    if table["not_in_read_path"]:
        lines.append("not in this reader's read path: " + ", ".join(table["not_in_read_path"]))
    return "\n".join(lines)


def run_ablations(
    args: argparse.Namespace, items: Sequence[LabelledImage], reader: DiceReader, live_card_imgsz: int | None,
    verdicts: SceneVerdicts | None, name: str, out: Path, camera: CameraShift | None, per_game: bool,
) -> int:
    """``--ablate all``: read the set with the whole reader and with each step left out, image
    by image in one process; print (or with ``--json``, print as JSON) and write
    ``ablation.json``."""
    # The whole reader again, as a view: its readings are the same, and its ms show how much a
    # step's cost may move by chance on this machine at this time.
    variants: dict[str, DiceReader] = {"": reader, CONTROL: reader.in_mode(reader.mode)}
    absent = []
    for step in ABLATIONS:
        view = ablated(reader, step, live_card_imgsz)
        if view is reader:
            absent.append(step)
        else:
            variants[step] = view
    predictions = predict_each(variants, items, args.gt_boxes, camera, per_game, args.repeat)
    failures = predictions[""].failures
    for f in failures:
        print(f"tableref eval: skipped {f}", file=sys.stderr)
    root = set_root(args)
    scores = {step: score_set(root, p, args.iou, variants[step].cards is not None, verdicts) for step, p in predictions.items()}
    table = ablation_table(name, scores, {step: p.times for step, p in predictions.items()}, absent)
    table["reader"] = reader.info
    (out / "ablation.json").write_text(json.dumps(table, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(table, ensure_ascii=False))
    else:
        print(ablation_report(table))
        print(f"wrote {out / 'ablation.json'}")
    return 1 if failures else 0


def draw_each_mistake(
    folder: Path, root: Path, scored: Sequence[LabelledImage], pairs: Pairs, iou: float, camera: CameraShift | None
) -> tuple[int, int]:
    """Draw every scored photo whose dice are not read exactly into ``folder`` (the photo as
    read: changed by ``camera`` when one is given); return how many were drawn and how many
    could not be (each reported on stderr)."""
    drawn = failed = 0
    for item, (truth, reading) in zip(scored, pairs):
        errors = dice_errors(truth, reading, iou)
        if errors.exact:
            continue
        try:
            image = read_image(item.path)
            write_mistakes(folder, image_name(root, item.path), camera.apply(image) if camera else image, reading, errors)
        except (UnreadableImage, OSError) as exc:
            failed += 1
            print(f"tableref eval: --mistakes: cannot draw {item.path}: {exc}", file=sys.stderr)
            continue
        drawn += 1
    return drawn, failed
