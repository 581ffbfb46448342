"""Write a synthetic dataset: images, YOLO labels, JSON Lines annotations, meta.

Layout under ``out``::

    images/000000.jpg        the frames
    labels/000000.txt        YOLO: "0 cx cy w h" (normalised), one line per labelled die
                             (card sets: class 0 = card corner index; mixed sets: 0 = die, 1 = card;
                             meta.json lists the classes)
    annotations.jsonl        one line per image, shaped like `tableref read --json`
    scenes.jsonl             one line per image: the scene's full meta (camera, table,
                             light, every die incl. unlabelled ones, distractors...)
    meta.json                seed, n, config, version, the label rule

Image ``i`` depends only on ``(seed, i)``: its generator is
``SeedSequence(seed, spawn_key=(i,))``, so the number of workers never changes
a single byte.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

import cv2
import numpy as np

from vision.synth.card_scene import CardSceneConfig, render_card_scene
from vision.synth.scene import RENDERER, SYNTH_VERSION, RenderedScene, SceneConfig, render_scene
from vision.synth.tables import HELDOUT_FAMILIES, TRAIN_FAMILIES

LABEL_RULE = (
    "a die is labelled (YOLO class 0, face = its up face) when at least min_visible of its up face "
    "is visible; dice below that stay in the image unlabelled (hard negatives) and are listed in "
    "scenes.jsonl under 'unlabelled' with their boxes"
)
CARD_LABEL_RULE = (
    "a playing card's corner index (rank + suit glyphs) is labelled (face = e.g. '10H') when at least "
    "min_visible of it is visible (not under another card, a hand, a die, nor out of frame); partly visible "
    "indices are listed in scenes.jsonl under 'unlabelled'; scenes.jsonl 'cards' gives each card's corners "
    "and which labels (objects) are its indices"
)


class StillSource(Protocol):
    """Any other scenes a set can hold (:class:`vision.train.reveal_stills.RevealConfig`): image
    ``index`` drawn from its generator, labelled by the label rule of its ``kind`` of object
    (``"die"`` or ``"card"``)."""

    @property
    def min_visible(self) -> float: ...

    @property
    def families(self) -> tuple[str, ...]: ...

    @property
    def kind(self) -> str: ...

    def render(self, rng: np.random.Generator, index: int) -> RenderedScene: ...

    def to_json(self) -> dict[str, Any]: ...


Config = SceneConfig | CardSceneConfig | StillSource


def dataset_classes(config: Config) -> tuple[str, ...]:
    """The YOLO classes of a dataset rendered with ``config`` (index = class number)."""
    if isinstance(config, CardSceneConfig):
        return ("card",)
    if isinstance(config, SceneConfig):
        return ("die", "card") if config.cards is not None else ("die",)
    return (config.kind,)


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator for image ``index`` of a dataset seeded with ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


def yolo_lines(scene: RenderedScene, classes: tuple[str, ...] = ("die",)) -> str:
    h, w = scene.image.shape[:2]
    lines = []
    for o in scene.objects:
        x1, y1, x2, y2 = o.box
        lines.append(f"{classes.index(o.kind)} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}\n")
    return "".join(lines)


@dataclass(frozen=True)
class _Job:
    out: str
    seed: int
    config: Config
    quality: int


_JOB: _Job | None = None


def _init(job: _Job) -> None:
    global _JOB
    _JOB = job
    cv2.setNumThreads(1)


def _render_one(index: int) -> tuple[int, str, str]:
    assert _JOB is not None
    job = _JOB
    if isinstance(job.config, CardSceneConfig):
        scene = render_card_scene(scene_rng(job.seed, index), job.config)
    elif isinstance(job.config, SceneConfig):
        scene = render_scene(scene_rng(job.seed, index), job.config)
    else:
        scene = job.config.render(scene_rng(job.seed, index), index)
    name = f"{index:06d}"
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, job.quality])
    if not ok:
        raise OSError(f"could not encode image {index}")
    Path(job.out, "images", name + ".jpg").write_bytes(buf.tobytes())
    Path(job.out, "labels", name + ".txt").write_text(yolo_lines(scene, dataset_classes(job.config)), encoding="utf-8")
    h, w = scene.image.shape[:2]
    ann = {"image": f"images/{name}.jpg", "width": w, "height": h, "objects": [o.to_json() for o in scene.objects]}
    return index, json.dumps(ann, ensure_ascii=False), json.dumps({"image": f"images/{name}.jpg", **scene.meta}, ensure_ascii=False)


class Progress:
    """A one-line progress bar on a terminal stream (no dependencies)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, label: str = "synth", width: int = 30) -> None:
        self.total, self.stream, self.label, self.width = total, stream, label, width
        self.done = 0
        self.start = time.monotonic()
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last >= 0.2 or self.done >= self.total:
            self._last = now
            self.stream.write("\r" + self.line(now))
            if self.done >= self.total:
                self.stream.write("\n")
            self.stream.flush()

    def line(self, now: float | None = None) -> str:
        elapsed = (now if now is not None else time.monotonic()) - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        frac = self.done / self.total if self.total else 1.0
        fill = int(round(frac * self.width))
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        return (
            f"{self.label} {self.done}/{self.total} [{'#' * fill}{'.' * (self.width - fill)}] "
            f"{rate:.2f} img/s elapsed {_hms(elapsed)} eta {_hms(eta)}"
        )


