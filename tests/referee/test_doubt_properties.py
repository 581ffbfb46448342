"""Doubt properties: random games with simulated hidden hands, replays, and junk logs.

The test deals real hands (the referee never sees them), lets simple players
play, lie, challenge and discard, and checks after every event that the
referee's counts agree with the hidden truth, that cards are conserved, and
that every card's true place is among the places the referee still allows.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.doubt import (
    Card,
    Challenge,
    Deal,
    Discard,
    Options,
    Play,
    Rank,
    Reveal,
    State,
    deck_cards,
    deck_ranks,
    new_game,
    parse_event,
)
from referee.errors import RefereeError
from referee.log import GameLog
from referee.replay import ReplayError, replay, replay_json
from web.cli import main

NAMES = ("Wanjin", "Saewoon", "Mina", "Jun", "Hana")
# (players, deck option): every player count, and both decks for three players.
CONFIGS = [(2, None), (3, 36), (3, 52), (4, None), (5, None)]
PLAYOUTS_PER_CONFIG = 500
MAX_EVENTS = 5000


# --- A table with hidden hands -------------------------------------------------------------


@dataclass
class Table:
    """The physical truth: who holds which card, what lies in the pile, the set-aside card."""

    hands: list[list[Card]]
    aside: Card
    pile: list[Card] = field(default_factory=list)
    last: list[Card] = field(default_factory=list)
    discarded: list[Card] = field(default_factory=list)
    ready: list[tuple[int, Rank]] = field(default_factory=list)  # four of a kind in hand, not yet discarded

    def gather(self, seat: int) -> None:
        """Note the fours of a kind now in ``seat``'s hand (they only appear when cards come in)."""
        counts = Counter(c.rank.value for c in self.hands[seat])
        self.ready = [q for q in self.ready if q[0] != seat]
        self.ready.extend((seat, Rank(value)) for value, k in counts.items() if k == 4)

    def place_of(self, card: Card, players: tuple[str, ...]) -> str:
        if card == self.aside:
            return "aside"
        if card in self.discarded:
            return "discarded"
        if card in self.pile:
            return "pile"
        return next(players[seat] for seat, hand in enumerate(self.hands) if card in hand)


def deal(rng: random.Random, state: State) -> tuple[Table, Deal]:
    cards = list(deck_cards(state.deck))
    rng.shuffle(cards)
    n = len(state.players)
    dealer = rng.randrange(n)
    hands: list[list[Card]] = [[] for _ in range(n)]
    for i, card in enumerate(cards[1:]):
        hands[(dealer + 1 + i) % n].append(card)
    table = Table(hands, aside=cards[0])
    for seat in range(n):
        table.gather(seat)
    return table, Deal(state.players[dealer])


def choose(rng: random.Random, state: State, table: Table, style: dict[str, float]):
    """The next event of a plausible game, and the change it makes to the hidden table."""
    if state.expects() == "reveal":
        shown = list(table.last)
        rng.shuffle(shown)
        return Reveal(tuple(shown))
    if table.ready and rng.random() < style["discard"]:
        seat, rank = rng.choice(table.ready)
        return Discard(state.players[seat], rank)
    seat = state.turn_seat
    assert seat is not None
    hand = table.hands[seat]
    if state.last_play is not None:
        doubt = style["challenge"]
        if state.cards[state.last_play.seat] == 0:
            doubt = max(doubt, 0.6)  # stop someone going out on a lie
        if rng.random() < doubt:
            return Challenge(state.players[seat])
    count = rng.randint(1, min(3, len(hand)))
    declared = None
    rank = state.rank
    if rank is None:
        rank = rng.choice(hand).rank if rng.random() < 0.85 else rng.choice(deck_ranks(state.deck))
        declared = rank
    rng.shuffle(hand)
    if rng.random() >= style["lie"]:
        hand.sort(key=lambda c: c.rank != rank)  # true cards first
    table.last = hand[:count]
    return Play(state.players[seat], count, declared)


