"""Pin-456 properties: money is conserved, every state is valid, replay is deterministic
and prefix-closed, random games always end, malformed logs are refused with a reason."""

from __future__ import annotations

import contextlib
import io
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import Misread, RefereeError
from referee.pin456 import (
    MULTIPLIERS,
    NOTE,
    Accuse,
    Declare,
    Event,
    Money,
    Options,
    Phase,
    Reveal,
    Stake,
    State,
    new_game,
)
from referee.replay import ReplayError, replay_json
from web.cli import main

PLAYERS = ("A", "B")
ALL_OPTIONS = [
    Options(stake_cap=cap, to_hell=hell, counterfeit=fake)
    for cap in (None, 3000)
    for hell in (False, True)
    for fake in (False, True)
]
OPTION_IDS = [f"cap={o.stake_cap}-hell={o.to_hell}-fake={o.counterfeit}" for o in ALL_OPTIONS]
MAX_EVENTS = 20_000


# --- Random play ------------------------------------------------------------------------


def secret_faces(state: State, count: int, rnd: random.Random) -> tuple[str, ...]:
    """What a parent could set: ``count`` of the unused dice, each on one of its faces."""
    pool = [kind for kind, left in zip(state.dice.kinds, state.dice_left) for _ in range(left)]
    return tuple(rnd.choice(kind.faces) for kind in rnd.sample(pool, count))


def playout(options: Options, rnd: random.Random, check: bool = False) -> tuple[State, list[Event], list[State]]:
    """A whole game by two random players; with ``check`` every state is validated.

    Each game draws a boldness: timid games mostly stake little and guess wrong (they
    reach the 5-turn end), bold ones go all-in and guess right often (bankruptcies;
    a ``to_hell`` game is never timid, so it ends).
    """
    bold = rnd.uniform(0.25, 1.0) if options.to_hell else rnd.random() ** 2
    state = new_game(PLAYERS, options)
    events: list[Event] = []
    states = [state]
    faces: tuple[str, ...] = ()
    while not state.is_terminal():
        assert len(events) < MAX_EVENTS, "the game does not end"
        event: Event
        if state.phase is Phase.DECLARE:
            payment = state.accusable
            if payment is not None and rnd.random() < 0.35:
                event = Accuse(PLAYERS[payment.receiver], rnd.random() < 0.5)
            else:
                left = sum(state.dice_left)
                count = left if rnd.random() < 0.4 else rnd.randint(1, left)
                faces = secret_faces(state, count, rnd)
                event = Declare(PLAYERS[state.parent], count)
        elif state.phase is Phase.STAKE:
            amounts = state.stake_amounts()
            amount = amounts[-1] if rnd.random() < 0.5 * bold else rnd.choice(amounts[: 1 + int(bold * len(amounts))])
            roll = rnd.random()
            if roll < 0.05 + 0.3 * bold:
                guess = sum(int(face) for face in faces)
            elif roll < 0.85:
                guess = rnd.choice(state.feasible_guesses())
            else:
                guess = rnd.choice(state.guesses())
            event = Stake(PLAYERS[state.child], amount, guess)
        else:
            assert state.expects() == "reveal"
            event = Reveal(faces)
        nxt = state.apply(event)
        if check:
            check_step(state, event, nxt)
        events.append(event)
        states.append(nxt)
        state = nxt
    return state, events, states


def check_state(state: State) -> None:
    """Everything that must hold in any reachable state."""
    assert state.money_in_play() == Money(60_000)
    for cash in state.cash:
        assert cash.points >= 0 and cash.points % NOTE == 0
    assert all(0 <= left <= kind.count for left, kind in zip(state.dice_left, state.dice.kinds))
    assert (state.stake is not None) == (state.phase is Phase.REVEAL) == (state.expects() == "reveal")
    assert (state.declared is not None) == (state.phase in (Phase.STAKE, Phase.REVEAL))
    if state.declared is not None:
        assert 1 <= state.declared <= sum(state.dice_left)
    if state.options.to_hell is False:
        assert max(state.parent_turns) <= 5
    assert state.parent_turns[state.parent] >= state.parent_turns[state.child]
    if state.is_terminal():
        assert state.legal_actions() == () and state.turn() is None and state.accusable is None
        assert state.is_draw() == (state.winner() is None)
        assert state.bankrupt is None or state.winner() == PLAYERS[1 - state.bankrupt]
        assert state.bankrupt is not None or not any(state.dice_left)
        if state.bankrupt is None:
            assert min(state.parent_turns) == 5 and not state.options.to_hell
            richer = state.cash[0] != state.cash[1]
            assert state.is_draw() != richer
    else:
        assert all(state.cash) or state.stake is not None
        assert state.winner() is None and not state.is_draw()
        if state.phase is not Phase.REVEAL:
            assert state.legal_actions()
    if not state.options.counterfeit:
        assert state.accusable is None
    doc = state.to_json()
    assert json.loads(json.dumps(doc)) == doc
    assert sum(p["cash"] for p in doc["players"]) + (doc["stake"] or {"amount": 0})["amount"] == 60_000


