"""Score card readings against corner-index labels: rank and suit accuracy, their confusions.

Ground truth is one label per visible corner index (``face`` like ``"10H"``); predictions are
the reader's corner indices before merging (:meth:`vision.read.reader.DiceReader.read_detailed`).
Both are matched by IoU as dice are (:func:`vision.evaluate.scoring.score`), three times over the
same boxes: once on the whole reading, once on the rank alone and once on the suit alone, so
the rank and suit confusion matrices fall out of the same matching. A card scene is exact
when the merged cards are exactly the set of cards with a labelled index, all sure.

>>> from vision.read.detections import Detection as D
>>> gt = [D("card", "6S", None, (0, 0, 10, 20), 1.0), D("card", "AH", None, (50, 0, 60, 20), 1.0)]
>>> pred = [D("card", "9S", None, (0, 0, 10, 20), 0.9), D("card", "AH", None, (50, 0, 60, 20), 0.99)]
>>> m = score_cards([(gt, pred, pred)])
>>> m.rank.face_accuracy_matched, m.suit.face_accuracy_matched, m.pairs["6/9"]
(0.5, 1.0, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.read.detections import Card, Detection
from vision.evaluate.scoring import Metrics, Overlap, _ratio, greedy_match, score

# Look-alike ranks a corner-index reader is known to mix up. "8/B" and "Q/O" in the brief
# are the 8 or Q read as a letter no standard index has; here they surface as 8/3 and Q/K
# reads, or as uncertain. All confusions are in the full matrix.
NAMED_PAIRS = (("A", "4"), ("6", "9"), ("8", "3"), ("Q", "K"), ("J", "7"), ("10", "Q"))
SWEEP = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)  # reporting thresholds tried by :func:`threshold_sweep`


def rank_of(face: str) -> str:
    """A card face's rank ("10H" -> "10"); "" for a card face down (no face)."""
    return Card.parse(face).rank if face else ""


def suit_of(face: str) -> str:
    """A card face's suit ("10H" -> "H"); "" for a card face down (no face)."""
    return Card.parse(face).suit if face else ""


def _view(objects: Sequence[Detection], part) -> list[Detection]:
    return [replace(o, face=part(o.face)) for o in objects if o.kind == "card"]


@dataclass(frozen=True)
class CardMetrics:
    card: Metrics  # whole reading ("10H"): detection, exact reading, uncertain
    rank: Metrics
    suit: Metrics
    pairs: dict[str, int]  # look-alike pair -> matched indices read as the other one (both ways)
    scenes: int
    scenes_exact: int
    sweep: dict[float, dict[str, float | None]]

    @property
    def scene_exact_rate(self) -> float | None:
        return None if self.scenes == 0 else self.scenes_exact / self.scenes

    def to_json(self) -> dict[str, Any]:
        c = self.card.to_json()
        return {
            "detection": {**c["detection"], "gt_indices": c["detection"].pop("gt_dice")},
            "reading": {"correct": c["face"]["correct"], "accuracy_matched": c["face"]["accuracy_matched"],
                        "accuracy_all": c["face"]["accuracy_all"]},
            "rank": {"accuracy_matched": self.rank.face_accuracy_matched, "accuracy_all": self.rank.face_accuracy_all,
                     "per_rank": self.rank.to_json()["face"]["per_face"], "confusion": self.rank.confusion.to_json()},
            "suit": {"accuracy_matched": self.suit.face_accuracy_matched, "accuracy_all": self.suit.face_accuracy_all,
                     "per_suit": self.suit.to_json()["face"]["per_face"], "confusion": self.suit.confusion.to_json()},
            "look_alike_pairs": self.pairs,
            "uncertain": c["uncertain"],
            "card_scenes_exact": {"images": self.scenes, "exact": self.scenes_exact, "rate": self.scene_exact_rate},
            "threshold_sweep": {str(t): v for t, v in self.sweep.items()},
        }


