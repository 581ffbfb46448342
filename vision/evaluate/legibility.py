"""Whether a rendered corner index can be read at all, from the scene record of ``tableref synth``.

The renderer labels every corner index with 85 % of its area in view, down to 5 px, in
scenes that may be defocused by up to 3.6 px. Many of those indices are smudges that no
one could read, and for them the brief asks for ``uncertain``, not for a rank. Scoring
them like readable ones mixes two questions: does the reader read what can be read, and
does it refuse to guess what cannot. :func:`index_legibility` splits them, by a rule that
comes from how people read letters, not from this reader's errors:

- Letters are identified through a band of about **3 cycles per letter height** (Solomon
  and Pelli, *Nature* 369, 1994). The camera's blur, a Gaussian of ``blur_px`` (defocus
  and motion together), keeps ``exp(-2 pi^2 sigma^2 f^2)`` of the contrast at ``f`` cycles
  a pixel. An index is legible when at least :data:`CONTRAST_KEPT` (a quarter) is kept at
  3 cycles over the rank glyph's height: ``blur_px <= 0.088 * glyph_px``.
- The glyph must also be at least :data:`MIN_GLYPH_PX` (8 px) tall: 3 cycles need 6 px to
  be sampled at all, and a Bayer sensor and JPEG blocks cost more.

Glare, noise and JPEG are not in the rule, so it calls some hard indices legible; it
never calls an index illegible that a sharp, large glyph would make easy.

>>> round(max_blur_fraction(), 3)
0.088
>>> Legibility(glyph_px=12.0, blur_px=0.9).legible, Legibility(glyph_px=12.0, blur_px=1.2).legible
(True, False)
>>> Legibility(glyph_px=7.5, blur_px=0.0).legible
False
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vision.read.detections import Detection
from vision.teach.labels import LabelledImage

CYCLES_PER_GLYPH = 3.0
CONTRAST_KEPT = 0.25
MIN_GLYPH_PX = 8.0
SCENES = "scenes.jsonl"


def max_blur_fraction(cycles: float = CYCLES_PER_GLYPH, kept: float = CONTRAST_KEPT) -> float:
    """The largest blur sigma, as a fraction of glyph height, that keeps ``kept`` of the contrast at ``cycles`` per glyph."""
    return math.sqrt(math.log(1.0 / kept) / (2.0 * math.pi**2 * cycles**2))


@dataclass(frozen=True)
class Legibility:
    """A corner index's rank glyph height and the blur over it, in image pixels."""

    glyph_px: float
    blur_px: float

    @property
    def contrast(self) -> float:
        """Share of the glyph's contrast the blur keeps at :data:`CYCLES_PER_GLYPH` cycles over its height."""
        if self.glyph_px <= 0:
            return 0.0
        f = CYCLES_PER_GLYPH / self.glyph_px
        return math.exp(-2.0 * math.pi**2 * self.blur_px**2 * f**2)

    @property
    def legible(self) -> bool:
        return self.glyph_px >= MIN_GLYPH_PX and self.contrast >= CONTRAST_KEPT


def blur_px(sensor: dict[str, Any]) -> float:
    """The camera's blur as one Gaussian sigma: defocus, and motion as a line of length L (variance L^2 / 12).

    >>> round(blur_px({"defocus_px": 0.6, "motion_px": 2.4}), 3)
    0.917
    """
    defocus = float(sensor.get("defocus_px", 0.0))
    motion = float(sensor.get("motion_px", 0.0))
    return math.sqrt(defocus**2 + motion**2 / 12.0)


def _glyph_px(quad: list[list[float]], design: dict[str, Any]) -> float:
    """The rank glyph's height in the image: the index's height (rank, gap, suit) along the
    card's long side, times the rank's share of it."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad
    height = (math.hypot(x3 - x0, y3 - y0) + math.hypot(x2 - x1, y2 - y1)) / 2.0
    rank, gap, suit = float(design["rank_mm"]), float(design["index_gap_mm"]), float(design["suit_mm"])
    return height * rank / (rank + gap + suit)


def scene_legibility(scene: dict[str, Any]) -> dict[int, Legibility]:
    """Each labelled corner index of one ``scenes.jsonl`` record, by its position in the scene's objects."""
    if not scene.get("cards"):
        return {}
    design = scene["card_deck"]["design"]
    blur = blur_px(scene.get("sensor", {}))
    out: dict[int, Legibility] = {}
    for card in scene["cards"]:
        for index in card["indices"]:
            if index.get("labelled") and index.get("object") is not None:
                out[int(index["object"])] = Legibility(_glyph_px(index["quad_px"], design), blur)
    return out


def load_scenes(root: Path) -> dict[str, dict[str, Any]] | None:
    """Each image's ``scenes.jsonl`` record (by ``images/...`` as in ``annotations.jsonl``);
    None for a set with no scene records (photos)."""
    path = Path(root) / SCENES
    if not path.is_file():
        return None
    out: dict[str, dict[str, Any]] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                scene = json.loads(line)
                out[scene["image"]] = scene
    return out


def dataset_legibility(root: Path) -> dict[str, dict[int, Legibility]] | None:
    """Per image (``images/...`` as in ``annotations.jsonl``): the legibility of its labelled
    indices; None for a set with no scene records (photos), whose blur nobody measured."""
    scenes = load_scenes(root)
    return None if scenes is None else {image: scene_legibility(scene) for image, scene in scenes.items()}


def card_flags(objects: Sequence[Detection], by_object: dict[int, Legibility]) -> tuple[bool, ...] | None:
    """Whether each card index among ``objects`` (a scene's labels, in order) is legible;
    None when one of them has no record.

    >>> from vision.read.detections import Detection as D
    >>> objs = [D("die", "3", "white", (0, 0, 9, 9), 1.0), D("card", "QS", None, (20, 0, 30, 15), 1.0)]
    >>> card_flags(objs, {1: Legibility(10.0, 0.2)}), card_flags(objs, {})
    ((True,), None)
    """
    flags = []
    for k, o in enumerate(objects):
        if o.kind == "card":
            if k not in by_object:
                return None
            flags.append(by_object[k].legible)
    return tuple(flags)


def dataset_flags(root: Path, items: Sequence[LabelledImage]) -> list[tuple[bool, ...] | None] | None:
    """:func:`card_flags` for each of ``items`` (images of the set at ``root``); None for a set
    with no scene records, and None in place of an image with an unrecorded index."""
    table = dataset_legibility(root)
    if table is None:
        return None
    return [card_flags(item.objects, table.get(item.path.relative_to(root).as_posix(), {})) for item in items]
