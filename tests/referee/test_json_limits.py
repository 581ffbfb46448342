"""JSON from outside: one depth limit and no lone surrogates, checked without recursion (issue 84, points 1, 3, 5)."""

from __future__ import annotations

import doctest
import json
from typing import Any

import pytest

from referee import json_limits
from referee.errors import MalformedEvent, MalformedLog
from referee.json_limits import MAX_DEPTH, json_flaw
from referee.log import GameLog
from referee.replay import ReplayError, replay_json


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _log(**fields: Any) -> dict[str, Any]:
    return {"format": "tableref-game/1", "game": "liars-dice", "options": {}, "players": ["A", "B"], "events": [],
            **fields}


def test_doctests() -> None:
    assert doctest.testmod(json_limits).failed == 0


def test_depth_counts_every_container_from_the_outermost() -> None:
    assert json_flaw(_nested(MAX_DEPTH)) is None
    assert json_flaw(_nested(MAX_DEPTH + 1)) is not None
    assert json_flaw({"a": {"b": _nested(MAX_DEPTH - 2)}}) is None
    assert json_flaw({"a": {"b": _nested(MAX_DEPTH - 1)}}) is not None
    assert json_flaw(_nested(100_000)) is not None  # measured without recursion


@pytest.mark.parametrize("value", [
    "\ud800", "a\udfffb", ["ok", "\udc00"], {"\ud800": 1}, {"k": {"j": ["\udbff"]}},
])
def test_lone_surrogates_are_found_in_values_and_keys(value: Any) -> None:
    flaw = json_flaw(value)
    assert flaw is not None and "surrogate" in flaw[0] and "サロゲート" in flaw[1]
    assert all(text.encode("utf-8") for text in flaw)  # the reason itself can be written


def test_paired_surrogates_are_a_character() -> None:
    assert json_flaw(json.loads('{"name": "\\ud83d\\ude00"}')) is None


@pytest.mark.parametrize("depth", [600, 900])
def test_a_deep_log_is_malformed_not_a_recursion_error(depth: int) -> None:
    for doc in (_log(options={"x": _nested(depth)}), _log(events=[{"type": "start", "opener": "A", "x": _nested(depth)}])):
        with pytest.raises(MalformedLog, match=f"more than {MAX_DEPTH} levels"):
            GameLog.from_json(doc)
        with pytest.raises(ReplayError) as info:
            replay_json(doc)
        assert info.value.event is None


def test_a_log_with_a_lone_surrogate_is_malformed() -> None:
    with pytest.raises(MalformedLog, match=r"events\[0\]\.opener holds a lone UTF-16 surrogate"):
        GameLog.from_json(_log(events=[{"type": "start", "opener": "\ud800"}]))


def test_appending_a_deep_event_is_refused_before_it_is_copied() -> None:
    log = GameLog.from_json(_log())
    with pytest.raises(MalformedEvent, match="levels deep"):
        log.append({"type": "start", "opener": "A", "x": _nested(900)})
    with pytest.raises(MalformedEvent, match="surrogate"):
        log.append({"type": "start", "opener": "\ud800"})


@pytest.mark.parametrize("text", ['{"x": NaN}', '{"x": [Infinity]}', '{"x": -Infinity}', '{"x": 1e999}'])
def test_numbers_no_json_can_hold_are_found(text: str) -> None:
    flaw = json_flaw(json.loads(text))  # Python's parser lets them through
    assert flaw is not None and "not a finite number" in flaw[0] and "x" in flaw[0]
    assert json_flaw({"x": 1.5e308, "y": -0.0, "z": 10**400}) is None
