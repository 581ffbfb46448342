"""The faces an unsure die (or card) may show, for a verdict that must hold whatever it shows.

A reading under the reporting threshold is flagged uncertain, and a table asks for a
re-read. When only the face is unsure (the box is sure, and the colour where the game
reads one), the reader also lists every face the object may show: the table gives its
verdict when all of them lead to the same outcome (:mod:`web.unsure`). Not part of
``tableref read --json``.

>>> face_alternatives(("ブ", "プ", "ラ"), np.array([0.6, 0.38, 0.02]))
('ブ', 'プ', 'ラ')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.read.detections import CARD_RANKS, CARD_SUITS, Detection
from vision.read.policy import AlternativeKnobs


def face_alternatives(
    faces: Sequence[str], probabilities: np.ndarray, knobs: AlternativeKnobs = AlternativeKnobs(),
) -> tuple[str, ...]:
    """The faces with at least ``knobs.floor`` probability, likeliest first; none when
    together they hold less than ``knobs.mass`` (the rest is spread thin, or on faces the
    table's dice cannot show; the values: :class:`~vision.read.policy.AlternativeKnobs`).

    >>> face_alternatives(("4", "5", "6"), np.array([0.55, 0.01, 0.44]))
    ('4', '6')
    >>> face_alternatives(("4", "5", "6"), np.array([0.45, 0.01, 0.3]))
    ()
    """
    p = np.asarray(probabilities, np.float64)
    order = _likely(p, knobs.floor)
    if p[order].sum() < knobs.mass:
        return ()
    return tuple(faces[j] for j in order)


def card_alternatives(
    rank_p: np.ndarray, suit_p: np.ndarray, knobs: AlternativeKnobs = AlternativeKnobs(), most: int = 16,
) -> tuple[str, ...]:
    """Every card (rank and suit) an unsure corner index may show, likeliest first: the ranks
    and the suits with at least ``knobs.floor`` probability each, when both lists hold
    ``knobs.mass`` together; none when they do not, or make more than ``most`` cards.

    >>> card_alternatives(np.array([0.9] + [0.1 / 12] * 12), np.array([0.55, 0.0, 0.0, 0.45]))
    ('AS', 'AC')
    """
    p_rank, p_suit = np.asarray(rank_p, np.float64)[: len(CARD_RANKS)], np.asarray(suit_p, np.float64)
    ranks, suits = _likely(p_rank, knobs.floor), _likely(p_suit, knobs.floor)
    if p_rank[ranks].sum() * p_suit[suits].sum() < knobs.mass or len(ranks) * len(suits) > most:
        return ()
    pairs = sorted(((r, s) for r in ranks for s in suits), key=lambda rs: -p_rank[rs[0]] * p_suit[rs[1]])
    return tuple(CARD_RANKS[r] + CARD_SUITS[s] for r, s in pairs)


def _likely(p: np.ndarray, floor: float) -> list[int]:
    """The indices of ``p`` at ``floor`` or more, likeliest first (ties in index order)."""
    return [int(j) for j in np.argsort(-p, kind="stable") if p[int(j)] >= floor]


def unsure_faces(voted: Sequence[str], reads: Sequence[Detection]) -> tuple[str, ...]:
    """Every face an unsure object may show, from several reads of it (a die over a still run,
    a card's corners): the faces ``voted`` (likeliest first), then each read's own
    alternatives. Empty unless every read is of one kind and sure, or unsure of its face
    alone: a read whose box or colour was in doubt leaves the object a re-read.

    >>> a = Detection("die", "5", "white", (0, 0, 9, 9), 0.6, uncertain=True, alternatives=("5", "6"))
    >>> b = Detection("die", "4", "white", (0, 0, 9, 9), 0.9)
    >>> unsure_faces(["5", "4"], [a, b, a])
    ('5', '4', '6')
    >>> unsure_faces(["5"], [a, Detection("die", "5", "white", (0, 0, 9, 9), 0.9, uncertain=True)])
    ()
    """
    if any(d.kind != reads[0].kind or (d.uncertain and not d.alternatives) for d in reads):
        return ()
    return tuple(dict.fromkeys([*voted, *(f for d in reads for f in d.alternatives)]))
