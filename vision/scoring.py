"""Score dice readings against ground truth: matching, accuracy, confusion, scene-exact rate.

Predictions are matched to ground-truth dice greedily by IoU (highest first, each used
once, IoU >= 0.5). Every listed prediction counts, ``uncertain`` ones included.

>>> from vision.detections import Detection as D
>>> gt = [D("die", "1", "red", (0, 0, 10, 10), 1.0), D("die", "2", None, (20, 0, 30, 10), 1.0)]
>>> pred = [D("die", "1", "red", (1, 0, 11, 10), 0.9), D("die", "3", "blue", (20, 0, 30, 10), 0.8)]
>>> m = score([(gt, pred)])
>>> m.recall, m.face_accuracy_matched, m.scene_exact_rate, m.colour_accuracy
(1.0, 0.5, 0.0, 1.0)
>>> m.confusion.count("2", "3")
1
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.boxes import greedy_match, iou_matrix
from vision.detections import CARD_RANKS, CARD_SUITS, DIE_FACES, Detection
from vision.dice_conditions import CONDITIONS, PLAIN

MISSED = "(missed)"  # column: a ground-truth die nothing matched
EXTRA = "(extra)"  # row: a prediction that matched no ground-truth die
SIZE_BINS_PX: tuple[float, ...] = (20.0, 30.0, 45.0, 70.0)
"""Edges of the die-size bins of :attr:`Metrics.by_size`: a die's longer box side in the
frame's pixels (a webcam die is 15-40 px). The detector misses small dice most."""


def size_bins(edges: Sequence[float] = SIZE_BINS_PX) -> tuple[str, ...]:
    """Every bin :func:`size_bin` can answer, smallest first."""
    return (f"<{edges[0]:g} px", *(f"{lo:g}-{hi:g} px" for lo, hi in zip(edges, edges[1:])), f">={edges[-1]:g} px")


def size_bin(box: Sequence[float], edges: Sequence[float] = SIZE_BINS_PX) -> str:
    """The size bin of a box, by its longer side in pixels.

    >>> size_bin((0, 0, 12, 18)), size_bin((0, 0, 25, 20)), size_bin((0, 0, 100, 90))
    ('<20 px', '20-30 px', '>=70 px')
    """
    return size_bins(edges)[bisect_right(edges, max(box[2] - box[0], box[3] - box[1]))]


def match_detections(truth: Sequence[Detection], read: Sequence[Detection], iou_threshold: float = 0.5) -> list[tuple[int, int]]:
    """:func:`greedy_match` on the objects' boxes: ``(index in truth, index in read)`` pairs.

    >>> die = lambda x: Detection("die", "2", None, (x, 0, x + 10, 10), 1.0)
    >>> match_detections([die(0), die(50)], [die(49), die(200)]), match_detections([], [die(0)])
    ([(1, 0)], [])
    """
    return greedy_match(np.array([t.box for t in truth], np.float32).reshape(-1, 4),
                        np.array([d.box for d in read], np.float32).reshape(-1, 4), iou_threshold)


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


@dataclass(frozen=True)
class Confusion:
    """Rows: ground-truth face (+ ``(extra)``); columns: predicted face (+ ``(missed)``)."""

    labels: tuple[str, ...]
    matrix: tuple[tuple[int, ...], ...]

    @property
    def rows(self) -> tuple[str, ...]:
        return self.labels + (EXTRA,)

    @property
    def cols(self) -> tuple[str, ...]:
        return self.labels + (MISSED,)

    def count(self, truth: str, predicted: str) -> int:
        return self.matrix[self.rows.index(truth)][self.cols.index(predicted)]

    def to_json(self) -> dict[str, Any]:
        return {"rows": list(self.rows), "cols": list(self.cols), "matrix": [list(r) for r in self.matrix]}


@dataclass(frozen=True)
class FaceStats:
    gt: int
    matched: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        """Correct readings over all ground-truth dice of this face (a miss counts as wrong)."""
        return _ratio(self.correct, self.gt)

    def to_json(self) -> dict[str, Any]:
        return {
            "gt": self.gt,
            "matched": self.matched,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "accuracy_matched": _ratio(self.correct, self.matched),
        }