def check_step(before: State, event: Event, after: State) -> None:
    check_state(after)
    if isinstance(event, Reveal):
        played = after.rounds[-1]
        assert len(after.rounds) == len(before.rounds) + 1
        child = 1 - played.parent
        if played.correct:
            owed = played.stake.points * MULTIPLIERS[played.count]
            assert played.payout.points == owed or after.bankrupt == played.parent
            assert after.cash[child].points == before.cash[child].points + played.stake.points + played.payout.points
        else:
            assert played.payout == Money(0)
            assert after.cash[child] == before.cash[child]


def replay_log(events: list[Event], options: Options) -> dict[str, Any]:
    return {
        "format": "tableref-game/1",
        "game": "pin456",
        "options": options.to_json(),
        "players": list(PLAYERS),
        "events": [event.to_json() for event in events],
    }


options_strategy = st.sampled_from(ALL_OPTIONS)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


# --- Hypothesis properties --------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(options=options_strategy, seed=seeds)
def test_money_conserved_and_every_state_valid(options, seed):
    state, events, _ = playout(options, random.Random(seed), check=True)
    assert state.is_terminal() and events


@settings(max_examples=40, deadline=None)
@given(options=options_strategy, seed=seeds)
def test_replay_is_deterministic(options, seed):
    state, events, _ = playout(options, random.Random(seed))
    doc = replay_log(events, options)
    first = replay_json(doc)
    assert first == replay_json(json.loads(json.dumps(doc))) == state.to_json()


@settings(max_examples=15, deadline=None)
@given(options=options_strategy, seed=seeds)
def test_every_prefix_of_a_legal_log_replays(options, seed):
    _, events, states = playout(options, random.Random(seed))
    doc = replay_log(events, options)
    for cut in range(len(events) + 1):
        assert replay_json({**doc, "events": doc["events"][:cut]}) == states[cut].to_json()


@settings(max_examples=25, deadline=None)
@given(options=options_strategy, seed=seeds, data=st.data())
def test_legal_actions_are_exactly_what_apply_accepts(options, seed, data):
    _, _, states = playout(options, random.Random(seed))
    state = data.draw(st.sampled_from([s for s in states if s.phase is not Phase.REVEAL]))
    actions = state.legal_actions()
    for action in actions:
        state.apply(action)
    legal = set(actions)
    if state.phase is Phase.STAKE:
        candidates = [Stake(PLAYERS[p], a, g) for p in (0, 1) for a in range(-1000, 62_000, 500) for g in range(-1, 40)]
    else:
        candidates = [Declare(PLAYERS[p], n) for p in (0, 1) for n in range(-1, 9)]
        candidates += [Accuse(PLAYERS[p], fake) for p in (0, 1) for fake in (True, False)]
    for event in candidates:
        if event in legal:
            continue
        with pytest.raises(RefereeError):
            state.apply(event)


@settings(max_examples=40, deadline=None)
@given(options=options_strategy, seed=seeds, data=st.data())
def test_impossible_reveals_are_misreads_never_verdicts(options, seed, data):
    _, _, states = playout(options, random.Random(seed))
    state = data.draw(st.sampled_from([s for s in states if s.phase is Phase.REVEAL]))
    faces = tuple(data.draw(st.lists(st.sampled_from(["1", "2", "3", "4", "5", "6", "7", "x"]), max_size=7)))
    possible = state.dice.assign(faces, state.dice_left) if all(state.dice.shows(f) for f in faces) else None
    if len(faces) == state.declared and possible is not None:
        assert len(state.apply(Reveal(faces)).rounds) == len(state.rounds) + 1
    else:
        with pytest.raises(Misread):
            state.apply(Reveal(faces))


