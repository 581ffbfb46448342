"""Stage 1: the single-class die detector (Ultralytics YOLOv8 from a yaml; training only).

The network is YOLOv8's layout with depth 0.33 and a configurable width (default
0.125: at 416 px it keeps detection plus classification of a 640x480 frame inside the
15 ms budget on 2 cores; width 0.25, i.e. yolov8n, does not). Training data is a
folder of symlinks under the run directory, so nothing is written next to the source
datasets (Ultralytics caches labels beside them), with every label rewritten as class 0.

Ultralytics and torch are imported inside the functions, never at module import.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import time
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth.camera_shifts import random_camera
from vision.evaluate.datasets import LabelledImage
from vision.read.image_io import UnreadableImage, read_image


@dataclass(frozen=True)
class DetectorConfig:
    imgsz: int = 416
    width: float = 0.125
    depth: float = 0.33
    epochs: int = 100
    batch: int = 16
    seed: int = 0
    workers: int = 2
    device: str = "cpu"
    cache: bool = False
    patience: int = 50
    init: str | None = None  # weights of an earlier (finished) run to continue from, with a new schedule
    # The learning rate a fine-tune (``init``) asks for. Ultralytics uses it only with a named
    # ``optimizer``: under "auto" it picks its own, AdamW at 0.002 for runs under 10,000 steps,
    # which every fine-tune here has been.
    init_lr0: float = 0.003
    optimizer: str = "auto"  # or "SGD", "AdamW": then lr0 is what trains
    lr0: float | None = None  # with a named optimizer (None: init_lr0 for a fine-tune, Ultralytics' 0.01 fresh)
    # Ultralytics stops mosaic augmentation for the last ``close_mosaic`` epochs (its default 10),
    # so a fine-tune of 10 epochs or fewer never sees a mosaic; 0 keeps it on to the end.
    close_mosaic: int = 10
    # Float32 on a GPU too: Ultralytics' mixed-precision check fetches weights from its hub,
    # which offline fails, and a detector this slim gains little from half precision.
    amp: bool = False


def is_val(name: str, fraction: float, seed: int) -> bool:
    """Stable hash split: the same file lands in the same split in every stage and session.

    >>> sum(is_val(f"img{i}.jpg", 0.1, 0) for i in range(1000))
    114
    """
    h = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64 < fraction


def setup_ultralytics(config_dir: Path) -> None:
    """Offline Ultralytics: no DNS probes or telemetry, settings and fonts in a folder we own."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    fonts = config_dir / "Ultralytics"
    fonts.mkdir(parents=True, exist_ok=True)
    source = _any_ttf()
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (fonts / name).exists() and source is not None:
            shutil.copyfile(source, fonts / name)


def _any_ttf() -> Path | None:
    for cand in (
        Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
        *sorted(Path(__file__).resolve().parents[1].joinpath("synth", "fonts").glob("*.ttf")),
        *sorted(Path("/usr/share/fonts").rglob("*.ttf")),
    ):
        if cand.is_file():
            return cand
    return None


