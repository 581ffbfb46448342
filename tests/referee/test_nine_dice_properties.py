"""Nine Dice properties: an independent hand oracle, random playouts, replay, fuzzed logs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
from collections import Counter
from itertools import combinations, permutations
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import RefereeError
from referee.log import GameLog
from referee.nine_dice import (
    LAYOUT,
    TOKEN_COLOURS,
    Colour,
    Die,
    EndRound,
    Hand,
    HandKind,
    Letter,
    Roll,
    Shout,
    State,
    check_roll,
    correct_shouts,
    hands,
    new_game,
    parse_event,
    random_roll,
)
from referee.replay import ReplayError, replay, replay_json
from web.cli import main as cli_main

PROPS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAMES = settings(PROPS, max_examples=40)  # each example plays a whole game
COLOURS = ("white", "black", "blue")

# --- An independent oracle: brute force over sets and orderings of dice -------------------

_ORACLE_FIXED = {"ブラフプラスベガス": 12, "プラスベガス": 11, "ラスベガス": 10, "スカラベ": 9, "ブレブレ": 8}
_ORACLE_WORDS = ("プラス", "ベガス", "ブラフ", "ブベラ")
_KANJI = {"white": "白", "black": "黒", "blue": "青"}


def oracle_rank(hand: str) -> int:
    """Strength straight from DECISIONS.md's list (higher is stronger)."""
    if hand in _ORACLE_FIXED:
        return _ORACLE_FIXED[hand]
    if hand == "ナシゴレン":
        return 0
    grade, word = hand[:-3], hand[-3:]
    weak = word == "ブベラ"
    if grade in ("白", "黒", "青"):
        return 7 - weak
    if grade == "3色":
        return 5 - weak
    return 3 - weak


def oracle(dice: list[tuple[str, str]]) -> tuple[set[str], dict[str, frozenset[str]]]:
    """Every hand the dice make, and the colours a colour-paying hand's reward uses."""
    present: set[str] = set()
    pays: dict[str, frozenset[str]] = {}
    idx = range(len(dice))
    for name in _ORACLE_FIXED:
        want = Counter(name)
        candidates = [c for c in combinations(idx, len(name)) if Counter(dice[i][0] for i in c) == want]
        if candidates:
            present.add(name)
            if name == "ブレブレ":
                sets = [frozenset(dice[i][1] for i in c if dice[i][1] in COLOURS) for c in candidates]
                top = max(len(s) for s in sets)
                pays[name] = min((s for s in sets if len(s) == top), key=lambda s: sorted(COLOURS.index(c) for c in s))
    for word in _ORACLE_WORDS:
        two_sets = []
        for perm in permutations(idx, 3):
            if "".join(dice[i][0] for i in perm) != word:
                continue
            used = frozenset(dice[i][1] for i in perm if dice[i][1] in COLOURS)
            if len(used) == 1:
                (only,) = used
                present.add(_KANJI[only] + word)
            elif len(used) == 3:
                present.add("3色" + word)
            elif len(used) == 2:
                present.add("2色" + word)
                two_sets.append(used)
        if two_sets:
            pays["2色" + word] = min(two_sets, key=lambda s: sorted(COLOURS.index(c) for c in s))
    if not present:
        present.add("ナシゴレン")
    return present, pays


def _physical_roll(choices: list[int], expansion: bool, order: list[int]) -> tuple[Die, ...]:
    physical = LAYOUT.basic + ((LAYOUT.expansion,) if expansion else ())
    dice = [Die(p.faces[k], p.colour) for p, k in zip(physical, choices)]
    return tuple(dice[i] for i in order if i < len(dice))


physical_rolls = st.builds(
    _physical_roll,
    st.lists(st.integers(0, 5), min_size=10, max_size=10),
    st.booleans(),
    st.permutations(range(10)),
)
any_dice = st.lists(st.builds(Die, st.sampled_from(Letter), st.sampled_from(Colour)), max_size=10).map(tuple)