# --- Thousands of random games ----------------------------------------------------------

GAMES_PER_OPTION = 1000


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=OPTION_IDS)
def test_random_playouts_always_end_with_a_winner_or_a_draw(options):
    rnd = random.Random(f"pin456-{OPTION_IDS[ALL_OPTIONS.index(options)]}")
    outcomes = {"winner": 0, "draw": 0, "bankrupt": 0}
    for _ in range(GAMES_PER_OPTION):
        state, events, _ = playout(options, rnd)
        assert state.is_terminal() and state.money_in_play() == Money(60_000)
        assert (state.winner() is None) == state.is_draw()
        outcomes["draw" if state.is_draw() else "winner"] += 1
        outcomes["bankrupt"] += state.bankrupt is not None
    assert outcomes["winner"] + outcomes["draw"] == GAMES_PER_OPTION
    if options.to_hell:
        assert outcomes["bankrupt"] == GAMES_PER_OPTION and outcomes["draw"] == 0
    else:
        assert outcomes["bankrupt"] < GAMES_PER_OPTION  # some games reach the 5-turn end


# --- Malformed logs ---------------------------------------------------------------------


def legal_log(seed: int, options: Options) -> list[dict[str, Any]]:
    _, events, _ = playout(options, random.Random(seed))
    return [event.to_json() for event in events]


def log_doc(events: list[Any], options: Options = Options(), players: list[Any] | None = None) -> dict[str, Any]:
    return {
        "format": "tableref-game/1",
        "game": "pin456",
        "options": options.to_json(),
        "players": list(PLAYERS) if players is None else players,
        "events": events,
    }


def assert_refused(doc: Any, event: int | None | set[int | None]) -> ReplayError:
    with pytest.raises(ReplayError) as info:
        replay_json(doc)
    error = info.value
    assert error.error.message("en") and error.error.message("ja")
    allowed = event if isinstance(event, set) else {event}
    assert error.event in allowed, (error.event, allowed, error)
    return error


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
json_values = st.recursive(
    json_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
FIELDS = ("type", "player", "count", "amount", "guess", "dice", "fake")
junk_events = st.one_of(
    json_values.filter(lambda v: not isinstance(v, dict)),
    st.dictionaries(st.text(max_size=8).filter(lambda k: k not in FIELDS), json_values, max_size=4),
    st.fixed_dictionaries({"type": json_values.filter(lambda v: v not in ("declare", "stake", "reveal", "accuse"))}),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["declare", "stake", "reveal", "accuse"])},
        optional={"player": st.sampled_from(PLAYERS), "count": st.integers(), "amount": st.integers()},
    ).filter(lambda e: e["type"] != "declare" or "player" not in e or "count" not in e),
    st.fixed_dictionaries(  # every field there, one of them the wrong type
        {"type": st.just("declare"), "player": st.sampled_from(PLAYERS), "count": json_values.filter(lambda v: type(v) is not int)}
    ),
    st.fixed_dictionaries(
        {"type": st.just("accuse"), "player": st.sampled_from(PLAYERS), "fake": json_values.filter(lambda v: type(v) is not bool)}
    ),
    st.fixed_dictionaries(
        {"type": st.just("reveal"), "dice": json_values.filter(lambda v: not (isinstance(v, list) and all(isinstance(x, str) for x in v)))}
    ),
    st.fixed_dictionaries(
        {"type": st.just("stake"), "player": st.text(max_size=4).filter(lambda p: p not in PLAYERS),
         "amount": st.just(1000), "guess": st.just(4)}
    ),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(options=options_strategy, seed=seeds, junk=junk_events, data=st.data())
def test_junk_event_is_refused_at_its_index(options, seed, junk, data):
    events = legal_log(seed, options)
    at = data.draw(st.integers(0, len(events)))
    error = assert_refused(log_doc(events[:at] + [junk] + events[at:], options), at)
    assert error.error.code in ("malformed_event", "unknown_player")


