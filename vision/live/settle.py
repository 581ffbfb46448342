"""Settled readings: take a reveal only once the dice have stopped and the reads agree.

Per-frame readings flicker: dice are still rolling, a hand passes over them, one frame
misreads a face. :class:`Settler` watches the stream of readings and emits a
:class:`SettledReading` once per settled scene:

1. Consecutive readings are matched object to object (greedy, nearest centre first,
   distance measured in box sizes, boxes overlapping at least ``min_iou``).
2. The scene is *still* when every object has a partner that moved less than
   ``move_frac`` of its box size and the count did not change. Anything else is
   motion, which restarts the run of still frames. The one exception is an object the
   detector itself doubts (``faint``, see :func:`is_faint`): it may vanish, or come back
   where one was seen lately, without counting as motion; it is left out of the
   settled reading.
3. After ``stable_frames`` still frames (spanning at least ``min_still_s`` seconds)
   each object's face and colour are decided by majority vote over the run. Its
   confidence is the vote share times the mean score of the agreeing reads, so a
   face read 4 times out of 5 at 0.95 gets 0.76, and a split vote is flagged uncertain.
4. The settler then waits for motion (the scene changed) before it can emit again.
   A scene that settles in the same places with the same faces as the last emitted
   one (a hand passed over, a die flickered out for a frame) is not emitted twice;
   :meth:`Settler.rearm`
   forces a fresh emission of whatever is on the table (e.g. the referee asked for a
   re-read).
5. Readings can flicker while nothing moves: a card's corners paired in one frame and
   not the next, an index found every other frame. When the caller passes the frames,
   the settler also watches the picture itself (:mod:`vision.live.stillness`). A picture
   still for ``flicker_frames`` frames (``flicker_s`` seconds) that the readings never
   settled on settles anyway, from the frames of that stillness: the objects of the
   latest frame with the most common (non-zero) count, each voted over the frames it was
   seen in, and uncertain unless seen in ``flicker_present`` of them
   (:func:`flicker_vote`). Once per still picture, and only when the readings emitted
   nothing during it.

Pure logic: no threads, no clock, deterministic.

>>> from vision.read.detections import Detection, Reading
>>> def frame(face):
...     return Reading(objects=(Detection("die", face, "white", (10, 10, 50, 50), 0.9),), width=100, height=100)
>>> s = Settler(SettleConfig(stable_frames=3, min_still_s=0.0))
>>> [s.update(frame(f), index=i, t=i / 10) is not None for i, f in enumerate("455")]
[False, False, True]
>>> s.last.reading.faces(), s.last.votes[0].face_share
(('5',), 0.6667)
"""

from __future__ import annotations

import enum
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.read.alternatives import unsure_faces
from vision.read.boxes import area, greedy_match, held_by, iou
from vision.read.detections import Box, Detection, Kind, Reading
from vision.read.policy import SettleConfig, judge
from vision.live.averaging import still_mean
from vision.live.stillness import moved, thumbnail


# nested(): the part is at most this share of the whole's area, and this share of it is inside.
# Geometry of "one box is a part of another", like the card finders' spans, not a decision
# about what was read: it stays here, not in the read policy.
NESTED_AREA = 0.5
NESTED_INSIDE = 0.8


class SettleState(enum.Enum):
    """Where the settler is: nothing seen, things moving, holding still (counting), settled."""

    EMPTY = "empty"
    MOVING = "moving"
    STEADY = "steady"
    SETTLED = "settled"


@dataclass(frozen=True)
class ObjectVote:
    """How one settled object was decided. ``counts`` lists (face, votes), most votes first."""

    face: str
    face_share: float
    colour: str | None
    colour_share: float
    confidence: float
    counts: tuple[tuple[str, int], ...]
    closer: tuple[str, float] | None = None  # (face, score) from the closer look, when it had one

    def share_of(self, face: str) -> float:
        """The fraction of the run's reads that gave ``face``."""
        total = sum(n for _, n in self.counts)
        return round(sum(n for f, n in self.counts if f == face) / total, 4) if total else 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "face": self.face,
            "face_share": self.face_share,
            "colour": self.colour,
            "colour_share": self.colour_share,
            "confidence": self.confidence,
            "counts": [list(c) for c in self.counts],
        }
        if self.closer is not None:
            out["closer"] = {"face": self.closer[0], "score": self.closer[1]}
        return out