def _agree(dice: tuple[Die, ...]) -> None:
    present, pays = oracle([(d.face.value, d.colour.value) for d in dice])
    matches = hands(dice)
    assert {str(m.hand) for m in matches} == present
    assert len(matches) == len(present)
    top = max(oracle_rank(h) for h in present)
    assert correct_shouts(dice) == {h for h in present if oracle_rank(h) == top}
    assert [oracle_rank(str(m.hand)) for m in matches] == sorted((oracle_rank(str(m.hand)) for m in matches), reverse=True)
    for m in matches:
        name = str(m.hand)
        assert len(set(m.dice)) == len(m.dice) and all(0 <= i < len(dice) for i in m.dice)
        spelled = "".join(dice[i].face.value for i in m.dice)
        if m.hand.kind is HandKind.WORD:
            assert spelled == name[-3:]
        else:
            assert spelled == ("" if name == "ナシゴレン" else name)
        used = {dice[i].colour.value for i in m.dice} & set(COLOURS)
        assert {c.value for c in m.colours} == (used if m.hand.kind in (HandKind.WORD, HandKind.BUREBURE) else set())
        if name in pays:
            assert frozenset(c.value for c in m.colours) == pays[name]


@PROPS
@given(physical_rolls)
def test_hands_agree_with_oracle_on_physical_rolls(dice: tuple[Die, ...]) -> None:
    check_roll(dice)
    _agree(dice)


@PROPS
@given(any_dice)
def test_hands_agree_with_oracle_on_any_dice(dice: tuple[Die, ...]) -> None:
    _agree(dice)


def test_hands_agree_with_oracle_on_many_random_rolls() -> None:
    rng = random.Random(9)
    for i in range(400):
        _agree(random_roll(rng, expansion=i % 2 == 0))


@PROPS
@given(physical_rolls)
def test_random_physical_rolls_pass_the_layout_check(dice: tuple[Die, ...]) -> None:
    check_roll(dice)
    assert len(dice) in (9, 10)


# --- Random playouts ------------------------------------------------------------------------


def playout(rng: random.Random, players: tuple[str, ...], p_correct: float, expansion: float) -> tuple[list[dict[str, Any]], State]:
    """A complete game: a correct shout with chance ``p_correct`` per turn, else any legal action."""
    state = new_game(players)
    events: list[dict[str, Any]] = []
    while not state.is_terminal():
        assert state.expects() == "roll"
        event: Any = Roll(random_roll(rng, expansion=rng.random() < expansion))
        state = state.apply(event)
        events.append(event.to_json())
        while state.round_open:
            actions = state.legal_actions()
            waiting = [p for p in players if p not in {s.player for s in state.shouts}]
            if waiting and rng.random() < p_correct:
                who = rng.choice(waiting)
                hand = Hand.parse(rng.choice(state.best))
                colour = None
                if hand.chooses_colour:
                    cubes = state.cubes[players.index(who)]
                    smart = rng.random() < 0.8
                    colour = TOKEN_COLOURS[min(range(3), key=lambda i: (cubes[i] if smart else 0, rng.random()))]
                event = Shout(who, hand, colour)
                assert event in actions
            else:
                event = rng.choice(actions)
            state = state.apply(event)
            events.append(event.to_json())
    return events, state


def _meets_target(p: dict[str, Any], target: int) -> bool:
    t = [p["tokens"][c] for c in COLOURS]
    return all(n >= target for n in t) or (p["scarab"] and any(
        all(n + 3 * (i == j) >= target for i, n in enumerate(t)) for j in range(3)))


