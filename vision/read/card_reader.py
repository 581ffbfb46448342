"""Playing cards for Doubt: find each corner index, read its rank and suit, merge a card's corners.

A card is read from its corner index (the rank with a small suit under it), as public
card detectors do, so fanned and partly covered cards still read as long as one
corner shows. Two ONNX models, the same shape as the dice reader's
(:mod:`vision.read.stages`): a single-class corner-index detector on the letterboxed frame,
and a classifier on square crops around each index whose two heads are the rank
(``faces`` in ``card-reader.json``) and the suit (``colours`` there).

The classifier may also have a rank class :data:`NOT_AN_INDEX` (trained on the detector's
own false alarms): a box it gives that class ``no_index_drop`` of its probability or more
(half: :class:`~vision.read.policy.CardKnobs`) is dropped, and a smaller share lowers the box's score.

An index's ``score`` is P(rank) x P(suit). It is flagged ``uncertain`` when that is
below the reporting threshold, or when the detector itself is unsure of the box; it is
still listed with its most likely reading, so a player sees it and a referee waits
for a re-read instead of taking a guess.

Doubt is played with one deck (36 or 52 cards, no jokers: ../shared/rules/DECISIONS.md),
so two indices that read the same card near each other are two corners of one card and
become one object (:meth:`CardReader.merge`). The same card read twice far apart cannot
be right, and both readings are flagged uncertain.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from vision.read.alternatives import card_alternatives, unsure_faces
from vision.read.backends import Model
from vision.read.card_body import BODY_RANKS, COURT, as_index_ranks, check_spec, read_bodies
from vision.read.card_edges import outline_between
from vision.read.card_outline import CardOutline, outline_at
from vision.read.colourless import colourless
from vision.read.detections import CARD_RANKS, CARD_SUITS, NOT_AN_INDEX, Card, Detection, Detections, Kind
from vision.read.manifest import ManifestError, ReaderManifest
from vision.read.policy import ReadPolicy, judge
from vision.read.profile import Recalibration
from vision.read.stages import classify_crops, detect_at_scale, prepare_detector

# Two corners of one card lie a card's diagonal apart: about 6 index heights on poker and
# bridge cards. Farther than this many index sides, they cannot be the same card.
# This, CARD_REACH and SAME_QUAD are the geometry of a card's corners and outline, not
# decisions about what was read: they stay here, out of the read policy (vision.read.policy).
MAX_CORNER_SPAN = 10.0


@dataclass(frozen=True)
class CornerReadings:
    """The corner indices read in a frame, left to right, and the rank (:data:`CARD_RANKS`)
    and suit (:data:`CARD_SUITS`) probabilities of each, row for row: what
    :meth:`CardReader.merge` makes cards of."""

    indices: tuple[Detection, ...]
    rank_p: np.ndarray
    suit_p: np.ndarray

    def without(self, drop: np.ndarray) -> CornerReadings:
        """These readings but the indices where ``drop`` is true."""
        keep = np.flatnonzero(~np.asarray(drop, bool))
        return CornerReadings(tuple(self.indices[k] for k in keep), self.rank_p[keep], self.suit_p[keep])


class CardReader:
    """Reads playing-card corner indices from BGR frames (loaded by :func:`vision.read.reader.load_reader`).

    Its decisions are its ``policy``'s card knobs (:class:`~vision.read.policy.ReadPolicy`;
    default: the card manifest's own); ``threshold`` overrides the policy's reporting threshold."""

    def __init__(
        self, manifest: ReaderManifest, detector: Model, classifier: Model, threshold: float | None = None,
        turns: int | None = None, body: Model | None = None, policy: ReadPolicy | None = None,
    ) -> None:
        cls = manifest.classifier
        if tuple(cls.faces) not in (CARD_RANKS, (*CARD_RANKS, NOT_AN_INDEX)) or tuple(cls.colours) != CARD_SUITS:
            raise ManifestError(
                f"card classifier classes {list(cls.faces)} / {list(cls.colours)} are not the ranks {list(CARD_RANKS)} "
                f"(and optionally {NOT_AN_INDEX!r}) and suits {list(CARD_SUITS)}"
            )
        if manifest.specialists:
            # A suit specialist read no better than the classifier's suit head (model card,
            # *Tried and not kept*), so the card reader asks no specialist of any kind.
            raise ManifestError(f"the card reader has no specialists; the card manifest names "
                                f"{', '.join(spec.file for spec in manifest.specialists)}")
        if (body is None) != (manifest.body is None):
            raise ManifestError("the card body model goes with the card manifest's body entry")
        if manifest.body is not None:
            check_spec(manifest.body)
        self.manifest = manifest
        self.detector = detector
        self.classifier = classifier
        self.body = body
        policy = ReadPolicy.from_manifests(None, manifest) if policy is None else policy
        if threshold is not None:  # out of range: a PolicyError (a ValueError)
            policy = replace(policy, cards=replace(policy.cards, threshold=float(threshold)))
        self.policy = policy
        # the manifest's detector deciding as the policy does: what the stages are handed
        self.detector_spec = policy.card_detector.on(self.manifest.detector)
        if turns is not None and turns != cls.turns:  # the spec checks the count
            self.manifest = replace(manifest, classifier=replace(cls, turns=int(turns)))
        # A table's profile (vision.read.profile): the rank and suit recalibrations, or None.
        self.recalibration: tuple[Recalibration, Recalibration | None] | None = None

    @property
    def threshold(self) -> float:
        """The rank x suit confidence below which a card is flagged uncertain (the policy's)."""
        return self.policy.cards.threshold

    def _same(self, view: CardReader) -> CardReader:
        view.recalibration = self.recalibration
        return view

    @property
    def base_models(self) -> dict[str, str]:
        """The card models whose readings a profile recalibrates: file -> sha256."""
        specs = [self.manifest.detector, self.manifest.classifier]
        return {spec.file: spec.sha256 for spec in specs}

    def with_recalibration(self, ranks: Recalibration | None, suits: Recalibration | None = None) -> CardReader:
        """The same reader with a table's rank (and suit) recalibration applied to every index;
        None: the base reading."""
        view = copy.copy(self)
        view.recalibration = None if ranks is None else (ranks, suits)
        return view

    @property
    def turns(self) -> int:
        """Quarter turns each index crop is read at (``classifier.turns`` in the manifest)."""
        return self.manifest.classifier.turns

    @property
    def info(self) -> dict[str, Any]:
        det, cls, knobs = self.detector_spec, self.manifest.classifier, self.policy.card_detector
        return {
            "detector": {"file": det.file, "sha256": det.sha256, "imgsz": det.imgsz, "photo_imgsz": det.still_imgsz},
            "classifier": {"file": cls.file, "sha256": cls.sha256, "size": cls.size, "turns": self.turns},
            "body": None if self.manifest.body is None else
            {"file": self.manifest.body.file, "sha256": self.manifest.body.sha256, "size": self.manifest.body.size},
            "threshold": self.threshold,
            "rejects_non_indices": self.rejects,
            "detector_thresholds": {"conf": knobs.conf, "sure": knobs.sure, "iou": knobs.iou},
            "trained": self.manifest.created,
        }

    def with_turns(self, turns: int) -> CardReader:
        """The same models, reading each index ``turns`` ways a quarter turn apart (1: once;
        what the turns cost and gain: ``tableref bench``, ``tableref eval --card-turns``)."""
        return self._same(CardReader(self.manifest, self.detector, self.classifier, None, turns,
                                     self.body, self.policy))

    def without_body(self) -> CardReader:
        """The same models without the card body classifier: cards read from their corners alone."""
        if self.body is None:
            return self
        return self._same(CardReader(replace(self.manifest, body=None), self.detector, self.classifier,
                                     policy=self.policy))

    @property
    def imgsz(self) -> int:
        """The detector's input size this reader detects at."""
        return self.manifest.detector.imgsz

    @property
    def photo_imgsz(self) -> int:
        """The detector's input size for still photos (``photo_imgsz`` in the manifest, else
        the live frame's ``imgsz``)."""
        return self.detector_spec.still_imgsz

    def at_imgsz(self, imgsz: int) -> CardReader:
        """The same models, detecting at input size ``imgsz`` (a multiple of the stride).

        Live frames are read at the manifest's ``imgsz``; a still photo, whose reading may
        take longer, at :attr:`photo_imgsz`, where smaller and fainter indices are found."""
        det = self.manifest.detector
        if imgsz <= 0 or imgsz % det.stride:
            raise ValueError(f"card detector input size must be a positive multiple of {det.stride}, got {imgsz}")
        if imgsz == det.imgsz:
            return self
        return self._same(CardReader(replace(self.manifest, detector=replace(det, imgsz=int(imgsz))), self.detector,
                                     self.classifier, body=self.body, policy=self.policy))

    def prepare(self, height: int, width: int) -> None:
        prepare_detector(self.detector, self.detector_spec, height, width)

    def detect(self, image: np.ndarray, photo: bool = False) -> Detections:
        """Corner-index boxes in ``image`` after confidence filtering and NMS, and a
        zoomed-out look when the indices are too large for the detector (a close-up;
        :func:`~vision.read.stages.detect_zoomed_out`). A ``photo`` is also looked at zoomed out
        when no index was found, and zoomed in when it is large and its indices small for
        the detector (a wide photo; :func:`~vision.read.stages.detect_zoomed_in`)."""
        return replace(detect_at_scale(self.detector, self.detector_spec, image, photo), kinds=Kind.CARD)

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities for each index box (one batched call), the mean over
        ``turns`` quarter turns of its crop: the classifier learnt indices at every angle, and
        on validation renders the mean of four readings was right more often, and more often
        sure, than one (see the model card). In a frame without colour
        (:func:`~vision.read.colourless.colourless`) every suit is equally likely: the
        classifier tells a heart from a spade mostly by its colour."""
        rank_p, suit_p = self.classify_base(image, boxes)
        if self.recalibration is not None and len(rank_p):
            ranks, suits = self.recalibration
            rank_p = ranks.apply(rank_p)
            if suits is not None:
                suit_p = suits.apply(suit_p)
        if len(suit_p) and colourless(image, self.policy.colourless_within):
            suit_p = unknown_suits(suit_p)
        return rank_p, suit_p

    def classify_base(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`classify` without the table's profile."""
        return classify_crops(self.classifier, self.manifest.classifier, image, boxes)

    @property
    def rejects(self) -> bool:
        """Whether the classifier can say a box is no corner index (:data:`NOT_AN_INDEX`)."""
        return len(self.manifest.classifier.faces) > len(CARD_RANKS)

    def label(self, boxes: np.ndarray, rank_p: np.ndarray, suit_p: np.ndarray, box_scores: np.ndarray | None = None) -> tuple[Detection, ...]:
        """One ``card`` detection per index box, left to right (``box_scores``: the detector's),
        but for boxes read as :data:`NOT_AN_INDEX` with probability ``no_index_drop`` or more."""
        return self._label_rows(boxes, rank_p, suit_p, box_scores)[1]

    def _label_rows(
        self, boxes: np.ndarray, rank_p: np.ndarray, suit_p: np.ndarray, box_scores: np.ndarray | None,
    ) -> tuple[list[int], tuple[Detection, ...]]:
        """:meth:`label`, and the row of each detection in the inputs."""
        sure = self.policy.card_detector.sure
        rows, out = [], []
        for i in np.argsort(boxes[:, 0] + boxes[:, 2], kind="stable") if len(boxes) else ():
            if self.rejects and float(rank_p[i, len(CARD_RANKS)]) >= self.policy.cards.no_index_drop:
                continue
            r, s = int(rank_p[i, : len(CARD_RANKS)].argmax()), int(suit_p[i].argmax())
            score = min(1.0, max(0.0, float(rank_p[i, r]) * float(suit_p[i, s])))
            judged = judge(score, self.threshold, box_scores is not None and float(box_scores[i]) < sure)
            rows.append(int(i))
            out.append(
                Detection(
                    kind="card",
                    face=CARD_RANKS[r] + CARD_SUITS[s],
                    colour=None,
                    box=tuple(float(v) for v in boxes[i]),  # type: ignore[arg-type]
                    score=score,
                    uncertain=bool(judged.uncertain),
                    box_score=None if box_scores is None else round(float(box_scores[i]), 4),
                    alternatives=(card_alternatives(rank_p[i], suit_p[i], self.policy.alternatives)
                                  if judged.face_alone else ()),
                )
            )
        return rows, tuple(out)

    def read(self, image: np.ndarray, photo: bool = False) -> tuple[tuple[Detection, ...], tuple[Detection, ...]]:
        """The corner indices of a BGR frame one by one (:meth:`read_indices`), and the cards
        they make, one object per card (:func:`group_corners`, with the frame).

        A card seen at two corners is read from both: its rank and suit probabilities are
        the normalised products of its corners' (two views of one card). It is sure when
        that reading's score reaches the threshold and one corner at least was sure on its
        own, and the corners read the same suit. So two corners that disagree, a sure 5H and
        an unsure 3H, make one card: sure of 5H when the unsure corner leaves room for it,
        else uncertain, never two cards; a
        sure 5S and an unsure 5C make an uncertain 5S.

        A ``photo`` may be looked at again zoomed out or in (:meth:`detect`).
        """
        corners = self.read_corners(image, photo)
        return corners.indices, self.merge(corners, image)

    def corners_at(self, image: np.ndarray, boxes: np.ndarray, box_scores: np.ndarray | None = None) -> CornerReadings:
        """The corner indices at ``boxes`` one by one, with the probabilities :meth:`merge`
        joins a card's corners by: the boxes :meth:`read_corners` finds (``box_scores``: the
        detector's), or known ones (labelled: ``tableref eval --gt-boxes`` scores the
        classifier and the merge without the detector; None: no box is in doubt)."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        rank_p, suit_p = self.classify(image, boxes)
        rows, indices = self._label_rows(boxes, rank_p, suit_p, box_scores)
        return CornerReadings(indices, rank_p[rows, : len(CARD_RANKS)], suit_p[rows])

    def read_corners(self, image: np.ndarray, photo: bool = False) -> CornerReadings:
        """The corner indices of a BGR frame one by one (:meth:`corners_at` the boxes the
        detector finds): the first half of :meth:`read`."""
        found = self.detect(image, photo)
        return self.corners_at(image, found.boxes, found.scores)

    def merge(self, corners: CornerReadings, image: np.ndarray | None = None) -> tuple[Detection, ...]:
        """The cards ``corners`` make, one object per card (the second half of :meth:`read`).

        With a body model and the frame, each card whose outline is found is also read from
        its body (:mod:`vision.read.card_body`), a third view beside its corners: its probabilities
        join the corners' product, the body's ``court`` standing for jack, queen and king
        alike. Where the paper does not stand out from the table, a card's two corners of one
        rank, not sure and alike, give its outline from the frame's edges
        (:func:`vision.read.card_edges.outline_between`). A card no corner was sure of becomes sure
        when its body is sure of a rank from ace to ten and of a suit, and the joint reading of
        rank and suit reaches the threshold: on a small or blurred card the pips still count
        when the index is a smudge; or when its corners read one court card, the surest unsure
        only for a faint box, and the body is sure of a court card of that suit. Corners that read
        different suits leave the card uncertain, unless the body is sure of the suit that a
        sure corner reads, or is sure of a pip rank and a suit that a corner reads while every
        corner reading another suit is unsure."""
        indices = corners.indices
        groups, found = self._cards(corners, image, by_outline=self.body is not None)
        if self.body is not None and image is not None:
            found = [outline_between(image, indices[g[0]].box, indices[g[1]].box)
                     if o is None and _one_rank_pair(g, indices) else o for g, o in zip(groups, found)]
        bodies = self._read_bodies(image, found)
        cards = []
        for group, body in zip(groups, bodies):
            if len(group) == 1 and body is None:
                cards.append(indices[group[0]])
                continue
            ranks = np.log(np.clip(corners.rank_p[group], 1e-9, None)).sum(axis=0)
            suits = np.log(np.clip(corners.suit_p[group], 1e-9, None)).sum(axis=0)
            body_decides = False
            if body is not None:
                body_ranks, body_suits = body
                ranks = ranks + np.log(np.clip(as_index_ranks(body_ranks), 1e-9, None))
                suits = suits + np.log(np.clip(body_suits, 1e-9, None))
                top = int(body_ranks.argmax())
                # Of the suit too: unsure corners and a body unsure of the suit made a 6D a sure
                # 6S on a validation still.
                body_decides = (BODY_RANKS[top] != COURT and float(body_ranks[top]) >= self.threshold
                                and float(body_suits.max()) >= self.threshold)
            ranks, suits = np.exp(ranks - ranks.max()), np.exp(suits - suits.max())
            ranks, suits = ranks / ranks.sum(), suits / suits.sum()
            r, s = int(ranks.argmax()), int(suits.argmax())
            score = float(ranks[r] * suits[s])
            views = [indices[k] for k in group]
            if body_decides and (CARD_RANKS[r] != BODY_RANKS[top] or s != int(body_suits.argmax())):
                body_decides = False  # the corners outweighed it: the body cannot vouch for another card
            # Sure only when a corner (or the body) was sure of itself: on validation renders,
            # cards whose corners were each unsure were wrong 1 time in 9 even at a joint 0.99
            # (the two views share the blur and the light), so their score stays their best corner's.
            unsure_views = all(c.uncertain for c in views) and not body_decides
            if unsure_views and body is not None and _faint_court_pair(views, body, self.threshold):
                unsure_views = False
            if unsure_views:
                score = min(score, max(c.score for c in views))
            # Corners that read different suits leave the suit open, whatever their product:
            # at 640x480 (4 px suits) the surer corner was the wrong one in both wrong
            # validation reveals, a club read as a spade (see the model card).
            # Unless the body, whose pips are several times an index's suit, is sure of the suit a
            # corner reads, and that corner is sure (two views of three agree, each sure),
            # or the body is sure of the pip rank too and only unsure corners read another suit: a
            # stray index grouped with the card, or a 4 px suit smudged.
            shown = [Card.parse(c.face) for c in views]
            suits_differ = len({card.suit for card in shown}) > 1
            if suits_differ and body is not None and float(body[1][s]) >= self.threshold:
                agree = [c for c, card in zip(views, shown) if card.suit_index == s]
                dissent_sure = any(not c.uncertain for c, card in zip(views, shown) if card.suit_index != s)
                suits_differ = not (any(not c.uncertain for c in agree)
                                    or (body_decides and bool(agree) and not dissent_sure))
            face = CARD_RANKS[r] + CARD_SUITS[s]
            uncertain = bool(judge(score, self.threshold, unsure_views, suits_differ).uncertain)
            # What an unsure card may show: the two views' joint reading, and each corner's own.
            joint = card_alternatives(ranks, suits, self.policy.alternatives) if uncertain else ()
            cards.append(Detection(
                kind="card", face=face, colour=None, box=_union(views), score=min(1.0, score), uncertain=uncertain,
                alternatives=unsure_faces([face, *joint, *(c.face for c in views)], views) if joint else (),
            ))
        return _one_deck(cards, self.threshold)

    def _cards(self, corners: CornerReadings, image: np.ndarray | None, by_outline: bool, every_card: bool = False,
               ) -> tuple[list[list[int]], list[CardOutline | None]]:
        """Which indices are one card's (:func:`group_corners`), and with ``by_outline`` and the
        frame, as the cards' outlines say (:func:`cards_by_outline`), with each card's outline.
        The outline of a card its corners decide (:func:`decided_by_corners`) is looked for
        only with ``every_card``."""
        indices = corners.indices
        outlines: dict[int, CardOutline | None] = {}
        groups = group_corners(indices, image=image, outlines=outlines)
        if not by_outline or image is None:
            return groups, [None] * len(groups)
        found = [None if not every_card and decided_by_corners(group, indices)
                 else self._outline_of(group, indices, image, outlines) for group in groups]
        return cards_by_outline(groups, found, indices)

    def outlines(self, image: np.ndarray) -> list[np.ndarray]:
        """The corners of each card outline in a BGR frame (read as a live frame) whose body
        a body model would read, to train it on: what it is handed at read time, and the
        outlines of the cards its corners decide too (body run BC learnt from those, and
        more crops teach it more)."""
        found = self._cards(self.read_corners(image), image, by_outline=True, every_card=True)[1]
        return [o.corners for o in found if o is not None]

    @staticmethod
    def _outline_of(group: Sequence[int], indices: Sequence[Detection], image: np.ndarray,
                    outlines: dict[int, CardOutline | None]) -> CardOutline | None:
        """The outline of the card a group of indices is, looked for around its surest index
        first (outlines found are kept in ``outlines``), or None."""
        for k in sorted(group, key=lambda k: (indices[k].uncertain, -indices[k].score)):
            if k not in outlines:
                outlines[k] = outline_at(image, indices[k].box)
            if outlines[k] is not None:
                return outlines[k]
        return None

    def _read_bodies(self, image: np.ndarray | None, found: Sequence[CardOutline | None],
                     ) -> list[tuple[np.ndarray, np.ndarray] | None]:
        """The body reading (rank, suit probabilities) of each card whose outline was
        ``found``, in one call; None for the others, and for all without a body model."""
        quads = [k for k, o in enumerate(found) if o is not None]
        if self.body is None or image is None or self.manifest.body is None or not quads:
            return [None] * len(found)
        rank_p, suit_p = read_bodies(self.body, self.manifest.body, image, [found[k].corners for k in quads])
        if colourless(image, self.policy.colourless_within):
            suit_p = unknown_suits(suit_p)
        read = {k: (rank_p[i], suit_p[i]) for i, k in enumerate(quads)}
        return [read.get(k) for k in range(len(found))]

    def read_indices(self, image: np.ndarray) -> tuple[Detection, ...]:
        """Every corner index in a BGR frame, each with its own reading (not merged)."""
        return self.read_corners(image).indices


def unknown_suits(suit_p: np.ndarray) -> np.ndarray:
    """Suit probabilities that say nothing: each suit equally likely, for each row.

    >>> unknown_suits(np.array([[0.9, 0.05, 0.03, 0.02]])).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """
    suit_p = np.asarray(suit_p, np.float32)
    return np.full_like(suit_p, 1.0 / suit_p.shape[1])


SUIT_COLOURS = (("S", "C"), ("H", "D"))
"""The suits of one colour, which the classifier confuses on small indices; the colour
itself it nearly always reads right (see the model card)."""


def _side(d: Detection) -> float:
    x1, y1, x2, y2 = d.box
    return max(x2 - x1, y2 - y1, 1.0)


def _faint_court_pair(views: Sequence[Detection], body: tuple[np.ndarray, np.ndarray], threshold: float) -> bool:
    """Whether a card's corners, none of them sure, are settled by its body all the same: two
    or more corners read one face, the surest of them is unsure only because the detector
    doubts its box (its reading reaches ``threshold``), and the body is sure of a court card
    and of that suit. Each alone was not enough: two unsure corners of one court
    card and a sure court body were wrong 1 time in 7, and a pair unsure only for their boxes
    was once no card at all, where here the outline the body was read from is the card's.

    >>> queen = Detection("card", "QD", None, (0, 0, 8, 12), 0.95, uncertain=True, box_score=0.3)
    >>> other = Detection("card", "QD", None, (50, 70, 58, 82), 0.7, uncertain=True, box_score=0.6)
    >>> body = (np.eye(len(BODY_RANKS))[BODY_RANKS.index(COURT)], np.array([0.0, 0.02, 0.97, 0.01]))
    >>> _faint_court_pair([queen, other], body, 0.825), _faint_court_pair([replace(queen, score=0.8), other], body, 0.825)
    (True, False)
    """
    if len(views) < 2 or len({c.face for c in views}) > 1 or max(c.score for c in views) < threshold:
        return False
    ranks, suits = body
    suit = Card.parse(views[0].face).suit_index
    return (BODY_RANKS[int(ranks.argmax())] == COURT and float(ranks.max()) >= threshold
            and int(suits.argmax()) == suit and float(suits[suit]) >= threshold)


def _one_rank_pair(group: Sequence[int], indices: Sequence[Detection]) -> bool:
    """Whether ``group`` is two indices of one rank that their readings alone do not decide:
    a card whose outline may be inferred from its corners (:func:`outline_between`)."""
    return (len(group) == 2 and Card.parse(indices[group[0]].face).rank == Card.parse(indices[group[1]].face).rank
            and not decided_by_corners(group, indices))


def _one_rank_one_colour(a: Detection, b: Detection) -> bool:
    """Whether two readings differ only between the two suits of one colour (5S and 5C)."""
    x, y = Card.parse(a.face), Card.parse(b.face)
    return x.rank == y.rank and any({x.suit, y.suit} <= set(pair) for pair in SUIT_COLOURS)


def _near(a: Detection, b: Detection, span: float) -> bool:
    (ax, ay), (bx, by) = a.centre, b.centre
    return float(np.hypot(ax - bx, ay - by)) <= span * max(_side(a), _side(b))


def _union(corners: Sequence[Detection]) -> tuple[float, float, float, float]:
    boxes = np.array([o.box for o in corners], np.float64)
    return (float(boxes[:, 0].min()), float(boxes[:, 1].min()), float(boxes[:, 2].max()), float(boxes[:, 3].max()))


def _one_deck(cards: Sequence[Detection], threshold: float) -> tuple[Detection, ...]:
    """``cards`` left to right, every copy of a card seen more than once uncertain (one deck
    holds each card once: a doubt for :func:`~vision.read.policy.judge`, beside the card's own)."""
    seen = Counter(c.face for c in cards)
    flagged = [replace(c, uncertain=bool(judge(c.score, threshold, c.uncertain, True).uncertain), alternatives=())
               if seen[c.face] > 1 else c for c in cards]
    return tuple(sorted(flagged, key=lambda d: (d.box[0] + d.box[2], d.box[1])))


def group_corners(
    indices: Sequence[Detection], span: float = MAX_CORNER_SPAN, image: np.ndarray | None = None,
    outlines: dict[int, CardOutline | None] | None = None,
) -> list[list[int]]:
    """Which indices are one card's corners, as lists of positions in ``indices``.

    Indices with the same reading within ``span`` index sides of each other (linked in a
    chain) are one card: Doubt is played with one deck. With the frame (``image``), two
    that read differently are also one card when they lie at opposite corners of one
    card's outline (:class:`vision.read.card_outline.CardOutline`), looked for around the less
    sure index first, then around the other. Outlines cost time, so they are tried only
    for pairs where one index at least is unsure (a sure reading is right 99.6 % of the
    time), or that read one rank in the two suits of one colour: two sure corners of one
    card read so when the small suit is misread (spades for clubs, hearts for diamonds),
    and counted as two cards they make the reveal's count wrong. But two groups that each
    read alike at two sure corners or more are two cards, whatever an outline says: one
    card's small suit misread the same way at both its sure corners is rarer than two cards
    of one rank side by side (a Doubt play), whose papers touching make one card-shaped
    outline. Nor does an outline pair two corners when it holds a sure index
    midway along it (:func:`_prints_off_its_corners`): that is the corners between two such
    cards. The outlines found (None where there is none) are kept in ``outlines``, by
    position, when it is given.
    """
    parent = list(range(len(indices)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    outlines = {} if outlines is None else outlines
    for i, a in enumerate(indices):
        for j in range(i + 1, len(indices)):
            if a.face == indices[j].face and root(i) != root(j) and _near(a, indices[j], span):
                parent[root(j)] = root(i)
    by_reading = {i: root(i) for i in range(len(indices))}
    decided = _decided_groups(indices, by_reading)
    for i, a in enumerate(indices):
        for j in range(i + 1, len(indices)):
            b = indices[j]
            if a.face == b.face or root(i) == root(j) or not _near(a, b, span) or image is None:
                continue
            if by_reading[i] in decided and by_reading[j] in decided:
                continue  # two cards, each read the same at two sure corners
            if a.uncertain or b.uncertain or _one_rank_one_colour(a, b):
                k, o = (i, j) if (a.uncertain, -a.score) >= (b.uncertain, -b.score) else (j, i)
                for x, y in ((k, o), (o, k)):
                    if x not in outlines:
                        outlines[x] = outline_at(image, indices[x].box)
                    found = outlines[x]
                    if (found is not None and found.pairs(indices[x].box, indices[y].box)
                            and not _prints_off_its_corners(found, indices, (x, y))):
                        parent[root(j)] = root(i)
                        break
    groups: dict[int, list[int]] = {}
    for i in range(len(indices)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _prints_off_its_corners(outline: CardOutline, indices: Sequence[Detection], pair: tuple[int, int]) -> bool:
    """Whether ``outline`` holds a sure index other than ``pair`` away from its corners: two
    cards side by side, their papers touching, whose outline pairs one card's corner with
    the other's; the two corners between them lie midway along its long sides. One card
    prints its indices at its corners only, and a pip is seldom read surely as an index."""
    return any(k not in pair and not d.uncertain and outline.contains(d.centre, margin=0.0)
               and not outline.at_corner(d.box) for k, d in enumerate(indices))


def _decided_groups(indices: Sequence[Detection], root: dict[int, int]) -> set[int]:
    """The roots (``root``: each index's group) of the groups :func:`_sure_alike`."""
    groups: dict[int, list[Detection]] = {}
    for i, r in root.items():
        groups.setdefault(r, []).append(indices[i])
    return {r for r, members in groups.items() if _sure_alike(members)}


def _sure_alike(members: Sequence[Detection]) -> bool:
    """Whether ``members`` are two corner readings or more, each sure, all alike."""
    return len(members) >= 2 and not any(d.uncertain for d in members) and len({d.face for d in members}) == 1


CARD_REACH = 2.0
"""A card lies within half the span of its two corner indices, plus this many index sides,
of their middle (the indices sit at its corners)."""


def decided_by_corners(group: Sequence[int], indices: Sequence[Detection]) -> bool:
    """Whether the card of the indices ``group`` (positions in ``indices``) is decided by its
    corners alone, so that its outline is not looked for: two corners or more, each sure of the
    same reading, and no index of another group on the card (within :data:`CARD_REACH`
    index sides of the disc its corners span), which only its outline could show to be its
    own print (:func:`cards_by_outline`). Such a card's body would be read as a third view of
    what two sure corners already agree on (sure readings are right 99.6 % of the time), and
    looking for outlines is most of what a card costs (model card, *Speed*).

    >>> from vision.read.detections import Detection as D
    >>> a, b = D("card", "7S", None, (0, 0, 10, 20), 0.99), D("card", "7S", None, (60, 90, 70, 110), 0.98)
    >>> decided_by_corners([0, 1], [a, b])
    True
    >>> decided_by_corners([0, 1], [a, b, D("card", "4D", None, (30, 50, 40, 70), 0.6, uncertain=True)])
    False
    >>> decided_by_corners([0, 1], [a, D("card", "7S", None, (60, 90, 70, 110), 0.7, uncertain=True)])
    False
    """
    members = [indices[k] for k in group]
    if not _sure_alike(members):
        return False
    centres = np.array([d.centre for d in members], np.float64)
    middle = centres.mean(axis=0)
    reach = float(np.hypot(*(centres - middle).T).max()) + CARD_REACH * max(_side(d) for d in members)
    inside = set(group)
    return all(float(np.hypot(*(np.array(d.centre) - middle))) > reach
               for k, d in enumerate(indices) if k not in inside)


def cards_by_outline(
    groups: Sequence[Sequence[int]], found: Sequence[CardOutline | None], indices: Sequence[Detection],
) -> tuple[list[list[int]], list[CardOutline | None]]:
    """Cards as their outlines say: the groups of :func:`group_corners` (with the outline
    ``found`` for each, or None), where every index lying on a card whose outline was found
    is that card's. One at a corner of it is one of its indices, read into it; one away from
    its corners is the card's own print (a pip, the court figure) taken for an index, and is
    left out. One off the card is another card's, chained to the group by reading alike
    (:func:`group_corners`; a misread corner of a neighbour), and those make a card of their
    own, without an outline. Two groups whose indices all lie on one outline are one card. An outline that
    holds the middle of another group's own, smaller outline (not the same quadrilateral), or a sure index of
    another group (two sure readings that group_corners kept apart name two cards), is two
    cards taken for one and no card's outline. Without this, a webcam-sized card's pips read
    as more cards, and the reveal's count is wrong.

    A found outline is one card's paper alone (convex, four straight sides, a card's shape),
    so no other card's index lies on it: a card on top of it would break that shape.
    Returns the groups (indices at a card's corners, or all of a group no outline holds)
    and the outline of each.
    """
    given, found = tuple(found), list(found)
    for g, outline in enumerate(given):
        if outline is None:
            continue
        holds_a_card = any(other is not None and not same_quad(outline, other) and outline.contains(_centre_of(other))
                           and _area(outline) > _area(other) for other in given)
        holds_a_sure_index = any(h != g and not indices[k].uncertain and outline.contains(indices[k].centre)
                                 for h, group in enumerate(groups) for k in group)
        if holds_a_card or holds_a_sure_index:
            found[g] = None  # two cards taken for one
    cards: list[tuple[list[int], CardOutline | None]] = []
    for g in sorted(range(len(groups)), key=lambda g: found[g] is None):  # outlined cards first
        members = list(groups[g])
        host = next((c for c in cards if c[1] is not None and (found[g] is None or same_quad(c[1], found[g]))
                     and all(c[1].contains(indices[k].centre) for k in members)), None)
        if host is not None:
            host[0].extend(members)
        else:
            cards.append((members, found[g]))
    out: list[tuple[list[int], CardOutline | None]] = []
    for members, outline in cards:
        at_corners = [] if outline is None else [k for k in members if outline.at_corner(indices[k].box)]
        if not at_corners:
            out.append((sorted(members), outline))
            continue
        out.append((sorted(at_corners), outline))
        elsewhere = [k for k in members if k not in at_corners and not outline.contains(indices[k].centre)]
        if elsewhere:  # another card's indices, chained to this group by a like reading
            out.append((sorted(elsewhere), None))
    out.sort(key=lambda card: card[0][0])
    return [members for members, _ in out], [outline for _, outline in out]


SAME_QUAD = 0.7
"""Two outlines are one card's when they overlap by this much of their union (IoU)."""


def same_quad(a: CardOutline, b: CardOutline) -> bool:
    """Whether two card outlines are the same card's: IoU of their quadrilaterals at least :data:`SAME_QUAD`."""
    if a is b:
        return True
    inter, _ = cv2.intersectConvexConvex(a.corners.astype(np.float32), b.corners.astype(np.float32))
    union = cv2.contourArea(a.corners.astype(np.float32)) + cv2.contourArea(b.corners.astype(np.float32)) - inter
    return union > 0 and inter / union >= SAME_QUAD


def _area(outline: CardOutline) -> float:
    return float(cv2.contourArea(outline.corners.astype(np.float32)))


def _centre_of(outline: CardOutline) -> tuple[float, float]:
    c = outline.corners.mean(axis=0)
    return float(c[0]), float(c[1])


