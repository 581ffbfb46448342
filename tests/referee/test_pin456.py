"""Pin-456 referee: the rulebook (shared/rules/pin456.ja.md), every Pin-456 decision
of DECISIONS.md as its own test, and the game-log contract's state JSON."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from referee import pin456
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
from referee.pin456 import (
    DICE_SET,
    RULES,
    Accuse,
    Declare,
    DiceSet,
    DieKind,
    IllegalAccusation,
    IllegalDeclare,
    IllegalGuess,
    IllegalStake,
    Money,
    Options,
    Reveal,
    Stake,
    State,
    feasible_sums,
    new_game,
    parse_event,
)
from referee.replay import ReplayError, replay_json

PLAYERS = ("A", "B")
ALL_SIX = ["1", "1", "1", "4", "5", "6"]  # sum 18


def declare(player: str, count: int) -> dict[str, Any]:
    return {"type": "declare", "player": player, "count": count}


def stake(player: str, amount: int, guess: int) -> dict[str, Any]:
    return {"type": "stake", "player": player, "amount": amount, "guess": guess}


def reveal(*faces: str) -> dict[str, Any]:
    return {"type": "reveal", "dice": list(faces)}


def accuse(player: str, fake: bool) -> dict[str, Any]:
    return {"type": "accuse", "player": player, "fake": fake}


def start(**options: Any) -> State:
    return new_game(PLAYERS, Options(**options))


def play(state: State, *events: dict[str, Any]) -> State:
    for raw in events:
        state = state.apply(parse_event(raw, PLAYERS))
    return state


def full_turn(state: State, amount: int = 1000, correct: bool = False) -> State:
    """The parent uses all six dice at once; the child stakes ``amount``."""
    parent, child = state.players[state.parent], state.players[state.child]
    return play(state, declare(parent, 6), stake(child, amount, 18 if correct else 17), reveal(*ALL_SIX))


def cash(state: State) -> tuple[int, int]:
    return state.cash[0].points, state.cash[1].points


def assert_conserved(state: State) -> None:
    assert state.money_in_play() == Money(60000)


def log(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return {"format": "tableref-game/1", "game": "pin456", "options": options, "players": list(PLAYERS), "events": events}


# --- Setup and the contract -------------------------------------------------------------


def test_new_game_thirty_notes_each_first_player_is_parent_with_all_dice():
    state = start()
    assert cash(state) == (30000, 30000)
    assert state.players[state.parent] == "A" and state.turn() == "A"
    assert state.to_json()["dice_left"] == {"pin": 3, "456": 3}
    assert state.parent_turns == (1, 0)
    assert not state.is_terminal() and state.winner() is None and state.expects() is None


def test_contract_example_state_json():
    state = play(start(), declare("A", 2), stake("B", 3000, 9), reveal("4", "5"))
    doc = state.to_json()
    assert doc["game"] == "pin456"
    assert doc["players"] == [
        {"name": "A", "cash": 24000, "parent_turns": 1},
        {"name": "B", "cash": 36000, "parent_turns": 0},
    ]
    assert doc["parent"] == "A" and doc["dice_left"] == {"pin": 3, "456": 1}
    assert doc["winner"] is None and doc["draw"] is False
    round_ = doc["rounds"][0]
    assert {k: round_[k] for k in ("parent", "count", "stake", "guess", "sum", "correct", "payout")} == {
        "parent": "A", "count": 2, "stake": 3000, "guess": 9, "sum": 9, "correct": True, "payout": 6000,
    }  # fmt: skip


def test_replay_json_matches_direct_play():
    events = [declare("A", 2), stake("B", 3000, 9), reveal("4", "5")]
    assert replay_json(log(events)) == play(start(), *events).to_json()


def test_rules_value():
    assert RULES.name == "pin456" and RULES.min_players == RULES.max_players == 2
    assert isinstance(RULES.new_game(PLAYERS, Options()), State)


# --- The payout table (rulebook 配当表) ---------------------------------------------------

FACES_FOR = {1: ["4"], 2: ["1", "6"], 3: ["1", "1", "5"], 4: ["1", "1", "1", "4"], 5: ["1", "1", "1", "4", "5"], 6: ALL_SIX}


@pytest.mark.parametrize(("count", "multiplier"), [(1, 1), (2, 2), (3, 3), (4, 4), (5, 10), (6, 10)], ids=lambda v: str(v))
def test_payout_table(count, multiplier):
    faces = FACES_FOR[count]
    state = play(start(), declare("A", count), stake("B", 2000, sum(map(int, faces))), reveal(*faces))
    assert cash(state) == (30000 - multiplier * 2000, 30000 + multiplier * 2000)
    assert state.rounds[-1].payout == Money(multiplier * 2000)
    assert state.to_json()["rounds"][-1]["payout"] == multiplier * 2000
    assert_conserved(state)


def test_wrong_guess_parent_takes_stake_payout_zero():
    state = play(start(), declare("A", 2), stake("B", 3000, 10), reveal("4", "5"))
    assert cash(state) == (33000, 27000)
    assert state.to_json()["rounds"][-1]["correct"] is False
    assert state.to_json()["rounds"][-1]["payout"] == 0


def test_stake_is_not_part_of_cash_until_settled():
    state = play(start(), declare("A", 2), stake("B", 3000, 9))
    assert cash(state) == (30000, 27000)
    assert state.stake == Money(3000)
    assert state.to_json()["stake"] == {"player": "B", "amount": 3000, "guess": 9}
    assert state.expects() == "reveal" and state.turn() is None and state.legal_actions() == ()
    assert_conserved(state)


# --- Turn structure ---------------------------------------------------------------------


def test_parent_keeps_the_turn_while_dice_are_unused():
    state = play(start(), declare("A", 4), stake("B", 1000, 5), reveal("1", "1", "1", "4"))
    assert state.players[state.parent] == "A" and state.to_json()["dice_left"] == {"pin": 0, "456": 2}
    assert state.legal_actions() == (Declare("A", 1), Declare("A", 2))


def test_roles_swap_when_all_six_dice_are_used():
    state = play(start(), declare("A", 4), stake("B", 1000, 5), reveal("1", "1", "1", "4"))
    state = play(state, declare("A", 2), stake("B", 1000, 3), reveal("5", "6"))
    assert state.players[state.parent] == "B" and state.turn() == "B"
    assert state.dice_left == DICE_SET.full
    assert state.parent_turns == (1, 1)
    with pytest.raises(NotYourTurn):
        play(state, declare("A", 1))


def test_used_dice_follow_from_the_faces():
    state = play(start(), declare("A", 2), stake("B", 1000, 5), reveal("1", "4"))
    assert state.to_json()["dice_left"] == {"pin": 2, "456": 2}
    assert state.to_json()["rounds"][-1]["used"] == {"pin": 1, "456": 1}


def test_game_ends_after_each_player_was_parent_five_times():
    state = start()
    for turn in range(9):
        state = full_turn(state)
        assert not state.is_terminal(), turn
    assert state.parent_turns == (5, 5) and state.players[state.parent] == "B"
    state = full_turn(state)
    assert state.is_terminal() and state.parent_turns == (5, 5)
    assert len(state.rounds) == 10
    with pytest.raises(GameOver):
        play(state, declare("A", 1))


def test_more_money_wins_at_the_end():
    state = full_turn(start(), amount=2000)  # A parent: B loses 2000
    for _ in range(9):
        state = full_turn(state)
    assert state.is_terminal() and cash(state) == (31000, 29000)
    assert state.winner() == "A" and state.to_json()["winner"] == "A" and state.to_json()["draw"] is False


def test_equal_money_is_a_draw():
    state = start()
    for _ in range(10):
        state = full_turn(state)
    assert cash(state) == (30000, 30000)
    assert state.is_terminal() and state.winner() is None and state.is_draw()
    assert state.to_json()["draw"] is True and state.to_json()["winner"] is None


# --- Bankruptcy -------------------------------------------------------------------------


def test_parent_who_cannot_pay_in_full_pays_all_and_loses():
    state = play(start(), declare("A", 6), stake("B", 30000, 18), reveal(*ALL_SIX))
    assert cash(state) == (0, 60000)
    assert state.is_terminal() and state.winner() == "B" and state.to_json()["bankrupt"] == "A"
    assert state.to_json()["rounds"][-1]["payout"] == 30000  # what A could pay of the 300000P owed


def test_parent_left_with_zero_after_paying_in_full_loses():
    state = play(start(), declare("A", 3), stake("B", 10000, 3), reveal("1", "1", "1"))
    assert cash(state) == (0, 60000)
    assert state.is_terminal() and state.winner() == "B" and state.bankrupt == 0


def test_child_left_with_zero_loses_at_once():
    state = play(start(), declare("A", 1), stake("B", 30000, 5), reveal("4"))
    assert cash(state) == (60000, 0)
    assert state.is_terminal() and state.winner() == "A" and state.to_json()["bankrupt"] == "B"


def test_player_who_cannot_stake_1000_loses_before_the_next_stake():
    # B loses to 0P mid-turn, with dice still unused: the game does not wait for a stake B cannot make.
    state = play(start(), declare("A", 1), stake("B", 30000, 5), reveal("4"))
    assert any(state.dice_left) and state.is_terminal() and state.legal_actions() == ()


def test_all_in_stake_on_the_table_is_not_bankruptcy():
    state = play(start(), declare("A", 1), stake("B", 30000, 4))
    assert cash(state) == (30000, 0) and not state.is_terminal()
    state = play(state, reveal("4"))
    assert cash(state) == (0, 60000) and state.winner() == "B"


# --- Select rules -----------------------------------------------------------------------


def test_to_hell_has_no_parent_limit():
    state = start(to_hell=True)
    for _ in range(12):
        state = full_turn(state)
    assert not state.is_terminal()
    assert state.parent_turns == (7, 6) and state.players[state.parent] == "A"


def test_to_hell_ends_only_by_bankruptcy():
    state = start(to_hell=True)
    for _ in range(10):
        state = full_turn(state)
    state = play(state, declare("A", 1), stake("B", 30000, 4), reveal("5"))
    assert state.is_terminal() and state.winner() == "A" and state.to_json()["bankrupt"] == "B"


def test_stake_cap_limits_stakes():
    state = play(start(stake_cap=5000), declare("A", 1))
    assert max(action.amount for action in state.legal_actions()) == 5000
    with pytest.raises(IllegalStake) as info:
        play(state, stake("B", 6000, 4))
    assert info.value.params["problem"] == "above_cap"
    assert cash(play(state, stake("B", 5000, 4), reveal("4"))) == (25000, 35000)


def test_stake_cap_above_cash_leaves_cash_as_the_limit():
    state = play(start(stake_cap=50000), declare("A", 1))
    assert max(action.amount for action in state.legal_actions()) == 30000


# --- Counterfeit ------------------------------------------------------------------------


def test_counterfeit_fake_found_in_stake_giver_pays_double():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 3000, 10), reveal("4", "5"))
    assert cash(state) == (33000, 27000)
    assert state.to_json()["accusable"] == {"giver": "B", "receiver": "A", "amount": 3000}
    state = play(state, accuse("A", True))
    assert cash(state) == (36000, 24000)
    assert state.to_json()["rounds"][-1]["accusations"] == [
        {"player": "A", "giver": "B", "fake": True, "batch": 3000, "paid": 6000}
    ]
    assert_conserved(state)


def test_counterfeit_doubled_payment_can_be_accused_again():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 3000, 10), reveal("4", "5"), accuse("A", True))
    assert state.to_json()["accusable"] == {"giver": "B", "receiver": "A", "amount": 6000}
    state = play(state, accuse("A", True))
    assert cash(state) == (42000, 18000)
    state = play(state, accuse("A", False))  # no fake in the 12000P: A gives it back and gets nothing
    assert cash(state) == (30000, 30000)
    assert_conserved(state)


def test_counterfeit_no_fake_accuser_forfeits_the_batch():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 3000, 10), reveal("4", "5"), accuse("A", False))
    assert cash(state) == (30000, 30000)
    assert state.accusable is None
    with pytest.raises(IllegalAccusation) as info:
        play(state, accuse("A", True))
    assert info.value.params["problem"] == "nothing_to_accuse"


def test_counterfeit_correct_guess_accusable_batch_is_the_payout_not_the_stake():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 3000, 9), reveal("4", "5"))
    assert state.to_json()["accusable"] == {"giver": "A", "receiver": "B", "amount": 6000}
    forfeited = play(state, accuse("B", False))
    assert cash(forfeited) == (30000, 30000)  # B keeps the returned 3000P stake, gives back the 6000P payout
    doubled = play(state, accuse("B", True))
    assert cash(doubled) == (18000, 42000)
    assert_conserved(forfeited)
    assert_conserved(doubled)


def test_counterfeit_only_the_receiver_may_accuse():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 3000, 9), reveal("4", "5"))
    with pytest.raises(IllegalAccusation) as info:
        play(state, accuse("A", True))
    assert info.value.params["problem"] == "not_receiver" and info.value.params["receiver"] == "B"


def test_counterfeit_giver_who_cannot_pay_double_pays_all_and_loses():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 20000, 10), reveal("4", "5"))
    assert cash(state) == (50000, 10000)
    state = play(state, accuse("A", True))  # B takes back 20000, owes 40000, has 30000
    assert cash(state) == (60000, 0)
    assert state.is_terminal() and state.winner() == "A" and state.to_json()["bankrupt"] == "B"
    assert state.to_json()["rounds"][-1]["accusations"][0]["paid"] == 30000
    assert state.accusable is None


def test_counterfeit_final_transfer_of_a_bankruptcy_cannot_be_accused():
    state = play(start(counterfeit=True), declare("A", 1), stake("B", 30000, 5), reveal("4"))
    assert state.is_terminal() and state.accusable is None
    with pytest.raises(GameOver):
        play(state, accuse("A", True))


def test_counterfeit_final_transfer_of_the_last_parent_turn_cannot_be_accused():
    state = start(counterfeit=True)
    for _ in range(10):
        state = full_turn(state, correct=True)
    assert state.is_terminal() and state.accusable is None
    with pytest.raises(GameOver):
        play(state, accuse(state.players[1 - state.parent], True))


def test_counterfeit_accusation_window_closes_at_the_next_declaration():
    state = play(start(counterfeit=True), declare("A", 2), stake("B", 3000, 10), reveal("4", "5"), declare("A", 1))
    with pytest.raises(IllegalAccusation) as info:
        play(state, accuse("A", True))
    assert info.value.params["problem"] == "nothing_to_accuse"


def test_counterfeit_accusation_allowed_across_the_role_swap():
    state = play(start(counterfeit=True), declare("A", 6), stake("B", 1000, 18), reveal(*ALL_SIX))
    assert cash(state) == (20000, 40000)
    assert state.players[state.parent] == "B"  # roles swapped; the 10000P payout to B is still open
    state = play(state, accuse("B", True))  # B hands back 10000P, A pays 20000P instead
    assert cash(state) == (10000, 50000) and not state.is_terminal()
    assert state.to_json()["accusable"] == {"giver": "A", "receiver": "B", "amount": 20000}


def test_counterfeit_accusations_are_legal_actions():
    state = play(start(counterfeit=True), declare("A", 5), stake("B", 1000, 5), reveal("1", "1", "1", "4", "4"))
    assert Accuse("A", True) in state.legal_actions() and Accuse("A", False) in state.legal_actions()
    assert Declare("A", 1) in state.legal_actions()


def test_accusation_without_the_counterfeit_rule_is_refused():
    state = play(start(), declare("A", 2), stake("B", 3000, 10), reveal("4", "5"))
    with pytest.raises(IllegalAccusation) as info:
        play(state, accuse("A", True))
    assert info.value.params["problem"] == "counterfeit_off"
    assert all(not isinstance(action, Accuse) for action in state.legal_actions())


def test_accusation_before_any_payment_is_refused():
    with pytest.raises(IllegalAccusation) as info:
        play(start(counterfeit=True), accuse("B", True))
    assert info.value.params["problem"] == "nothing_to_accuse"


# --- Stakes, declarations and guesses ---------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "problem"),
    [(0, "below_minimum"), (500, "below_minimum"), (-1000, "below_minimum"), (1500, "not_multiple"),
     (31000, "above_cash")],
)  # fmt: skip
def test_illegal_stake_reasons(amount, problem):
    state = play(start(), declare("A", 1))
    with pytest.raises(IllegalStake) as info:
        play(state, stake("B", amount, 4))
    assert info.value.params["problem"] == problem and info.value.code == "pin456_illegal_stake"


def test_stake_above_cash_after_losses():
    state = play(start(), declare("A", 1), stake("B", 25000, 5), reveal("4"), declare("A", 1))
    assert cash(state)[1] == 5000
    with pytest.raises(IllegalStake) as info:
        play(state, stake("B", 6000, 4))
    assert info.value.params["problem"] == "above_cash" and "5000P" in str(info.value)


@pytest.mark.parametrize("count", [0, -1, 7])
def test_illegal_declare_counts(count):
    with pytest.raises(IllegalDeclare):
        play(start(), declare("A", count))


def test_declare_more_than_the_unused_dice():
    state = play(start(), declare("A", 4), stake("B", 1000, 5), reveal("1", "1", "1", "4"))
    with pytest.raises(IllegalDeclare) as info:
        play(state, declare("A", 3))
    assert info.value.params == {**info.value.params, "left": 2, "problem": "too_many"}


def test_infeasible_guess_is_legal_but_loses():
    state = play(start(), declare("A", 1))
    assert 2 not in state.feasible_guesses()
    assert Stake("B", 1000, 2) in state.legal_actions()
    state = play(state, stake("B", 1000, 2), reveal("1"))
    assert cash(state) == (31000, 29000)


@pytest.mark.parametrize("guess", [0, 1, 13, -4])
def test_guess_that_is_no_total_of_the_declared_dice_is_illegal(guess):
    state = play(start(), declare("A", 2))
    with pytest.raises(IllegalGuess):
        play(state, stake("B", 1000, guess))


def test_feasible_guesses_of_the_state():
    state = play(start(), declare("A", 3), stake("B", 1000, 3), reveal("4", "5", "6"), declare("A", 2))
    assert state.feasible_guesses() == (2,)


def test_legal_actions_of_the_stake_phase():
    state = play(start(), declare("A", 2))
    actions = state.legal_actions()
    assert len(actions) == 30 * 11  # stakes 1000..30000, guesses 2..12
    assert all(isinstance(a, Stake) and a.player == "B" for a in actions)
    for action in actions[:: len(actions) // 20]:
        assert state.apply(action).expects() == "reveal"


# --- Reveals the camera must re-read ----------------------------------------------------


def test_misread_wrong_number_of_dice():
    state = play(start(), declare("A", 2), stake("B", 1000, 9))
    with pytest.raises(Misread):
        play(state, reveal("4", "5", "1"))
    with pytest.raises(Misread):
        play(state, reveal("4"))


def test_misread_pin_die_showing_five():
    state = play(start(), declare("A", 3), stake("B", 1000, 15), reveal("4", "5", "6"))  # 456 dice used up
    state = play(state, declare("A", 1), stake("B", 1000, 1))
    with pytest.raises(Misread) as info:
        play(state, reveal("5"))
    assert "pin×3" in str(info.value)
    assert play(state, reveal("1")).dice_left == (2, 0)


def test_misread_more_ones_than_pin_dice():
    state = play(start(), declare("A", 4), stake("B", 1000, 4))
    with pytest.raises(Misread):
        play(state, reveal("1", "1", "1", "1"))


@pytest.mark.parametrize("face", ["2", "3", "7", "0", "wheel", "٣", ""])
def test_misread_face_no_die_has(face):
    state = play(start(), declare("A", 1), stake("B", 1000, 4))
    with pytest.raises(Misread):
        play(state, reveal(face))


def test_misread_leaves_the_state_waiting_for_a_reread():
    events = [declare("A", 1), stake("B", 1000, 4), reveal("5")]
    with pytest.raises(ReplayError) as info:
        replay_json(log(events[:2] + [reveal("2")]))
    assert info.value.event == 2 and info.value.error.code == "misread"
    assert replay_json(log(events))["rounds"][0]["sum"] == 5


# --- Dice set data and table aid --------------------------------------------------------


def test_default_dice_set_is_three_pin_and_three_456():
    assert DICE_SET.names == ("pin", "456") and DICE_SET.full == (3, 3)
    assert DICE_SET.kinds[0].values == (1,) and DICE_SET.kinds[1].values == (4, 5, 6)


def test_feasible_sums_three_of_the_full_set():
    assert feasible_sums(3, {"pin": 3, "456": 3}) == (3, *range(6, 19))


def test_feasible_sums_matches_brute_force():
    import itertools

    faces = [("1",)] * 3 + [("4", "5", "6")] * 3
    for count in range(7):
        brute = {
            sum(int(f) for f in roll)
            for chosen in itertools.combinations(range(6), count)
            for roll in itertools.product(*(faces[i] for i in chosen))
        }
        assert feasible_sums(count, {"pin": 3, "456": 3}) == tuple(sorted(brute))


def test_feasible_sums_rejects_unknown_kinds():
    with pytest.raises(ValueError):
        feasible_sums(1, {"pip": 1})
    with pytest.raises(ValueError):
        feasible_sums(1, {"pin": 4})


@pytest.mark.parametrize(
    "doc",
    [
        {"kinds": []},
        {"kinds": [{"name": "pin", "count": 3, "faces": ["1"] * 6}]},  # 3 dice, not 6
        {"kinds": [{"name": "pin", "count": 6, "faces": ["1"] * 5}]},
        {"kinds": [{"name": "pin", "count": 6, "faces": ["7"] * 6}]},
        {"kinds": [{"name": "x", "count": 3, "faces": ["1"] * 6}, {"name": "x", "count": 3, "faces": ["2"] * 6}]},
        {"kinds": [{"name": "", "count": 6, "faces": ["1"] * 6}]},
        {"kinds": [{"name": "pin", "count": True, "faces": ["1"] * 6}, {"name": "b", "count": 5, "faces": ["1"] * 6}]},
        [],
    ],
)
def test_dice_set_data_is_validated(doc):
    with pytest.raises(ValueError):
        DiceSet.from_json(doc)


AMBIGUOUS = DiceSet(
    (DieKind("plain", 3, ("1", "2", "3", "4", "5", "6")), DieKind("odd", 3, ("1", "1", "1", "6", "6", "6")))
)


def test_ambiguous_faces_use_the_first_listed_kind_first():
    state = new_game(PLAYERS, Options(), dice=AMBIGUOUS)
    state = play(state, declare("A", 1), stake("B", 1000, 1), reveal("1"))
    assert state.to_json()["dice_left"] == {"plain": 2, "odd": 3}


def test_ambiguous_faces_fall_back_to_a_later_kind_when_needed():
    assert AMBIGUOUS.assign(["2", "1", "1", "1"], (3, 3)) == (3, 1)
    assert AMBIGUOUS.assign(["2", "2", "2", "2"], (3, 3)) is None
    state = new_game(PLAYERS, Options(), dice=AMBIGUOUS)
    state = play(state, declare("A", 4), stake("B", 1000, 5), reveal("2", "1", "1", "1"))
    assert state.dice_left == (0, 2)


# --- Options and players ----------------------------------------------------------------


def test_options_defaults_and_names():
    assert RULES.parse_options({}) == Options(stake_cap=None, to_hell=False, counterfeit=False)
    assert RULES.parse_options({"stake_cap": None, "to_hell": True, "counterfeit": True}) == Options(None, True, True)


@pytest.mark.parametrize(
    "raw",
    [{"stake-cap": 1000}, {"hell": True}, {"stake_cap": 500}, {"stake_cap": 1500}, {"stake_cap": 0},
     {"stake_cap": -1000}, {"stake_cap": True}, {"stake_cap": "5000"}, {"stake_cap": 5000.0},
     {"to_hell": "yes"}, {"to_hell": 1}, {"counterfeit": None}],
)  # fmt: skip
def test_invalid_options(raw):
    with pytest.raises(InvalidOption):
        RULES.parse_options(raw)


def test_invalid_option_in_a_log_is_a_replay_error_without_event():
    with pytest.raises(ReplayError) as info:
        replay_json(log([], to_hell="yes"))
    assert info.value.event is None and info.value.error.code == "invalid_option"


@pytest.mark.parametrize("players", [("A",), ("A", "B", "C")])
def test_exactly_two_players(players):
    with pytest.raises(InvalidOption):
        new_game(players, Options())
    doc = {**log([]), "players": list(players)}
    with pytest.raises(ReplayError) as info:
        replay_json(doc)
    assert info.value.event is None


# --- Order and turns --------------------------------------------------------------------


def test_child_cannot_declare():
    with pytest.raises(NotYourTurn):
        play(start(), declare("B", 1))


def test_parent_cannot_stake():
    with pytest.raises(NotYourTurn):
        play(start(), declare("A", 1), stake("A", 1000, 4))


@pytest.mark.parametrize(
    "events",
    [
        [stake("B", 1000, 4)],
        [reveal("4")],
        [declare("A", 1), declare("A", 1)],
        [declare("A", 1), reveal("4")],
        [declare("A", 1), stake("B", 1000, 4), stake("B", 1000, 4)],
        [declare("A", 1), stake("B", 1000, 4), declare("A", 1)],
    ],
)
def test_out_of_order_events(events):
    with pytest.raises(OutOfOrder):
        play(start(), *events)


def test_unknown_player():
    with pytest.raises(UnknownPlayer):
        parse_event(declare("Z", 1), PLAYERS)
    with pytest.raises(UnknownPlayer):
        start().apply(Declare("Z", 1))


@pytest.mark.parametrize(
    "raw",
    [
        None, 3, "declare", [declare("A", 1)], {}, {"type": None}, {"type": ["declare"]}, {"type": {}},
        {"type": "bid", "player": "A"}, {"type": "declare"}, {"type": "declare", "player": "A"},
        {"type": "declare", "player": "A", "count": "2"}, {"type": "declare", "player": "A", "count": 2.0},
        {"type": "declare", "player": "A", "count": True}, {"type": "declare", "player": 1, "count": 2},
        {"type": "declare", "player": ["A"], "count": 2}, {"type": "stake", "player": "B", "amount": 1000},
        {"type": "stake", "player": "B", "amount": None, "guess": 4}, {"type": "reveal"},
        {"type": "reveal", "dice": "45"}, {"type": "reveal", "dice": [4, 5]}, {"type": "reveal", "dice": {"4": 1}},
        {"type": "reveal", "dice": [["4"]]}, {"type": "accuse", "player": "A"},
        {"type": "accuse", "player": "A", "fake": "true"}, {"type": "accuse", "player": "A", "fake": 1},
    ],
)  # fmt: skip
def test_parse_event_rejects_junk_with_malformed_event(raw):
    with pytest.raises(MalformedEvent):
        parse_event(raw, PLAYERS)


def test_events_round_trip_through_json():
    for event in (Declare("A", 2), Stake("B", 3000, 9), Reveal(("4", "5")), Accuse("A", False)):
        assert parse_event(event.to_json(), PLAYERS) == event


def test_foreign_event_object_is_refused():
    with pytest.raises(MalformedEvent):
        start().apply(object())  # type: ignore[arg-type]


def test_states_and_values_are_immutable():
    state = start()
    after = play(state, declare("A", 2))
    assert state.phase is pin456.Phase.DECLARE and after.phase is pin456.Phase.STAKE
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.parent = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Money(1000).points = 2000  # type: ignore[misc]
    assert hash(state) == hash(start())


def test_money_value_type():
    assert Money.notes(30) == Money(30000) and Money(30000).note_count == 30
    assert Money(3000).times(10) == Money(30000) and str(Money(6000)) == "6000P"
    for bad in (-1000, 1500, 1000.0, True):
        with pytest.raises(ValueError):
            Money(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Money(1000) - Money(2000)


# --- Messages ---------------------------------------------------------------------------

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
PIN456_ERRORS = (IllegalDeclare, IllegalStake, IllegalGuess, IllegalAccusation)


def test_error_codes_are_unique_and_catalogued_in_both_languages():
    codes = {cls.code for cls in PIN456_ERRORS}
    assert len(codes) == len(PIN456_ERRORS)
    entries = catalogue()
    for code in codes:
        assert set(entries[code]) == {"en", "ja"} and JAPANESE.search(entries[code]["ja"])


def raised(state: State, *events: dict[str, Any]) -> RefereeError:
    with pytest.raises(RefereeError) as info:
        play(state, *events)
    return info.value


def every_pin456_error() -> list[RefereeError]:
    counterfeit = start(counterfeit=True)
    lost = play(counterfeit, declare("A", 2), stake("B", 3000, 9), reveal("4", "5"))
    return [
        raised(start(), declare("A", 0)),
        raised(start(), declare("A", 7)),
        *(raised(start(), declare("A", 1), stake("B", amount, 4)) for amount in (500, 1500, 31000)),
        raised(start(stake_cap=2000), declare("A", 1), stake("B", 3000, 4)),
        raised(start(), declare("A", 1), stake("B", 1000, 9)),
        raised(start(), accuse("A", True)),
        raised(counterfeit, accuse("A", True)),
        raised(lost, accuse("A", True)),
        raised(start(), declare("A", 1), stake("B", 1000, 4), reveal("2")),
        raised(start(), declare("A", 1), stake("B", 1000, 4), reveal("4", "4")),
        raised(start(), declare("B", 1)),
        raised(start(), stake("B", 1000, 4)),
    ]


def test_every_refusal_has_a_filled_english_and_japanese_message():
    errors = every_pin456_error()
    assert {type(e) for e in errors} >= set(PIN456_ERRORS)
    for error in errors:
        en, ja = error.message("en"), error.message("ja")
        assert en == str(error) and en != ja
        assert JAPANESE.search(ja), ja
        for text in (en, ja):
            assert "{" not in text and not text.startswith(error.code), text
        assert error.to_json("ja")["message"] == ja


def test_stake_refusal_names_the_reason_in_both_languages():
    error = raised(start(stake_cap=2000), declare("A", 1), stake("B", 3000, 4))
    assert error.message("en") == "B cannot stake 3000P: the agreed stake cap is 2000P."
    assert error.message("ja") == "Bは3000Pを場代にできません: 取り決めた場代の上限は2000Pです。"
