"""Score card readings against corner-index labels: rank and suit accuracy, their confusions.

Ground truth is one label per visible corner index (``face`` like ``"10H"``); predictions are
the reader's corner indices before merging (:meth:`vision.reader.DiceReader.read_detailed`).
Both are matched by IoU as dice are (:func:`vision.scoring.score`), three times over the
same boxes: once on the whole reading, once on the rank alone and once on the suit alone, so
the rank and suit confusion matrices fall out of the same matching. A card scene is exact
when the merged cards are exactly the set of cards with a labelled index, all sure.

>>> from vision.detections import Detection as D
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

from vision.detections import Detection
from vision.scoring import Metrics, greedy_match, score

# Look-alike ranks a corner-index reader is known to mix up. "8/B" and "Q/O" in the brief
# are the 8 or Q read as a letter no standard index has; here they surface as 8/3 and Q/K
# reads, or as uncertain. All confusions are in the full matrix.
NAMED_PAIRS = (("A", "4"), ("6", "9"), ("8", "3"), ("Q", "K"), ("J", "7"), ("10", "Q"))
SWEEP = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)  # reporting thresholds tried by :func:`threshold_sweep`


def rank_of(face: str) -> str:
    return face[:-1]


def suit_of(face: str) -> str:
    return face[-1]


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
    items: Iterable[tuple[Sequence[Detection], Sequence[Detection], Sequence[Detection]]], iou_threshold: float = 0.5
) -> CardMetrics:
    """Score ``(ground-truth indices, predicted indices, merged cards)`` per image."""
    items = list(items)
    index_pairs = [(g, p) for g, p, _ in items]
    card = score(index_pairs, iou_threshold, kind="card")
    rank = score([(_view(g, rank_of), _view(p, rank_of)) for g, p in index_pairs], iou_threshold, kind="card")
    suit = score([(_view(g, suit_of), _view(p, suit_of)) for g, p in index_pairs], iou_threshold, kind="card")
    pairs = {f"{a}/{b}": _both_ways(rank, a, b) for a, b in NAMED_PAIRS}
    scenes = exact = 0
    for g, _, merged in items:
        truth = {o.face for o in g if o.kind == "card"}
        read = [o for o in merged if o.kind == "card"]
        if not truth and not read:
            continue
        scenes += 1
        exact += sorted(o.face for o in read) == sorted(truth) and not any(o.uncertain for o in read)
    return CardMetrics(card, rank, suit, pairs, scenes, exact, threshold_sweep(index_pairs, iou_threshold))


def threshold_sweep(
    pairs: Sequence[tuple[Sequence[Detection], Sequence[Detection]]], iou_threshold: float = 0.5, thresholds: Sequence[float] = SWEEP
) -> dict[float, dict[str, float | None]]:
    """For each reporting threshold T: how often matched indices with score >= T are read right,
    and the share of matched indices T would flag (how the card threshold is chosen).

    >>> from vision.detections import Detection as D
    >>> g = [D("card", "AS", None, (0, 0, 10, 20), 1.0), D("card", "2S", None, (50, 0, 60, 20), 1.0)]
    >>> p = [D("card", "AS", None, (0, 0, 10, 20), 0.99), D("card", "3S", None, (50, 0, 60, 20), 0.6)]
    >>> threshold_sweep([(g, p)], thresholds=(0.5, 0.9))
    {0.5: {'confident_accuracy': 0.5, 'flagged': 0.0}, 0.9: {'confident_accuracy': 1.0, 'flagged': 0.5}}
    """
    rows = []
    for gt, pred in pairs:
        g = [o for o in gt if o.kind == "card"]
        p = [o for o in pred if o.kind == "card"]
        for gi, pi in greedy_match(np.array([o.box for o in g]), np.array([o.box for o in p]), iou_threshold):
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
