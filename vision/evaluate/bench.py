"""``tableref bench``: how fast the runtime reader reads a frame, against its detector in PyTorch.

For each frame size (640x480 and 1280x720 by default) it times the whole dice reader
(letterbox, detector, crops, classifier, NMS and all) on every installed backend, and,
when torch is importable and ``models/dice-detector.pt`` exists, the same detector
weights in PyTorch in the same process (Ultralytics' ``predict`` for a YOLOv8 detector), with the ratio.
Frames are cut from real photos (the dice-tray test images by default). The reader line
reads the frame as a live frame is read; the photo line as ``tableref read`` reads a photo
(the detector's extra passes, the second opinion, the specialist's three crops).

It also times 640x480 frames rendered by the synthesiser with 15 dice in view (the live
target's frame), read live and as a photo. When the card model is loaded it also times a Doubt-and-dice table: 1280x720 frames
rendered by the synthesiser with 20 dice and 3 face-up cards (the card brief's target,
30 ms median), the whole read as a live Doubt table reads a frame and as ``tableref read``
reads a photo, and the card stages alone; and the dice frames once more
read with the card stages on (what ``tableref read`` and ``serve`` do when the card model is there).
With specialists in the manifest, the dice frames are also read without them; give
``--images`` a folder of Nine Dice renders to see what the ブ/プ one costs where it is asked.
With a second-opinion classifier, the photo reads are also timed without it; with a
card body classifier, the Doubt-and-dice frames are also read without it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.backends import PRECISIONS, available_backends
from vision.read.image_io import UnreadableImage, photos_in, read_image
from vision.read.manifest import ManifestError
from vision.read.policy import Mode
from vision.read.profile import Profile, ProfileError
from vision.read.reader import DEFAULT_MODEL_DIR, load_reader
from vision.read.stages import classify_crops

REPO = Path(__file__).resolve().parents[2]
DEFAULT_IMAGES = REPO.parent / "shared" / "data" / "real-dice-tray" / "images" / "test"
SIZES = ((640, 480), (1280, 720))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="model folder (default: models/)")
    parser.add_argument("--images", type=Path, default=DEFAULT_IMAGES, metavar="DIR",
                        help="photos to cut frames from (default: %(default)s)")
    parser.add_argument("--frames", type=int, default=8, help="distinct frames per size")
    parser.add_argument("--runs", type=int, default=50, help="timed reads per size and backend")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--crops", type=int, default=8, help="dice in the classifier-alone timing (default 8)")
    parser.add_argument("--threads", type=int, default=2, help="inference threads (default 2)")
    parser.add_argument("--backend", default="all", help="all, or one of: " + ", ".join(available_backends()))
    parser.add_argument("--precision", choices=PRECISIONS, default=None,
                        help="OpenVINO precision (default: both its automatic choice and f32)")
    parser.add_argument("--no-ultralytics", action="store_true", help="skip the PyTorch comparison")
    parser.add_argument("--no-cards", action="store_true", help="skip the 20 dice + 3 cards frame")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the numbers here")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="also time the reads with this table's profile (tableref teach), beside those without")


def fit_frame(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """Scale to cover ``width x height`` and centre-crop (a camera frame of that size).

    >>> fit_frame(np.zeros((640, 640, 3), np.uint8), 1280, 720).shape
    (720, 1280, 3)
    """
    h, w = image.shape[:2]
    s = max(width / w, height / h)
    nw, nh = max(width, round(w * s)), max(height, round(h * s))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    x0, y0 = (nw - width) // 2, (nh - height) // 2
    return np.ascontiguousarray(resized[y0 : y0 + height, x0 : x0 + width])


def load_frames(folder: Path, count: int, size: tuple[int, int]) -> list[np.ndarray]:
    if not folder.is_dir():
        raise SystemExit(f"tableref bench: no image folder {folder} (use --images)")
    frames = []
    for path in photos_in(folder):
        try:
            frames.append(fit_frame(read_image(path), *size))
        except UnreadableImage:
            continue
        if len(frames) == count:
            break
    if not frames:
        raise SystemExit(f"tableref bench: no readable images in {folder}")
    return frames


def _stats(ms: list[float]) -> dict[str, float]:
    return {
        "median_ms": float(np.median(ms)),
        "p90_ms": float(np.percentile(ms, 90)),
        "p10_ms": float(np.percentile(ms, 10)),  # close to the uncontended time on a busy machine
        "runs": len(ms),
    }


def timed(
    fns: dict[str, Callable[[np.ndarray], Any]],
    frames: Sequence[np.ndarray],
    runs: int,
    warmup: int,
    rounds: int = 3,
) -> dict[str, dict[str, float]]:
    """Median/p90/p10 ms per call of each function.

    Each function runs in its own block (warm-up, then ``runs / rounds`` timed calls), so its
    thread pool is hot and the others' are idle: alternating call by call let one library's
    spinning threads slow the next. The blocks repeat for ``rounds`` rounds so that load
    drifting over the run hits every function alike.
    """
    ms: dict[str, list[float]] = {k: [] for k in fns}
    per_round = max(1, runs // rounds)
    for _ in range(rounds):
        for name, fn in fns.items():
            for i in range(warmup):
                fn(frames[i % len(frames)])
            for i in range(per_round):
                t0 = time.perf_counter()
                fn(frames[i % len(frames)])
                ms[name].append((time.perf_counter() - t0) * 1000)
    return {k: _stats(v) for k, v in ms.items()}


def grid_boxes(width: int, height: int, count: int, side: float) -> np.ndarray:
    """``count`` die-sized boxes spread over the frame (for timing the classifier alone).

    >>> grid_boxes(640, 480, 8, 30).shape
    (8, 4)
    """
    cols = int(np.ceil(np.sqrt(count)))
    out = []
    for i in range(count):
        cx = (i % cols + 0.5) * width / cols
        cy = (i // cols + 0.5) * height / cols
        out.append([cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2])
    return np.array(out, np.float32)


def card_table_frames(count: int, width: int = 1280, height: int = 720, dice: int = 20, cards: int = 3, seed: int = 7) -> list[np.ndarray]:
    """``count`` rendered frames, each with ``dice`` dice of four designs and ``cards`` single
    face-up cards whose indices are visible (scenes where a hand or die hides a card are
    skipped; ``cards=0``: a dice table, every die in view)."""
    from vision.synth.card_layout import CardOptions
    from vision.synth.scene import SceneConfig, render_scene
    from vision.synth.sets import DieSpec
    from vision.synth.writer import scene_rng

    designs = ("pips", "liars", "nine-a", "pips-jp")
    specs = tuple(DieSpec(designs[i % len(designs)]) for i in range(dice))
    config = SceneConfig(width=width, height=height, dice=specs, occluders=False,
                         cards=CardOptions(layouts=("single",), groups=(cards, cards)) if cards else None)
    frames: list[np.ndarray] = []
    for i in range(count * 20):
        scene = render_scene(scene_rng(seed, i), config)
        shown = [o for o in scene.objects if o.kind == "die"] if not cards else \
            {o.face for o in scene.objects if o.kind == "card"}
        if len(shown) == (cards or dice):
            frames.append(scene.image)
            if len(frames) == count:
                break
    return frames


def pytorch_predictor(weights: Path, imgsz: int, conf: float, iou: float, threads: int
                      ) -> tuple[str, Callable[[np.ndarray], Any]] | None:
    """The detector's own weights (``dice-detector.pt``) run by the framework they were trained
    in, and its name: a YOLOv8 detector through Ultralytics' ``predict``; the EfficientNet-Lite0
    one (:mod:`vision.train.lite_detector`) through PyTorch, letterboxed, thresholded and put
    through NMS as the reader does. None without torch (and Ultralytics) or the weights."""
    if importlib.util.find_spec("torch") is None or not weights.is_file():
        return None
    import torch

    from vision.train import lite_detector as ld

    torch.set_num_threads(threads)
    try:
        checkpoint = ld.load_checkpoint(weights)
    except ValueError:
        checkpoint = None  # not a Lite detector: a YOLOv8 one, Ultralytics' to run
    if checkpoint is not None:
        from vision.read.boxes import nms

        det = ld.build(pretrained=False)
        det.load_state_dict(checkpoint["model"])
        net = ld.exported(det.eval())

        def forward(frame: np.ndarray) -> Any:
            boxes, scores = ld.detections(net, frame, imgsz, conf)
            return boxes[nms(boxes, scores, iou, 100)]

        return "PyTorch", forward
    if importlib.util.find_spec("ultralytics") is None:
        return None
    from vision.train.detector import setup_ultralytics

    setup_ultralytics(REPO / "runs" / "ultralytics-config")  # offline, settings kept out of ~/.config
    from ultralytics import YOLO

    model = YOLO(str(weights))

    def predict(frame: np.ndarray) -> Any:
        return model.predict(frame, imgsz=imgsz, conf=conf, iou=iou, device="cpu", verbose=False)

    return "Ultralytics", predict


def run(args: argparse.Namespace) -> int:
    backends = available_backends() if args.backend == "all" else (args.backend,)
    results: dict[str, Any] = {"threads": args.threads, "sizes": {}}
    readers = {}
    for b in backends:
        precisions = ("f32",) if b != "openvino" else ((args.precision,) if args.precision else ("auto", "f32"))
        for p in precisions:
            try:
                reader = load_reader(args.models, backend=b, threads=args.threads, precision=p)
            except (ManifestError, ValueError, RuntimeError) as exc:
                print(f"tableref bench: cannot load the models with {b}: {exc}", file=sys.stderr)
                return 2
            label = f"{b}-{reader.info['precision']}"
            readers.setdefault(label, reader)
    some = next(iter(readers.values()))
    results["reader"] = some.info
    profile = None
    if args.profile is not None:
        try:
            profile = Profile.load(args.profile)
            profile.check_base(some.base_models)
        except ProfileError as exc:
            print(f"tableref bench: --profile {args.profile}: {exc}", file=sys.stderr)
            return 2
    det, knobs = some.manifest.detector, some.policy.dice_detector
    in_torch = None
    if not args.no_ultralytics:
        weights = (args.models or DEFAULT_MODEL_DIR) / "dice-detector.pt"
        found = pytorch_predictor(weights, det.imgsz, knobs.conf, knobs.iou, args.threads)
        if found is None:
            print(f"(no PyTorch comparison: needs torch, Ultralytics for a YOLOv8 detector, and {weights})")
        else:
            framework, in_torch = found
            results["pytorch_framework"] = framework

    for width, height in SIZES:
        frames = load_frames(args.images, args.frames, (width, height))
        key = f"{width}x{height}"
        row: dict[str, Any] = {"frames": len(frames)}
        dice_only = some.without_cards()
        dice = [len(dice_only.read(f).objects) for f in frames]
        row["dice_per_frame"] = float(np.mean(dice))
        boxes = grid_boxes(width, height, args.crops, 30.0 * width / 640)
        fns: dict[str, Callable[[np.ndarray], Any]] = {}
        for b, reader in readers.items():
            fns[b] = reader.without_cards().read
            if reader.cards is not None and not args.no_cards:
                fns[b + "_with_cards"] = reader.read
            fns[b + "_detector_only"] = reader.detect
            fns[b + f"_classifier_{args.crops}_crops"] = lambda f, r=reader: classify_crops(
                r.classifier, r.manifest.classifier, f, boxes)
            fns[b + "_photo"] = reader.without_cards().in_mode(Mode.PHOTO).read
            if profile is not None:
                fns[b + "_profile"] = reader.without_cards().with_profile(profile).read
                fns[b + "_photo_profile"] = reader.without_cards().in_mode(Mode.PHOTO).with_profile(profile).read
            if reader.specialists:
                fns[b + "_no_specialists"] = reader.without_cards().without_specialists().read
            if reader.second_opinion is not None:
                fns[b + "_photo_no_second_opinion"] = \
                    reader.without_cards().without_second_opinion().in_mode(Mode.PHOTO).read
        if in_torch is not None:
            fns["pytorch_predict"] = in_torch
        row.update(timed(fns, frames, args.runs, args.warmup))
        if in_torch is not None:
            base = row["pytorch_predict"]["median_ms"]
            row["speedup_vs_pytorch"] = {
                b: {"read": base / row[b]["median_ms"], "detector": base / row[b + "_detector_only"]["median_ms"]}
                for b in readers
            }
        results["sizes"][key] = row
        print(f"{key}: {len(frames)} frames, {row['dice_per_frame']:.1f} dice/frame, {args.threads} threads")
        for b in readers:
            r, d, c = row[b], row[b + "_detector_only"], row[b + f"_classifier_{args.crops}_crops"]
            line = (f"  reader/{b:<17} median {r['median_ms']:6.1f} ms  p90 {r['p90_ms']:6.1f} ms"
                    f"   (detector alone {d['median_ms']:.1f} ms, classifier on {args.crops} dice {c['median_ms']:.1f} ms)")
            if in_torch is not None:
                sp = row["speedup_vs_pytorch"][b]
                line += f"   speed vs {framework}: read {sp['read']:.2f}x, detector {sp['detector']:.2f}x"
            print(line)
            again = row[b + "_photo"]
            print(f"  reader/{b:<17} median {again['median_ms']:6.1f} ms  p90 {again['p90_ms']:6.1f} ms   "
                  f"(the same frames read as photos: what tableref read does)")
            for plain, taught in ((b, b + "_profile"), (b + "_photo", b + "_photo_profile")):
                if taught in row:
                    t = row[taught]
                    print(f"  reader/{b:<17} median {t['median_ms']:6.1f} ms  p90 {t['p90_ms']:6.1f} ms   "
                          f"(those {'photo ' if plain.endswith('_photo') else 'live '}reads with the profile: "
                          f"{t['median_ms'] / row[plain]['median_ms']:.3f}x the time without)")
            if b + "_photo_no_second_opinion" in row:
                n = row[b + "_photo_no_second_opinion"]
                print(f"  reader/{b:<17} median {n['median_ms']:6.1f} ms  p90 {n['p90_ms']:6.1f} ms   "
                      f"(those photo reads without the second-opinion classifier)")
            if b + "_no_specialists" in row:
                n = row[b + "_no_specialists"]
                groups = ", ".join("/".join(spec.faces) for spec in readers[b].manifest.specialists)
                print(f"  reader/{b:<17} median {n['median_ms']:6.1f} ms  p90 {n['p90_ms']:6.1f} ms   "
                      f"(the same reads without the specialists: {groups})")
            if b + "_with_cards" in row:
                w = row[b + "_with_cards"]
                print(f"  reader/{b:<17} median {w['median_ms']:6.1f} ms  p90 {w['p90_ms']:6.1f} ms   (the same frames, card stages on)")
        if in_torch is not None:
            u = row["pytorch_predict"]
            print(f"  {framework + ' predict':<25} median {u['median_ms']:6.1f} ms  p90 {u['p90_ms']:6.1f} ms   "
                  f"(the detector's own weights in PyTorch)")
    frames = card_table_frames(args.frames, 640, 480, dice=15, cards=0)
    row = {"frames": len(frames), "dice": 15}
    fns = {}
    for b, reader in readers.items():
        fns[b] = reader.without_cards().read
        fns[b + "_photo"] = reader.without_cards().in_mode(Mode.PHOTO).read
    row.update(timed(fns, frames, args.runs, args.warmup))
    row["read_per_frame"] = {"dice": float(np.mean([len(some.without_cards().read(f).dice()) for f in frames]))}
    results["sizes"]["640x480_15_dice"] = row
    print(f"640x480 with 15 dice: {len(frames)} rendered frames (read {row['read_per_frame']['dice']:.1f} dice per frame)")
    for b in readers:
        r, again = row[b], row[b + "_photo"]
        print(f"  reader/{b:<17} median {r['median_ms']:6.1f} ms  p90 {r['p90_ms']:6.1f} ms   (a live frame)")
        print(f"  reader/{b:<17} median {again['median_ms']:6.1f} ms  p90 {again['p90_ms']:6.1f} ms   (as a photo)")
    if some.cards is not None and not args.no_cards:
        frames = card_table_frames(args.frames)
        row = {"frames": len(frames), "dice": 20, "cards": 3}
        fns = {}
        for b, reader in readers.items():
            fns[b] = reader.read
            fns[b + "_photo"] = reader.in_mode(Mode.PHOTO).with_card_imgsz(None).read
            fns[b + "_cards_only"] = lambda f, r=reader: r.cards.read_indices(f)
            if reader.cards.photo_imgsz != reader.cards.imgsz:
                fns[b + "_cards_photo"] = lambda f, c=reader.cards.at_imgsz(reader.cards.photo_imgsz): c.read_indices(f)
            if reader.cards.turns > 1:
                fns[b + "_cards_one_turn"] = lambda f, c=reader.cards.with_turns(1): c.read_indices(f)
            if reader.cards.body is not None:
                fns[b + "_no_card_body"] = reader.without_card_body().read
        row.update(timed(fns, frames, args.runs, args.warmup))
        read = [some.read(f) for f in frames]
        row["read_per_frame"] = {"dice": float(np.mean([len(r.dice()) for r in read])),
                                 "cards": float(np.mean([len(r.cards()) for r in read]))}
        results["sizes"]["1280x720_20_dice_3_cards"] = row
        print(f"1280x720 with 20 dice and 3 cards: {len(frames)} rendered frames "
              f"(read {row['read_per_frame']['dice']:.1f} dice and {row['read_per_frame']['cards']:.1f} cards per frame)")
        for b in readers:
            r, c = row[b], row[b + "_cards_only"]
            print(f"  reader/{b:<17} median {r['median_ms']:6.1f} ms  p90 {r['p90_ms']:6.1f} ms   (card stages alone {c['median_ms']:.1f} ms)")
            again = row[b + "_photo"]
            photo = (f", card indices found at {readers[b].cards.photo_imgsz}, not {readers[b].cards.imgsz}"
                     if b + "_cards_photo" in row else "")
            print(f"  reader/{b:<17} median {again['median_ms']:6.1f} ms  p90 {again['p90_ms']:6.1f} ms   "
                  f"(the same frames as tableref read takes a photo{photo})")
            if b + "_cards_photo" in row:
                print(f"  cards/{b:<18} median {row[b + '_cards_photo']['median_ms']:6.1f} ms   (card stages alone at the "
                      f"photo size {readers[b].cards.photo_imgsz})")
            if b + "_no_card_body" in row:
                print(f"  reader/{b:<17} median {row[b + '_no_card_body']['median_ms']:6.1f} ms   (the same frames, "
                      "cards read from their corners alone, without the card body classifier)")
            if b + "_cards_one_turn" in row:
                print(f"  cards/{b:<18} median {row[b + '_cards_one_turn']['median_ms']:6.1f} ms   (card stages reading each "
                      f"index once, not at {readers[b].cards.turns} quarter turns)")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0
