"""Score dice readings against ground truth: matching, accuracy, confusion, scene-exact rate.

Predictions are matched to ground-truth dice greedily by IoU (highest first, each used
once, IoU >= 0.5). Every listed prediction counts, ``uncertain`` ones included. A labelled
object a reader cannot read (``readable`` false: a die under a hand, tipped on an edge) is
not scored: a reading matching it is neither a hit nor a false alarm.

The headline numbers, over the readable labelled dice: *found* (any box, sure or not),
*sure coverage* (found and read sure), *right among the sure*, *die accuracy* (sure and
right), *confidently wrong* (sure and wrong) and *scenes sure-exact* (of the scenes with a
readable die: every die found and read right and sure, nothing extra read surely); each also by face, colour, and the up
face's size in pixels (:func:`face_px_bin`).

>>> from vision.read.detections import Detection as D
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.read.boxes import contained_share, greedy_match, iou_matrix
from vision.read.detections import CARD_RANKS, CARD_SUITS, DIE_FACES, Detection
from vision.read.vocabulary import plain_colour
from vision.evaluate.dice_conditions import CONDITIONS, PLAIN

MISSED = "(missed)"  # column: a ground-truth die nothing matched
EXTRA = "(extra)"  # row: a prediction that matched no ground-truth die
SIZE_BINS_PX: tuple[float, ...] = (20.0, 30.0, 45.0, 70.0)
"""Edges of the die-size bins of :attr:`Metrics.by_size`: a die's longer box side in the
frame's pixels (a webcam die is 15-40 px). The detector misses small dice most."""


FACE_PX_BINS: tuple[float, ...] = (14.0, 20.0, 28.0, 40.0)
"""Edges of the bins of :attr:`Metrics.by_face_px`: the up face's size in pixels (a rendered
set's ``face_px``; else the shorter side of the die's box). A face under about 14 px holds
pips and glyphs of two or three pixels."""