def check_state(state: State) -> None:
    """Everything that must hold in every reachable state."""
    js = state.to_json()
    json.dumps(js)
    players = js["players"]
    for c in COLOURS:
        assert js["stock"][c] >= 0 and all(p["tokens"][c] >= 0 for p in players)
        assert js["stock"][c] + sum(p["tokens"][c] for p in players) == 10
    assert js["stock"]["scarab"] + sum(p["scarab"] for p in players) == 1
    target = 4 if len(players) <= 3 else 3
    assert js["target"] == target
    if state.is_terminal():
        assert js["winner"] in [p["name"] for p in players] and js["winner"] == state.winner()
        assert state.expects() is None and state.legal_actions() == () and not js["round_open"]
        champion = next(p for p in players if p["name"] == js["winner"])
        assert _meets_target(champion, target) or js["rounds"][-1]["hand"] == "ブラフプラスベガス"
        assert js["rounds"][-1]["winner"] == js["winner"]
    else:
        assert js["winner"] is None
        assert not any(_meets_target(p, target) for p in players)
        assert state.expects() == (None if js["round_open"] else "roll")
        shouted = {s["player"] for s in js["shouts"]}
        actions = state.legal_actions()
        if js["round_open"]:
            assert actions[-1] == EndRound()
            assert {a.player for a in actions if isinstance(a, Shout)} == {p["name"] for p in players} - shouted
        else:
            assert actions == () and js["shouts"] == []
    assert (js["dice"] is None) == (js["best"] == [])
    if js["dice"] is not None:
        assert set(js["best"]) == correct_shouts(state.dice or ())
    for r in js["rounds"]:
        who = [s["player"] for s in r["shouts"]]
        assert len(who) == len(set(who))
        assert r["penalised"] == [s["player"] for s in r["shouts"] if not s["correct"]]
        assert all((s["hand"] in r["best"]) == s["correct"] for s in r["shouts"])
        if r["winner"] is not None:
            assert r["shouts"][-1] == {**r["shouts"][-1], "player": r["winner"], "correct": True}
        else:
            assert r["awarded"] == [] and r["hand"] is None


def _doc(players: tuple[str, ...], events: list[Any]) -> dict[str, Any]:
    return {"format": "tableref-game/1", "game": "nine-dice", "options": {}, "players": list(players), "events": events}


PLAYERS = {n: tuple(["Wanjin", "Saewoon", "Mina", "Kai", "Yuna"][:n]) for n in range(2, 6)}


@GAMES
@given(st.integers(0, 2**32), st.integers(2, 5), st.floats(0.35, 0.95))
def test_legal_logs_replay_deterministically_prefix_by_prefix(seed: int, n: int, p_correct: float) -> None:
    players = PLAYERS[n]
    events, final = playout(random.Random(seed), players, p_correct, 0.4)
    assert final.is_terminal()
    log = GameLog.from_json(_doc(players, events))
    state: State = new_game(players)
    check_state(state)
    for i, raw in enumerate(events):
        state = state.apply(parse_event(raw, players))
        check_state(state)
        if i % 7 == 0 or i == len(events) - 1:
            prefix = replay(GameLog(log.game, log.players, log.options, log.events[: i + 1]))
            assert prefix.to_json() == state.to_json()
    assert replay_json(log.to_json()) == replay_json(log.to_json()) == final.to_json() == state.to_json()
    assert replay(log) == final


@GAMES
@given(st.integers(0, 2**32), st.integers(2, 5))
def test_every_legal_action_applies_and_nothing_else_is_needed(seed: int, n: int) -> None:
    rng = random.Random(seed)
    players = PLAYERS[n]
    events, _ = playout(rng, players, 0.5, 0.5)
    state: State = new_game(players)
    stop = rng.randrange(len(events))
    for raw in events[:stop]:
        state = state.apply(parse_event(raw, players))
    for action in state.legal_actions():
        after = state.apply(action)
        check_state(after)
        assert parse_event(action.to_json(), players) == action


