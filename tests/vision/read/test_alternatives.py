"""The faces an unsure die or card may show: enough of them to hold the truth, or none."""

from __future__ import annotations

import doctest

import numpy as np

import vision.read.alternatives as alternatives_mod
from vision.read.alternatives import card_alternatives, face_alternatives


def test_doctests() -> None:
    assert doctest.testmod(alternatives_mod).failed == 0


def test_a_die_whose_probability_is_spread_thin_has_no_alternatives() -> None:
    assert face_alternatives(("4", "5", "6"), np.array([0.5, 0.3, 0.2])) == ("4", "5", "6")
    assert face_alternatives(("4", "5", "6"), np.array([0.5, 0.015, 0.485])) == ("4", "6")
    # a Nine Dice reading whose probability mostly sits on pip faces the table cannot show
    assert face_alternatives(("ガ", "ラ"), np.array([0.44, 0.22])) == ()


def test_a_card_lists_every_rank_and_suit_it_may_show_likeliest_first() -> None:
    rank = np.zeros(14)  # 13 ranks and the classifier's "no index" class, which is never a card
    rank[[5, 8]] = 0.6, 0.38  # 6 or 9
    suit = np.array([0.0, 0.9, 0.1, 0.0])  # hearts, perhaps diamonds
    assert card_alternatives(rank, suit) == ("6H", "9H", "6D", "9D")
    # unsure of the suit alone
    sure_rank = np.zeros(14)
    sure_rank[11] = 1.0
    assert card_alternatives(sure_rank, np.array([0.5, 0.0, 0.0, 0.5])) == ("QS", "QC")
    # the rest of the probability on "no index", or spread over too many cards: none
    rank[13], rank[5] = 0.3, 0.3
    assert card_alternatives(rank, suit) == ()
    assert card_alternatives(np.full(14, 1 / 14), np.full(4, 0.25)) == ()