@dataclass(frozen=True)
class SureMistake:
    """A reading not flagged uncertain that is wrong: a die read as another face (``truth`` its
    true face), or one reported where no die is labelled (``truth`` None). These are the readings
    a table would act on, so ``tableref eval`` lists them to be looked at one by one.

    A reading where no die is labelled may still lie on one: ``near`` is then the face of the
    labelled object it overlaps most and their IoU (from :data:`NEAR_IOU`). Such a box is a
    second box on a die already matched, or one that the match does not take for the die
    (IoU under its threshold): on a steep view the detector's box may hold the top face
    while the label holds the whole die.

    >>> SureMistake(3, (10.0, 20.0, 40.0, 50.0), "6", 0.86, "4").to_json(["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
    {'image': 'd.jpg', 'box': [10.0, 20.0, 40.0, 50.0], 'truth': '4', 'read': '6', 'score': 0.86}
    >>> SureMistake(0, (0.0, 0.0, 9.0, 9.0), "3", 0.91, near=("3", 0.4812)).to_json()["near"]
    {'truth': '3', 'iou': 0.481}
    """

    image: int  # index of the image among the scored ones
    box: tuple[float, float, float, float]
    read: str
    score: float
    truth: str | None = None
    near: tuple[str, float] | None = None  # (face, IoU) of the labelled object a box of no die overlaps most

    @property
    def on_a_die_read_right(self) -> bool:
        """A box where no die is labelled that overlaps a labelled die and reads its face."""
        return self.truth is None and self.near is not None and self.near[0] == self.read

    def to_json(self, image_names: Sequence[str] | None = None) -> dict[str, Any]:
        out = {"image": self.image if image_names is None else image_names[self.image],
               "box": [round(float(v), 1) for v in self.box], "truth": self.truth, "read": self.read,
               "score": round(float(self.score), 3)}
        if self.near is not None:
            out["near"] = {"truth": self.near[0], "iou": round(float(self.near[1]), 3)}
        return out


NEAR_IOU = 0.1
"""A sure reading where no object is labelled that overlaps one by this IoU or more names it
(:attr:`SureMistake.near`)."""


@dataclass(frozen=True)
class Metrics:
    images: int
    gt_dice: int
    predicted: int
    matched: int
    face_correct: int
    colour_evaluated: int
    colour_correct: int
    scenes_exact: int
    uncertain: int
    confident_correct: int
    confident_matched: int
    per_face: tuple[tuple[str, FaceStats], ...]
    confusion: Confusion
    iou_threshold: float
    by_size: tuple[tuple[str, FaceStats], ...] = ()  # (size bin, found and read right), see size_bin
    colour_mistakes: tuple[tuple[str, str, int], ...] = ()  # (true colour, read colour, dice), most first
    per_colour: tuple[tuple[str, int, int], ...] = ()  # (true colour, matched dice, read right), most dice first
    # matched unsure dice that list the faces they may show: (dice, true face listed, faces listed)
    alternatives: tuple[int, int, int] = (0, 0, 0)
    # rendered sets: (condition, found and read right), see vision.dice_conditions; empty for photos
    by_scene: tuple[tuple[str, FaceStats], ...] = ()
    sure_mistakes: tuple[SureMistake, ...] = ()  # in image order

    @property
    def extra_sure(self) -> int:
        """Predictions matching no labelled object, yet not flagged uncertain."""
        return sum(w.truth is None for w in self.sure_mistakes)

    @property
    def recall(self) -> float | None:
        return _ratio(self.matched, self.gt_dice)

    @property
    def precision(self) -> float | None:
        return _ratio(self.matched, self.predicted)

    @property
    def face_accuracy_matched(self) -> float | None:
        return _ratio(self.face_correct, self.matched)

    @property
    def face_accuracy_all(self) -> float | None:
        return _ratio(self.face_correct, self.gt_dice)

    @property
    def colour_accuracy(self) -> float | None:
        return _ratio(self.colour_correct, self.colour_evaluated)

    @property
    def scene_exact_rate(self) -> float | None:
        return _ratio(self.scenes_exact, self.images)

    def to_json(self, image_names: Sequence[str] | None = None) -> dict[str, Any]:
        """The metrics as JSON; ``image_names`` (one per scored image) names the images of
        :attr:`sure_mistakes`, which are otherwise given by their index."""
        return {
            "images": self.images,
            "iou_threshold": self.iou_threshold,
            "detection": {
                "gt_dice": self.gt_dice,
                "predicted": self.predicted,
                "matched": self.matched,
                "recall": self.recall,
                "precision": self.precision,
                "extra_sure": self.extra_sure,
            },
            "face": {
                "correct": self.face_correct,
                "accuracy_matched": self.face_accuracy_matched,
                "accuracy_all": self.face_accuracy_all,
                "per_face": {f: s.to_json() for f, s in self.per_face},
            },
            "uncertain": {
                "flagged": self.uncertain,
                "confident_matched": self.confident_matched,
                "confident_accuracy": _ratio(self.confident_correct, self.confident_matched),
                "with_alternatives": self.alternatives[0],
                "truth_listed": self.alternatives[1],
                "faces_listed_mean": _ratio(self.alternatives[2], self.alternatives[0]),
            },
            "colour": {
                "evaluated": self.colour_evaluated,
                "correct": self.colour_correct,
                "accuracy": self.colour_accuracy,
                "mistakes": [{"truth": t, "read": r, "dice": n} for t, r, n in self.colour_mistakes],
                "per_colour": {c: {"matched": n, "correct": k, "accuracy": _ratio(k, n)} for c, n, k in self.per_colour},
            },
            "scene_exact": {"images": self.images, "exact": self.scenes_exact, "rate": self.scene_exact_rate},
            "by_size": {b: {**st.to_json(), "recall": _ratio(st.matched, st.gt)} for b, st in self.by_size},
            # synthetic sets: dice apart by how they were rendered (vision.dice_conditions)
            "by_scene": {c: {**st.to_json(), "recall": _ratio(st.matched, st.gt)} for c, st in self.by_scene} or None,
            "confusion": self.confusion.to_json(),
            "sure_mistakes": [w.to_json(image_names) for w in self.sure_mistakes],
        }