def test_thousands_of_random_playouts_end_with_a_winner() -> None:
    """1000 complete games for each player count, policies from careless to sharp.

    (Below about 30% correct shouts, penalties outrun rewards and games get very long.)
    """
    stats: Counter[str] = Counter()
    for n, players in PLAYERS.items():
        rng = random.Random(1000 + n)
        winners: Counter[str] = Counter()
        for game in range(1000):
            p_correct = (0.35, 0.5, 0.7, 0.9)[game % 4]
            events, state = playout(rng, players, p_correct, expansion=(0.0, 0.5, 1.0)[game % 3])
            assert state.is_terminal() and state.winner() in players
            winners[state.winner() or ""] += 1
            if game % 50 == 0:
                check_state(state)
            for r in state.rounds:
                stats["rounds"] += 1
                stats["steals"] += sum(t.source is not None for t in r.awarded)
                stats["scarab steals"] += sum(t.token == "scarab" and t.source is not None for t in r.awarded)
                stats["penalties"] += len(r.penalised)
                stats["scarab returned"] += sum(s.returned == "scarab" for s in r.shouts)
                stats["void rounds"] += r.winner is None
                stats["nothing given"] += r.winner is not None and r.hand is not None and not r.awarded and \
                    r.hand.kind is not HandKind.BURAFU_PURASU_BEGASU
            stats["bpv wins"] += state.rounds[-1].hand is not None and \
                state.rounds[-1].hand.kind is HandKind.BURAFU_PURASU_BEGASU
            stats["games"] += 1
        assert len(winners) == n  # every seat wins some games
    assert stats["games"] == 4000
    for key in ("steals", "scarab steals", "penalties", "scarab returned", "void rounds", "nothing given", "bpv wins"):
        assert stats[key] > 0, (key, stats)


# --- Malformed and out-of-order logs ------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
    | st.sampled_from(["roll", "shout", "end_round", "Wanjin", "黒プラス", "ナシゴレン", "white", "プ", "green"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "player", "hand", "colour", "dice", "face", "x"]) | st.text(max_size=4),
                      inner, max_size=4),
    max_leaves=12,
)


def _legal_log(seed: int, n: int) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    players = PLAYERS[n]
    events, _ = playout(random.Random(seed), players, 0.5, 0.4)
    return players, events