@dataclass(frozen=True, eq=False)
class SettledReading:
    """One settled reveal.

    ``reading`` holds the voted objects (boxes from the newest frame, ``score`` = the
    folded confidence); ``votes[i]`` explains ``reading.objects[i]``; ``frame_index`` /
    ``t`` identify the newest frame of the run, ``at`` is its wall-clock time when the
    caller gave one, and ``image`` is that frame (for the closer look and the snapshot), when
    the caller supplied it; ``mean_image``, on a noisy sensor, is the mean of the still
    picture's latest frames, which the dice's closer look reads instead
    (``SettleConfig.average_above``, :mod:`vision.live.averaging`). ``seq`` counts emissions from 1.
    """

    reading: Reading
    votes: tuple[ObjectVote, ...]
    frame_index: int
    t: float
    frames: int
    seq: int
    at: float | None = None
    image: np.ndarray | None = field(default=None, repr=False)
    mean_image: np.ndarray | None = field(default=None, repr=False)

    @property
    def uncertain(self) -> bool:
        return self.reading.uncertain

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "frame_index": self.frame_index,
            "t": round(self.t, 3),
            "at": None if self.at is None else round(self.at, 3),
            "frames": self.frames,
            "uncertain": self.uncertain,
            "reading": self.reading.to_json(),
            "votes": [v.to_json() for v in self.votes],
        }


def _size(box: Box) -> float:
    return max(1.0, ((box[2] - box[0]) + (box[3] - box[1])) / 2.0)


def displacement(a: Box, b: Box) -> float:
    """Distance between box centres in units of their mean size.

    >>> displacement((0, 0, 10, 10), (2, 0, 12, 10))
    0.2
    """
    ca = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2)
    cb = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
    dist = ((ca[0] - cb[0]) ** 2 + (ca[1] - cb[1]) ** 2) ** 0.5
    return dist / ((_size(a) + _size(b)) / 2)


def is_still(a: Box, b: Box, config: SettleConfig) -> bool:
    """Whether box ``b`` is box ``a`` not moved: closer than ``move_frac`` box sizes and
    overlapping by ``min_iou``."""
    return displacement(a, b) <= config.move_frac and iou(a, b) >= config.min_iou


def nested(a: Box, b: Box) -> bool:
    """Whether one of two boxes is a part of the other: the smaller is at most half the
    larger's area and lies at least 80 % inside it. A card's corner index in the box of
    the whole card is nested; a card moved by a fraction of its size is not.

    >>> nested((0, 0, 60, 90), (2, 2, 12, 20)), nested((2, 2, 12, 20), (0, 0, 60, 90))
    (True, True)
    >>> nested((0, 0, 60, 90), (10, 10, 70, 100)), nested((0, 0, 60, 90), (55, 85, 70, 100))
    (False, False)
    """
    area_a, area_b = (float(v) for v in area(np.array([a, b])))
    small, large = min(area_a, area_b), max(area_a, area_b)
    if small <= 0 or small > NESTED_AREA * large:
        return False
    inner, outer = (a, b) if area_a <= area_b else (b, a)
    return bool(held_by(np.array(inner), np.array(outer), NESTED_INSIDE)[0, 0])


def pair_still(prev: Sequence[Detection], cur: Sequence[Detection], config: SettleConfig) -> dict[int, int]:
    """``{i: j}``: each object ``cur[i]`` that sits still on ``prev[j]`` (closer than
    ``move_frac`` box sizes, overlapping by ``min_iou``). Greedy, nearest pairs first;
    ties broken by index so the result is deterministic. Objects may stay unpaired."""
    pairs: list[tuple[float, int, int]] = []
    for i, c in enumerate(cur):
        for j, p in enumerate(prev):
            if is_still(p.box, c.box, config):
                pairs.append((displacement(p.box, c.box), i, j))
    pairs.sort()
    partner: dict[int, int] = {}
    taken: set[int] = set()
    for _, i, j in pairs:
        if i not in partner and j not in taken:
            partner[i] = j
            taken.add(j)
    return partner


