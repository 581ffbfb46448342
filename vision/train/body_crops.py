"""Training crops of card bodies (:mod:`vision.read.card_body`), cut from rendered card scenes.

Each face-up card of a ``tableref synth --cards`` (or ``--reveals doubt``) render whose
body is mostly in view becomes two crops, one each way up: the card warped upright from
its true corners (``corners_px`` in ``scenes.jsonl``), with a context frame for
augmentation (:mod:`vision.train.augment`), labelled with its body rank (:data:`BODY_RANKS`:
jack, queen and king are one class, ``court``) and its suit. At read time the corners come
from the card's outline instead, a pixel or two off; the augmentation's shift, scale and
corner jitter stand for that.

An outline can be further off than that: the visible part of a card half under a hand or
another card, or two cards taken for one. Warped as if it were a whole card, such a crop
is read surely wrong (a nine with its corner hidden counts eight). So
:func:`collect_outlined` also cuts the crops a card reader hands the body classifier at
read time, from the outlines it finds around the indices it detects; each is matched to
the card in view it fits best, and one that is not that whole card (a corner further from the
card's than :data:`WHOLE_CARD`) is marked unreadable, to be trained towards even odds
(:mod:`vision.train.classifier`).

>>> import numpy as np
>>> scene = {"cards": [{"face": "10H", "face_up": True, "visible": 1.0,
...                     "corners_px": [[10, 10], [73, 10], [73, 98], [10, 98]]}]}
>>> [(c.rank, c.suit) for c in body_cards(scene)]
[('10', 'H')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.train.augment import CONTEXT
from vision.read.card_body import BODY_RANKS, COURT, COURTS, body_crop, upright
from vision.read.detections import CARD_SUITS, Card
from vision.teach.labels import LabelledImage
from vision.evaluate.legibility import load_scenes
from vision.train.classifier import CropSet

# A card is trained on when this much of it is in view (not under another card, a hand or
# the frame's edge): a card mostly hidden shows another card's body in its crop, and the
# reader looks only at cards whose whole outline it found.
MIN_VISIBLE = 0.9
# Nor when its long side is shorter than this in the frame: its pips are a pixel or two.
MIN_LONG_SIDE = 28.0
# An outline found at read time is that whole card when each of its corners lies within
# this share of the card's short side of the card's own corner. On validation photos, sure
# body readings of outlines within 0.15 were right 360 times in 360, and beyond it wrong
# 11 times in 22 (model card, *Card body classifier*).
WHOLE_CARD = 0.15
# A found outline is matched to the cards at least this much in view.
MIN_IN_VIEW = 0.5


@dataclass(frozen=True)
class BodyCard:
    """A face-up card to train on: its body rank, suit and four corners as printed
    (top left, top right, bottom right, bottom left)."""

    rank: str
    suit: str
    corners: np.ndarray


def body_rank(face: str) -> str:
    """The body's rank of a card face (``"QS"`` -> ``"court"``)."""
    rank = Card.parse(face).rank
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
        yield BodyCard(body_rank(face), Card.parse(face).suit, corners)


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


def corner_error(outline: np.ndarray, card: np.ndarray) -> float:
    """How far the corners of ``outline`` lie from those of ``card`` (both in any order), at
    most, in the card's short sides: 0 for the card itself, about 0.5 for its top half.

    >>> card = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    >>> corner_error(card[::-1], card), round(corner_error(card * [1, 0.5], card), 2)
    (0.0, 0.75)
    """
    q, c = upright(outline), upright(card)  # both clockwise on screen
    short = max(float(np.hypot(*(c[1] - c[0]))), 1e-6)
    return min(float(np.hypot(*(np.roll(q, -k, axis=0) - c).T).max()) for k in range(4)) / short


def outlined_cards(scene: Mapping[str, Any], outlines: Iterable[np.ndarray]) -> Iterator[tuple[np.ndarray, str, str, bool]]:
    """Each outline found in a scene (corners in any order) with the body rank and suit of
    the card it is, and whether it is that whole card: of the face-up cards mostly in view
    (:data:`MIN_IN_VIEW`; a card squarely under another is not what the camera sees), the
    one whose corners it lies nearest (:func:`corner_error`), whole within
    :data:`WHOLE_CARD`. An outline with no such card is labelled ``court`` of spades and is
    never whole: either way it is trained towards even odds.

    >>> card = {"face": "9H", "face_up": True, "visible": 1.0, "corners_px": [[0, 0], [60, 0], [60, 90], [0, 90]]}
    >>> half = np.array([[0, 0], [60, 0], [60, 45], [0, 45]], np.float32)
    >>> [(r, s, whole) for _, r, s, whole in outlined_cards({"cards": [card]}, [np.float32(card["corners_px"]), half])]
    [('9', 'H', True), ('9', 'H', False)]
    >>> under = {**card, "face": "2C", "visible": 0.1}  # the nine lies squarely on a two
    >>> [(r, s, whole) for _, r, s, whole in outlined_cards({"cards": [under, card]}, [np.float32(card["corners_px"])])]
    [('9', 'H', True)]
    """
    cards = [(np.asarray(c["corners_px"], np.float32), str(c["face"])) for c in scene.get("cards", ())
             if c.get("face_up") and c.get("face") and float(c.get("visible", 1.0)) >= MIN_IN_VIEW]
    for quad in outlines:
        scored = [(corner_error(quad, corners), face) for corners, face in cards]
        err, face = min(scored, key=lambda t: t[0], default=(np.inf, None))
        if face is None:
            yield quad, COURT, "S", False
        else:
            yield quad, body_rank(face), Card.parse(face).suit, err <= WHOLE_CARD


def collect_outlined(
    items: Sequence[tuple[str, LabelledImage]],
    roots: Mapping[str, Path],
    find_outlines: Callable[[np.ndarray], list[np.ndarray]],
    size: int,
    expand: float,
    context: bool,
    log: Callable[[str], None] = print,
) -> CropSet:
    """Crops of the outlines ``find_outlines`` gives for each image, as a card reader finds
    them (:meth:`vision.read.card_reader.CardReader.outlines`), each both ways up and labelled by
    :func:`outlined_cards`; those not a whole card are unreadable. ``context=True`` cuts the
    larger training crops."""
    scenes = {source: load_scenes(root) or {} for source, root in roots.items()}
    crops, ranks, suits, sources, unreadable = [], [], [], [], []
    for source, item in items:
        scene = scenes.get(source, {}).get(f"images/{item.path.name}")
        if scene is None:
            continue
        img = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        for quad, rank, suit, whole in outlined_cards(scene, find_outlines(img)):
            q = upright(quad)
            for turn in (0, 2):
                crops.append(body_crop(img, np.roll(q, -turn, axis=0), size, expand, CONTEXT if context else 1.0))
                ranks.append(BODY_RANKS.index(rank))
                suits.append(CARD_SUITS.index(suit))
                sources.append(source)
                unreadable.append(not whole)
    side = int(round(size * (CONTEXT if context else 1.0)))
    log(f"card bodies: {len(crops) // 2} outlines found, {sum(unreadable) // 2} of them not a whole card")
    arr = np.stack(crops) if crops else np.zeros((0, side, side, 3), np.uint8)
    return CropSet(arr, np.array(ranks, np.int64), np.array(suits, np.int64), sources, np.array(unreadable, bool))
