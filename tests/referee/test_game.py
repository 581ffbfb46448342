"""Each dice game's ``die_faces`` and ``die_colours`` (what a camera may read, and as what)
name only faces and colours the game itself accepts."""

from __future__ import annotations

import pytest

from referee import liars_dice, nine_dice, pin456
from referee.doubt import RULES as DOUBT
from referee.replay import rules_for


def test_liars_dice_reads_a_plain_one_as_the_wheel() -> None:
    faces = dict(liars_dice.RULES.die_faces)
    assert faces["1"] == "wheel" and faces["wheel"] == "wheel"
    assert {liars_dice.Face(v) for v in faces.values()} == set(liars_dice.Face)


def test_nine_dice_faces_and_colours_are_its_letters_and_colours() -> None:
    faces = dict(nine_dice.RULES.die_faces)
    assert {nine_dice.Letter(v) for v in faces.values()} == set(nine_dice.Letter)
    assert nine_dice.RULES.die_colours is not None
    assert {nine_dice.Colour(c) for c in nine_dice.RULES.die_colours} == set(nine_dice.Colour)


def test_pin456_faces_are_those_of_its_dice_set() -> None:
    faces = dict(pin456.RULES.die_faces)
    assert set(faces.values()) == {f for kind in pin456.DICE_SET.kinds for f in kind.faces}
    assert all(pin456.DICE_SET.shows(f) for f in faces.values())


@pytest.mark.parametrize("game", ["liars-dice", "nine-dice", "pin456"])
def test_every_dice_game_names_its_faces(game: str) -> None:
    assert rules_for(game).die_faces


def test_a_card_game_has_no_die_faces() -> None:
    assert DOUBT.die_faces == () and DOUBT.die_colours is None