def match_still(prev: Sequence[Detection], cur: Sequence[Detection], config: SettleConfig) -> list[int] | None:
    """Pair every object of ``cur`` with a still partner in ``prev`` (:func:`pair_still`).

    Returns ``partner[i]`` = index in ``prev`` of ``cur[i]``'s match, or ``None`` when the
    scene moved (a count change, or an object with no partner closer than ``move_frac``
    box sizes that overlaps it by ``min_iou``).
    """
    if len(prev) != len(cur):
        return None
    partner = pair_still(prev, cur, config)
    if len(partner) < len(cur):
        return None
    return [partner[i] for i in range(len(cur))]


def _vote(values: Sequence[str | None], scores: Sequence[float]) -> tuple[str | None, int, list[tuple[str | None, int]]]:
    """Majority value; ties go to the larger summed score, then to the value first seen."""
    counts = Counter(values)
    score_sum: dict[str | None, float] = {}
    first: dict[str | None, int] = {}
    for k, (v, s) in enumerate(zip(values, scores)):
        score_sum[v] = score_sum.get(v, 0.0) + s
        first.setdefault(v, k)
    ranked = sorted(counts, key=lambda v: (-counts[v], -score_sum[v], first[v]))
    return ranked[0], counts[ranked[0]], [(v, counts[v]) for v in ranked]


def vote_track(
    track: Sequence[Detection], config: SettleConfig, absent: bool = False,
) -> tuple[Detection, ObjectVote]:
    """Decide one object from its reads over the still run (oldest first). Its reading is
    uncertain as :func:`~vision.read.policy.judge` rules: a confidence under ``uncertain_below``,
    or a doubt (a vote share under ``min_share``, most agreeing reads uncertain, a card's
    reads naming two suits, or ``absent``: missing from too many of the frames voted over,
    when it may not be there at all, and what it shows is beside the point)."""
    scores = [d.score for d in track]
    face, n_face, face_counts = _vote([d.face for d in track], scores)
    colour, n_colour, _ = _vote([d.colour for d in track], scores)
    kind, _, _ = _vote([d.kind for d in track], scores)
    agreeing = [d for d in track if d.face == face]
    share = n_face / len(track)
    confidence = round(share * sum(d.score for d in agreeing) / len(agreeing), 4)
    mostly_uncertain = sum(d.uncertain for d in agreeing) * 2 > len(agreeing)
    suits_split = False
    if kind == Kind.CARD and config.card_suits_agree and (shown := agreeing[0].card) is not None:
        suits_split = len({c.suit for d in track if (c := d.card) is not None and c.rank == shown.rank}) > 1
    uncertain = bool(judge(confidence, config.uncertain_below, share < config.min_share, mostly_uncertain,
                           suits_split, absent).uncertain)
    newest = track[-1]
    alternatives: tuple[str, ...] = ()
    # A speck the detector doubts in some frame, or a die none of the game's (marked faint
    # by pipeline.doubt_foreign), may not be there at all: what it shows is beside the point.
    if (uncertain and not absent and n_colour / len(track) >= config.min_share
            and not any(is_faint(d, config) for d in track)):
        alternatives = unsure_faces([str(f) for f, _ in face_counts], track)
    det = Detection(
        kind=str(kind),
        face=str(face),
        colour=colour,
        box=newest.box,
        score=confidence,
        uncertain=uncertain,
        box_score=_mean_box_score(track),
        alternatives=alternatives,
    )
    vote = ObjectVote(
        face=str(face),
        face_share=round(share, 4),
        colour=colour,
        colour_share=round(n_colour / len(track), 4),
        confidence=confidence,
        counts=tuple((str(f), n) for f, n in face_counts),
    )
    return det, vote


