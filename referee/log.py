"""Game logs in the ``tableref-game/1`` format (shared/docs/game-log.md).

>>> log = GameLog.from_json({"format": "tableref-game/1", "game": "liars-dice",
...     "options": {}, "players": ["Wanjin", "Saewoon"], "events": []})
>>> log.players
('Wanjin', 'Saewoon')
>>> log.append({"type": "start", "opener": "Wanjin"}).events[-1]["type"]
'start'
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import MalformedEvent, MalformedLog
from referee.json_limits import json_flaw

FORMAT = "tableref-game/1"
GAMES = ("liars-dice", "nine-dice", "doubt", "pin456")

#: The largest log file ``tableref replay`` reads: an event is about 80 bytes and a long
#: evening's game a few hundred of them, so 16 MiB (200,000 events) is never a real game.
MAX_LOG_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class GameLog:
    """A validated log header plus its raw events (validated by replay)."""

    game: str
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[Any, ...] = ()

    @classmethod
    def from_json(cls, doc: Any) -> "GameLog":
        """The log ``doc`` holds, refused (:class:`MalformedLog`) before anything copies it when it is
        not one, or is nested too deeply or holds a lone surrogate (:mod:`referee.json_limits`)."""
        if not isinstance(doc, dict):
            raise MalformedLog("the log must be a JSON object", "記録はJSONオブジェクトである必要があります")
        flaw = json_flaw(doc)
        if flaw is not None:
            raise MalformedLog(*flaw)
        if doc.get("format") != FORMAT:
            raise MalformedLog(
                f"the format must be {FORMAT!r}, got {doc.get('format')!r}",
                f"formatは{FORMAT}である必要があります",
            )
        game = doc.get("game")
        if game not in GAMES:
            raise MalformedLog(
                f"unknown game {game!r} (expected one of {', '.join(GAMES)})",
                f"不明なゲーム「{game}」です",
            )
        players = doc.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise MalformedLog("players must be a list of names", "playersは名前のリストである必要があります")
        if any(not p.strip() for p in players):
            raise MalformedLog("player names must not be empty", "プレイヤー名が空です")
        if len(set(players)) != len(players):
            raise MalformedLog("player names must be unique", "プレイヤー名が重複しています")
        options = doc.get("options", {})
        if not isinstance(options, dict):
            raise MalformedLog("options must be a JSON object", "optionsはJSONオブジェクトである必要があります")
        events = doc.get("events")
        if not isinstance(events, list):
            raise MalformedLog("events must be a list", "eventsはリストである必要があります")
        return cls(game=game, players=tuple(players), options=copy.deepcopy(options), events=tuple(copy.deepcopy(events)))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "options": copy.deepcopy(dict(self.options)),
            "players": list(self.players),
            "events": copy.deepcopy(list(self.events)),
        }

    def append(self, event: Mapping[str, Any]) -> "GameLog":
        flaw = json_flaw(dict(event))
        if flaw is not None:
            raise MalformedEvent(*flaw)
        return GameLog(self.game, self.players, self.options, self.events + (copy.deepcopy(dict(event)),))

    def undo(self) -> "GameLog":
        """The log without its last event (how a misread is corrected)."""
        return GameLog(self.game, self.players, self.options, self.events[:-1])