def score_cards(
    items: Iterable[tuple[Sequence[Detection], Sequence[Detection], Sequence[Detection]]], iou_threshold: float = 0.5,
    readable: Iterable[Sequence[bool] | None] | None = None, overlap: Overlap | None = None,
) -> CardMetrics:
    """Score ``(ground-truth indices, predicted indices, merged cards)`` per image.

    ``readable`` (per image, one flag per labelled object of any kind, or None) and
    ``overlap`` are :func:`~vision.evaluate.scoring.score`'s: a set labelled with whole cards (teach
    labels, the yardstick) hands the merged cards as the predictions, matched by
    :func:`~vision.evaluate.scoring.held_share`, and leaves its face-down cards unscored."""
    items = list(items)
    flags = [None] * len(items) if readable is None else list(readable)
    cards_ok = [None if f is None else [k for o, k in zip(g, f) if o.kind == "card"] for (g, _, _), f in zip(items, flags)]
    index_pairs = [([o for o in g if o.kind == "card"], p) for g, p, _ in items]
    card = score(index_pairs, iou_threshold, kind="card", readable=cards_ok, overlap=overlap)
    rank = score([(_view(g, rank_of), _view(p, rank_of)) for g, p in index_pairs], iou_threshold, kind="card",
                 readable=cards_ok, overlap=overlap)
    suit = score([(_view(g, suit_of), _view(p, suit_of)) for g, p in index_pairs], iou_threshold, kind="card",
                 readable=cards_ok, overlap=overlap)
    pairs = {f"{a}/{b}": _both_ways(rank, a, b) for a, b in NAMED_PAIRS}
    scenes = exact = 0
    readable_pairs = [([o for k, o in enumerate(g) if ok is None or ok[k]], p) for (g, p), ok in zip(index_pairs, cards_ok)]
    for (g, _), (_, _, merged) in zip(readable_pairs, items):
        truth = {o.face for o in g if o.kind == "card"}
        read = [o for o in merged if o.kind == "card"]
        if not truth and not read:
            continue
        scenes += 1
        exact += sorted(o.face for o in read) == sorted(truth) and not any(o.uncertain for o in read)
    return CardMetrics(card, rank, suit, pairs, scenes, exact, threshold_sweep(readable_pairs, iou_threshold, overlap=overlap))


def threshold_sweep(
    pairs: Sequence[tuple[Sequence[Detection], Sequence[Detection]]], iou_threshold: float = 0.5, thresholds: Sequence[float] = SWEEP,
    overlap: Overlap | None = None,
) -> dict[float, dict[str, float | None]]:
    """For each reporting threshold T: how often matched indices with score >= T are read right,
    and the share of matched indices T would flag (how the card threshold is chosen).

    >>> from vision.read.detections import Detection as D
    >>> g = [D("card", "AS", None, (0, 0, 10, 20), 1.0), D("card", "2S", None, (50, 0, 60, 20), 1.0)]
    >>> p = [D("card", "AS", None, (0, 0, 10, 20), 0.99), D("card", "3S", None, (50, 0, 60, 20), 0.6)]
    >>> threshold_sweep([(g, p)], thresholds=(0.5, 0.9))
    {0.5: {'confident_accuracy': 0.5, 'flagged': 0.0}, 0.9: {'confident_accuracy': 1.0, 'flagged': 0.5}}
    """
    rows = []
    for gt, pred in pairs:
        g = [o for o in gt if o.kind == "card"]
        p = [o for o in pred if o.kind == "card"]
        for gi, pi in greedy_match(np.array([o.box for o in g]).reshape(-1, 4), np.array([o.box for o in p]).reshape(-1, 4),
                                   iou_threshold, overlap):
            rows.append((p[pi].score, g[gi].face == p[pi].face))
    out: dict[float, dict[str, float | None]] = {}
    for t in thresholds:
        sure = [ok for s, ok in rows if s >= t]
        out[t] = {"confident_accuracy": float(np.mean(sure)) if sure else None,
                  "flagged": 1 - len(sure) / len(rows) if rows else None}
    return out


def _both_ways(m: Metrics, a: str, b: str) -> int:
    labels = m.confusion.labels
    return (m.confusion.count(a, b) if a in labels and b in labels else 0) + (
        m.confusion.count(b, a) if a in labels and b in labels else 0
    )