def _hms(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def write_dataset(
    out: str | Path,
    n: int,
    seed: int,
    config: Config = SceneConfig(),
    workers: int = 1,
    quality: int = 95,
    progress: bool = True,
) -> float:
    """Render ``n`` scenes into ``out`` (see the module doc); returns images per second."""
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    job = _Job(str(out), seed, config, quality)
    classes = dataset_classes(config)
    cards = classes == ("card",)
    families = (config.table_families or TRAIN_FAMILIES) if isinstance(config, SceneConfig) else config.families
    meta = {
        "version": SYNTH_VERSION,
        "renderer": RENDERER,
        "seed": seed,
        "n": n,
        "config": config.to_json(),
        "table_families": list(families),
        "heldout": any(f in HELDOUT_FAMILIES for f in families) or (isinstance(config, CardSceneConfig) and config.heldout),
        "classes": list(classes),
        "label_rule": CARD_LABEL_RULE if cards else LABEL_RULE,
        "min_visible": config.min_visible,
        "jpeg_quality": quality,
        "rng": "image i uses numpy default_rng(SeedSequence(seed, spawn_key=(i,)))",
    }
    if isinstance(config, SceneConfig) and config.cards is not None:
        meta["card_label_rule"] = CARD_LABEL_RULE
        meta["card_min_visible"] = config.cards.min_visible
        meta["heldout"] = bool(meta["heldout"] or config.cards.heldout)
    (out / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    bar = Progress(n) if progress else None
    start = time.monotonic()
    results: list[tuple[str, str]] = []
    if workers <= 1 or n <= 1:
        threads = cv2.getNumThreads()
        _init(job)
        try:
            for i in range(n):
                _, ann, sc = _render_one(i)
                results.append((ann, sc))
                if bar:
                    bar.update()
        finally:
            cv2.setNumThreads(threads)
    else:
        with mp.get_context("fork" if sys.platform != "win32" else "spawn").Pool(workers, initializer=_init, initargs=(job,)) as pool:
            for _, ann, sc in pool.imap(_render_one, range(n), chunksize=2):
                results.append((ann, sc))
                if bar:
                    bar.update()
    with open(out / "annotations.jsonl", "w", encoding="utf-8") as fa, open(out / "scenes.jsonl", "w", encoding="utf-8") as fs:
        for ann, sc in results:
            fa.write(ann + "\n")
            fs.write(sc + "\n")
    elapsed = time.monotonic() - start
    return n / elapsed if elapsed > 0 else float("inf")


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)
