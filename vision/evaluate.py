"""``tableref eval DATASET [--split S] [--models DIR] [--out DIR]``: score the reader.

DATASET is a synthetic set (``annotations.jsonl``) or a YOLO set (``images/`` +
``labels/``, class 0..5 = faces 1..6), e.g. the real dice tray with ``--split test``.
Prints a readable report and writes ``metrics.json`` and ``confusion.png`` to ``--out``.
``--mistakes DIR`` also draws each photo whose dice are not read exactly (:mod:`vision.mistakes`).
A set with playing cards (``tableref synth --cards`` or ``--mixed``) is also scored for
cards when the card model is loaded: corner-index detection, rank and suit accuracy, the
look-alike rank pairs, and ``card-rank-confusion.png`` / ``card-suit-confusion.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.backends import BACKENDS, PRECISIONS, BackendUnavailable
from vision.camera_shifts import NAMES as CAMERA_NAMES, CameraShift
from vision.card_reader import merge_corners
from vision.card_scoring import CardMetrics, LegibilitySplit, score_cards, score_legibility
from vision.confusion_plot import save_confusion
from vision.datasets import DatasetError, LabelledImage, boxes_of, load_dataset, renderer_of
from vision.detections import Detection
from vision.image_io import UnreadableImage, read_image
from vision.legibility import MIN_GLYPH_PX, dataset_flags, max_blur_fraction
from vision.dice_conditions import dataset_conditions
from vision.manifest import QUARTER_TURNS, ManifestError
from vision.mistakes import dice_errors, write_mistakes
from vision.read_cmd import add_dice_options, made_folder, with_dice_options
from vision.reader import DiceReader, load_reader
from vision.scoring import Metrics, SureMistake, score

REPO = Path(__file__).resolve().parent.parent


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
                        help="score the photos as another camera would take them (see vision/camera_shifts.py)")
    parser.add_argument("--mistakes", type=Path, default=None, metavar="DIR",
                        help="also draw each photo whose dice are not read exactly (missed, misread or extra) into DIR")
    parser.add_argument("--gt-boxes", action="store_true",
                        help="skip the detector: classify the ground-truth boxes (scores the classifier alone)")


Pairs = list[tuple[tuple[Detection, ...], tuple[Detection, ...]]]
CardTriples = list[tuple[tuple[Detection, ...], tuple[Detection, ...], tuple[Detection, ...]]]


def classify_boxes(reader: DiceReader, image: np.ndarray, truth: tuple[Detection, ...]) -> tuple[Detection, ...]:
    """The classifier's reading of the ground-truth dice boxes (detector bypassed)."""
    dice = [d for d in truth if d.kind == "die"]
    boxes = np.array([d.box for d in dice], np.float32).reshape(-1, 4)
    out = list(reader.label_dice(boxes, *reader.classify(image, boxes)))
    if reader.cards is not None:
        cards = np.array([o.box for o in truth if o.kind == "card"], np.float32).reshape(-1, 4)
        out.extend(reader.cards.label(cards, *reader.cards.classify(image, cards)))
    return tuple(out)


def predict(
    reader: DiceReader, items: tuple[LabelledImage, ...], gt_boxes: bool = False, camera: CameraShift | None = None
) -> tuple[Pairs, CardTriples, list[float], list[str], list[LabelledImage]]:
    """Per image read: (truth, reading) for dice and (truth, card indices, merged cards) for
    cards; the times, the images that could not be read, and the items that were. With
    ``camera``, each image is first changed as that camera would have taken it."""
    pairs, cards, times, failures, scored = [], [], [], [], []
    for item in items:
        try:
            image = read_image(item.path)
        except UnreadableImage as exc:
            failures.append(f"{item.path}: {exc}")
            continue
        if camera is not None:
            image = camera.apply(image)
        if gt_boxes:
            t0 = time.perf_counter()
            objects = classify_boxes(reader, image, item.objects)
            ms = (time.perf_counter() - t0) * 1000
            indices = tuple(o for o in objects if o.kind == "card")
            objects = tuple(o for o in objects if o.kind != "card") + merge_corners(indices)
        else:
            reading, indices = reader.read_detailed(image)
            objects, ms = reading.objects, reading.ms
        pairs.append((item.objects, objects))
        cards.append((item.cards(), indices, tuple(o for o in objects if o.kind == "card")))
        times.append(ms)
        scored.append(item)
    return pairs, cards, times, failures, scored


