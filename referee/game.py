"""The whole game interface, OpenSpiel style.

A game module (``referee.liars_dice`` ...) exposes one :class:`Rules` value.
Its states are immutable: ``apply`` returns a new state and never changes the
old one, so undo is simply "replay the log without its last event".

Every state answers:

- ``legal_actions()``: every decision a player may take now, as events ready to
  apply (bids, challenges, shouts, plays, stakes ...). Camera readings (reveals,
  rolls) are not decisions and are never listed; ``expects()`` names them.
- ``expects()``: the camera event type the game waits for (``"reveal"``,
  ``"roll"``), or ``None``.
- ``apply(event)``: the next state, or a :class:`~referee.errors.RefereeError`.
- ``is_terminal()`` / ``winner()`` and ``to_json()`` (the contract's state JSON).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

JSON = dict[str, Any]


@runtime_checkable
class Event(Protocol):
    """A typed, immutable game event; ``to_json`` gives its game-log form."""

    def to_json(self) -> JSON: ...


S = TypeVar("S", bound="State")


@runtime_checkable
class State(Protocol):
    def legal_actions(self) -> tuple[Event, ...]: ...

    def expects(self) -> str | None: ...

    def apply(self: S, event: Event) -> S: ...

    def is_terminal(self) -> bool: ...

    def winner(self) -> str | None: ...

    def to_json(self) -> JSON: ...


@dataclass(frozen=True)
class Rules:
    """One game: how to read its options and events and how to start it.

    ``parse_options(raw)`` raises :class:`~referee.errors.InvalidOption`;
    ``new_game(players, options)`` raises it too for a bad player count;
    ``parse_event(raw, players)`` raises :class:`~referee.errors.MalformedEvent`
    or :class:`~referee.errors.UnknownPlayer`.

    ``die_faces`` pairs each face a camera may read on this game's dice with the face the
    game calls it (empty for a card game); ``die_colours`` lists the dice's body colours
    when the game depends on them (None: any). ``dice`` lists the physical dice of the
    game's set, each as its body colour and its six faces, when every roll comes from that
    one set and the game depends on colour (empty: otherwise), so a reading can count them.
    """

    name: str
    min_players: int
    max_players: int
    parse_options: Callable[[Mapping[str, Any]], Any]
    new_game: Callable[[tuple[str, ...], Any], State]
    parse_event: Callable[[Mapping[str, Any], Sequence[str]], Event]
    die_faces: tuple[tuple[str, str], ...] = ()
    die_colours: tuple[str, ...] | None = None
    dice: tuple[tuple[str, tuple[str, ...]], ...] = ()