def _near(obj: Detection, labelled: Sequence[Detection]) -> tuple[str, float] | None:
    """The face of the object of ``labelled`` that ``obj`` overlaps most, and their IoU, when
    that is :data:`NEAR_IOU` or more; else None."""
    if not labelled:
        return None
    iou = iou_matrix(np.array([obj.box], np.float32), np.array([o.box for o in labelled], np.float32))[0]
    best = int(iou.argmax())
    return (labelled[best].face, round(float(iou[best]), 4)) if iou[best] >= NEAR_IOU else None


def _most_first(counts: Counter[Any]) -> list[tuple[Any, int]]:
    """``counts``' items, largest count first, ties in key order (a stable report)."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _label_order(seen: Iterable[str], kind: str = "die") -> tuple[str, ...]:
    seen = set(seen)
    known = [f for f in ((*CARD_RANKS, *CARD_SUITS) if kind == "card" else DIE_FACES) if f in seen]
    return tuple(known + sorted(seen - set(known)))


def score(
    pairs: Iterable[tuple[Sequence[Detection], Sequence[Detection]]],
    iou_threshold: float = 0.5,
    kind: str = "die",
    conditions: Iterable[Sequence[tuple[str, ...]] | None] | None = None,
) -> Metrics:
    """Score ``(ground_truth, predictions)`` per image; only objects of ``kind`` count
    (:mod:`vision.card_scoring` scores cards with it).

    ``conditions`` (a rendered set's, :func:`~vision.dice_conditions.dataset_conditions`) gives
    each image's labelled objects their conditions, in order, or None for an image whose are
    unknown; :attr:`Metrics.by_scene` then counts the dice found and read right under each
    condition, and under :data:`~vision.dice_conditions.PLAIN`, as ``by_size`` does (a die read
    with its true face is right, sure or not; a missed die is wrong). Conditions no die had are
    left out.

    >>> from vision.detections import Detection as D
    >>> gt = [D("die", "3", None, (0, 0, 10, 10), 1.0), D("die", "5", None, (20, 0, 30, 10), 1.0)]
    >>> pred = [D("die", "3", None, (0, 0, 10, 10), 0.9)]
    >>> score([(gt, pred)], conditions=[[("marbled",), ()]]).by_scene
    (('marbled', FaceStats(gt=1, matched=1, correct=1)), ('plain', FaceStats(gt=1, matched=0, correct=0)))
    """
    pairs = list(pairs)
    tags_per_image = [None] * len(pairs) if conditions is None else list(conditions)
    per_image = []
    for gt, pred in pairs:
        g = [o for o in gt if o.kind == kind]
        p = [o for o in pred if o.kind == kind]
        m = greedy_match(np.array([o.box for o in g]), np.array([o.box for o in p]), iou_threshold)
        per_image.append((g, p, m))

    labels = _label_order((o.face for g, p, _ in per_image for o in (*g, *p)), kind)
    rows, cols = labels + (EXTRA,), labels + (MISSED,)
    cm = np.zeros((len(rows), len(cols)), dtype=np.int64)
    stats = {f: [0, 0, 0] for f in labels}
    sizes = {b: [0, 0, 0] for b in size_bins()}
    scene = {c: [0, 0, 0] for c in (*CONDITIONS, PLAIN)}
    colour_miss: Counter[tuple[str, str]] = Counter()
    colour_seen: Counter[str] = Counter()
    colour_right: Counter[str] = Counter()
    totals = dict(gt=0, pred=0, matched=0, correct=0, exact=0, unc=0, conf_n=0, conf_ok=0,
                  alt_n=0, alt_ok=0, alt_faces=0)
    mistakes: list[SureMistake] = []
    for index, ((g, p, m), tags) in enumerate(zip(per_image, tags_per_image)):
        die_tags = [()] * len(g) if tags is None else [t or (PLAIN,) for t in tags]
        totals["gt"] += len(g)
        totals["pred"] += len(p)
        totals["matched"] += len(m)
        totals["unc"] += sum(o.uncertain for o in p)
        for o in g:
            stats[o.face][0] += 1
            sizes[size_bin(o.box)][0] += 1
        for t in die_tags:
            for c in t:
                scene[c][0] += 1
        correct_here = 0
        for gi, pi in m:
            truth, guess = g[gi], p[pi]
            ok = truth.face == guess.face
            correct_here += ok
            stats[truth.face][1] += 1
            stats[truth.face][2] += ok
            sizes[size_bin(truth.box)][1] += 1
            sizes[size_bin(truth.box)][2] += ok
            for c in die_tags[gi]:
                scene[c][1] += 1
                scene[c][2] += ok
            cm[rows.index(truth.face), cols.index(guess.face)] += 1
            if truth.colour is not None:
                colour_seen[truth.colour] += 1
                colour_right[truth.colour] += truth.colour == guess.colour
                if truth.colour != guess.colour:
                    colour_miss[truth.colour, str(guess.colour)] += 1
            if not guess.uncertain:
                totals["conf_n"] += 1
                totals["conf_ok"] += ok
                if not ok:
                    mistakes.append(SureMistake(index, guess.box, guess.face, guess.score, truth.face))
            elif guess.alternatives:
                totals["alt_n"] += 1
                totals["alt_ok"] += truth.face in guess.alternatives
                totals["alt_faces"] += len(guess.alternatives)
        totals["correct"] += correct_here
        matched_g = {gi for gi, _ in m}
        matched_p = {pi for _, pi in m}
        for gi, o in enumerate(g):
            if gi not in matched_g:
                cm[rows.index(o.face), cols.index(MISSED)] += 1
        for pi, o in enumerate(p):
            if pi not in matched_p:
                cm[rows.index(EXTRA), cols.index(o.face)] += 1
                if not o.uncertain:
                    mistakes.append(SureMistake(index, o.box, o.face, o.score, near=_near(o, g)))
        totals["exact"] += len(m) == len(g) == len(p) and correct_here == len(g)

    return Metrics(
        images=len(per_image),
        gt_dice=totals["gt"],
        predicted=totals["pred"],
        matched=totals["matched"],
        face_correct=totals["correct"],
        colour_evaluated=sum(colour_seen.values()),
        colour_correct=sum(colour_right.values()),
        scenes_exact=totals["exact"],
        uncertain=totals["unc"],
        confident_correct=totals["conf_ok"],
        confident_matched=totals["conf_n"],
        per_face=tuple((f, FaceStats(*stats[f])) for f in labels if stats[f][0]),
        confusion=Confusion(labels, tuple(tuple(int(v) for v in r) for r in cm)),
        iou_threshold=iou_threshold,
        by_size=tuple((b, FaceStats(*sizes[b])) for b in sizes if sizes[b][0]),
        by_scene=tuple((c, FaceStats(*scene[c])) for c in scene if scene[c][0]),
        per_colour=tuple((c, n, colour_right[c]) for c, n in _most_first(colour_seen)),
        colour_mistakes=tuple((t, r, n) for (t, r), n in _most_first(colour_miss)),
        alternatives=(totals["alt_n"], totals["alt_ok"], totals["alt_faces"]),
        sure_mistakes=tuple(mistakes),
    )