def legibility_split(
    root: Path, scored: list[LabelledImage], card_items: CardTriples, iou: float
) -> LegibilitySplit | None:
    """Card scores split by :mod:`vision.legibility`, for a synthetic set with scene records
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
        f"dataset {name}: {m.images} images, {m.gt_dice} dice",
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
    if m.by_size:
        lines.append("  by size    " + "   ".join(
            f"{b}: found {_pct(s.matched / s.gt)}, right {_pct(s.accuracy)} ({s.gt})" for b, s in m.by_size))
    if m.by_scene:
        lines.append("  by scene   " + "   ".join(
            f"{c}: found {_pct(s.matched / s.gt)}, right {_pct(s.accuracy)} ({s.gt})" for c, s in m.by_scene)
            + "  (as rendered; a die may be in several)")
    return "\n".join(lines)


def card_report(name: str, cm: CardMetrics, imgsz: int | None = None) -> str:
    """The card block of ``tableref eval``'s report (``imgsz``: the detector input the cards were found at)."""
    c, r, s = cm.card, cm.rank, cm.suit
    conf = None if not c.confident_matched else c.confident_correct / c.confident_matched
    at = "" if imgsz is None else f" (indices found at {imgsz} px)"
    lines = [
        f"cards in {name}: {c.gt_dice} labelled corner indices in {cm.scenes} images with cards{at}",
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


def run(args: argparse.Namespace) -> int:
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
    try:
        reader = load_reader(args.models, threshold=args.threshold, backend=args.backend, precision=args.precision,
                             card_threshold=args.card_threshold, card_turns=args.card_turns)
    except (ManifestError, BackendUnavailable, ValueError) as exc:
        print(f"tableref eval: cannot load the models: {exc}", file=sys.stderr)
        return 2
    reader = with_dice_options(reader, args, "eval")
    if reader is None:
        return 2
    name = (args.dataset.resolve().name + (f"-{args.split}" if args.split else "") + ("-gtboxes" if args.gt_boxes else "")
            + (f"-{args.game}" if args.game else "") + (f"-camera-{args.camera}" if args.camera else ""))
    out = args.out if args.out is not None else REPO / "runs" / "eval" / name
    out.mkdir(parents=True, exist_ok=True)

    if args.mistakes is not None and not made_folder(args.mistakes, "eval", "--mistakes"):
        return 2
    camera = None if args.camera is None else CameraShift(args.camera)
    pairs, card_items, times, failures, scored = predict(reader, items, args.gt_boxes, camera)
    for f in failures:
        print(f"tableref eval: skipped {f}", file=sys.stderr)
    root = args.dataset / args.split if args.split and (args.dataset / args.split).is_dir() else args.dataset
    metrics = score(pairs, args.iou, conditions=dataset_conditions(root, scored))
    names = [image_name(args.dataset, item.path) for item in scored]
    has_cards = any(item.cards() for item in items)
    card_metrics = score_cards(card_items, args.iou) if has_cards and reader.cards is not None else None
    legibility = None if card_metrics is None else legibility_split(root, scored, card_items, args.iou)
    stray_cards: dict[str, int] | None = None  # on a set with no cards, every card read is a phantom
    if not has_cards and reader.cards is not None:
        stray = [o for _, _, merged in card_items for o in merged]
        stray_cards = {"read": len(stray), "read_surely": sum(not o.uncertain for o in stray)}
    doc: dict[str, Any] = {
        "dataset": str(args.dataset),
        "renderer": renderer_of(args.dataset),  # None for photos; which renderer drew a synthetic set
        "split": args.split,
        "gt_boxes": args.gt_boxes,
        "camera": args.camera,  # None: the photos as they are
        "reader": reader.info,
        "unreadable_images": failures,
        "ms": {"median": float(np.median(times)), "p90": float(np.percentile(times, 90))} if times else None,
        **metrics.to_json(names),
        "cards": None if card_metrics is None else card_metrics.to_json(),
    }
    if legibility is not None:
        doc["cards"]["by_legibility"] = legibility.to_json()
    if stray_cards is not None:
        doc["cards_read_unlabelled"] = stray_cards
    (out / "metrics.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    written = [out / "metrics.json"]
    dice_report = bool(metrics.gt_dice) or not has_cards  # its own block prints the speed
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
        print(card_report(name, card_metrics, None if reader.cards is None else reader.cards.imgsz))
        if legibility is not None:
            print(legibility_report(legibility))
    elif stray_cards is not None:
        print(stray_cards_line(name, stray_cards))
    elif has_cards:
        print(f"tableref eval: {name} has playing cards but no card model is loaded (models/card-reader.json); cards not scored")
    if times and not dice_report:
        print(f"  speed      median {np.median(times):.1f} ms/image, p90 {np.percentile(times, 90):.1f} ms (dice and cards)")
    print("wrote " + ", ".join(str(p) for p in written))
    not_drawn = 0
    if args.mistakes is not None:  # after metrics.json: a picture that cannot be written loses no score
        drawn, not_drawn = draw_each_mistake(args.mistakes, args.dataset, scored, pairs, args.iou, camera)
        print(f"drew {drawn} photo{'' if drawn == 1 else 's'} whose dice were not read exactly into {args.mistakes}")
    return 1 if failures or not_drawn else 0


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