def _replay_cli(doc: Any) -> tuple[int, str, str]:
    fd, path = tempfile.mkstemp(suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli_main(["replay", path])
        return rc, out.getvalue(), err.getvalue()
    finally:
        os.unlink(path)


def _expect_error(doc: Any, index: int | None = None) -> ReplayError:
    try:
        replay_json(doc)
    except ReplayError as err:
        assert isinstance(err.error, RefereeError) and err.error.message("en") and err.error.message("ja")
        if index is not None:
            assert err.event == index, (err.event, index, err)
        return err
    raise AssertionError("replay accepted a malformed log")


def _check_cli(doc: Any, error: ReplayError | None) -> None:
    rc, out, err = _replay_cli(doc)
    assert "Traceback" not in out + err and err == ""
    result = json.loads(out)
    if error is None:
        assert rc == 0 and result == replay_json(doc)
    else:
        assert rc == 2 and set(result) == {"error", "event"}
        assert result["event"] == error.event and result["error"] == error.error.message("en")


@GAMES
@given(st.integers(0, 2**32), st.integers(2, 5), st.data())
def test_fuzzed_events_never_crash(seed: int, n: int, data: st.DataObject) -> None:
    players, events = _legal_log(seed, n)
    i = data.draw(st.integers(0, len(events)), label="index")
    junk = data.draw(json_values, label="junk")
    mutated = events[:i] + [junk] + events[i + 1:]
    try:
        replay_json(_doc(players, mutated))
    except ReplayError as err:
        assert err.event is not None and i <= err.event < len(mutated)
        assert err.error.message("en") and err.error.message("ja")


@GAMES
@given(st.integers(0, 2**32), st.integers(2, 5), st.data())
def test_tampered_fields_never_crash(seed: int, n: int, data: st.DataObject) -> None:
    players, events = _legal_log(seed, n)
    i = data.draw(st.integers(0, len(events) - 1), label="index")
    event = dict(events[i])
    key = data.draw(st.sampled_from(sorted(event) + ["colour", "x"]), label="key")
    if data.draw(st.booleans(), label="delete"):
        event.pop(key, None)
    else:
        event[key] = data.draw(json_values, label="value")
    mutated = events[:i] + [event] + events[i + 1:]
    try:
        replay_json(_doc(players, mutated))
    except ReplayError as err:
        assert err.event is not None and i <= err.event < len(mutated)


@GAMES
@given(st.integers(0, 2**32), st.integers(2, 5), st.data())
def test_unknown_events_and_strangers_are_refused_where_they_stand(seed: int, n: int, data: st.DataObject) -> None:
    players, events = _legal_log(seed, n)
    i = data.draw(st.integers(0, len(events)), label="index")
    bad = data.draw(st.sampled_from([
        {"type": "bid", "player": players[0], "quantity": 3, "face": "3"},
        {"type": "challenge", "player": players[1]},
        {"type": "Roll", "dice": []},
        {"type": "shout", "player": "Stranger", "hand": "ナシゴレン", "colour": "white"},
        {"type": "shout", "player": players[0].lower(), "hand": "黒プラス"},
        {"player": players[0], "hand": "黒プラス"},
    ]), label="event")
    doc = _doc(players, events[:i] + [bad] + events[i:])
    error = _expect_error(doc, i)
    if data.draw(st.integers(0, 9), label="cli") == 0:
        _check_cli(doc, error)


@GAMES
@given(st.integers(0, 2**32), st.integers(2, 5), st.data())
def test_reordered_dropped_and_repeated_events(seed: int, n: int, data: st.DataObject) -> None:
    players, events = _legal_log(seed, n)
    how = data.draw(st.sampled_from(["swap", "drop", "repeat", "shuffle"]), label="how")
    i = data.draw(st.integers(0, len(events) - 1), label="i")
    j = data.draw(st.integers(0, len(events) - 1), label="j")
    mutated = list(events)
    if how == "swap":
        mutated[i], mutated[j] = mutated[j], mutated[i]
    elif how == "drop":
        del mutated[i]
    elif how == "repeat":
        mutated.insert(i, mutated[i])
    else:
        random.Random(seed).shuffle(mutated)
    doc = _doc(players, mutated)
    try:
        state = replay_json(doc)
    except ReplayError as err:
        assert err.event is not None and 0 <= err.event < len(mutated)
        error: ReplayError | None = err
    else:
        assert state["game"] == "nine-dice"
        error = None
    if how == "repeat" and mutated[i]["type"] == "roll":
        assert error is not None  # a second roll while the round is open, or after the game ended
    if data.draw(st.integers(0, 9), label="cli") == 0:
        _check_cli(doc, error)


@PROPS
@given(json_values)
def test_junk_documents_exit_2_without_traceback(junk: Any) -> None:
    try:
        replay_json(junk)
    except ReplayError as err:
        assert err.event is None
    else:
        raise AssertionError("junk replayed")


@settings(deadline=None, max_examples=30)
@given(st.sampled_from([
    "not json {", "", "[]", "null", '{"format": "tableref-game/1", "game": "nine-dice"}',
    '{"format": "tableref-game/1", "game": "nine-dice", "players": ["A"], "events": []}',
    '{"format": "tableref-game/1", "game": "nine-dice", "players": ["A", "A"], "events": []}',
    '{"format": "tableref-game/1", "game": "nine-dice", "players": ["A", "B"], "options": {"x": 1}, "events": []}',
    '{"format": "tableref-game/1", "game": "nine-dice", "players": ["A", "B"], "events": {}}',
    '{"format": "tableref-game/1", "game": "nine-dice", "players": ["A", "B"], "events": [{"type": "end_round"}]}',
    '{"format": "tableref-game/1", "game": "nine-dice", "players": ["A", "B"], "events": [[[[[[[[]]]]]]]]}',
]))
def test_cli_refuses_malformed_files(text: str) -> None:
    rc, out, err = _replay_cli(text)
    assert rc == 2 and "Traceback" not in out + err
    assert set(json.loads(out)) == {"error", "event"}


def test_cli_replays_a_legal_log() -> None:
    players, events = _legal_log(7, 3)
    _check_cli(_doc(players, events), None)