def _mean_box_score(track: Sequence[Detection]) -> float | None:
    known = [d.box_score for d in track if d.box_score is not None]
    return round(sum(known) / len(known), 4) if known else None


def fold_closer(settled: SettledReading, closer: Sequence[Detection], config: SettleConfig) -> SettledReading:
    """``settled`` with each die re-decided by a closer look at its frame (``closer``: the
    dice read again from ``settled.image`` with more crops, in any order).

    A sure vote that the closer look confirms stands as it was. Otherwise the die takes
    the closer look's face, and its confidence is that reading's score times the share of
    the run's frames that read the same face, so the frames must agree with the closer
    look: a die read 0.75 on every frame and 0.88 up close becomes sure, and one the
    frames read as 5 but the closer look as 6 becomes uncertain (a re-read), never a
    silent change. Colours stay as voted. Dice the closer look did not find again (box
    overlap under 0.5) and cards keep their vote.

    >>> from vision.read.detections import Detection, Reading
    >>> die = Detection("die", "5", "white", (10, 10, 50, 50), 0.72, uncertain=True)
    >>> vote = ObjectVote("5", 1.0, "white", 1.0, 0.72, (("5", 5),))
    >>> s = SettledReading(Reading((die,)), (vote,), frame_index=9, t=0.6, frames=5, seq=1)
    >>> up_close = Detection("die", "5", "white", (11, 10, 50, 51), 0.88)
    >>> folded = fold_closer(s, [up_close], SettleConfig())
    >>> folded.reading.objects[0].score, folded.uncertain, folded.votes[0].closer
    (0.88, False, ('5', 0.88))
    """
    pool = [c for c in closer if c.kind == "die"]
    objects, votes = list(settled.reading.objects), list(settled.votes)
    dice = [i for i, o in enumerate(objects) if o.kind == "die"]
    boxes = np.array([objects[i].box for i in dice], np.float32).reshape(-1, 4)
    for k, j in greedy_match(boxes, np.array([c.box for c in pool], np.float32).reshape(-1, 4), 0.5):
        i = dice[k]
        c, vote, o = pool[j], votes[i], objects[i]
        if not o.uncertain and c.face == o.face:
            votes[i] = replace(vote, closer=(c.face, round(c.score, 4)))  # a sure vote, confirmed
            continue
        share = vote.share_of(c.face)
        confidence = round(share * c.score, 4)
        uncertain = bool(judge(confidence, config.uncertain_below, c.uncertain, share < config.min_share).uncertain)
        alternatives: tuple[str, ...] = ()
        if uncertain and (o.alternatives or not o.uncertain):
            alternatives = unsure_faces([c.face, *o.alternatives, *(f for f, _ in vote.counts)], [c])
        objects[i] = replace(o, face=c.face, score=confidence, uncertain=uncertain, alternatives=alternatives)
        votes[i] = replace(vote, face=c.face, face_share=share, confidence=confidence, closer=(c.face, round(c.score, 4)))
    return replace(settled, reading=replace(settled.reading, objects=tuple(objects)), votes=tuple(votes))