@dataclass(frozen=True)
class IndexTally:
    """Labelled corner indices of one kind (legible or not) and what the reader made of them."""

    indices: int = 0
    found: int = 0
    rank_right: int = 0
    suit_right: int = 0
    sure: int = 0  # found and read surely
    sure_wrong: int = 0  # read surely, rank or suit wrong: a guess

    @property
    def rank_accuracy_all(self) -> float | None:
        return _ratio(self.rank_right, self.indices)

    @property
    def suit_accuracy_all(self) -> float | None:
        return _ratio(self.suit_right, self.indices)

    @property
    def rank_accuracy_matched(self) -> float | None:
        return _ratio(self.rank_right, self.found)

    @property
    def suit_accuracy_matched(self) -> float | None:
        return _ratio(self.suit_right, self.found)

    @property
    def recall(self) -> float | None:
        return _ratio(self.found, self.indices)

    def add(self, found: bool, rank_ok: bool, suit_ok: bool, sure: bool) -> IndexTally:
        return IndexTally(
            self.indices + 1, self.found + found, self.rank_right + (found and rank_ok), self.suit_right + (found and suit_ok),
            self.sure + (found and sure), self.sure_wrong + (found and sure and not (rank_ok and suit_ok)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "indices": self.indices, "found": self.found, "recall": self.recall,
            "rank": {"right": self.rank_right, "accuracy_matched": self.rank_accuracy_matched, "accuracy_all": self.rank_accuracy_all},
            "suit": {"right": self.suit_right, "accuracy_matched": self.suit_accuracy_matched, "accuracy_all": self.suit_accuracy_all},
            "sure": self.sure, "sure_wrong": self.sure_wrong,
        }


@dataclass(frozen=True)
class LegibilitySplit:
    """Card scores apart for indices a person could read and for those no one could
    (:mod:`vision.evaluate.legibility`): the first should be read, the second flagged or missed."""

    legible: IndexTally
    illegible: IndexTally
    scenes: int  # scenes with cards whose labelled indices are all legible
    scenes_exact: int

    def to_json(self) -> dict[str, Any]:
        return {"legible": self.legible.to_json(), "illegible": self.illegible.to_json(),
                "all_legible_scenes": {"images": self.scenes, "exact": self.scenes_exact}}


def score_legibility(
    items: Iterable[tuple[Sequence[Detection], Sequence[Detection], Sequence[Detection]]],
    legible: Iterable[Sequence[bool]],
    iou_threshold: float = 0.5,
) -> LegibilitySplit:
    """Score ``(ground-truth indices, predicted indices, merged cards)`` per image, with one
    flag per ground-truth card index (in order) saying whether it is legible.

    >>> from vision.read.detections import Detection as D
    >>> gt = [D("card", "6S", None, (0, 0, 10, 20), 1.0), D("card", "AH", None, (50, 0, 60, 20), 1.0)]
    >>> pred = [D("card", "9S", None, (0, 0, 10, 20), 0.9), D("card", "AH", None, (50, 0, 60, 20), 0.99)]
    >>> s = score_legibility([(gt, pred, pred)], [(False, True)])
    >>> s.legible.rank_accuracy_all, s.illegible.sure_wrong, s.scenes
    (1.0, 1, 0)
    """
    good, bad = IndexTally(), IndexTally()
    scenes = exact = 0
    for (gt, pred, merged), flags in zip(items, legible, strict=True):
        g = [o for o in gt if o.kind == "card"]
        p = [o for o in pred if o.kind == "card"]
        if len(flags) != len(g):
            raise ValueError(f"{len(flags)} legibility flags for {len(g)} labelled card indices")
        match = dict(greedy_match(np.array([o.box for o in g]).reshape(-1, 4), np.array([o.box for o in p]).reshape(-1, 4), iou_threshold))
        for i, (o, ok) in enumerate(zip(g, flags)):
            q = p[match[i]] if i in match else None
            args = (q is not None, q is not None and rank_of(q.face) == rank_of(o.face),
                    q is not None and suit_of(q.face) == suit_of(o.face), q is not None and not q.uncertain)
            if ok:
                good = good.add(*args)
            else:
                bad = bad.add(*args)
        if g and all(flags):
            scenes += 1
            read = [o for o in merged if o.kind == "card"]
            exact += sorted(o.face for o in read) == sorted({o.face for o in g}) and not any(o.uncertain for o in read)
    return LegibilitySplit(good, bad, scenes, exact)