def write_dataset_view(
    items: Sequence[tuple[str, LabelledImage, bool]],
    root: Path,
    log: Callable[[str], None] = print,
    kind: str = "die",
    other_cameras: Mapping[str, int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Lay ``(source, image, is_val)`` out as ``root/images/{train,val}`` symlinks plus
    single-class YOLO labels of the objects of ``kind`` ("die", or "card" for card corner
    indices; other objects in the image are left unlabelled, i.e. background), and write
    ``root/data.yaml``.

    ``other_cameras`` maps a source to K: each of its training photos is also written K
    times as a PNG through :func:`vision.synth.camera_shifts.random_camera`, seeded by ``seed``,
    the photo's name and the copy's number (once per photo, however often it is listed).
    Validation photos stay as taken."""
    if root.exists():
        shutil.rmtree(root)
    plural = "dice" if kind == "die" else kind + "s"
    counts = {"train": 0, "val": 0, f"train_{plural}": 0, f"val_{plural}": 0}
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
    other_cameras = other_cameras or {}
    if other_cameras:
        counts["other_camera_copies"] = 0
    seen: Counter[str] = Counter()
    for source, item, val in items:
        split = "val" if val else "train"
        name = f"{source}__{item.path.stem}"
        seen[name] += 1
        first = seen[name] == 1
        if not first:  # the same photo used again (--real-repeat): a second link
            name = f"{name}__{seen[name]}"
        (root / "images" / split / (name + item.path.suffix.lower())).symlink_to(item.path.resolve())
        lines = _label_lines(item, kind)
        text = "\n".join(lines) + ("\n" if lines else "")
        (root / "labels" / split / (name + ".txt")).write_text(text)
        counts[split] += 1
        counts[f"{split}_{plural}"] += len(lines)
        if val or not first or not other_cameras.get(source):
            continue
        try:
            image = read_image(item.path)
        except UnreadableImage as exc:
            raise UnreadableImage(f"cannot put {item.path} through other cameras: {exc}") from None
        for k in range(other_cameras[source]):
            rng = np.random.default_rng([seed, zlib.crc32(name.encode()), k])
            copy = f"{name}__camera{k}"
            cv2.imwrite(str(root / "images" / "train" / (copy + ".png")), random_camera(image, rng))
            (root / "labels" / "train" / (copy + ".txt")).write_text(text)
            counts["train"] += 1
            counts[f"train_{plural}"] += len(lines)
            counts["other_camera_copies"] += 1
    if counts["val"] == 0:
        raise ValueError("the detector needs at least one validation image (raise --val-fraction)")
    (root / "data.yaml").write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: {kind}\n", encoding="utf-8"
    )
    log(f"detector data: {counts}")
    return counts


def _label_lines(item: LabelledImage, kind: str) -> list[str]:
    lines = []
    for d in (o for o in item.objects if o.kind == kind):
        x1, y1, x2, y2 = d.box
        x1, x2 = max(0.0, x1), min(float(item.width), x2)
        y1, y2 = max(0.0, y1), min(float(item.height), y2)
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        cx, cy = (x1 + x2) / 2 / item.width, (y1 + y2) / 2 / item.height
        w, h = (x2 - x1) / item.width, (y2 - y1) / item.height
        lines.append(f"0 {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return lines


def write_model_yaml(path: Path, cfg: DetectorConfig) -> Path:
    """YOLOv8's own layout, one class, our depth/width multiples."""
    import ultralytics
    import yaml

    base = yaml.safe_load((Path(ultralytics.__file__).parent / "cfg/models/v8/yolov8.yaml").read_text())
    base.pop("scales", None)
    base.update(nc=1, depth_multiple=cfg.depth, width_multiple=cfg.width, max_channels=1024)
    path.write_text(yaml.safe_dump(base, sort_keys=False), encoding="utf-8")
    return path


def train_detector(
    cfg: DetectorConfig, data_yaml: Path, run_dir: Path, resume: bool, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Train (or resume) into ``run_dir/train``; returns paths and the final validation metrics."""
    import ultralytics.utils.torch_utils as torch_utils
    from ultralytics import YOLO

    torch_utils.NUM_THREADS = os.cpu_count() or 1  # Ultralytics would train on ONE thread on 2 cores
    weights = run_dir / "train" / "weights"
    last = weights / "last.pt"
    t0 = time.time()
    if resume and last.is_file():
        if run_finished(last):
            log(f"detector: {last} is a finished run; nothing to resume")
        else:
            log(f"detector: resuming {last}")
            YOLO(str(last)).train(resume=True, workers=cfg.workers, device=cfg.device)
    else:
        if cfg.init:
            log(f"detector: continuing from {cfg.init} for {cfg.epochs} more epochs")
            model = YOLO(str(cfg.init))
            schedule = {"lr0": cfg.init_lr0 if cfg.lr0 is None else cfg.lr0, "warmup_epochs": 0.3}
        else:
            model = YOLO(str(write_model_yaml(run_dir / "dice-yolov8.yaml", cfg)))
            schedule = {} if cfg.lr0 is None else {"lr0": cfg.lr0}
        if cfg.optimizer == "auto":
            log("detector: optimizer auto: Ultralytics chooses the optimizer and its learning rate "
                "(AdamW at 0.002 under 10,000 steps, else an SGD variant at 0.01); lr0 is not used")
        else:
            log(f"detector: {cfg.optimizer} at lr0 {schedule.get('lr0', 0.01)}")
        mosaic_epochs = max(0, cfg.epochs - cfg.close_mosaic)
        log(f"detector: mosaic augmentation in {mosaic_epochs} of {cfg.epochs} epochs"
            + ("" if mosaic_epochs else " (none: --det-close-mosaic 0 keeps it on)"))
        model.train(
            data=str(data_yaml),
            epochs=cfg.epochs,
            imgsz=cfg.imgsz,
            batch=cfg.batch,
            seed=cfg.seed,
            deterministic=True,
            device=cfg.device,
            workers=cfg.workers,
            project=str(run_dir.resolve()),
            name="train",
            exist_ok=True,
            pretrained=bool(cfg.init),
            cache=cfg.cache,
            patience=cfg.patience,
            plots=False,
            degrees=0.0,  # rotating an axis-aligned box inflates it: keep boxes tight
            flipud=0.5,
            fliplr=0.5,
            verbose=False,
            amp=cfg.amp,
            optimizer=cfg.optimizer,
            close_mosaic=cfg.close_mosaic,
            **schedule,
        )
    best = weights / "best.pt"
    if not best.is_file():
        raise FileNotFoundError(f"no detector weights at {best}")
    return {"best": str(best), "wall_s_this_session": round(time.time() - t0, 1), "results": read_results(run_dir / "train")}


def run_finished(checkpoint: Path) -> bool:
    """Ultralytics strips the optimizer (and sets epoch -1) from last.pt when a run completes;
    resuming such a checkpoint would silently start a new run on its default dataset."""
    import torch

    ckpt = torch.load(checkpoint, map_location="cpu", weights_only=False)
    return ckpt.get("optimizer") is None or int(ckpt.get("epoch", -1)) < 0


def read_results(train_dir: Path) -> dict[str, Any]:
    """Epoch count, per-epoch seconds and the last/best validation metrics from ``results.csv``."""
    path = train_dir / "results.csv"
    if not path.is_file():
        return {}
    with open(path, newline="") as fh:
        rows = [{k.strip(): v.strip() for k, v in r.items()} for r in csv.DictReader(fh)]
    if not rows:
        return {}

    def num(r: dict[str, str], key: str) -> float | None:
        try:
            return float(r[key])
        except (KeyError, ValueError):
            return None

    best = max(rows, key=lambda r: num(r, "metrics/mAP50-95(B)") or 0.0)
    keys = ("metrics/precision(B)", "metrics/recall(B)", "metrics/mAP50(B)", "metrics/mAP50-95(B)")
    times = [num(r, "time") for r in rows]
    return {
        "epochs_done": len(rows),
        "total_time_s": times[-1],
        "last": {k.split("/")[1]: num(rows[-1], k) for k in keys},
        "best_epoch": int(num(best, "epoch") or 0),
        "best": {k.split("/")[1]: num(best, k) for k in keys},
    }


def export_detector(best_pt: Path, out: Path, imgsz: int) -> dict[str, Any]:
    """ONNX (opset 17, dynamic batch/height/width, onnxslim-simplified) at ``out``."""
    from ultralytics import YOLO

    produced = Path(YOLO(str(best_pt)).export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=True))
    shutil.move(str(produced), out)
    return {"from": str(best_pt)}
