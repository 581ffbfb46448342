"""The reading's value types: Kind, Card and the Detection that carries them."""

from __future__ import annotations

import doctest
import json
from dataclasses import replace

import pytest

import vision.read.detections
from vision.read.detections import (
    CARD_RANKS,
    CARD_SUITS,
    Card,
    Detection,
    DetectionError,
    InvalidCard,
    Kind,
    Reading,
    UnknownKind,
)


def test_doctests() -> None:
    assert doctest.testmod(vision.read.detections).failed == 0


@pytest.mark.parametrize("rank", CARD_RANKS)
@pytest.mark.parametrize("suit", CARD_SUITS)
def test_every_card_parses_and_writes_back(rank: str, suit: str) -> None:
    card = Card.parse(rank + suit)
    assert (card.rank, card.suit) == (rank, suit)
    assert str(card) == rank + suit
    assert Card.parse(str(card)) == card
    assert CARD_RANKS[card.rank_index] == rank and CARD_SUITS[card.suit_index] == suit


def test_indices_follow_the_classifier_order() -> None:
    assert (Card.parse("AS").rank_index, Card.parse("AS").suit_index) == (0, 0)
    assert (Card.parse("KC").rank_index, Card.parse("KC").suit_index) == (12, 3)


@pytest.mark.parametrize("text", ["1H", "10X", "", "H", "10", "AH ", " AH", "ah", "11H", "AHH", "0H", "1OH", "QSH",
                                  "♠A", None, 10, ("A", "H"), ["AH"]])
def test_anything_else_is_refused(text: object) -> None:
    with pytest.raises(InvalidCard) as err:
        Card.parse(text)
    assert err.value.text == text
    assert repr(text) in str(err.value)


def test_the_refusal_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Card.parse("ZZ")
    assert issubclass(InvalidCard, DetectionError) and issubclass(UnknownKind, DetectionError)


@pytest.mark.parametrize("rank, suit", [("1", "H"), ("10", "X"), ("", "H"), ("A", ""), ("A", "h")])
def test_a_card_is_never_built_from_parts_that_are_no_card(rank: str, suit: str) -> None:
    with pytest.raises(InvalidCard):
        Card(rank, suit)


def test_card_is_a_frozen_value() -> None:
    card = Card.parse("7D")
    assert card == Card("7", "D") and hash(card) == hash(Card("7", "D")) and card != Card.parse("7H")
    with pytest.raises(AttributeError):
        card.rank = "8"  # type: ignore[misc]


def test_kind_equals_its_json_string() -> None:
    assert Kind.DIE == "die" and Kind.CARD == "card"
    assert Kind.parse("die") is Kind.DIE and Kind.parse(Kind.CARD) is Kind.CARD
    assert {"die": 1}[Kind.DIE] == 1
    assert json.dumps([Kind.DIE, Kind.CARD]) == '["die", "card"]'
    assert str(Kind.CARD) == "card" and f"{Kind.DIE:>4}" == " die"


def test_a_detection_prints_as_before_and_its_repr_builds_an_equal_one() -> None:
    d = Detection("card", "QS", None, (1.0, 2.0, 3.0, 4.0), 0.5)
    assert repr(d).startswith("Detection(kind='card', face='QS'")
    assert eval(repr(d), {"Detection": Detection}) == d


@pytest.mark.parametrize("kind", ["chip", "Die", "", None, 1])
def test_unknown_kinds_are_refused(kind: object) -> None:
    with pytest.raises(UnknownKind) as err:
        Kind.parse(kind)
    assert err.value.kind == kind


def test_detection_keeps_its_kind_as_a_kind() -> None:
    die = Detection("die", "4", "red", (0, 0, 9, 9), 0.9)
    assert die.kind is Kind.DIE and die.kind == "die"
    assert replace(die, face="5").kind is Kind.DIE
    with pytest.raises(UnknownKind):
        Detection("chip", "4", None, (0, 0, 9, 9), 0.9)


def test_detection_card() -> None:
    card = Detection("card", "10H", None, (0, 0, 9, 9), 0.9)
    assert card.card == Card("10", "H")
    assert Detection("die", "4", "red", (0, 0, 9, 9), 0.9).card is None
    assert Detection("card", "", None, (0, 0, 9, 9), 1.0).card is None  # face down: in play, not read
    with pytest.raises(InvalidCard):
        _ = Detection("card", "10X", None, (0, 0, 9, 9), 0.9).card


def test_json_round_trip_keeps_the_wire_strings() -> None:
    obj = {"kind": "card", "face": "10H", "colour": None, "box": [1.0, 2.0, 3.0, 4.0], "score": 0.9}
    d = Detection.from_json(obj)
    assert d.kind is Kind.CARD and d.card == Card.parse("10H")
    out = d.to_json()
    assert out == obj and type(out["kind"]) is str and type(out["face"]) is str
    assert json.loads(json.dumps(Reading((d,)).to_json()))["objects"] == [obj]


def test_from_json_refuses_an_unknown_kind() -> None:
    with pytest.raises(UnknownKind, match="'chip'"):
        Detection.from_json({"kind": "chip", "face": "4", "box": [0, 0, 9, 9]})


def test_reading_splits_dice_and_cards() -> None:
    die = Detection("die", "4", "red", (0, 0, 9, 9), 0.9)
    card = Detection(Kind.CARD, "QS", None, (0, 0, 9, 9), 0.9)
    reading = Reading((die, card))
    assert reading.dice() == (die,) and reading.cards() == (card,)
