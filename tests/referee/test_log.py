"""Game-log headers: every malformed document is refused with a reason."""

from __future__ import annotations

import pytest

from referee.errors import MalformedLog
from referee.log import FORMAT, GameLog


def doc(**over):
    base = {"format": FORMAT, "game": "liars-dice", "options": {}, "players": ["A", "B"], "events": []}
    base.update(over)
    return base


def test_valid_header_round_trips():
    log = GameLog.from_json(doc())
    assert log.to_json() == doc()


@pytest.mark.parametrize(
    "bad",
    [
        [],
        "text",
        doc(format="tableref-game/2"),
        doc(game="chess"),
        doc(players="A,B"),
        doc(players=["A", 3]),
        doc(players=["A", "A"]),
        doc(players=["A", " "]),
        doc(options=[1]),
        doc(events={"type": "start"}),
    ],
)
def test_malformed_headers_are_refused(bad):
    with pytest.raises(MalformedLog) as info:
        GameLog.from_json(bad)
    assert info.value.message("en")
    assert info.value.message("ja")


def test_append_and_undo_do_not_mutate():
    log = GameLog.from_json(doc())
    longer = log.append({"type": "start", "opener": "A"})
    assert log.events == ()
    assert longer.undo() == log


def test_from_json_copies_the_document():
    raw = doc(events=[{"type": "start", "opener": "A"}])
    log = GameLog.from_json(raw)
    raw["events"][0]["opener"] = "B"
    assert log.events[0]["opener"] == "A"