def settle(state: State, table: Table, event: Any) -> None:
    """Move the hidden cards as ``event`` does (``state`` is the state before it)."""
    if isinstance(event, Discard):
        seat = state.players.index(event.player)
        gone = [c for c in table.hands[seat] if c.rank == event.rank]
        table.discarded.extend(gone)
        table.hands[seat] = [c for c in table.hands[seat] if c.rank != event.rank]
        table.ready.remove((seat, event.rank))
    elif isinstance(event, Play):
        seat = state.players.index(event.player)
        for card in table.last:
            table.hands[seat].remove(card)
        table.pile.extend(table.last)
        played = {c.rank for c in table.last}
        table.ready = [q for q in table.ready if q[0] != seat or q[1] not in played]
    elif isinstance(event, Reveal):
        assert state.last_play is not None and state.challenger_seat is not None
        liar = any(c.rank != state.rank for c in event.cards)
        taker = state.last_play.seat if liar else state.challenger_seat
        table.hands[taker].extend(table.pile)
        table.pile, table.last = [], []
        table.gather(taker)


def check(state: State, table: Table, deep: bool) -> None:
    """The referee agrees with the hidden table."""
    assert list(state.cards) == [len(h) for h in table.hands]
    assert state.pile == len(table.pile)
    assert sum(state.cards) + state.pile + 4 * len(state.discarded) + 1 == state.deck
    assert len(table.discarded) == 4 * len(state.discarded)
    for seat in state.finish_order:
        assert not table.hands[seat]
    assert len(set(state.finish_order)) == len(state.finish_order)
    if deep:
        fours = {(seat, r) for seat, h in enumerate(table.hands) for r, k in Counter(c.rank for c in h).items() if k == 4}
        assert set(table.ready) == fours
        for card in deck_cards(state.deck):
            assert table.place_of(card, state.players) in state.possible_places(card), card
        for seat, name in enumerate(state.players):
            assert state.known_hand(name) <= set(table.hands[seat])
    if state.is_terminal():
        assert state.loser is not None and state.turn is None and state.legal_actions() == ()
        assert len(state.finish_order) == len(state.players) - 1
        assert state.loser not in state.finished
        return
    assert len(state.finish_order) <= len(state.players) - 2
    if state.expects() is None:
        turn = state.turn_seat
        assert turn is not None and turn not in state.finish_order and table.hands[turn]
    else:
        assert state.expects() == "reveal" and state.turn is None and state.legal_actions() == ()
    if state.last_play is not None:
        assert state.last_play.seat not in state.finish_order and state.last_play.seat != state.turn_seat


STYLES = [
    {"discard": 0.9, "challenge": 0.3, "lie": 0.15},
    {"discard": 0.3, "challenge": 0.5, "lie": 0.4},  # late discards, many challenges and lies
    {"discard": 1.0, "challenge": 0.1, "lie": 0.05},
]


def playout(seed: int, players: int, deck: int | None, deep: bool = False, probe: bool = False):
    """One complete game: the final state and the log's events, checked at every step."""
    rng = random.Random(seed)
    style = STYLES[seed % len(STYLES)]
    state = new_game(NAMES[:players], Options(deck))
    table, first = deal(rng, state)
    events: list[Any] = [first]
    state = state.apply(first)
    while not state.is_terminal():
        assert len(events) < MAX_EVENTS, "the game does not end"
        event = choose(rng, state, table, style)
        if probe and not isinstance(event, Reveal):
            legal = state.legal_actions()
            assert event in legal
            probe_legality(rng, state, legal)
        settle(state, table, event)
        state = state.apply(event)
        events.append(event)
        check(state, table, deep)
    return state, events


def probe_legality(rng: random.Random, state: State, legal: tuple[Any, ...]) -> None:
    """A decision is accepted exactly when legal_actions lists it."""
    ranks = list(Rank) + [None]
    for _ in range(8):
        player = rng.choice(state.players)
        kind = rng.randrange(3)
        if kind == 0:
            event: Any = Play(player, rng.randint(0, 4), rng.choice(ranks))
        elif kind == 1:
            event = Challenge(player)
        else:
            event = Discard(player, rng.choice(list(Rank)))
        try:
            state.apply(event)
        except RefereeError:
            assert event not in legal, event
        else:
            assert event in legal, event


def log_doc(players: int, deck: int | None, events: list[Any]) -> dict[str, Any]:
    return {
        "format": "tableref-game/1",
        "game": "doubt",
        "options": {} if deck is None else {"deck": deck},
        "players": list(NAMES[:players]),
        "events": [e.to_json() for e in events],
    }