Overlap = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""How much each labelled box (rows) and each read box (columns) overlap, 0..1: IoU by
default; :func:`held_share` for whole cards read from their corners."""


def face_px_bin(size: float) -> str:
    """The bin of :attr:`Metrics.by_face_px` an up face of ``size`` pixels falls in.

    >>> face_px_bin(9.0), face_px_bin(14.0), face_px_bin(27.9), face_px_bin(55.0)
    ('<14 px', '14-20 px', '20-28 px', '>=40 px')
    """
    return size_bins(FACE_PX_BINS)[bisect_right(FACE_PX_BINS, size)]


def held_share(truth: np.ndarray, read: np.ndarray) -> np.ndarray:
    """The share of each read box (columns) inside each labelled box (rows): how a card read
    from its corner indices (a box round its indices) is matched to a labelled whole card.

    >>> held_share(np.array([[0, 0, 100, 150]], np.float32), np.array([[5, 5, 20, 30], [90, 0, 110, 20]], np.float32)).tolist()
    [[1.0, 0.5]]
    """
    t = np.asarray(truth, np.float32).reshape(-1, 4)
    r = np.asarray(read, np.float32).reshape(-1, 4)
    if not len(t) or not len(r):
        return np.zeros((len(t), len(r)), np.float32)
    return contained_share(r, t).T


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
    """Labelled dice of one kind (a face, a colour, a size), and how many were found
    (``matched``), read right sure or not (``correct``), read sure (``sure``), and read sure
    and right (``sure_correct``)."""

    gt: int
    matched: int
    correct: int
    sure: int = 0
    sure_correct: int = 0

    @property
    def accuracy(self) -> float | None:
        """Correct readings over all ground-truth dice of this face (a miss counts as wrong)."""
        return _ratio(self.correct, self.gt)

    def add(self, found: bool, right: bool, sure: bool) -> FaceStats:
        """These counts and one more labelled die.

        >>> FaceStats(0, 0, 0).add(True, True, True).add(True, False, True).add(False, False, False)
        FaceStats(gt=3, matched=2, correct=1, sure=2, sure_correct=1)
        """
        return FaceStats(self.gt + 1, self.matched + found, self.correct + (found and right),
                         self.sure + (found and sure), self.sure_correct + (found and right and sure))

    def headline(self) -> dict[str, float | None]:
        """Found, sure coverage, right among the sure, die accuracy (sure and right) and
        confidently wrong (sure and wrong), each over these labelled dice but the third."""
        return {"found": _ratio(self.matched, self.gt), "sure_coverage": _ratio(self.sure, self.gt),
                "right_among_sure": _ratio(self.sure_correct, self.sure),
                "die_accuracy": _ratio(self.sure_correct, self.gt),
                "confidently_wrong": _ratio(self.sure - self.sure_correct, self.gt)}

    def to_json(self) -> dict[str, Any]:
        return {
            "gt": self.gt,
            "matched": self.matched,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "accuracy_matched": _ratio(self.correct, self.matched),
            "sure": self.sure,
            "sure_correct": self.sure_correct,
            **self.headline(),
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
    # rendered sets: (condition, found and read right), see vision.evaluate.dice_conditions; empty for photos
    by_scene: tuple[tuple[str, FaceStats], ...] = ()
    sure_mistakes: tuple[SureMistake, ...] = ()  # in image order
    scenes_sure_exact: int = 0  # of scenes_with_dice: every readable die found, read right and sure; nothing extra sure
    scenes_with_dice: int = 0  # images with a readable labelled object of the kind scored
    by_colour: tuple[tuple[str, FaceStats], ...] = ()  # labelled dice by true colour, missed ones too
    by_face_px: tuple[tuple[str, FaceStats], ...] = ()  # by the up face's size, see face_px_bin
    unreadable: int = 0  # labelled objects of this kind no reader could read (not scored)
    on_unreadable: int = 0  # readings on them: neither hits nor false alarms

    @property
    def overall(self) -> FaceStats:
        """Every readable labelled die, as one :class:`FaceStats`."""
        return FaceStats(self.gt_dice, self.matched, self.face_correct, self.confident_matched, self.confident_correct)

    @property
    def scene_sure_exact_rate(self) -> float | None:
        """Of the scenes with a readable labelled die, those read sure-exact (a scene with
        none, such as a card game's, would be exact for nothing read)."""
        return _ratio(self.scenes_sure_exact, self.scenes_with_dice)

    def headline(self) -> dict[str, float | None]:
        """The headline numbers (:meth:`FaceStats.headline` over every readable die, and the
        share of scenes sure-exact)."""
        return {**self.overall.headline(), "scene_exact": self.scene_sure_exact_rate}

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
            # synthetic sets: dice apart by how they were rendered (vision.evaluate.dice_conditions)
            "by_scene": {c: {**st.to_json(), "recall": _ratio(st.matched, st.gt)} for c, st in self.by_scene} or None,
            "confusion": self.confusion.to_json(),
            "sure_mistakes": [w.to_json(image_names) for w in self.sure_mistakes],
            # the headline numbers over the readable dice, and broken down (see the module doc)
            "headline": self.headline(),
            "scene_sure_exact": {"images": self.scenes_with_dice, "exact": self.scenes_sure_exact,
                                 "rate": self.scene_sure_exact_rate},
            "by_colour": {c: st.to_json() for c, st in self.by_colour},
            "by_face_px": {b: st.to_json() for b, st in self.by_face_px},
            "unreadable": {"labelled": self.unreadable, "read": self.on_unreadable},
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
    readable: Iterable[Sequence[bool] | None] | None = None,
    face_px: Iterable[Sequence[float | None] | None] | None = None,
    overlap: Overlap | None = None,
) -> Metrics:
    """Score ``(ground_truth, predictions)`` per image; only objects of ``kind`` count
    (:mod:`vision.evaluate.card_scoring` scores cards with it).

    ``conditions`` (a rendered set's, :func:`~vision.evaluate.dice_conditions.dataset_conditions`) gives
    each image's labelled objects of ``kind`` their conditions, in order, or None for an image
    whose are unknown; :attr:`Metrics.by_scene` then counts the dice found and read right under
    each condition, and under :data:`~vision.evaluate.dice_conditions.PLAIN`, as ``by_size`` does (a die
    read with its true face is right, sure or not; a missed die is wrong). Conditions no die had
    are left out.

    ``readable`` and ``face_px`` give, per image, one value per labelled object (all kinds, in
    order; None: every object readable, sizes unknown). A labelled object that is not readable
    is not scored, and a reading matching it (``iou_threshold``, once the readable ones are
    matched) is dropped. ``overlap`` measures how much a labelled and a read box overlap
    (None: IoU).

    >>> from vision.read.detections import Detection as D
    >>> gt = [D("die", "3", None, (0, 0, 10, 10), 1.0), D("die", "5", None, (20, 0, 30, 10), 1.0)]
    >>> pred = [D("die", "3", None, (0, 0, 10, 10), 0.9)]
    >>> score([(gt, pred)], conditions=[[("marbled",), ()]]).by_scene
    (('marbled', FaceStats(gt=1, matched=1, correct=1, sure=1, sure_correct=1)), ('plain', FaceStats(gt=1, matched=0, correct=0, sure=0, sure_correct=0)))
    >>> score([(gt, pred)], readable=[[True, False]]).headline()["found"]
    1.0
    """
    pairs = list(pairs)
    tags_per_image = [None] * len(pairs) if conditions is None else list(conditions)
    readable_per_image = [None] * len(pairs) if readable is None else list(readable)
    px_per_image = [None] * len(pairs) if face_px is None else list(face_px)
    per_image = []
    unreadable = on_unreadable = 0
    for (gt, pred), tags, ok, px in zip(pairs, tags_per_image, readable_per_image, px_per_image):
        mine = [i for i, o in enumerate(gt) if o.kind == kind]
        keep = [ok is None or bool(ok[i]) for i in mine]
        g = [gt[i] for i, k in zip(mine, keep) if k]
        sizes = [None if px is None else px[i] for i, k in zip(mine, keep) if k]
        lost = [gt[i] for i, k in zip(mine, keep) if not k]
        tags = None if tags is None else [t for t, k in zip(tags, keep) if k]
        p = [o for o in pred if o.kind == kind]
        m = greedy_match(np.array([o.box for o in g]), np.array([o.box for o in p]), iou_threshold, overlap)
        if lost:
            taken = {pi for _, pi in m}
            free = [pi for pi in range(len(p)) if pi not in taken]
            on_lost = {free[fi] for _, fi in greedy_match(np.array([o.box for o in lost]),
                                                         np.array([p[pi].box for pi in free]), iou_threshold, overlap)}
            if on_lost:
                unreadable_reads = len(on_lost)
                on_unreadable += unreadable_reads
                p = [o for pi, o in enumerate(p) if pi not in on_lost]
                m = greedy_match(np.array([o.box for o in g]), np.array([o.box for o in p]), iou_threshold, overlap)
        unreadable += len(lost)
        per_image.append((g, p, m, tags, sizes))

    labels = _label_order((o.face for g, p, _, _, _ in per_image for o in (*g, *p)), kind)
    rows, cols = labels + (EXTRA,), labels + (MISSED,)
    cm = np.zeros((len(rows), len(cols)), dtype=np.int64)
    stats = {f: FaceStats(0, 0, 0) for f in labels}
    sizes_by = {b: FaceStats(0, 0, 0) for b in size_bins()}
    face_px_by = {b: FaceStats(0, 0, 0) for b in size_bins(FACE_PX_BINS)}
    scene = {c: FaceStats(0, 0, 0) for c in (*CONDITIONS, PLAIN)}
    colour_by: dict[str, FaceStats] = {}
    colour_miss: Counter[tuple[str, str]] = Counter()
    colour_seen: Counter[str] = Counter()
    colour_right: Counter[str] = Counter()
    totals = dict(gt=0, pred=0, matched=0, correct=0, exact=0, sure_exact=0, with_=0, unc=0, conf_n=0, conf_ok=0,
                  alt_n=0, alt_ok=0, alt_faces=0)
    mistakes: list[SureMistake] = []
    for index, (g, p, m, tags, sizes) in enumerate(per_image):
        die_tags = [()] * len(g) if tags is None else [t or (PLAIN,) for t in tags]
        totals["gt"] += len(g)
        totals["pred"] += len(p)
        totals["matched"] += len(m)
        totals["unc"] += sum(o.uncertain for o in p)
        read = {gi: p[pi] for gi, pi in m}
        correct_here = sure_here = 0
        for gi, truth in enumerate(g):
            truth = replace(truth, colour=plain_colour(truth.colour))  # labels may name a shade
            guess = read.get(gi)
            found, ok = guess is not None, guess is not None and truth.face == guess.face
            sure = guess is not None and not guess.uncertain
            correct_here += ok
            sure_here += ok and sure
            stats[truth.face] = stats[truth.face].add(found, ok, sure)
            sizes_by[size_bin(truth.box)] = sizes_by[size_bin(truth.box)].add(found, ok, sure)
            x1, y1, x2, y2 = truth.box
            side = sizes[gi] if sizes[gi] is not None else min(x2 - x1, y2 - y1)
            face_px_by[face_px_bin(side)] = face_px_by[face_px_bin(side)].add(found, ok, sure)
            for c in die_tags[gi]:
                scene[c] = scene[c].add(found, ok, sure)
            if truth.colour is not None:
                colour_by[truth.colour] = colour_by.get(truth.colour, FaceStats(0, 0, 0)).add(found, ok, sure)
            if guess is None:
                cm[rows.index(truth.face), cols.index(MISSED)] += 1
                continue
            cm[rows.index(truth.face), cols.index(guess.face)] += 1
            if truth.colour is not None:
                colour_seen[truth.colour] += 1
                colour_right[truth.colour] += truth.colour == guess.colour
                if truth.colour != guess.colour:
                    colour_miss[truth.colour, str(guess.colour)] += 1
            if sure:
                totals["conf_n"] += 1
                totals["conf_ok"] += ok
                if not ok:
                    mistakes.append(SureMistake(index, guess.box, guess.face, guess.score, truth.face))
            elif guess.alternatives:
                totals["alt_n"] += 1
                totals["alt_ok"] += truth.face in guess.alternatives
                totals["alt_faces"] += len(guess.alternatives)
        totals["correct"] += correct_here
        matched_p = {pi for _, pi in m}
        extra_sure_here = 0
        for pi, o in enumerate(p):
            if pi not in matched_p:
                cm[rows.index(EXTRA), cols.index(o.face)] += 1
                if not o.uncertain:
                    extra_sure_here += 1
                    mistakes.append(SureMistake(index, o.box, o.face, o.score, near=_near(o, g)))
        totals["exact"] += len(m) == len(g) == len(p) and correct_here == len(g)
        if g:
            totals["with_"] += 1
            totals["sure_exact"] += sure_here == len(g) and not extra_sure_here
    mistakes.sort(key=lambda w: w.image)

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
        per_face=tuple((f, stats[f]) for f in labels if stats[f].gt),
        confusion=Confusion(labels, tuple(tuple(int(v) for v in r) for r in cm)),
        iou_threshold=iou_threshold,
        by_size=tuple((b, st) for b, st in sizes_by.items() if st.gt),
        by_scene=tuple((c, st) for c, st in scene.items() if st.gt),
        per_colour=tuple((c, n, colour_right[c]) for c, n in _most_first(colour_seen)),
        colour_mistakes=tuple((t, r, n) for (t, r), n in _most_first(colour_miss)),
        alternatives=(totals["alt_n"], totals["alt_ok"], totals["alt_faces"]),
        sure_mistakes=tuple(mistakes),
        scenes_sure_exact=totals["sure_exact"],
        scenes_with_dice=totals["with_"],
        by_colour=tuple(sorted(colour_by.items(), key=lambda kv: (-kv[1].gt, kv[0]))),
        by_face_px=tuple((b, st) for b, st in face_px_by.items() if st.gt),
        unreadable=unreadable,
        on_unreadable=on_unreadable,
    )