@settings(max_examples=60, deadline=None)
@given(options=options_strategy, seed=seeds, data=st.data())
def test_out_of_order_events_are_refused(options, seed, data):
    events = legal_log(seed, options)
    pairs = [i for i in range(len(events) - 1) if events[i]["type"] != events[i + 1]["type"]]
    i = data.draw(st.sampled_from(pairs))
    swapped = events[:i] + [events[i + 1], events[i]] + events[i + 2 :]
    assert_refused(log_doc(swapped, options), {i, i + 1})
    dupes = [j for j, e in enumerate(events) if e["type"] in ("declare", "stake", "reveal")]
    j = data.draw(st.sampled_from(dupes))
    assert_refused(log_doc(events[: j + 1] + [events[j]] + events[j + 1 :], options), j + 1)
    assert_refused(log_doc(events + [events[-1]], options), len(events))


@settings(max_examples=40, deadline=None)
@given(options=options_strategy, seed=seeds, data=st.data())
def test_wrong_players_are_refused(options, seed, data):
    events = legal_log(seed, options)
    i = data.draw(st.sampled_from([j for j, e in enumerate(events) if "player" in e]))
    other = {**events[i], "player": "B" if events[i]["player"] == "A" else "A"}
    assert_refused(log_doc(events[:i] + [other] + events[i + 1 :], options), i)
    stranger = {**events[i], "player": data.draw(st.text(max_size=5).filter(lambda p: p not in PLAYERS))}
    assert assert_refused(log_doc(events[:i] + [stranger] + events[i + 1 :], options), i).error.code == "unknown_player"
    renamed = data.draw(st.sampled_from([["A", "C"], ["C", "B"], ["B", "A"]]))  # "A" declares first, as parent
    assert_refused(log_doc(events, options, players=renamed), set(range(len(events))))
    assert_refused(log_doc(events, options, players=["A", "B", "C"]), None)


# --- The command line -------------------------------------------------------------------


def run_replay(text: str | bytes) -> tuple[int, str, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.json"
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["replay", str(path)])
    return code, out.getvalue(), err.getvalue()


def test_cli_replays_a_whole_game():
    state, events, _ = playout(Options(counterfeit=True), random.Random(7))
    code, out, err = run_replay(json.dumps(replay_log(events, Options(counterfeit=True))))
    assert code == 0 and not err and json.loads(out) == state.to_json()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy, seed=seeds, junk=junk_events, data=st.data())
def test_cli_malformed_log_exits_2_with_error_and_event(options, seed, junk, data):
    events = legal_log(seed, options)
    at = data.draw(st.integers(0, len(events)))
    code, out, err = run_replay(json.dumps(log_doc(events[:at] + [junk] + events[at:], options)))
    assert code == 2 and not err
    result = json.loads(out)
    assert set(result) == {"error", "event"} and result["error"] and result["event"] == at


@settings(max_examples=80, deadline=None)
@given(doc=json_values | st.fixed_dictionaries(
    {"format": st.just("tableref-game/1"), "game": st.just("pin456")},
    optional={"players": json_values, "options": json_values, "events": json_values}))  # fmt: skip
def test_cli_fuzzed_documents_never_traceback(doc):
    code, out, err = run_replay(json.dumps(doc))
    assert not err
    result = json.loads(out)
    if code == 2:
        assert set(result) == {"error", "event"} and result["error"]
    else:  # only a real (possibly empty) pin456 log replays
        assert code == 0 and result["game"] == "pin456"


@pytest.mark.parametrize(
    ("field", "value"), [("count", "9" * 5000), ("count", "9" * 4000), ("amount", "-" + "9" * 4000), ("guess", "1e999")]
)
def test_cli_huge_numbers_exit_2(field, value):
    events = [{"type": "declare", "player": "A", "count": 1}, {"type": "stake", "player": "B", "amount": 1000, "guess": 4}]
    text = json.dumps(log_doc(events)).replace(f'"{field}": {events[0 if field == "count" else 1][field]}', f'"{field}": {value}')
    assert value in text
    code, out, err = run_replay(text)
    assert code == 2 and not err and set(json.loads(out)) == {"error", "event"}


@settings(max_examples=40, deadline=None)
@given(raw=st.binary(max_size=64))
def test_cli_fuzzed_bytes_never_traceback(raw):
    code, out, err = run_replay(raw)
    assert code == 2 and not err
    assert set(json.loads(out)) == {"error", "event"}
