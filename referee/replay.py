"""State is only ever derived by replaying a log.

>>> doc = {"format": "tableref-game/1", "game": "liars-dice", "options": {},
...        "players": ["Wanjin", "Saewoon"],
...        "events": [{"type": "start", "opener": "Wanjin"},
...                   {"type": "bid", "player": "Wanjin", "quantity": 5, "face": "3"},
...                   {"type": "challenge", "player": "Saewoon"},
...                   {"type": "reveal", "dice": ["3"] * 4 + ["wheel"] * 3 + ["2"] * 3}]}
>>> replay_json(doc)["rounds"][0]["loser"]
'Saewoon'
"""

from __future__ import annotations

import importlib
from typing import Any

from referee.errors import InvalidOption, MalformedLog, RefereeError
from referee.game import Rules, State
from referee.log import GameLog

_MODULES = {
    "liars-dice": "referee.liars_dice",
    "nine-dice": "referee.nine_dice",
    "doubt": "referee.doubt",
    "pin456": "referee.pin456",
}


class ReplayError(Exception):
    """A log that cannot be replayed; ``event`` is the failing event's index or None."""

    def __init__(self, error: RefereeError, event: int | None) -> None:
        super().__init__(f"event {event}: {error}" if event is not None else str(error))
        self.error = error
        self.event = event

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        return {"error": self.error.message(lang), "event": self.event, "code": self.error.code}


def rules_for(game: str) -> Rules:
    if game not in _MODULES:
        raise MalformedLog(f"unknown game {game!r}", f"不明なゲーム「{game}」です")
    return importlib.import_module(_MODULES[game]).RULES


def start(log: GameLog) -> State:
    """The state before any event: options and seating checked."""
    rules = rules_for(log.game)
    if not rules.min_players <= len(log.players) <= rules.max_players:
        raise MalformedLog(
            f"{log.game} needs {rules.min_players}-{rules.max_players} players, got {len(log.players)}",
            f"{log.game}は{rules.min_players}〜{rules.max_players}人で遊びます（{len(log.players)}人です）",
        )
    options = rules.parse_options(log.options)
    return rules.new_game(log.players, options)


def replay(log: GameLog) -> State:
    """Apply every event in order; nothing is partially applied on error."""
    try:
        state = start(log)
    except (MalformedLog, InvalidOption) as err:
        raise ReplayError(err, None) from err
    rules = rules_for(log.game)
    for index, raw in enumerate(log.events):
        try:
            state = state.apply(rules.parse_event(raw, log.players))
        except RefereeError as err:
            raise ReplayError(err, index) from err
    return state


def replay_json(doc: Any) -> dict[str, Any]:
    """Replay a raw JSON document and return the contract's state JSON."""
    try:
        log = GameLog.from_json(doc)
    except MalformedLog as err:
        raise ReplayError(err, None) from err
    return replay(log).to_json()