def fold_card_closer(settled: SettledReading, closer: Sequence[Detection]) -> SettledReading:
    """``settled`` with its cards replaced by those a closer look at its frame reads
    (``closer``: the frame read again with the card detector at a larger input), when that
    reading settles what the frames' vote left open.

    The closer look is taken when every card in it is sure, no face is read twice (one
    deck), every card the vote was sure of is among them, and the vote left something open:
    an unsure card, or fewer cards than the closer look finds. Otherwise the vote stands, so
    a closer look never unsettles a sure reveal nor makes a sure card another. Unlike the
    dice's closer look (:func:`fold_closer`), a card's confidence is the closer reading's
    own score: the cards it settles are those whose index the frames read too small to be
    sure of, or missed (on validation clips, 10 more of 240 Doubt reveals read right and
    none wrong; model card, playing-card reader, *How a frame is read*, step 8).

    >>> from vision.read.detections import Detection, Reading
    >>> seven = Detection("card", "7D", None, (10, 10, 22, 30), 0.32, uncertain=True)
    >>> nine = Detection("card", "9C", None, (60, 10, 72, 30), 0.99)
    >>> votes = (ObjectVote("7D", 0.8, None, 0.0, 0.32, (("7D", 4), ("7H", 1))),
    ...          ObjectVote("9C", 1.0, None, 0.0, 0.99, (("9C", 5),)))
    >>> s = SettledReading(Reading((seven, nine)), votes, frame_index=9, t=0.6, frames=5, seq=1)
    >>> up_close = [Detection("card", "7D", None, (10, 10, 22, 30), 0.97),
    ...             Detection("card", "9C", None, (60, 10, 72, 30), 1.0),
    ...             Detection("card", "5D", None, (110, 10, 122, 30), 0.91)]
    >>> folded = fold_card_closer(s, up_close)
    >>> folded.reading.faces(), folded.uncertain, folded.votes[0].closer, folded.votes[2].counts
    (('7D', '9C', '5D'), False, ('7D', 0.97), ())
    >>> fold_card_closer(s, [up_close[0], replace(up_close[2], uncertain=True)]) is s
    True
    """
    pool = [c for c in closer if c.kind == "card"]
    faces = {c.face for c in pool}
    cards = settled.reading.cards()
    sure = [c for c in cards if not c.uncertain]
    if not pool or any(c.uncertain for c in pool) or len(faces) < len(pool):
        return settled
    if any(c.face not in faces for c in sure) or (len(sure) == len(cards) and len(pool) <= len(cards)):
        return settled
    voted = {o.face: v for o, v in zip(settled.reading.objects, settled.votes) if o.kind == "card"}
    kept = [(o, v) for o, v in zip(settled.reading.objects, settled.votes) if o.kind != "card"]
    for c in pool:
        score = round(c.score, 4)
        vote = voted.get(c.face)
        if vote is None:
            vote = ObjectVote(c.face, 0.0, None, 0.0, score, (), closer=(c.face, score))
        else:
            vote = replace(vote, confidence=score, closer=(c.face, score))
        kept.append((c, vote))
    return replace(settled, reading=replace(settled.reading, objects=tuple(o for o, _ in kept)),
                   votes=tuple(v for _, v in kept))


@dataclass
class _StillPicture:
    """The frames since the picture last moved: the first one's thumbnail, when it came,
    the readings' objects of the latest ``flicker_window`` frames, the latest
    ``stable_frames`` frames themselves (for :func:`~vision.live.averaging.still_mean`),
    how many frames in all, whether the picture is decided (by the readings or by :func:`flicker_vote`) and
    whether :func:`flicker_vote` emitted it."""

    first: np.ndarray | None = None
    start_t: float = 0.0
    frames: deque[tuple[Detection, ...]] = field(default_factory=deque)
    images: deque[np.ndarray] = field(default_factory=deque)
    count: int = 0
    done: bool = False
    by_flicker: bool = False


def flicker_vote(
    frames: Sequence[Sequence[Detection]], config: SettleConfig
) -> list[tuple[Detection, ObjectVote]]:
    """A still picture's objects, decided from the readings of its frames (oldest first)
    when they never held still together: the objects of the latest frame with the most
    common count but zero (ties: the larger count), each voted over its reads in every frame
    (:func:`vote_track`; a partner as :func:`pair_still` finds it, or for a card one
    :func:`nested` with it, the same card grouped otherwise). An object seen in fewer than
    ``flicker_present`` of the frames is uncertain, with no alternatives: it may not be
    there at all. One mostly faint is left out, as a settled run leaves it out.

    >>> two = (Detection("card", "2H", None, (10, 10, 22, 30), 0.95), Detection("card", "2S", None, (60, 10, 72, 30), 0.9))
    >>> frames = [two, two[:1], two, (), two, two[:1], two, two, two[1:], two]
    >>> [(d.face, d.uncertain, v.face_share) for d, v in flicker_vote(frames, SettleConfig())]
    [('2H', False, 1.0), ('2S', True, 1.0)]
    """
    frames = [tuple(f) for f in frames]
    counts = Counter(len(f) for f in frames if f)
    if not counts:
        return []
    common = max(counts, key=lambda n: (counts[n], n))
    anchor = next(f for f in reversed(frames) if len(f) == common)
    tracks: list[list[Detection]] = [[] for _ in anchor]
    for frame in frames:
        partner = pair_still(frame, anchor, config)
        used = set(partner.values())
        for i, obj in enumerate(anchor):
            j = partner.get(i)
            if j is None and obj.kind == "card" and config.regroup_cards:
                j = next((k for k, o in enumerate(frame) if k not in used and o.kind == "card"
                          and nested(obj.box, o.box)), None)
            if j is not None:
                used.add(j)
                tracks[i].append(frame[j])
    decided = []
    for obj, track in zip(anchor, tracks):
        if 2 * sum(is_faint(o, config) for o in track) > len(track):
            continue
        det, vote = vote_track(track, config, absent=len(track) < config.flicker_present * len(frames))
        decided.append((replace(det, box=obj.box), vote))
    return decided


