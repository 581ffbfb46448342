"""Doubt (ネ・ベリシ): the rulebook's examples and every Doubt decision, one test each."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from referee import doubt
from referee.doubt import (
    RULES,
    Card,
    Challenge,
    ChallengeOwnPlay,
    Deal,
    Discard,
    DiscardImpossible,
    DiscardNeedsFourCards,
    IllegalChallenge,
    IllegalDiscard,
    IllegalPlay,
    InvalidCard,
    InvalidRank,
    NotEnoughCards,
    NothingToChallenge,
    Options,
    Play,
    PlayCountOutOfRange,
    Rank,
    RankAlreadyDiscarded,
    RankAlreadySet,
    RankMissing,
    RankNotInDeck,
    Reveal,
    State,
    Suit,
    deal_counts,
    deck_cards,
    deck_for,
    deck_ranks,
    new_game,
    parse_event,
    parse_options,
)
from referee.errors import (
    GameOver,
    InvalidOption,
    MalformedEvent,
    Misread,
    NotYourTurn,
    OutOfOrder,
    RefereeError,
    UnknownPlayer,
    catalogue,
)
from referee.game import State as StateProtocol
from referee.replay import ReplayError, replay_json
from web.cli import main

RULEBOOK_TABLE = ("Wanjin", "Saewoon", "Mina", "Jun")


# --- Helpers ---------------------------------------------------------------------------


def table(players: tuple[str, ...] = ("A", "B", "C"), dealer: str | None = None, **options: Any) -> State:
    """A dealt game; the dealer defaults to the last seat, so the first seat opens."""
    state = new_game(players, parse_options(options))
    return state.apply(Deal(dealer or players[-1]))


def run(state: State, *events: dict[str, Any]) -> State:
    """Apply raw log events, as a replay would."""
    for raw in events:
        state = state.apply(parse_event(raw, state.players))
    return state


def play(player: str, count: int, rank: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "play", "player": player, "count": count}
    if rank is not None:
        event["rank"] = rank
    return event


def challenge(player: str) -> dict[str, Any]:
    return {"type": "challenge", "player": player}


def reveal(*cards: str) -> dict[str, Any]:
    return {"type": "reveal", "cards": list(cards)}


def discard(player: str, rank: str) -> dict[str, Any]:
    return {"type": "discard", "player": player, "rank": rank}


def counts(state: State) -> dict[str, int]:
    return state.cards_in_play()


def conserved(state: State) -> bool:
    return sum(state.cards) + state.pile + 4 * len(state.discarded) + 1 == state.deck


def three_36() -> State:
    """Three players with 36 cards, dealer C: A 12, B 12, C 11 cards; A opens."""
    return table(("A", "B", "C"), deck=36)


def ones_around(state: State, rounds: int, opener_rank: str = "K") -> State:
    """Everyone plays 3 cards in turn, ``rounds`` times round the table (no challenge)."""
    for _ in range(rounds):
        for _ in range(len(state.players) - len(state.finished)):
            rank = opener_rank if state.rank is None else None
            state = run(state, play(state.turn, 3, rank))
    return state


# --- The rulebook's examples --------------------------------------------------------------


def rulebook_a_round() -> State:
    """The start player plays one card and says "A"; it goes round once and back to them."""
    state = table(RULEBOOK_TABLE, dealer="Jun")
    assert state.turn == "Wanjin"
    return run(
        state,
        play("Wanjin", 1, "A"),
        play("Saewoon", 1),
        play("Mina", 1),
        play("Jun", 1),
        play("Wanjin", 1),
    )


def test_rulebook_a_round_repeats_the_declared_rank():
    state = rulebook_a_round()
    assert state.rank is Rank.ACE and state.pile == 5 and state.turn == "Saewoon"
    assert counts(state) == {"Wanjin": 11, "Saewoon": 12, "Mina": 12, "Jun": 11}


def test_rulebook_ne_verishi_revealing_8_is_a_lie_liar_takes_pile_challenger_opens():
    state = run(rulebook_a_round(), challenge("Saewoon"))
    assert state.expects() == "reveal" and state.turn is None
    state = run(state, reveal("8H"))
    result = state.rounds[-1]
    assert (result.liar, result.player, result.challenger, result.taker, result.pile) == (
        True, "Wanjin", "Saewoon", "Wanjin", 5)
    assert counts(state)["Wanjin"] == 11 + 5 and state.pile == 0
    assert state.turn == "Saewoon" and state.rank is None
    with pytest.raises(RankMissing):
        run(state, play("Saewoon", 1))


def test_rulebook_truthful_a_challenger_takes_pile_and_next_player_opens():
    state = run(rulebook_a_round(), challenge("Saewoon"), reveal("AS"))
    result = state.rounds[-1]
    assert (result.liar, result.taker, result.pile) == (False, "Saewoon", 5)
    assert counts(state)["Saewoon"] == 12 + 5
    assert state.turn == "Mina"


def test_rulebook_only_the_previous_play_is_revealed_not_the_whole_pile():
    state = run(rulebook_a_round(), challenge("Saewoon"))
    with pytest.raises(Misread):
        run(state, reveal("AS", "AH", "AD", "AC", "8H"))
    assert state.expected_reveal().count == 1


def test_rulebook_one_off_rank_card_among_three_is_a_lie():
    state = run(table(), play("A", 3, "Q"), challenge("B"), reveal("QS", "QH", "9D"))
    assert state.rounds[-1].liar and state.rounds[-1].taker == "A"


def test_rulebook_three_on_rank_cards_are_the_truth():
    state = run(table(), play("A", 3, "Q"), challenge("B"), reveal("QS", "QH", "QD"))
    assert not state.rounds[-1].liar and state.rounds[-1].taker == "B" and state.turn == "C"


def test_rulebook_declared_rank_need_not_match_the_cards_until_challenged():
    state = run(table(), play("A", 2, "7"), play("B", 1), play("C", 3))
    assert state.rounds == () and state.pile == 6


def test_rulebook_taker_discards_four_of_a_kind_after_taking_the_pile():
    state = run(table(), play("A", 1, "9"), challenge("B"), reveal("9S"))
    state = run(state, discard("B", "9"))
    assert counts(state)["B"] == 17 + 1 - 4 and state.discarded == (Rank.NINE,)


def test_rulebook_game_ends_when_all_but_one_have_no_cards():
    state = ones_around(three_36(), 3)  # A 3, B 3, C 2
    state = run(state, play("A", 3), play("B", 3), play("C", 1))
    assert state.is_terminal() and state.loser == "C" and counts(state)["C"] == 1


# --- Decisions: the deck ------------------------------------------------------------------


def test_two_players_use_36_cards():
    assert table(("A", "B")).deck == 36
    assert deck_cards(36) == tuple(Card(r, s) for r in deck_ranks(36) for s in Suit)
    assert [str(r) for r in deck_ranks(36)] == ["A", "6", "7", "8", "9", "10", "J", "Q", "K"]


def test_four_and_five_players_use_52_cards():
    assert table(("A", "B", "C", "D")).deck == 52
    assert table(("A", "B", "C", "D", "E")).deck == 52
    assert len(deck_cards(52)) == 52 and len(set(deck_cards(52))) == 52


def test_three_players_default_to_52_cards():
    assert table(("A", "B", "C")).deck == 52


def test_three_players_may_choose_36_cards():
    assert table(("A", "B", "C"), deck=36).deck == 36
    assert table(("A", "B", "C"), deck=52).deck == 52


@pytest.mark.parametrize("players, deck", [(2, 52), (4, 36), (5, 36)])
def test_deck_option_contradicting_the_player_count_is_invalid(players, deck):
    names = tuple("ABCDE"[:players])
    with pytest.raises(InvalidOption) as info:
        new_game(names, parse_options({"deck": deck}))
    assert "deck" in info.value.message("en") and "デッキ" in info.value.message("ja")


@pytest.mark.parametrize("options", [{"deck": 40}, {"deck": "36"}, {"deck": True}, {"deck": 36.5}, {"decks": 36}])
def test_bad_deck_options_are_invalid(options):
    with pytest.raises(InvalidOption):
        parse_options(options)


def test_player_counts_outside_2_to_5_are_invalid():
    assert (RULES.min_players, RULES.max_players) == (2, 5)
    with pytest.raises(InvalidOption):
        deck_for(6)
    with pytest.raises(InvalidOption):
        new_game(("A",), Options())


def test_ranks_outside_the_36_card_deck_cannot_be_declared():
    with pytest.raises(RankNotInDeck) as info:
        run(table(("A", "B")), play("A", 1, "5"))
    assert "36" in info.value.message("en") and "36" in info.value.message("ja")


# --- Decisions: set-aside card and the deal -----------------------------------------------


def test_one_card_is_set_aside_and_all_others_dealt():
    for players, deck in [(2, 36), (3, 36), (3, 52), (4, 52), (5, 52)]:
        state = table(tuple("ABCDE"[:players]), deck=deck)
        assert sum(state.cards) == deck - 1 and conserved(state)
        assert "aside" in state.possible_places("AS")


@pytest.mark.parametrize(
    "players, deck, expected",
    [
        (2, 36, {"A": 18, "B": 17}),
        (3, 36, {"A": 12, "B": 12, "C": 11}),
        (3, 52, {"A": 17, "B": 17, "C": 17}),
        (4, 52, {"A": 13, "B": 13, "C": 13, "D": 12}),
        (5, 52, {"A": 11, "B": 10, "C": 10, "D": 10, "E": 10}),
    ],
)
def test_deal_counts_follow_deck_and_seating(players, deck, expected):
    assert counts(table(tuple("ABCDE"[:players]), deck=deck)) == expected


def test_the_first_card_goes_to_the_dealers_left():
    state = table(("A", "B", "C", "D"), dealer="B")
    assert counts(state) == {"A": 13, "B": 12, "C": 13, "D": 13}
    assert deal_counts(4, 52, dealer=1) == (13, 12, 13, 13)


def test_the_opener_sits_left_of_the_dealer():
    assert table(("A", "B", "C"), dealer="A").turn == "B"
    assert table(("A", "B", "C"), dealer="C").turn == "A"


def test_deal_is_expected_first_and_only_once():
    state = new_game(("A", "B"), Options())
    assert state.expects() == "deal" and state.legal_actions() == () and state.turn is None
    with pytest.raises(OutOfOrder):
        run(state, play("A", 1, "A"))
    with pytest.raises(OutOfOrder):
        run(state, discard("A", "7"))
    with pytest.raises(OutOfOrder):
        run(table(("A", "B")), {"type": "deal", "dealer": "A"})


# --- Decisions: plays and challenges ----------------------------------------------------


def test_opener_may_declare_any_rank_of_the_deck_in_use():
    state = table(("A", "B"))
    plays = [a for a in state.legal_actions() if isinstance(a, Play)]
    assert {a.rank for a in plays} == set(deck_ranks(36))
    assert {a.count for a in plays} == {1, 2, 3}
    assert not any(isinstance(a, Challenge) for a in state.legal_actions())


def test_later_plays_repeat_the_round_rank_without_naming_it():
    state = run(table(), play("A", 2, "J"))
    plays = [a for a in state.legal_actions() if isinstance(a, Play)]
    assert plays == [Play("B", 1), Play("B", 2), Play("B", 3)]
    with pytest.raises(RankAlreadySet):
        run(state, play("B", 1, "J"))
    assert run(state, play("B", 1)).rank is Rank.JACK


@pytest.mark.parametrize("count", [0, 4, -1, 99])
def test_a_play_is_one_to_three_cards(count):
    with pytest.raises(PlayCountOutOfRange):
        run(table(), play("A", count, "A"))


def test_never_more_cards_than_held():
    state = ones_around(table(("A", "B"), deck=36), 5)  # A 3, B 2
    state = run(state, play("A", 3))
    assert counts(state)["B"] == 2
    with pytest.raises(NotEnoughCards):
        run(state, play("B", 3))
    assert max(a.count for a in state.legal_actions() if isinstance(a, Play)) == 2


def test_only_the_player_whose_turn_it_is_plays():
    with pytest.raises(NotYourTurn):
        run(table(), play("B", 1, "A"))


def test_challenge_only_the_immediately_previous_play():
    state = run(table(), play("A", 2, "10"), play("B", 1), challenge("C"))
    spec = state.expected_reveal()
    assert (spec.player, spec.count, spec.rank) == ("B", 1, Rank.TEN)
    with pytest.raises(Misread):
        run(state, reveal("10S", "10H"))
    state = run(state, reveal("10S"))
    assert state.rounds[-1].player == "B" and state.rounds[-1].pile == 3


def test_no_challenge_before_anything_is_played():
    with pytest.raises(NothingToChallenge):
        run(table(), challenge("A"))


def test_cannot_challenge_own_play():
    with pytest.raises(ChallengeOwnPlay):
        run(table(), play("A", 1, "A"), challenge("A"))


def test_only_the_next_player_may_challenge():
    with pytest.raises(NotYourTurn):
        run(table(), play("A", 1, "A"), challenge("C"))


def test_nothing_but_the_reveal_after_a_challenge():
    state = run(table(), play("A", 1, "A"), challenge("B"))
    assert state.legal_actions() == ()
    for event in (play("B", 1), challenge("B"), discard("C", "7"), {"type": "deal", "dealer": "A"}):
        with pytest.raises(OutOfOrder):
            run(state, event)


def test_reveal_without_a_challenge_is_out_of_order():
    with pytest.raises(OutOfOrder):
        run(table(), play("A", 1, "A"), reveal("AS"))


# --- Decisions: reveals are read, never guessed -------------------------------------------


def test_reveal_with_a_duplicate_card_is_a_misread():
    with pytest.raises(Misread):
        run(table(), play("A", 2, "A"), challenge("B"), reveal("AS", "AS"))


def test_reveal_of_a_card_outside_the_deck_in_use_is_a_misread():
    with pytest.raises(Misread) as info:
        run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("2H"))
    assert "2H" in info.value.message("en")


def test_reveal_of_a_discarded_card_is_a_misread():
    state = run(table(), discard("C", "7"), play("A", 1, "A"), challenge("B"))
    with pytest.raises(Misread) as info:
        run(state, reveal("7S"))
    assert "7S" in info.value.message("en") and "7S" in info.value.message("ja")


def test_reveal_of_a_card_known_in_another_hand_is_a_misread():
    state = run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("8H"))  # A took 8H back
    assert Card.parse("8H") in state.known_hand("A")
    state = run(state, play("B", 1, "K"), challenge("A"))
    with pytest.raises(Misread) as info:
        run(state, reveal("8H"))
    assert "A's hand" in info.value.message("en")
    # Once A plays again, 8H may be on the table.
    state = run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("8H"), play("B", 1, "K"),
                play("A", 1), challenge("B"), reveal("8H"))
    assert state.rounds[-1].liar


def test_a_garbled_card_is_a_malformed_event():
    with pytest.raises(InvalidCard):
        parse_event(reveal("1H"), ["A", "B"])
    assert issubclass(InvalidCard, MalformedEvent)


# --- Decisions: discards -------------------------------------------------------------------


def test_discard_right_after_the_deal_by_anyone():
    state = run(table(), discard("B", "7"), discard("A", "K"))
    assert counts(state) == {"A": 13, "B": 13, "C": 17} and state.turn == "A" and conserved(state)


def test_discard_mid_round_when_not_your_turn():
    state = run(table(), play("A", 1, "A"), discard("C", "Q"))
    assert state.turn == "B" and counts(state)["C"] == 13
    assert any(isinstance(a, Challenge) for a in state.legal_actions())  # A's play still challengeable


def test_no_discard_while_a_challenge_is_pending():
    with pytest.raises(OutOfOrder):
        run(table(), play("A", 1, "A"), challenge("B"), discard("C", "Q"))


def test_a_rank_is_discarded_only_once():
    with pytest.raises(RankAlreadyDiscarded):
        run(table(), discard("A", "Q"), discard("B", "Q"))


def test_a_discard_needs_four_cards_in_hand():
    state = ones_around(table(("A", "B")), 5)  # A 3, B 2
    assert counts(state)["A"] == 3
    with pytest.raises(DiscardNeedsFourCards):
        run(state, discard("A", "7"))


def test_a_discard_must_be_a_rank_of_the_deck():
    with pytest.raises(RankNotInDeck):
        run(table(("A", "B")), discard("A", "3"))


def test_a_discard_is_refused_when_a_card_of_it_is_known_elsewhere():
    state = run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("8H"))  # 8H now in A's hand
    with pytest.raises(DiscardImpossible) as info:
        run(state, discard("B", "8"))
    assert "8H" in info.value.message("en") and "8H" in info.value.message("ja")
    assert Discard("B", Rank.EIGHT) not in state.legal_actions()
    assert run(state, discard("A", "8")).known_hand("A") == frozenset()


def test_legal_discards_list_every_possible_rank_for_every_holder():
    state = table(("A", "B"))
    discards = {(a.player, a.rank) for a in state.legal_actions() if isinstance(a, Discard)}
    assert discards == {(p, r) for p in "AB" for r in deck_ranks(36)}


# --- Decisions: finishing and losing -----------------------------------------------------


def empty_a() -> State:
    """Three players, 36 cards; A has just played their last three cards."""
    state = ones_around(three_36(), 3)  # A 3, B 3, C 2
    return run(state, play("A", 3))


def test_empty_hand_is_not_finished_while_its_play_can_be_challenged():
    state = empty_a()
    assert counts(state)["A"] == 0 and state.finished == () and state.turn == "B"
    assert state.to_json()["players"][0] == {"name": "A", "cards": 0, "finished": False}


def test_empty_hand_finishes_when_the_next_player_plays_on():
    state = run(empty_a(), play("B", 1))
    assert state.finished == ("A",) and state.turn == "C"


def test_empty_hand_finishes_when_a_challenge_of_its_play_fails():
    state = run(empty_a(), challenge("B"), reveal("KS", "KH", "KD"))
    assert state.finished == ("A",) and state.rounds[-1].taker == "B"
    assert state.turn == "C"  # the player after the challenger


def test_empty_hand_caught_lying_takes_the_pile_and_plays_on():
    state = run(empty_a(), challenge("B"), reveal("KS", "KH", "7D"))
    assert state.finished == () and counts(state)["A"] == state.rounds[-1].pile
    assert state.turn == "B"


def test_finished_players_are_skipped():
    state = run(empty_a(), play("B", 1))
    turns = []
    for _ in range(3):
        turns.append(state.turn)
        state = run(state, play(state.turn, 1))
    assert turns == ["C", "B", "C"]


def test_opener_after_a_failed_challenge_skips_finished_players():
    state = run(empty_a(), play("B", 1))  # A finished; C to play
    state = run(state, challenge("C"), reveal("KS"))  # truthful: C takes, next after C is A -> skipped
    assert state.turn == "B"


def test_hand_emptied_by_a_discard_finishes_at_once():
    state = ones_around(three_36(), 2)  # A 6, B 6, C 5
    state = run(state, play("A", 2), play("B", 1), play("C", 1))  # A 4
    state = run(state, discard("A", "6"))
    assert state.finished == ("A",) and state.turn == "B" and conserved(state)


def test_discard_emptying_the_hand_behind_a_pending_play_settles_that_play():
    state = ones_around(three_36(), 2)
    state = run(state, play("A", 2))  # A 4, A's play pending
    state = run(state, discard("A", "6"))
    assert state.finished == ("A",) and state.turn == "B" and state.rank is Rank.KING
    with pytest.raises(NothingToChallenge) as info:
        run(state, challenge("B"))
    assert "no longer" in info.value.message("en")
    assert run(state, play("B", 1)).pile == state.pile + 1


def test_discard_leaving_one_player_with_cards_ends_the_game():
    state = ones_around(table(("A", "B")), 4)  # A 6, B 5
    state = run(state, play("A", 2), play("B", 1), discard("A", "J"))
    assert state.is_terminal() and state.loser == "B" and state.finished == ("A",)


def test_last_player_holding_cards_loses():
    state = run(empty_a(), play("B", 3))  # A finished, B empty and pending
    state = run(state, play("C", 1))  # B finished; only C holds cards
    assert state.is_terminal() and state.loser == "C" and state.finished == ("A", "B")
    assert state.winner() is None and state.turn is None and state.legal_actions() == ()
    assert state.to_json()["loser"] == "C"


def test_last_two_emptying_together_the_later_one_loses():
    state = ones_around(table(("A", "B")), 5)  # A 3, B 2
    state = run(state, play("A", 3), play("B", 2))
    assert state.is_terminal() and state.loser == "B" and counts(state) == {"A": 0, "B": 0}


def test_nothing_is_accepted_after_the_game_ends():
    state = ones_around(table(("A", "B")), 5)
    state = run(state, play("A", 3), play("B", 2))
    for event in (play("A", 1), challenge("A"), discard("A", "7"), reveal("AS"), {"type": "deal", "dealer": "A"}):
        with pytest.raises(GameOver):
            run(state, event)


# --- Events, parsing and state JSON ------------------------------------------------------


def test_cards_and_ranks_parse_and_print():
    assert Card.parse("10H") == Card(Rank.TEN, Suit.HEARTS) and str(Card.parse("QS")) == "QS"
    for bad in ("", "H", "1H", "10", "10X", "qs", "11S", " QS", 10, None, ["QS"]):
        with pytest.raises(InvalidCard):
            Card.parse(bad)
    assert Rank.parse("A") is Rank.ACE
    with pytest.raises(InvalidRank):
        Rank.parse("1")


@pytest.mark.parametrize(
    "event",
    [Deal("A"), Discard("B", Rank.SEVEN), Play("A", 2, Rank.TEN), Play("B", 3), Challenge("C"),
     Reveal((Card.parse("10H"), Card.parse("AS")))],
)
def test_events_round_trip_through_json(event):
    assert parse_event(json.loads(json.dumps(event.to_json())), ["A", "B", "C"]) == event


@pytest.mark.parametrize(
    "raw, error",
    [
        (None, MalformedEvent),
        ([], MalformedEvent),
        ("play", MalformedEvent),
        ({}, MalformedEvent),
        ({"type": "bid"}, MalformedEvent),
        ({"type": ["play"]}, MalformedEvent),
        ({"type": "play"}, MalformedEvent),
        ({"type": "play", "player": "A"}, MalformedEvent),
        ({"type": "play", "player": "A", "count": "2"}, MalformedEvent),
        ({"type": "play", "player": "A", "count": True}, MalformedEvent),
        ({"type": "play", "player": "A", "count": 2.0}, MalformedEvent),
        ({"type": "play", "player": "A", "count": 2, "rank": 1}, InvalidRank),
        ({"type": "play", "player": "A", "count": 2, "rank": "Z"}, InvalidRank),
        ({"type": "play", "player": ["A"], "count": 2}, MalformedEvent),
        ({"type": "play", "player": {"A": 1}, "count": 2}, MalformedEvent),
        ({"type": "play", "player": "Zed", "count": 2}, UnknownPlayer),
        ({"type": "deal"}, MalformedEvent),
        ({"type": "deal", "dealer": 0}, MalformedEvent),
        ({"type": "discard", "player": "A"}, MalformedEvent),
        ({"type": "discard", "player": "A", "rank": ["7"]}, InvalidRank),
        ({"type": "challenge"}, MalformedEvent),
        ({"type": "reveal"}, MalformedEvent),
        ({"type": "reveal", "cards": "AS"}, MalformedEvent),
        ({"type": "reveal", "cards": [{"card": "AS"}]}, InvalidCard),
        ({"type": "reveal", "cards": [["AS"]]}, InvalidCard),
    ],
)
def test_junk_events_are_refused_with_a_reason(raw, error):
    with pytest.raises(error) as info:
        parse_event(raw, ["A", "B"])
    assert info.value.message("en") and info.value.message("ja")


def test_apply_refuses_foreign_events_and_players():
    state = table()
    with pytest.raises(MalformedEvent):
        state.apply({"type": "play"})  # type: ignore[arg-type]
    with pytest.raises(UnknownPlayer):
        state.apply(Play("Zed", 1, Rank.ACE))


def test_state_json_has_the_contract_fields():
    state = run(table(), play("A", 2, "A"), play("B", 1), challenge("C"), reveal("AS"))
    doc = state.to_json()
    assert {"game", "players", "pile", "rank", "turn", "loser", "rounds"} <= set(doc)
    assert doc["game"] == "doubt" and doc["pile"] == 0 and doc["rank"] is None and doc["turn"] == "A"
    assert doc["players"][2] == {"name": "C", "cards": 17 + 3, "finished": False}
    round_ = doc["rounds"][0]
    assert {k: round_[k] for k in ("rank", "challenger", "liar", "taker", "pile")} == {
        "rank": "A", "challenger": "C", "liar": False, "taker": "C", "pile": 3}
    assert json.loads(json.dumps(doc)) == doc
    mid = run(table(), play("A", 2, "A")).to_json()
    assert (mid["pile"], mid["rank"], mid["turn"]) == (2, "A", "B")


def test_state_is_immutable_and_follows_the_protocol():
    state = table()
    after = run(state, play("A", 1, "A"))
    assert state.pile == 0 and after.pile == 1
    assert isinstance(state, StateProtocol)
    with pytest.raises(AttributeError):
        state.pile = 3  # type: ignore[misc]


# --- Table aids ----------------------------------------------------------------------------


def test_expected_reveal_tells_the_camera_what_to_look_for():
    state = run(table(("A", "B")), discard("B", "7"), play("A", 2, "Q"), challenge("B"))
    spec = state.expected_reveal()
    assert (spec.player, spec.count, spec.rank) == ("A", 2, Rank.QUEEN)
    assert Card.parse("7S") not in spec.possible and Card.parse("QS") in spec.possible
    assert table().expected_reveal() is None


def test_possible_places_only_rule_out_certainties():
    state = run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("8H"))
    assert state.possible_places("8H") == {"A"}
    assert state.possible_places("9H") == {"A", "B", "aside"}
    assert run(state, discard("B", "9")).possible_places("9H") == {"discarded"}


def test_a_known_card_not_shown_at_a_reveal_stays_known():
    state = run(table(), play("A", 1, "A"), challenge("B"), reveal("8H"))  # A took 8H back
    state = run(state, play("B", 1, "K"), play("C", 1), play("A", 1), challenge("B"), reveal("KS"))
    assert Card.parse("8H") in state.known_hand("A")  # A showed KS, so 8H is still in A's hand


def test_an_emptied_hand_holds_nothing():
    state = run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("8H"))  # A 18, B 17
    for _ in range(5):
        state = run(state, play("B", 3, "K" if state.rank is None else None), play("A", 3))
    state = run(state, play("B", 2))
    assert counts(state) == {"A": 3, "B": 0} and state.possible_places("9H") == {"A", "pile", "aside"}
    state = run(state, play("A", 3))
    assert state.loser == "A" and state.possible_places("8H") == {"pile"}
    assert state.possible_places("9H") == {"pile", "aside"}


# --- Bilingual messages --------------------------------------------------------------------


def _raised(make: Callable[[], Any]) -> RefereeError:
    with pytest.raises(RefereeError) as info:
        make()
    return info.value


SCENARIOS: dict[type[RefereeError], Callable[[], Any]] = {
    InvalidRank: lambda: Rank.parse("1"),
    InvalidCard: lambda: Card.parse("ZZ"),
    RankNotInDeck: lambda: run(table(("A", "B")), play("A", 1, "4")),
    PlayCountOutOfRange: lambda: run(table(), play("A", 5, "A")),
    NotEnoughCards: lambda: run(ones_around(table(("A", "B")), 5), play("A", 3), play("B", 3)),
    RankMissing: lambda: run(table(), play("A", 1)),
    RankAlreadySet: lambda: run(table(), play("A", 1, "A"), play("B", 1, "K")),
    NothingToChallenge: lambda: run(table(), challenge("A")),
    ChallengeOwnPlay: lambda: run(table(), play("A", 1, "A"), challenge("A")),
    DiscardNeedsFourCards: lambda: run(ones_around(table(("A", "B")), 5), discard("B", "A")),
    RankAlreadyDiscarded: lambda: run(table(), discard("A", "5"), discard("A", "5")),
    DiscardImpossible: lambda: run(table(("A", "B")), play("A", 1, "A"), challenge("B"), reveal("8H"),
                                   discard("B", "8")),
}


@pytest.mark.parametrize("kind", list(SCENARIOS), ids=lambda k: k.__name__)
def test_every_doubt_error_speaks_english_and_japanese(kind):
    err = _raised(SCENARIOS[kind])
    assert type(err) is kind
    en, ja = err.message("en"), err.message("ja")
    assert en and ja and en != ja
    assert not en.startswith(kind.code) and not ja.startswith(kind.code)  # no template/param mismatch
    assert "{" not in en and "{" not in ja
    assert any(ord(ch) > 0x3000 for ch in ja)
    for value in err.params.values():
        if isinstance(value, str) and value.isascii() and len(value) <= 3:
            assert value in en and value in ja, (value, en, ja)


def test_every_doubt_error_code_is_catalogued_with_both_languages():
    codes = {
        cls.code
        for cls in vars(doubt).values()
        if isinstance(cls, type) and issubclass(cls, RefereeError) and cls.__module__ == doubt.__name__
    }
    assert {k.code for k in SCENARIOS} | {IllegalPlay.code, IllegalChallenge.code, IllegalDiscard.code} == codes
    cat = catalogue()
    for code in codes:
        assert code.startswith("doubt_") and cat[code]["en"] and cat[code]["ja"]


def test_misread_messages_are_bilingual():
    err = _raised(lambda: run(table(), play("A", 2, "A"), challenge("B"), reveal("AS")))
    assert "2" in err.message("en") and "2" in err.message("ja")
    assert any(ord(ch) > 0x3000 for ch in err.message("ja"))


# --- Replay and the command line -----------------------------------------------------------


def rulebook_log(*tail: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "tableref-game/1",
        "game": "doubt",
        "options": {},
        "players": list(RULEBOOK_TABLE),
        "events": [
            {"type": "deal", "dealer": "Jun"},
            play("Wanjin", 1, "A"),
            play("Saewoon", 1),
            play("Mina", 1),
            play("Jun", 1),
            play("Wanjin", 1),
            challenge("Saewoon"),
            reveal("8H"),
            *tail,
        ],
    }


def test_replay_of_the_rulebook_example():
    state = replay_json(rulebook_log())
    assert state["rounds"] == [
        {"rank": "A", "challenger": "Saewoon", "liar": True, "taker": "Wanjin", "pile": 5,
         "player": "Wanjin", "cards": ["8H"]}
    ]
    assert state["turn"] == "Saewoon" and state == replay_json(rulebook_log())


def test_replay_error_names_the_event_and_the_reason():
    with pytest.raises(ReplayError) as info:
        replay_json(rulebook_log(play("Mina", 1, "K")))
    assert info.value.event == 8 and "Saewoon" in info.value.to_json()["error"]
    doc = rulebook_log()
    doc["options"] = {"deck": 36}
    with pytest.raises(ReplayError) as info:
        replay_json(doc)
    assert info.value.event is None


def test_cli_replays_a_doubt_log(tmp_path, capsys):
    path = tmp_path / "doubt.json"
    path.write_text(json.dumps(rulebook_log()), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["rounds"][0]["liar"] is True


def test_cli_reports_a_misread_reveal_in_japanese(tmp_path, capsys):
    doc = rulebook_log()
    doc["events"][-1] = reveal("8H", "9H")
    path = tmp_path / "doubt.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["replay", "--lang", "ja", str(path)]) == 2
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert set(out) == {"error", "event"} and out["event"] == 7
    assert "読み取" in out["error"] and "Traceback" not in captured.err
