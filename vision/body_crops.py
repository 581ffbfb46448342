"""Training crops of card bodies (:mod:`vision.card_body`), cut from rendered card scenes.

Each face-up card of a ``tableref synth --cards`` (or ``--reveals doubt``) render whose
body is mostly in view becomes two crops, one each way up: the card warped upright from
its true corners (``corners_px`` in ``scenes.jsonl``), with a context frame for
augmentation (:mod:`vision.augment`), labelled with its body rank (:data:`BODY_RANKS`:
jack, queen and king are one class, ``court``) and its suit. At read time the corners come
from the card's outline instead, a pixel or two off; the augmentation's shift, scale and
corner jitter stand for that.

>>> import numpy as np
>>> scene = {"cards": [{"face": "10H", "face_up": True, "visible": 1.0,
...                     "corners_px": [[10, 10], [73, 10], [73, 98], [10, 98]]}]}
>>> [(c.rank, c.suit) for c in body_cards(scene)]
[('10', 'H')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.augment import CONTEXT
from vision.card_body import BODY_RANKS, COURT, COURTS, body_crop, upright
from vision.datasets import LabelledImage
from vision.detections import CARD_SUITS
from vision.legibility import load_scenes
from vision.train_classifier import CropSet

# A card is trained on when this much of it is in view (not under another card, a hand or
# the frame's edge): a card mostly hidden shows another card's body in its crop, and the
# reader looks only at cards whose whole outline it found.
MIN_VISIBLE = 0.9
# Nor when its long side is shorter than this in the frame: its pips are a pixel or two.
MIN_LONG_SIDE = 28.0


@dataclass(frozen=True)
class BodyCard:
    """A face-up card to train on: its body rank, suit and four corners as printed
    (top left, top right, bottom right, bottom left)."""

    rank: str
    suit: str
    corners: np.ndarray


def body_rank(face: str) -> str:
    """The body's rank of a card face (``"QS"`` -> ``"court"``)."""
    rank = face[:-1]
    return COURT if rank in COURTS else rank


def body_cards(scene: Mapping[str, Any], min_visible: float = MIN_VISIBLE,
               min_long_side: float = MIN_LONG_SIDE) -> Iterator[BodyCard]:
    """The cards of one ``scenes.jsonl`` record worth a body crop."""
    for card in scene.get("cards", ()):
        face = card.get("face")
        if not card.get("face_up") or not face or float(card.get("visible", 0.0)) < min_visible:
            continue
        corners = np.asarray(card["corners_px"], np.float32)
        if float(np.hypot(*(np.roll(corners, -1, axis=0) - corners).T).max()) < min_long_side:
            continue
        yield BodyCard(body_rank(face), face[-1], corners)


def collect_bodies(
    items: Sequence[tuple[str, LabelledImage]],
    roots: Mapping[str, Path],
    size: int,
    expand: float,
    context: bool,
    log: Callable[[str], None] = print,
) -> CropSet:
    """Two crops per card worth one (:func:`body_cards`), one each way up, from the images
    of ``items`` (``(source, image)``); ``roots`` names each source's set folder, whose
    ``scenes.jsonl`` gives the cards. ``context=True`` cuts the larger training crops."""
    scenes: dict[str, dict[str, dict[str, Any]]] = {}
    for source, root in roots.items():
        found = load_scenes(root)
        if found is None:
            raise FileNotFoundError(f"{root} has no scenes.jsonl: card bodies need each card's corners")
        scenes[source] = found
    crops, ranks, suits, sources = [], [], [], []
    skipped = 0
    for source, item in items:
        scene = scenes.get(source, {}).get(f"images/{item.path.name}")
        cards = list(body_cards(scene)) if scene is not None else []
        if not cards:
            continue
        img = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if img is None:
            skipped += 1
            continue
        for card in cards:
            q = upright(card.corners)
            for turn in (0, 2):
                crops.append(body_crop(img, np.roll(q, -turn, axis=0), size, expand, CONTEXT if context else 1.0))
                ranks.append(BODY_RANKS.index(card.rank))
                suits.append(CARD_SUITS.index(card.suit))
                sources.append(source)
    if skipped:
        log(f"card bodies: skipped {skipped} unreadable images")
    side = int(round(size * (CONTEXT if context else 1.0)))
    arr = np.stack(crops) if crops else np.zeros((0, side, side, 3), np.uint8)
    return CropSet(arr, np.array(ranks, np.int64), np.array(suits, np.int64), sources)
