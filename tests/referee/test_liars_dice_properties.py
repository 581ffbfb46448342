"""Liar's Dice referee, property-based: random games, replays, prefixes and malformed logs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.errors import NotYourTurn, OutOfOrder, RefereeError, UnknownPlayer
from referee.liars_dice import (
    RULES,
    BidEvent,
    Challenge,
    Face,
    Reveal,
    Start,
    State,
    parse_options,
)
from referee.replay import ReplayError, replay_json
from web.cli import main as cli_main

NAMES = ("Wanjin", "Saewoon", "Mina", "Jun", "Aiko", "Lee")
FACES = tuple(Face)
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- a cheap random table ---------------------------------------------------------------


def roll(rng: random.Random, count: int) -> tuple[Face, ...]:
    return tuple(rng.choice(FACES) for _ in range(count))


def check_state(state: State) -> None:
    """Everything that must hold in any reachable state."""
    n = len(state.players)
    assert all(0 <= held <= 5 for held in state.dice)
    lost = sum(result.lost for result in state.rounds)
    assert lost == 5 * n - state.dice_in_play  # dice only leave by a settled challenge
    assert all(1 <= result.lost <= 5 for result in state.rounds)
    live = [seat for seat, held in enumerate(state.dice) if held]
    if state.is_terminal():
        assert len(live) == 1 and state.winner() == state.players[live[0]]
        assert state.turn is None and state.legal_actions() == () and state.expects() is None
    else:
        assert len(live) >= 2 and state.winner() is None
    if state.challenger is not None:
        assert state.turn is None and state.expects() == "reveal" and state.bid is not None
    if state.turn is not None:
        assert state.dice[state.turn] > 0 and state.opened and state.challenger is None
        assert state.legal_actions(), "a player to act always has an action"
    elif not state.is_terminal() and state.challenger is None:
        assert not state.opened and state.expects() == "start"
    if state.bid is not None:
        assert state.options.track.order(state.bid) is not None
        assert state.bidder is not None and state.dice[state.bidder] > 0
    out = state.to_json()
    assert json.loads(json.dumps(out)) == out
    assert [p["eliminated"] for p in out["players"]] == [held == 0 for held in state.dice]


def playout(seed: int, n: int, start_rule: str = "en", check: bool = False) -> tuple[list[dict], list[State]]:
    """A random but legal game: returns its log events and the state after each one."""
    rng = random.Random(seed)
    players = NAMES[:n]
    state = RULES.new_game(players, parse_options({"start_rule": start_rule}))
    events: list[dict] = []
    states: list[State] = []

    def push(event) -> None:
        nonlocal state
        before = state
        state = state.apply(event)
        events.append(event.to_json())
        states.append(state)
        if check:
            check_state(state)
            if isinstance(event, Reveal):
                assert state.dice_in_play == before.dice_in_play - state.rounds[-1].lost

    if rng.random() < 0.3:
        push(Start(opener=rng.choice(players)))
    else:
        per_player = 5 if start_rule == "en" else 2
        while state.expects() == "start":
            rollers = [players[seat] for seat in state.start_tie] or list(players)
            push(Start(rolls=tuple((name, roll(rng, per_player)) for name in rollers)))
    challenge_bias = rng.uniform(0.3, 0.7)
    while not state.is_terminal():
        hands = [roll(rng, held) for held in state.dice]  # rolled in secret, shown at the reveal
        while state.challenger is None:
            actions = state.legal_actions()
            if isinstance(actions[-1], Challenge) and (len(actions) == 1 or rng.random() < challenge_bias):
                push(actions[-1])
            else:
                bids = actions[:-1] if isinstance(actions[-1], Challenge) else actions
                # Mostly a plausible bid (about a third of the dice in play), sometimes anything.
                target = rng.gauss(state.dice_in_play / 3, 1.5)
                near = next((i for i, event in enumerate(bids) if event.bid.quantity >= target), 0)
                push(rng.choice(bids[near : near + 6]) if rng.random() < 0.9 else rng.choice(bids))
        dice = [face for hand in hands for face in hand]
        rng.shuffle(dice)
        push(Reveal(tuple(dice)))
    return events, states


def log_doc(events: list, n: int, start_rule: str = "en") -> dict:
    return {
        "format": "tableref-game/1",
        "game": "liars-dice",
        "options": {"start_rule": start_rule},
        "players": list(NAMES[:n]),
        "events": events,
    }


games = st.tuples(st.integers(0, 2**32), st.integers(2, 6), st.sampled_from(["en", "ja"]))


# --- legal games -------------------------------------------------------------------------


def test_thousands_of_random_games_each_end_with_a_winner():
    played = {n: 0 for n in range(2, 7)}
    for n in range(2, 7):
        for seed in range(600):
            events, states = playout(seed * 7 + n, n, "en" if seed % 2 else "ja")
            final = states[-1]
            assert final.is_terminal() and final.winner() in NAMES[:n]
            assert final.to_json()["winner"] == final.winner()
            assert sum(final.dice) == final.dice[NAMES.index(final.winner())] > 0
            played[n] += 1
    assert sum(played.values()) == 3000 and all(count == 600 for count in played.values())


@FAST
@given(games)
def test_random_games_conserve_dice_and_never_reach_an_invalid_state(game):
    seed, n, rule = game
    playout(seed, n, rule, check=True)


@FAST
@given(games)
def test_replay_is_deterministic_and_equals_the_played_state(game):
    seed, n, rule = game
    events, states = playout(seed, n, rule)
    doc = log_doc(events, n, rule)
    first = replay_json(json.loads(json.dumps(doc)))
    assert first == replay_json(json.loads(json.dumps(doc))) == states[-1].to_json()


@settings(FAST, max_examples=30)
@given(games)
def test_every_prefix_of_a_legal_log_replays(game):
    seed, n, rule = game
    events, states = playout(seed, n, rule)
    for cut in range(len(events) + 1):
        out = replay_json(log_doc(events[:cut], n, rule))
        expected = (
            states[cut - 1].to_json()
            if cut
            else RULES.new_game(NAMES[:n], parse_options({"start_rule": rule})).to_json()
        )
        assert out == expected


@FAST
@given(games)
def test_legal_actions_are_exactly_the_acceptable_decisions(game):
    seed, n, rule = game
    rng = random.Random(seed)
    _, states = playout(seed, n, rule)
    state = states[rng.randrange(len(states))]
    listed = set(state.legal_actions())
    for event in listed:
        state.apply(event)
    if state.turn is not None:
        # A sample of unlisted bids and challenges by anyone is refused.
        for player in state.players:
            for bid in rng.sample(state.options.track.bids, 20):
                if BidEvent(player, bid) not in listed:
                    try:
                        state.apply(BidEvent(player, bid))
                    except RefereeError:
                        pass
                    else:
                        raise AssertionError(f"unlisted {bid} by {player} was accepted")


# --- malformed logs ----------------------------------------------------------------------


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(["wheel", "1", "3", "W1", "start", "bid", "challenge", "reveal", *NAMES]),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(max_size=6) | st.sampled_from(["type", "player"]), inner, max_size=5)
    ),
    max_leaves=20,
)

event_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["start", "bid", "challenge", "reveal", "roll", "raise", ""]) | json_values},
    optional={
        "player": st.sampled_from([*NAMES, "Kim", ""]) | json_values,
        "opener": st.sampled_from([*NAMES, "Kim"]) | json_values,
        "quantity": st.integers(-2, 50) | json_values,
        "face": st.sampled_from(["wheel", "1", "2", "6", "7", "プ"]) | json_values,
        "dice": st.lists(st.sampled_from(["wheel", "2", "3", "1", "レ"]), max_size=31) | json_values,
        "rolls": st.dictionaries(
            st.sampled_from([*NAMES, "Kim"]), st.lists(st.sampled_from(["wheel", "2", "6"]), max_size=6)
        )
        | json_values,
    },
)


def assert_replay_error(error: ReplayError, events: list | None) -> None:
    assert isinstance(error.error, RefereeError)
    assert error.error.message("en") and error.error.message("ja")
    if error.event is not None:
        assert events is not None and 0 <= error.event < len(events)
    out = error.to_json()
    assert out["error"] and "event" in out


@FAST
@given(
    json_values
    | st.fixed_dictionaries(
        {},
        optional={
            "format": st.sampled_from(["tableref-game/1"]) | json_values,
            "game": st.sampled_from(["liars-dice"]) | json_values,
            "options": st.fixed_dictionaries(
                {},
                optional={
                    "start_rule": st.sampled_from(["en", "ja"]) | json_values,
                    "track": st.lists(st.integers(0, 9) | st.sampled_from(["W1", "W2"]), max_size=8) | json_values,
                },
            )
            | json_values,
            "players": st.lists(st.sampled_from(NAMES), min_size=1, max_size=7) | json_values,
            "events": st.lists(event_like, max_size=6) | json_values,
        },
    )
)
def test_fuzzed_documents_replay_or_fail_with_a_reason(doc):
    try:
        out = replay_json(doc)
    except ReplayError as err:
        assert_replay_error(
            err, doc.get("events") if isinstance(doc, dict) and isinstance(doc.get("events"), list) else None
        )
    else:
        assert out["game"] == "liars-dice"


@FAST
@given(st.integers(2, 6), st.lists(event_like | json_values, min_size=1, max_size=8))
def test_fuzzed_events_on_a_valid_table_replay_or_fail_with_a_reason(n, events):
    try:
        replay_json(log_doc(events, n))
    except ReplayError as err:
        assert_replay_error(err, events)


def _mutations(rng: random.Random, events: list[dict], players: tuple[str, ...]) -> tuple[list[dict], int]:
    """A legal log broken at one known index; returns the broken events and that index."""
    kinds: list[Callable[[], tuple[list[dict], int]]] = []
    acting = [i for i, e in enumerate(events) if e["type"] in ("bid", "challenge")]
    reveals = [i for i, e in enumerate(events) if e["type"] == "reveal"]

    def unknown_type():
        i = rng.randrange(len(events) + 1)
        return events[:i] + [
            {"type": rng.choice(["raise", "roll", "shout", "", "Bid"]), "player": players[0]}
        ] + events[i:], i

    def wrong_player():
        i = rng.choice(acting)
        bad = dict(events[i], player=rng.choice([p for p in players if p != events[i]["player"]] + ["Kim", "wanjin"]))
        return events[:i] + [bad] + events[i + 1 :], i

    def reveal_without_challenge():
        i = rng.choice([i for i in acting if events[i]["type"] == "bid"])
        return events[: i + 1] + [events[reveals[-1]]] + events[i + 1 :], i + 1

    def missing_reveal():
        i = rng.choice(reveals[:-1])
        return events[:i] + events[i + 1 :], i

    def second_start():
        opened = next(i for i, e in enumerate(events) if e["type"] != "start")
        i = rng.randrange(opened, len(events) + 1)
        return events[:i] + [{"type": "start", "opener": players[0]}] + events[i:], i

    def no_start():
        first = next(i for i, e in enumerate(events) if e["type"] != "start")
        return events[first:], 0

    def wrong_reveal_count():
        i = rng.choice(reveals)
        dice = list(events[i]["dice"])
        dice = dice[:-1] if rng.random() < 0.5 else dice + ["2"]
        return events[:i] + [{"type": "reveal", "dice": dice}] + events[i + 1 :], i

    kinds += [unknown_type, wrong_player, reveal_without_challenge, second_start, no_start, wrong_reveal_count]
    if len(reveals) > 1:
        kinds.append(missing_reveal)
    return rng.choice(kinds)()


@FAST
@given(games, st.integers(0, 2**32))
def test_broken_legal_logs_fail_at_the_broken_event(game, mutation_seed):
    seed, n, rule = game
    events, _ = playout(seed, n, rule)
    broken, index = _mutations(random.Random(mutation_seed), events, NAMES[:n])
    try:
        replay_json(log_doc(broken, n, rule))
    except ReplayError as err:
        assert_replay_error(err, broken)
        assert err.event == index, (err.event, index, err.error)
        if broken[index].get("type") in ("bid", "challenge") and broken[index] not in events:
            assert isinstance(err.error, (NotYourTurn, UnknownPlayer, OutOfOrder))
    else:
        raise AssertionError(f"broken log replayed (broken at {index})")


@settings(FAST, max_examples=40)
@given(games, st.integers(0, 2**32), st.booleans())
def test_cli_replay_of_a_broken_log_exits_2_with_a_reason_and_no_traceback(game, mutation_seed, japanese):
    seed, n, rule = game
    events, _ = playout(seed, n, rule)
    broken, index = _mutations(random.Random(mutation_seed), events, NAMES[:n])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(log_doc(broken, n, rule), fh, ensure_ascii=False)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli_main(["replay", "--lang", "ja", path] if japanese else ["replay", path])
    assert code == 2
    assert stderr.getvalue() == ""
    out = json.loads(stdout.getvalue())
    assert set(out) == {"error", "event"} and out["event"] == index and out["error"]
    if japanese:
        assert any("\u3040" <= ch <= "\u9fff" for ch in out["error"])


@settings(FAST, max_examples=25)
@given(st.integers(2, 6), st.lists(event_like | json_values, min_size=1, max_size=6))
def test_cli_replay_of_fuzzed_events_never_prints_a_traceback(n, events):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(log_doc(events, n), fh)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli_main(["replay", path])
    assert stderr.getvalue() == ""
    out = json.loads(stdout.getvalue())
    if code == 2:
        assert set(out) == {"error", "event"} and out["error"]
        assert out["event"] is None or 0 <= out["event"] < len(events)
    else:
        assert code == 0 and out["game"] == "liars-dice"