@dataclass
class _Track:
    """One object's reads over the current still run: (frame number in the run, read)."""

    reads: list[tuple[int, Detection]]

    @property
    def last(self) -> Detection:
        return self.reads[-1][1]


def _regrouped(obj: Detection, cards: Sequence[Box]) -> bool:
    """Whether card ``obj`` is nested with one of the boxes ``cards`` (:func:`nested`)."""
    return obj.kind == "card" and any(nested(obj.box, box) for box in cards)


def is_faint(obj: Detection, config: SettleConfig) -> bool:
    """Whether the detector itself doubts ``obj`` is there at all (its box confidence is
    under ``config.faint_below``); objects with no box confidence are never faint.

    >>> speck = Detection("die", "3", "white", (0, 0, 9, 9), 0.4, uncertain=True, box_score=0.3)
    >>> is_faint(speck, SettleConfig()), is_faint(replace(speck, box_score=None), SettleConfig())
    (True, False)
    """
    return obj.box_score is not None and obj.box_score < config.faint_below


class Settler:
    """Turns a stream of per-frame readings into settled reveals. Not thread-safe."""

    def __init__(self, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self.last: SettledReading | None = None
        self._seq = 0
        self.state = SettleState.EMPTY
        self._tracks: list[_Track] = []
        self._run_frames = 0  # frames in the current still run (0: no run yet)
        self._run_start_t = 0.0
        self._frame = 0  # frames seen, for the memory of faint spots
        self._faint_spots: deque[tuple[int, Box]] = deque()
        self._emitted_run = False  # the current still run has been decided already
        self._emitted: tuple[Detection, ...] | None = None
        self._still = self._new_still()

    def _new_still(self, first: np.ndarray | None = None, start_t: float = 0.0) -> _StillPicture:
        """A still picture starting with the thumbnail ``first`` at ``start_t``, keeping the
        readings of its latest ``flicker_window`` frames and its latest ``stable_frames`` frames."""
        return _StillPicture(first, start_t, deque(maxlen=self.config.flicker_window),
                             deque(maxlen=self.config.stable_frames))

    @property
    def progress(self) -> float:
        """How far the current still run is towards settling, 0..1 (1 once settled): the
        readings' run, or the still picture's when its readings flicker (step 5)."""
        if self.state is SettleState.SETTLED:
            return 1.0
        if not self._tracks:
            return 0.0
        readings = self._run_frames / self.config.stable_frames
        flicker = self.config.flicker_frames
        picture = 0.0 if flicker is None or self._still.done else self._still.count / flicker
        return min(1.0, max(readings, picture))

    def rearm(self) -> None:
        """Forget the last emission: the scene on the table is emitted again once still."""
        self._emitted = None
        self._emitted_run = False
        self._still.done = self._still.by_flicker = False
        if self.state is SettleState.SETTLED:
            self.state = SettleState.STEADY

    def reset(self) -> None:
        """Forget the frames seen so far and the last emission (``last`` and ``seq`` go on)."""
        self.state = SettleState.EMPTY
        self._tracks = []
        self._run_frames = 0
        self._run_start_t = 0.0
        self._faint_spots.clear()
        self._emitted_run = False
        self._emitted = None
        self._still = self._new_still()

    def update(
        self,
        reading: Reading,
        *,
        index: int,
        t: float,
        image: np.ndarray | None = None,
        at: float | None = None,
    ) -> SettledReading | None:
        """Feed the reading of frame ``index`` taken at time ``t`` (seconds, any origin,
        e.g. ``time.monotonic()``); ``at`` (wall clock) and ``image`` are passed through.

        Returns a :class:`SettledReading` on the frame the scene settles, else ``None``.
        With ``image``, a picture that stays still while the readings flicker settles too
        (step 5 of the module's list).
        """
        self._watch(reading.objects, t, image)
        settled = self._settle_readings(reading, index, t, image, at)
        if self.state is SettleState.SETTLED:
            self._still.done = True  # the readings decided this still picture
            return settled
        return self._settle_flicker(reading, index, t, image, at)

    def _watch(self, objects: Sequence[Detection], t: float, image: np.ndarray | None) -> None:
        """Follow the picture: a still run of frames starts over when ``image`` moved from
        the run's first frame (or no image came)."""
        cfg, still = self.config, self._still
        if not isinstance(image, np.ndarray) or cfg.flicker_frames is None:  # passed through only
            if still.count:
                self._still = self._new_still()
            return
        picture = thumbnail(image)
        if still.first is None or moved(still.first, picture, cfg.image_still_tol):
            self._still = still = self._new_still(picture, t)
        still.frames.append(tuple(objects))
        still.images.append(image)
        still.count += 1

    def _settle_flicker(
        self, reading: Reading, index: int, t: float, image: np.ndarray | None, at: float | None
    ) -> SettledReading | None:
        cfg, still = self.config, self._still
        if (still.done or cfg.flicker_frames is None or still.count < cfg.flicker_frames
                or t - still.start_t < cfg.flicker_s):
            return None
        still.done = True
        decided = flicker_vote(list(still.frames), cfg)
        if len(decided) < cfg.min_objects or self._same_as_emitted(decided):
            return None
        still.by_flicker = True
        self.state = SettleState.SETTLED
        return self._emit(decided, reading, index, t, image, at, len(still.frames))

    def _settle_readings(
        self, reading: Reading, index: int, t: float, image: np.ndarray | None, at: float | None
    ) -> SettledReading | None:
        cfg = self.config
        objects = reading.objects
        self._frame += 1
        still = self._run_frames > 0 and self._follow(objects)
        if still:
            self._run_frames += 1
        else:
            # Motion, a count change or the first frame: start a new still run here.
            self._tracks = [_Track([(0, o)]) for o in objects]
            self._run_frames = 1
            self._run_start_t = t
            self._emitted_run = False
        self._remember_faint(objects)

        if len(objects) < cfg.min_objects:
            self.state = SettleState.EMPTY
            return None
        if self._emitted_run:
            self.state = SettleState.SETTLED
            return None
        if self._run_frames < cfg.stable_frames or t - self._run_start_t < cfg.min_still_s:
            self.state = SettleState.STEADY if still else SettleState.MOVING
            return None

        first = self._run_frames - cfg.stable_frames
        window = [[o for k, o in track.reads if k >= first] for track in self._tracks]
        # An object counts when it was there in most of the window's frames and the detector
        # was sure of it in most of them. A faint object is a speck of the table as often as
        # a die the detector barely sees, and leaving a die out makes the count short, which
        # asks for a re-read, never a verdict (see the model card for the measurement).
        window = [
            reads for reads in window
            if 2 * len(reads) > cfg.stable_frames and 2 * sum(is_faint(o, cfg) for o in reads) <= len(reads)
        ]
        self._emitted_run = True
        self.state = SettleState.SETTLED
        decided = [vote_track(reads, cfg) for reads in window]
        if self._same_as_emitted(decided) or self._still.by_flicker:
            # The scene we already emitted, back after a brief disturbance; or a still
            # picture already settled while its readings flickered.
            return None
        return self._emit(decided, reading, index, t, image, at, cfg.stable_frames)

    def _emit(
        self, decided: Sequence[tuple[Detection, ObjectVote]], reading: Reading, index: int, t: float,
        image: np.ndarray | None, at: float | None, frames: int,
    ) -> SettledReading:
        self._seq += 1
        settled = SettledReading(
            reading=Reading(
                objects=tuple(d for d, _ in decided),
                width=reading.width,
                height=reading.height,
                ms=reading.ms,
            ),
            votes=tuple(v for _, v in decided),
            frame_index=index,
            t=t,
            frames=frames,
            seq=self._seq,
            at=at,
            image=image,
            mean_image=self._mean(image),
        )
        self._emitted = tuple(d for d, _ in decided)
        self.last = settled
        return settled

    def _mean(self, image: np.ndarray | None) -> np.ndarray | None:
        """On a noisy sensor, the mean of the still picture's latest frames, of which ``image``
        is the newest (:func:`~vision.live.averaging.still_mean`); else None."""
        images = self._still.images
        if image is None or not images or images[-1] is not image:
            return None
        return still_mean(list(images), self.config.average_above)

    def _follow(self, objects: Sequence[Detection]) -> bool:
        """Extend the still run's tracks with this frame's ``objects``; False (tracks left
        as they were) when the scene moved.

        Every object must sit still on a track, as in :func:`match_still`, with one
        exception each way for objects the detector doubts (:func:`is_faint`): a faint
        object may vanish, and one may appear where a faint box was seen in the last
        ``faint_memory`` frames. A patterned table makes such specks come and go, and
        counting them as motion kept reveals from ever settling. A faint object anywhere
        else, and any firm object appearing, vanishing or moving, is motion: a die rolling
        in blurred is faint, but never twice in the same place.

        Cards (``regroup_cards``) have one more exception. The reader makes one object of a
        card whose two corner indices it pairs, and two when it does not, and the pairing
        of two unsure corners can change from frame to frame while nothing moves. So a
        card may appear or vanish where it is :func:`nested` with a card on a track (a
        corner inside the whole card's box, or the whole card around a corner). Each
        grouping keeps its own track, and the settled reveal takes those seen in most of
        the window's frames, as for any object.
        """
        cfg = self.config
        partner = pair_still([track.last for track in self._tracks], objects, cfg)
        taken = set(partner.values())
        newcomers = [o for i, o in enumerate(objects) if i not in partner]
        before = [t.last.box for t in self._tracks if t.last.kind == "card"] if cfg.regroup_cards else []
        now = [o.box for o in objects if o.kind == "card"] if cfg.regroup_cards else []
        for o in newcomers:
            if not (is_faint(o, cfg) and self._seen_faint(o.box)) and not _regrouped(o, before):
                return False
        for k, track in enumerate(self._tracks):
            if k not in taken and not is_faint(track.last, cfg) and not _regrouped(track.last, now):
                return False
        n = self._run_frames
        for i, k in partner.items():
            self._tracks[k].reads.append((n, objects[i]))
        self._tracks.extend(_Track([(n, o)]) for o in newcomers)
        return True

    def _remember_faint(self, objects: Sequence[Detection]) -> None:
        self._faint_spots.extend((self._frame, o.box) for o in objects if is_faint(o, self.config))
        while self._faint_spots and self._faint_spots[0][0] <= self._frame - self.config.faint_memory:
            self._faint_spots.popleft()

    def _seen_faint(self, box: Box) -> bool:
        return any(is_still(seen, box, self.config) for _, seen in self._faint_spots)

    def _same_as_emitted(self, decided: Sequence[tuple[Detection, ObjectVote]]) -> bool:
        """Same objects, same places, same faces and colours as the last emission."""
        if self._emitted is None:
            return False
        now = [d for d, _ in decided]
        partner = match_still(self._emitted, now, self.config)
        if partner is None:
            return False
        return all(
            (self._emitted[j].face, self._emitted[j].colour) == (now[i].face, now[i].colour)
            for i, j in enumerate(partner)
        )