# --- Random playouts -----------------------------------------------------------------------


@pytest.mark.parametrize("players, deck", CONFIGS)
def test_thousands_of_random_games_end_with_a_loser(players, deck):
    losers = Counter()
    rounds = 0
    for seed in range(PLAYOUTS_PER_CONFIG):
        state, _ = playout(seed * 7919 + players, players, deck)
        losers[state.loser] += 1
        rounds += len(state.rounds)
    assert sum(losers.values()) == PLAYOUTS_PER_CONFIG
    assert set(losers) == set(NAMES[:players])  # anyone can lose
    assert rounds > PLAYOUTS_PER_CONFIG  # challenges really happen


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), config=st.sampled_from(CONFIGS))
def test_hidden_hands_agree_with_the_referee_and_legal_actions_are_exact(seed, config):
    playout(seed, *config, deep=True, probe=True)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), config=st.sampled_from(CONFIGS), data=st.data())
def test_replay_is_deterministic_and_every_prefix_replays(seed, config, data):
    players, deck = config
    final, events = playout(seed, players, deck)
    doc = log_doc(players, deck, events)
    assert replay_json(doc) == final.to_json() == replay_json(json.loads(json.dumps(doc)))
    # The incremental states of the game are the replays of the log's prefixes.
    cut = data.draw(st.integers(0, len(events)))
    state = new_game(NAMES[:players], Options(deck))
    for event in events[:cut]:
        state = state.apply(event)
    prefix = GameLog.from_json({**doc, "events": doc["events"][:cut]})
    assert replay(prefix).to_json() == state.to_json()
    for raw in doc["events"]:
        assert parse_event(raw, doc["players"]).to_json() == raw


def test_every_prefix_of_a_long_game_replays():
    final, events = playout(12345, 4, None)
    doc = log_doc(4, None, events)
    state = new_game(NAMES[:4], Options())
    for cut, event in enumerate(events):
        assert replay_json({**doc, "events": doc["events"][:cut]}) == state.to_json()
        state = state.apply(event)
    assert state == final


# --- Malformed logs ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
    | st.sampled_from(["A", "10H", "QS", "Wanjin", "Mina", "play", "reveal"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)

junk_events = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["deal", "discard", "play", "challenge", "reveal", "bid", "Play"])},
        optional={
            "player": st.sampled_from(list(NAMES)) | json_values,
            "dealer": st.sampled_from(list(NAMES)) | json_values,
            "count": st.integers(-1, 5) | json_values,
            "rank": st.sampled_from(["A", "2", "7", "10", "K", "1", "X"]) | json_values,
            "cards": st.lists(st.sampled_from(["AS", "8H", "10D", "QS", "2C", "1H", "ZZ"]), max_size=4) | json_values,
        },
    ),
)


def assert_refused_cleanly(doc: Any) -> dict[str, Any] | None:
    """replay_json returns a state or raises ReplayError with a reason: nothing else."""
    try:
        return replay_json(doc)
    except ReplayError as err:
        assert isinstance(err.error, RefereeError)
        assert err.error.message("en") and err.error.message("ja")
        assert err.event is None or isinstance(err.event, int)
        return None


@settings(max_examples=300, deadline=None)
@given(events=st.lists(junk_events, max_size=8), players=st.integers(2, 5))
def test_fuzzed_events_give_a_replay_error_or_a_state(events, players):
    doc = {"format": "tableref-game/1", "game": "doubt", "options": {}, "players": list(NAMES[:players]),
           "events": [{"type": "deal", "dealer": "Wanjin"}, *events]}
    assert_refused_cleanly(doc)


@settings(max_examples=100, deadline=None)
@given(options=json_values, players=json_values)
def test_fuzzed_headers_are_refused_with_a_null_event(options, players):
    doc = {"format": "tableref-game/1", "game": "doubt", "options": options, "players": players, "events": []}
    try:
        replay_json(doc)
    except ReplayError as err:
        assert err.event is None and err.error.message("en")


