"""The table reads card faces as cards (vision.read.detections.Card), never by slicing the string:
Doubt's discard from read cards, and the cards a Doubt verdict highlights."""

from __future__ import annotations

import pytest

from web.errors import NotFourOfAKind
from web.readings import discard_event
from web.verdicts import verdict


def cards(*faces: str) -> list[dict[str, object]]:
    return [{"kind": "card", "face": f} for f in faces]


def test_four_tens_one_of_each_suit_are_a_discard_of_tens() -> None:
    assert discard_event("Mina", cards("10S", "10H", "10D", "10C")) == {"type": "discard", "player": "Mina", "rank": "10"}


@pytest.mark.parametrize("faces", [
    ("QS", "QH", "QD", "QS"),  # a suit twice
    ("QS", "QH", "QD", "KC"),  # another rank
    ("QS", "QH", "QD"),  # three
    ("QW", "QX", "QY", "QZ"),  # no suits: typed by hand, no cards at all
    ("QS", "QH", "QD", "Q"),
    ("1S", "1H", "1D", "1C"),
])
def test_anything_else_is_no_four_of_a_kind(faces: tuple[str, ...]) -> None:
    with pytest.raises(NotFourOfAKind, match=faces[0]):
        discard_event("Mina", cards(*faces))


def test_dice_beside_the_cards_are_not_part_of_the_discard() -> None:
    objects = [*cards("7S", "7H", "7D", "7C"), {"kind": "die", "face": "7"}]
    assert discard_event("Mina", objects)["rank"] == "7"


def test_a_doubt_verdict_highlights_the_cards_off_the_played_rank() -> None:
    after = {"rounds": [{"rank": "10", "player": "Mina", "liar": True, "taker": "Mina", "pile": 3}]}
    v = verdict("doubt", {}, after, cards("10H", "QS", "10C") + [{"kind": "card"}])
    assert v["highlight"] == [1, 3]  # the queen, and a card with no face read