MUTATIONS = ("drop", "duplicate", "swap", "rename", "recount", "recard", "retype", "unknown")


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000), config=st.sampled_from(CONFIGS), mutation=st.sampled_from(MUTATIONS),
       data=st.data())
def test_mutated_legal_logs_fail_only_at_or_after_the_mutation(seed, config, mutation, data):
    players, deck = config
    _, events = playout(seed, players, deck)
    doc = log_doc(players, deck, events)
    raw = doc["events"]
    i = data.draw(st.integers(1, len(raw) - 1))
    if mutation == "drop":
        del raw[i]
    elif mutation == "duplicate":
        raw.insert(i, dict(raw[i]))
    elif mutation == "swap":
        raw[i - 1], raw[i] = raw[i], raw[i - 1]
    elif mutation == "rename":
        raw[i] = {**raw[i], "player": data.draw(st.sampled_from(["Nobody", "", 7, None, *NAMES]))}
    elif mutation == "recount":
        raw[i] = {**raw[i], "count": data.draw(st.integers(-2, 6) | st.sampled_from(["1", 1.5, True]))}
    elif mutation == "recard":
        raw[i] = {**raw[i], "cards": data.draw(st.lists(st.sampled_from([str(c) for c in deck_cards(52)]), max_size=4))}
    elif mutation == "retype":
        raw[i] = {**raw[i], "type": data.draw(st.sampled_from(["deal", "discard", "play", "challenge", "reveal"]))}
    else:
        raw[i] = {"type": "shout", "player": NAMES[0]}
    try:
        replay_json(doc)
    except ReplayError as err:
        assert err.event is not None and err.event >= i - (mutation == "swap")
        assert err.error.message("en") and err.error.message("ja")


def test_out_of_order_events_name_their_index():
    base = [{"type": "deal", "dealer": "Mina"}, {"type": "play", "player": "Wanjin", "count": 1, "rank": "A"}]
    cases = [
        ([{"type": "play", "player": "Wanjin", "count": 1, "rank": "A"}], 0),  # before the deal
        ([base[0], base[0]], 1),  # dealt twice
        ([*base, {"type": "reveal", "cards": ["AS"]}], 2),  # reveal without challenge
        ([*base, {"type": "challenge", "player": "Saewoon"}, {"type": "challenge", "player": "Saewoon"}], 3),
        ([*base, {"type": "challenge", "player": "Saewoon"}, {"type": "play", "player": "Saewoon", "count": 1}], 3),
        ([base[0], {"type": "challenge", "player": "Wanjin"}], 1),  # nothing to challenge
    ]
    for events, index in cases:
        doc = {"format": "tableref-game/1", "game": "doubt", "options": {}, "players": list(NAMES[:3]),
               "events": events}
        with pytest.raises(ReplayError) as info:
            replay_json(doc)
        assert info.value.event == index, events
        assert info.value.to_json()["error"]


def cli_replay(doc: Any, directory: Path) -> tuple[int, str, str]:
    path = directory / "log.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", str(path)])
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(junk_events, min_size=1, max_size=6))
def test_cli_exits_2_with_error_and_event_and_no_traceback(events):
    doc = {"format": "tableref-game/1", "game": "doubt", "options": {}, "players": list(NAMES[:3]),
           "events": [{"type": "deal", "dealer": "Hana"}, *events]}  # Hana is not seated: always refused
    with tempfile.TemporaryDirectory() as tmp:
        code, out, err = cli_replay(doc, Path(tmp))
    assert code == 2, out
    reply = json.loads(out)
    assert set(reply) == {"error", "event"} and reply["error"] and reply["event"] == 0
    assert "Traceback" not in out + err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(junk_events, min_size=1, max_size=6))
def test_cli_on_fuzzed_events_never_crashes(events):
    doc = {"format": "tableref-game/1", "game": "doubt", "options": {}, "players": list(NAMES[:3]),
           "events": [{"type": "deal", "dealer": "Mina"}, *events]}
    with tempfile.TemporaryDirectory() as tmp:
        code, out, err = cli_replay(doc, Path(tmp))
    reply = json.loads(out)
    assert "Traceback" not in out + err
    if code == 2:
        assert set(reply) == {"error", "event"} and reply["error"] and isinstance(reply["event"], int)
    else:
        assert code == 0 and reply["game"] == "doubt"
