"""Nine Dice: the rulebook's examples, every DECISIONS.md rule, hand evaluation, misreads."""

from __future__ import annotations

import doctest
import json
import re
from dataclasses import replace
from typing import Any

import pytest

from referee import nine_dice
from referee.errors import (
    GameOver,
    InvalidOption,
    MalformedEvent,
    Misread,
    OutOfOrder,
    RefereeError,
    UnknownPlayer,
    catalogue,
)
from referee.nine_dice import (
    ALL_HANDS,
    LAYOUT,
    RULES,
    AlreadyShouted,
    ColourNeeded,
    Colour,
    EndRound,
    Grade,
    Hand,
    HandKind,
    Layout,
    LayoutError,
    Options,
    Reward,
    Roll,
    Shout,
    State,
    UnknownHand,
    Word,
    check_roll,
    correct_shouts,
    dice_from_text,
    hands,
    new_game,
    parse_event,
    parse_options,
)
from referee.replay import ReplayError, replay, replay_json
from referee.log import GameLog

# --- Rolls used below (each one a possible roll of the default layout) ----------------

NASIGOREN_ROLL = "白レ 白レ 白ガ 黒レ 黒レ 黒ガ 青レ 青レ 青ガ"
KURO_PURASU = "黒プ 黒ラ 黒ス 白プ 白ラ 白レ 青プ 青レ 青レ"  # 「黒プラス！」
SANSHOKU_BEGASU = "白ベ 白レ 白レ 黒ガ 黒レ 黒プ 青ス 青プ 青プ"  # 「3色ベガス！」
NISHOKU_BUBERA = "白ブ 白ベ 白レ 黒ラ 黒レ 黒プ 青レ 青プ 青ガ"  # 「2色ブベラ！」
RASU_BEGASU = "白ラ 白ス 白ベ 黒ガ 黒ス 黒レ 青レ 青レ 青ガ"
PURASU_BEGASU = "白プ 白ラ 白ス 黒ベ 黒ガ 黒ス 青レ 青レ 青レ"
BOTH_3SHOKU = "白プ 白ベ 白レ 黒ラ 黒ガ 黒レ 青ス 青レ 青レ"
BUREBURE = "白ブ 白レ 白ガ 黒ブ 黒レ 黒ガ 青レ 青ガ 青ガ"
SUKARABE = "白ス 白ラ 白ベ 黒レ 黒レ 黒ガ 青レ 青レ 青ガ 緑カ"
SHIRO_BURAFU = "白ブ 白ラ 白レ 黒レ 黒レ 黒ガ 青レ 青レ 青ガ 緑フ"
BPV = "白ブ 白ラ 白ス 黒プ 黒ラ 黒ス 青ベ 青ガ 青レ 緑フ"
AO_PURASU = "青プ 青ラ 青ス 白レ 白レ 白ガ 黒レ 黒レ 黒ガ"
SHIRO_PURASU = "白プ 白ラ 白ス 黒レ 黒レ 黒ガ 青レ 青レ 青ガ"


def roll(text: str) -> dict[str, Any]:
    return {"type": "roll", "dice": [d.to_json() for d in dice_from_text(text)]}


def shout(player: str, hand: str, colour: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "shout", "player": player, "hand": hand}
    if colour is not None:
        event["colour"] = colour
    return event


END = {"type": "end_round"}


def doc(players: list[str], events: list[dict[str, Any]], options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"format": "tableref-game/1", "game": "nine-dice", "options": options or {}, "players": players, "events": events}


def play(players: list[str], *events: dict[str, Any]) -> State:
    state = replay(GameLog.from_json(doc(players, list(events))))
    assert isinstance(state, State)
    return state


def fails(players: list[str], *events: dict[str, Any]) -> ReplayError:
    with pytest.raises(ReplayError) as info:
        replay(GameLog.from_json(doc(players, list(events))))
    return info.value


def nasigoren(player: str, colour: str) -> list[dict[str, Any]]:
    """One round won by ``player`` taking one ``colour`` token."""
    return [roll(NASIGOREN_ROLL), shout(player, "ナシゴレン", colour)]


def tokens(state: State, player: str) -> dict[str, int]:
    return next(p["tokens"] for p in state.to_json()["players"] if p["name"] == player)


def names(text: str) -> list[str]:
    return [str(m.hand) for m in hands(dice_from_text(text))]


def best(text: str) -> set[str]:
    return set(correct_shouts(dice_from_text(text)))


AB = ["A", "B"]
ABCD = ["A", "B", "C", "D"]


# --- Module basics -----------------------------------------------------------------------


def test_docstring_examples() -> None:
    result = doctest.testmod(nine_dice)
    assert result.attempted > 5 and result.failed == 0


def test_rules_value() -> None:
    assert (RULES.name, RULES.min_players, RULES.max_players) == ("nine-dice", 2, 5)


def test_every_example_roll_is_physically_possible() -> None:
    for text in (NASIGOREN_ROLL, KURO_PURASU, SANSHOKU_BEGASU, NISHOKU_BUBERA, RASU_BEGASU, PURASU_BEGASU,
                 BOTH_3SHOKU, BUREBURE, SUKARABE, SHIRO_BURAFU, BPV, AO_PURASU, SHIRO_PURASU):
        check_roll(dice_from_text(text))


# --- The rulebook's examples ------------------------------------------------------------


def test_rulebook_kuro_purasu() -> None:
    """「黒プラス！」: a one-colour word is shouted with its colour and pays 2 of it."""
    assert best(KURO_PURASU) == {"黒プラス"}
    state = play(AB, roll(KURO_PURASU), shout("A", "黒プラス！"))
    assert tokens(state, "A") == {"white": 0, "black": 2, "blue": 0}
    assert state.to_json()["rounds"][0]["winner"] == "A"


def test_rulebook_sanshoku_begasu() -> None:
    """「3色ベガス！」: a word of three colours pays one token of each."""
    assert best(SANSHOKU_BEGASU) == {"3色ベガス"}
    state = play(AB, roll(SANSHOKU_BEGASU), shout("B", "サンショクベガス"))
    assert tokens(state, "B") == {"white": 1, "black": 1, "blue": 1}


def test_rulebook_nishoku_bubera() -> None:
    """「2色ブベラ！」: a word of two colours pays one token of each colour used."""
    assert best(NISHOKU_BUBERA) == {"2色ブベラ"}
    state = play(AB, roll(NISHOKU_BUBERA), shout("A", "2色ブベラ"))
    assert tokens(state, "A") == {"white": 1, "black": 1, "blue": 0}


def test_rulebook_penalty_hand_not_there() -> None:
    """場に白プラスが出てないのに白プラスと宣言 -> return a token to the stock."""
    state = play(AB, *nasigoren("A", "black"), roll(NISHOKU_BUBERA), shout("A", "白プラス"))
    assert "白プラス" not in names(NISHOKU_BUBERA)
    assert tokens(state, "A") == {"white": 0, "black": 0, "blue": 0}
    assert state.stock == (10, 10, 10)
    assert state.to_json()["shouts"] == [
        {"player": "A", "hand": "白プラス", "colour": None, "correct": False, "returned": "black"}
    ]


def test_rulebook_penalty_weaker_hand() -> None:
    """場にラスベガスができていたのにベガスと宣言 -> penalty, even though ベガス is there."""
    assert best(RASU_BEGASU) == {"ラスベガス"}
    assert "3色ベガス" in names(RASU_BEGASU)
    state = play(AB, *nasigoren("B", "blue"), roll(RASU_BEGASU), shout("B", "3色ベガス"), shout("A", "ラスベガス", "white"))
    assert tokens(state, "B") == {"white": 0, "black": 0, "blue": 0}
    assert tokens(state, "A") == {"white": 1, "black": 0, "blue": 0}
    last = state.to_json()["rounds"][-1]
    assert (last["best"], last["winner"], last["penalised"]) == (["ラスベガス"], "A", ["B"])


def test_rulebook_no_take_backs() -> None:
    """解答権は1人1回。言い直しはできません。"""
    err = fails(AB, roll(RASU_BEGASU), shout("A", "3色ベガス"), shout("A", "ラスベガス", "white"))
    assert isinstance(err.error, AlreadyShouted) and err.event == 2


def test_rulebook_nasigoren_when_nothing_formable() -> None:
    assert names(NASIGOREN_ROLL) == ["ナシゴレン"]
    assert hands(dice_from_text(NASIGOREN_ROLL))[0].dice == ()
    state = play(AB, *nasigoren("A", "blue"))
    assert tokens(state, "A") == {"white": 0, "black": 0, "blue": 1}


# --- Decisions: hands and their strength ----------------------------------------------


def test_decision_strength_order() -> None:
    """DECISIONS.md's order, strongest first; hands in one tier are equally strong."""
    tiers = [["ブラフプラスベガス"], ["プラスベガス"], ["ラスベガス"], ["スカラベ"], ["ブレブレ"],
             ["白プラス", "黒ベガス", "青ブラフ"], ["白ブベラ", "青ブベラ"], ["3色プラス", "3色ベガス", "3色ブラフ"],
             ["3色ブベラ"], ["2色プラス", "2色ベガス", "2色ブラフ"], ["2色ブベラ"], ["ナシゴレン"]]
    strengths = [{Hand.parse(h).strength for h in tier} for tier in tiers]
    assert all(len(s) == 1 for s in strengths)
    flat = [s.pop() for s in strengths]
    assert flat == sorted(flat, reverse=True) and len(set(flat)) == len(flat)


def test_decision_purasu_begasu_burafu_share_one_strength_bubera_weaker() -> None:
    for grade in ("白", "黒", "青", "3色", "2色"):
        pv = {Hand.parse(grade + w).strength for w in ("プラス", "ベガス", "ブラフ")}
        assert len(pv) == 1
        assert Hand.parse(grade + "ブベラ").strength < pv.pop()


def test_decision_grade_order() -> None:
    order = ["黒プラス", "青ブベラ", "3色ベガス", "3色ブベラ", "2色ブラフ", "2色ブベラ"]
    strengths = [Hand.parse(h).strength for h in order]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 6
    assert Hand.parse("白プラス").strength == Hand.parse("黒プラス").strength == Hand.parse("青ブラフ").strength


def test_decision_catalogue_is_sorted_strongest_first() -> None:
    strengths = [h.strength for h in ALL_HANDS]
    assert strengths == sorted(strengths, reverse=True)
    assert len(ALL_HANDS) == 6 + 4 * 5
    assert {str(Hand.parse(str(h))) for h in ALL_HANDS} == {str(h) for h in ALL_HANDS}


def test_decision_words_use_distinct_dice_one_letter_each() -> None:
    # One ス is not enough for プラスベガス or ラスベガス (two ス needed), and one
    # ブ and one レ never make ブレブレ.
    one_su = "白プ 白ラ 白ス 黒ベ 黒ガ 黒レ 青ブ 青レ 青ガ"
    assert {"プラスベガス", "ラスベガス", "ブレブレ"}.isdisjoint(names(one_su))
    for match in hands(dice_from_text(PURASU_BEGASU)):
        assert len(set(match.dice)) == len(match.dice)


def test_decision_correct_shout_is_any_hand_at_top_strength() -> None:
    assert best(BOTH_3SHOKU) == {"3色プラス", "3色ベガス"}
    for hand in ("3色プラス", "3色ベガス"):
        state = play(AB, roll(BOTH_3SHOKU), shout("A", hand))
        assert state.winner() is None and state.rounds[0].winner == "A"
    assert play(AB, roll(BOTH_3SHOKU)).to_json()["best"] == ["3色プラス", "3色ベガス"]


def test_decision_best_grade_counts() -> None:
    # プラス can be made 3色 (白プ 黒ラ 青ス) and 2色 (黒プ 黒ラ 青ス): it is a 3色プラス.
    text = "白プ 白レ 白レ 黒ラ 黒プ 黒レ 青ス 青プ 青レ"
    assert {"3色プラス", "2色プラス"} <= set(names(text))
    assert best(text) == {"3色プラス"}
    state = play(AB, roll(text), shout("A", "2色プラス"), shout("B", "3色プラス"))
    assert state.rounds[0].penalised == ("A",) and state.rounds[0].winner == "B"


def test_decision_one_colour_shout_must_name_a_formable_colour() -> None:
    assert best(AO_PURASU) == {"青プラス"}
    state = play(AB, roll(AO_PURASU), shout("A", "白プラス"), shout("B", "青プラス"))
    assert state.rounds[0].penalised == ("A",) and state.rounds[0].winner == "B"
    assert tokens(state, "B")["blue"] == 2


def test_decision_several_one_colour_words_are_all_correct() -> None:
    text = "白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青レ 青レ 青ガ"
    assert best(text) == {"白プラス", "黒プラス"}
    text = "白ブ 白ラ 白レ 黒プ 黒ラ 黒ス 青レ 青レ 青ガ 緑フ"
    assert best(text) == {"白ブラフ", "黒プラス"}
    for hand in ("白ブラフ", "黒プラス"):
        assert play(AB, roll(text), shout("A", hand)).rounds[0].winner == "A"
    text = "白プ 白ラ 白ス 黒ブ 黒ベ 黒ラ 青レ 青レ 青ガ"  # 白プラス beats 黒ブベラ
    assert best(text) == {"白プラス"}
    assert "黒ブベラ" in names(text)


def test_decision_green_die_grades_by_the_other_dice() -> None:
    assert best(SHIRO_BURAFU) == {"白ブラフ"}
    state = play(AB, roll(SHIRO_BURAFU), shout("A", "白ブラフ"))
    assert tokens(state, "A") == {"white": 2, "black": 0, "blue": 0}
    # Three colours in the roll, but a ブラフ has only two non-green dice: never 3色ブラフ.
    text = "白ブ 白レ 白レ 黒ラ 黒レ 黒ガ 青ラ 青レ 青ガ 緑フ"
    assert names(text) == ["2色ブラフ"]
    state = play(AB, roll(text), shout("A", "3色ブラフ"), shout("B", "2色ブラフ"))
    assert state.rounds[0].penalised == ("A",)
    assert tokens(state, "B") == {"white": 1, "black": 1, "blue": 0}


def test_decision_2shoku_tie_takes_first_colour_pair_in_white_black_blue_order() -> None:
    # プ and ス are black only; ラ is white or blue: {white, black} and {black, blue} tie.
    text = "黒プ 黒ス 黒レ 白ラ 白レ 白レ 青ラ 青レ 青ガ"
    match = hands(dice_from_text(text))[0]
    assert str(match.hand) == "2色プラス" and match.colours == (Colour.WHITE, Colour.BLACK)
    assert match.dice == (0, 3, 1)
    state = play(AB, roll(text), shout("A", "2色プラス"))
    assert tokens(state, "A") == {"white": 1, "black": 1, "blue": 0}


def test_decision_burebure_pays_the_formation_with_most_colours() -> None:
    match = hands(dice_from_text(BUREBURE))[0]
    assert str(match.hand) == "ブレブレ"
    assert match.colours == (Colour.WHITE, Colour.BLACK, Colour.BLUE)
    state = play(AB, roll(BUREBURE), shout("B", "ブレブレ"))
    assert tokens(state, "B") == {"white": 1, "black": 1, "blue": 1}
    # Only one formation colour set possible: white ブ ブ with black レ レ.
    text = "白ブ 白ブ 白ガ 黒レ 黒レ 黒ガ 青プ 青ガ 青ガ"
    assert hands(dice_from_text(text))[0].colours == (Colour.WHITE, Colour.BLACK)


def test_decision_burebure_needs_two_bu_and_two_re() -> None:
    assert "ブレブレ" not in names("白ブ 白レ 白レ 黒レ 黒ガ 黒ガ 青レ 青ガ 青ガ")
    assert "ブレブレ" in names("白ブ 白レ 白ガ 黒ブ 黒ガ 黒ガ 青レ 青ガ 青ガ")


def test_decision_sukarabe_rank_and_reward() -> None:
    assert best(SUKARABE) == {"スカラベ"}
    assert Hand.parse("ラスベガス").strength > Hand.parse("スカラベ").strength > Hand.parse("ブレブレ").strength
    state = play(AB, roll(SUKARABE), shout("A", "スカラベ"))
    assert state.scarab == 0 and state.to_json()["players"][0]["scarab"] is True
    assert state.to_json()["stock"]["scarab"] is False
    assert state.rounds[0].awarded[0].to_json() == {"token": "scarab", "from": None}


def test_decision_scarab_is_taken_from_its_holder() -> None:
    state = play(AB, roll(SUKARABE), shout("A", "スカラベ"), roll(SUKARABE), shout("B", "スカラベ"))
    assert state.scarab == 1
    assert state.rounds[1].awarded[0].to_json() == {"token": "scarab", "from": "A"}
    # Already holding it: nothing moves.
    state = play(AB, roll(SUKARABE), shout("A", "スカラベ"), roll(SUKARABE), shout("A", "スカラベ"))
    assert state.scarab == 0 and state.rounds[1].awarded == ()


def test_decision_purasu_begasu_rasu_begasu_nasigoren_pay_a_chosen_colour() -> None:
    assert best(PURASU_BEGASU) == {"プラスベガス"}
    state = play(AB, roll(PURASU_BEGASU), shout("A", "プラスベガス", "blue"))
    assert tokens(state, "A") == {"white": 0, "black": 0, "blue": 1}
    state = play(AB, roll(RASU_BEGASU), shout("A", "ラスベガス", "black"))
    assert tokens(state, "A") == {"white": 0, "black": 1, "blue": 0}
    for hand in ("プラスベガス", "ラスベガス", "ナシゴレン"):
        assert Hand.parse(hand).reward is Reward.CHOOSE


def test_decision_choosing_hands_need_a_colour_only_to_win_others_take_none() -> None:
    err = fails(AB, roll(NASIGOREN_ROLL), shout("A", "ナシゴレン"))
    assert isinstance(err.error, ColourNeeded) and err.event == 1 and err.error.code == "colour_needed"
    assert err.error.params == {"player": "A", "hand": "ナシゴレン"} and "白・黒・青" in err.error.message("ja")
    err = fails(AB, roll(KURO_PURASU), shout("A", "黒プラス", "black"))
    assert isinstance(err.error, MalformedEvent) and err.event == 1
    err = fails(AB, roll(NASIGOREN_ROLL), shout("A", "ナシゴレン", "green"))
    assert isinstance(err.error, MalformedEvent)


def test_decision_one_colour_word_pays_two_of_its_colour() -> None:
    assert Hand.parse("青ブベラ").reward is Reward.DOUBLE
    state = play(AB, roll(SHIRO_PURASU), shout("A", "白プラス"))
    assert tokens(state, "A") == {"white": 2, "black": 0, "blue": 0}
    assert state.stock == (8, 10, 10)


def test_decision_burafu_purasu_begasu_wins_at_once() -> None:
    assert best(BPV) == {"ブラフプラスベガス"}
    state = play(ABCD, roll(BPV), shout("C", "ブラフプラスベガス"))
    assert state.is_terminal() and state.winner() == "C" and state.to_json()["winner"] == "C"
    assert state.legal_actions() == () and state.expects() is None
    err = fails(ABCD, roll(BPV), shout("C", "ブラフプラスベガス"), roll(NASIGOREN_ROLL))
    assert isinstance(err.error, GameOver)


def test_decision_burafu_purasu_begasu_shouted_wrongly_is_penalised() -> None:
    state = play(AB, *nasigoren("A", "white"), roll(PURASU_BEGASU), shout("A", "ブラフプラスベガス"))
    assert not state.is_terminal() and tokens(state, "A")["white"] == 0


def test_decision_roll_while_round_open_is_an_error() -> None:
    err = fails(AB, roll(KURO_PURASU), roll(NASIGOREN_ROLL))
    assert isinstance(err.error, OutOfOrder) and err.event == 1
    err = fails(AB, roll(KURO_PURASU), shout("A", "白プラス"), roll(NASIGOREN_ROLL))
    assert isinstance(err.error, OutOfOrder) and err.event == 2


def test_decision_wrong_shout_without_tokens_is_still_penalised() -> None:
    state = play(AB, roll(KURO_PURASU), shout("A", "スカラベ"), shout("B", "黒プラス"))
    assert state.rounds[0].penalised == ("A",)
    assert state.to_json()["rounds"][0]["shouts"][0]["returned"] is None
    assert tokens(state, "A") == {"white": 0, "black": 0, "blue": 0}


def test_decision_penalty_returns_the_shouts_colour_if_held() -> None:
    events = [*nasigoren("A", "white"), *nasigoren("A", "white"), *nasigoren("A", "black")]
    state = play(AB, *events, roll(KURO_PURASU), shout("A", "ナシゴレン", "black"))
    assert tokens(state, "A") == {"white": 2, "black": 0, "blue": 0}
    assert state.stock == (8, 10, 10)


def test_decision_penalty_otherwise_returns_the_colour_held_most() -> None:
    events = [*nasigoren("A", "black"), *nasigoren("A", "blue"), *nasigoren("A", "blue")]
    # Colour named but not held -> the colour held most (blue).
    state = play(AB, *events, roll(KURO_PURASU), shout("A", "プラスベガス", "white"))
    assert tokens(state, "A") == {"white": 0, "black": 1, "blue": 1}
    # Ties go white, black, blue: now black and blue tie -> black.
    state = play(AB, *events, roll(KURO_PURASU), shout("A", "プラスベガス", "white"), shout("B", "黒プラス"),
                 roll(KURO_PURASU), shout("A", "3色プラス"))
    assert tokens(state, "A") == {"white": 0, "black": 0, "blue": 1}


def test_decision_penalty_returns_the_scarab_only_without_cubes() -> None:
    events = [roll(SUKARABE), shout("A", "スカラベ"), *nasigoren("A", "white")]
    state = play(AB, *events, roll(KURO_PURASU), shout("A", "白プラス"))
    assert state.scarab == 0 and tokens(state, "A")["white"] == 0
    state = play(AB, *events, roll(KURO_PURASU), shout("A", "白プラス"), shout("B", "黒プラス"),
                 roll(KURO_PURASU), shout("A", "白プラス"))
    assert state.scarab is None and state.to_json()["stock"]["scarab"] is True
    assert state.to_json()["shouts"][0]["returned"] == "scarab"


def test_decision_first_correct_shout_wins_and_ends_the_round() -> None:
    state = play(ABCD, roll(KURO_PURASU), shout("B", "3色プラス"), shout("C", "黒プラス"))
    assert state.rounds[0].winner == "C" and state.rounds[0].penalised == ("B",)
    assert not state.round_open and state.expects() == "roll" and state.legal_actions() == ()
    err = fails(ABCD, roll(KURO_PURASU), shout("C", "黒プラス"), shout("D", "黒プラス"))
    assert isinstance(err.error, OutOfOrder) and err.event == 2


def test_decision_end_round_closes_a_round_without_a_correct_shout() -> None:
    state = play(AB, roll(KURO_PURASU), shout("A", "白プラス"), shout("B", "青プラス"))
    assert state.round_open and state.legal_actions() == (EndRound(),)
    state = state.apply(EndRound())
    assert not state.round_open and state.expects() == "roll"
    assert state.to_json()["rounds"][0]["winner"] is None
    assert state.to_json()["rounds"][0]["penalised"] == ["A", "B"]


def test_decision_end_round_with_no_shout_voids_the_roll() -> None:
    state = play(AB, *nasigoren("A", "white"), roll(KURO_PURASU), END)
    assert state.rounds[-1].winner is None and state.rounds[-1].shouts == ()
    assert tokens(state, "A") == {"white": 1, "black": 0, "blue": 0} and state.stock == (9, 10, 10)
    err = fails(AB, END)
    assert isinstance(err.error, OutOfOrder) and err.event == 0
    err = fails(AB, roll(KURO_PURASU), shout("A", "黒プラス"), END)
    assert isinstance(err.error, OutOfOrder) and err.event == 2


def test_decision_empty_stock_takes_from_the_player_holding_most_clockwise_ties() -> None:
    # Drain the white stock: B 3, D 3, A 2, C 2.
    events = []
    for player, n in (("B", 3), ("D", 3), ("A", 2), ("C", 2)):
        for _ in range(n):
            events += nasigoren(player, "white")
    state = play(ABCD, *events)
    assert state.stock[0] == 0
    # C wins white: B and D tie on 3; D is next clockwise from C.
    state = play(ABCD, *events, *nasigoren("C", "white"))
    assert state.rounds[-1].awarded[0].to_json() == {"token": "white", "from": "D"}
    assert [tokens(state, p)["white"] for p in ABCD] == [2, 3, 3, 2]
    # Then A wins white: B holds most.
    state = play(ABCD, *events, *nasigoren("C", "white"), *nasigoren("A", "white"))
    assert state.rounds[-1].awarded[0].to_json() == {"token": "white", "from": "B"}


def test_decision_empty_stock_one_token_at_a_time() -> None:
    # Black stock down to 1; a 黒プラス (2 black) takes one from the stock, one from B.
    events = []
    for _ in range(9):
        events += nasigoren("B", "black")
    state = play(ABCD, *events, roll(KURO_PURASU), shout("A", "黒プラス"))
    assert [t.to_json() for t in state.rounds[-1].awarded] == [
        {"token": "black", "from": None}, {"token": "black", "from": "B"}]
    assert tokens(state, "A")["black"] == 2 and tokens(state, "B")["black"] == 8


def test_decision_empty_stock_and_nobody_else_holds_it_gives_nothing() -> None:
    events = []
    for colour, n in (("white", 10), ("black", 1)):
        for _ in range(n):
            events += nasigoren("A", colour)
    state = play(AB, *events, *nasigoren("A", "white"))
    assert state.rounds[-1].awarded == () and state.rounds[-1].winner == "A"
    assert tokens(state, "A")["white"] == 10 and state.stock[0] == 0


def test_decision_win_with_three_of_each_colour_for_four_or_five_players() -> None:
    events = []
    for colour in ("white", "black"):
        for _ in range(3):
            events += nasigoren("A", colour)
    events += nasigoren("A", "blue") * 2
    state = play(ABCD, *events)
    assert not state.is_terminal() and state.expects() == "roll"
    state = play(ABCD, *events, *nasigoren("A", "blue"))
    assert state.winner() == "A" and state.expects() is None
    state5 = play(["A", "B", "C", "D", "E"], *events, *nasigoren("A", "blue"))
    assert state5.winner() == "A" and state5.target == 3


def test_decision_win_needs_four_of_each_with_two_or_three_players() -> None:
    events = []
    for colour in ("white", "black", "blue"):
        for _ in range(3):
            events += nasigoren("A", colour)
    for players in (AB, ["A", "B", "C"]):
        state = play(players, *events)
        assert not state.is_terminal() and state.target == 4
        state = play(players, *events, *nasigoren("A", "white"), *nasigoren("A", "black"))
        assert not state.is_terminal()
        state = play(players, *events, *nasigoren("A", "white"), *nasigoren("A", "black"), *nasigoren("A", "blue"))
        assert state.winner() == "A"


def test_decision_scarab_counts_as_three_of_one_colour() -> None:
    events = []
    for colour in ("white", "black"):
        for _ in range(3):
            events += nasigoren("A", colour)
    state = play(ABCD, *events)
    assert not state.is_terminal()
    state = play(ABCD, *events, roll(SUKARABE), shout("A", "スカラベ"))
    assert state.winner() == "A"
    # Only one colour: 2 white 2 black 3 blue + scarab is not enough.
    state = play(ABCD, *nasigoren("A", "white") * 2, *nasigoren("A", "black") * 2, *nasigoren("A", "blue") * 3,
                 roll(SUKARABE), shout("A", "スカラベ"))
    assert not state.is_terminal()
    # Scarab first, then the missing cubes.
    state = play(ABCD, roll(SUKARABE), shout("A", "スカラベ"), *events)
    assert state.winner() == "A" and len(state.rounds) == 7


def test_decision_has_won_helper() -> None:
    has_won = nine_dice._has_won
    assert has_won((3, 3, 3), False, 3) and not has_won((3, 3, 2), False, 3)
    assert has_won((0, 3, 3), True, 3) and has_won((1, 4, 4), True, 4)
    assert not has_won((2, 2, 3), True, 3) and not has_won((3, 3, 3), True, 4)


def test_decision_layout_is_data() -> None:
    assert len(LAYOUT.basic) == 9 and LAYOUT.expansion.colour is Colour.GREEN
    for colour in (Colour.WHITE, Colour.BLACK, Colour.BLUE):
        assert sorted("".join(f.value for f in d.faces) for d in LAYOUT.dice_of(colour)) == [
            "プラスガブレ", "プラベガブレ", "プラベガブレ"]
    assert sorted(f.value for f in LAYOUT.expansion.faces) == sorted("フフフカカカ")
    # A user with a set whose C die has two ス faces and a fourth black die edits the file:
    custom = Layout.from_json({
        "dice": {"A": list("プラベガブレ"), "C": list("プラススブレ"), "X": list("フフフカカカ")},
        "colours": {"white": ["C", "C", "A"], "black": ["A", "A", "C", "C"], "blue": ["A", "A", "C"]},
        "expansion": {"die": "X", "colour": "green"},
    })
    two_white_su = dice_from_text("白ス 白ス 白プ 黒プ 黒プ 黒プ 黒ス 青プ 青プ 青プ")
    check_roll(two_white_su, custom)
    with pytest.raises(Misread):
        check_roll(two_white_su)


@pytest.mark.parametrize("bad", [
    [],
    {"dice": {}},
    {"dice": {"A": ["プ"] * 5}, "colours": {}, "expansion": {}},
    {"dice": {"A": ["プ"] * 6}, "colours": {"white": ["A"], "black": ["A"]}, "expansion": {"die": "A", "colour": "green"}},
    {"dice": {"A": ["プ"] * 6}, "colours": {"white": ["A"], "black": ["A"], "blue": ["Z"]}, "expansion": {"die": "A", "colour": "green"}},
    {"dice": {"A": ["プ"] * 6}, "colours": {"white": ["A"], "black": ["A"], "blue": ["A"]}, "expansion": {"die": "A", "colour": "white"}},
    {"dice": {"A": ["X"] * 6}, "colours": {"white": ["A"], "black": ["A"], "blue": ["A"]}, "expansion": {"die": "A", "colour": "green"}},
])
def test_layout_errors_are_clear(bad: Any) -> None:
    with pytest.raises(LayoutError):
        Layout.from_json(bad)


def test_data_file_is_utf8_json_with_documentation() -> None:
    from importlib import resources

    text = resources.files("referee").joinpath("data/nine-dice.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert "ASSUMPTION" in data["about"]
    assert Layout.from_json(data) == LAYOUT


def test_decision_no_options() -> None:
    assert parse_options({}) == Options()
    with pytest.raises(InvalidOption) as info:
        parse_options({"expansion": True})
    assert info.value.params["option"] == "expansion"
    with pytest.raises(ReplayError) as err:
        replay_json(doc(AB, [], {"expansion": True}))
    assert err.value.event is None and isinstance(err.value.error, InvalidOption)


@pytest.mark.parametrize("players", [["A"], ["A", "B", "C", "D", "E", "F"]])
def test_player_count(players: list[str]) -> None:
    with pytest.raises(ReplayError) as err:
        replay_json(doc(players, []))
    assert err.value.event is None
    with pytest.raises(InvalidOption):
        new_game(tuple(players), Options())


# --- Hand evaluation: each kind and grade, and the expansion look-alikes ---------------------


@pytest.mark.parametrize("text, expected", [
    (KURO_PURASU, {"黒プラス"}),
    ("白ベ 白ガ 白ス 黒レ 黒レ 黒ガ 青レ 青レ 青ガ", {"白ベガス"}),
    ("青ブ 青ベ 青ラ 白レ 白レ 白ガ 黒レ 黒レ 黒ガ", {"青ブベラ"}),
    (SHIRO_BURAFU, {"白ブラフ"}),
    (BOTH_3SHOKU, {"3色プラス", "3色ベガス"}),
    ("白ブ 黒ベ 青ラ 白レ 白レ 黒レ 黒ガ 青レ 青ガ", {"3色ブベラ"}),
    ("白プ 白ラ 黒ス 白レ 黒レ 黒ガ 青レ 青レ 青ガ", {"2色プラス"}),
    ("白ベ 白ガ 黒ス 白レ 黒レ 黒レ 青レ 青レ 青プ", {"2色ベガス"}),
    ("白ブ 黒ラ 白レ 黒レ 黒ガ 青レ 青レ 青ガ 白ガ 緑フ", {"2色ブラフ"}),
    (NISHOKU_BUBERA, {"2色ブベラ"}),
    (BUREBURE, {"ブレブレ"}),
    (SUKARABE, {"スカラベ"}),
    (RASU_BEGASU, {"ラスベガス"}),
    (PURASU_BEGASU, {"プラスベガス"}),
    (BPV, {"ブラフプラスベガス"}),
    (NASIGOREN_ROLL, {"ナシゴレン"}),
])
def test_hand_kinds_and_grades(text: str, expected: set[str]) -> None:
    check_roll(dice_from_text(text))
    assert best(text) == expected


def _one_colour_roll(colour: str, word: str) -> str:
    """The word in ``colour`` (ブラフ with the green フ); the other colours show レ レ ガ."""
    own = [colour + ch for ch in (word if word != "ブラフ" else "ブラレ")]
    others = [c + ch for c in "白黒青" if c != colour for ch in "レレガ"]
    return " ".join(own + others + (["緑フ"] if word == "ブラフ" else []))


@pytest.mark.parametrize("colour", ["白", "黒", "青"])
@pytest.mark.parametrize("word", ["プラス", "ベガス", "ブラフ", "ブベラ"])
def test_one_colour_words(colour: str, word: str) -> None:
    text = _one_colour_roll(colour, word)
    check_roll(dice_from_text(text))
    assert best(text) == {colour + word}
    state = play(AB, roll(text), shout("B", colour + word))
    assert tokens(state, "B")[{"白": "white", "黒": "black", "青": "blue"}[colour]] == 2


def test_every_shoutable_hand_is_found_by_some_example() -> None:
    rolls = _ALL_ROLLS + [_one_colour_roll(c, w) for c in "白黒青" for w in ("プラス", "ベガス", "ブラフ", "ブベラ")]
    found = {h for text in rolls for h in names(text)}
    assert {str(h) for h in ALL_HANDS} - found == {"3色ブラフ"}


_ALL_ROLLS = [KURO_PURASU, SANSHOKU_BEGASU, NISHOKU_BUBERA, RASU_BEGASU, PURASU_BEGASU, BOTH_3SHOKU, BUREBURE,
              SUKARABE, SHIRO_BURAFU, BPV, AO_PURASU, SHIRO_PURASU, NASIGOREN_ROLL,
              "青ブ 青ベ 青ラ 白レ 白レ 白ガ 黒レ 黒レ 黒ガ", "白ベ 白ガ 白ス 黒レ 黒レ 黒ガ 青レ 青レ 青ガ",
              "白ブ 黒ベ 青ラ 白レ 白レ 黒レ 黒ガ 青レ 青ガ", "白ベ 白ガ 黒ス 白レ 黒レ 黒レ 青レ 青レ 青プ",
              "白プ 白ラ 黒ス 白レ 黒レ 黒ガ 青レ 青レ 青ガ", "白ブ 黒ラ 白レ 黒レ 黒ガ 青レ 青レ 青ガ 白ガ 緑フ"]


def test_formations_spell_their_hand() -> None:
    for text in _ALL_ROLLS:
        dice = dice_from_text(text)
        for match in hands(dice):
            spelled = "".join(dice[i].face.value for i in match.dice)
            hand = match.hand
            if hand.kind is HandKind.WORD:
                assert hand.word is not None and spelled == hand.word.value
            elif hand.kind is HandKind.NASIGOREN:
                assert spelled == ""
            else:
                assert spelled == hand.kind.value


def test_fu_is_not_bu_or_pu() -> None:
    # A single ブ plus the green フ never makes ブレブレ, and フ never stands in for プ.
    text = "白ブ 白レ 白レ 黒レ 黒ガ 黒ガ 青レ 青ガ 青ガ 緑フ"
    assert names(text) == ["ナシゴレン"]
    text = "白ラ 白ス 白レ 黒レ 黒ガ 黒ガ 青レ 青ガ 青ガ 緑フ"
    assert "白プラス" not in names(text) and names(text) == ["ナシゴレン"]
    # ブ ラ フ is ブラフ, but ブ ラ ブ is nothing.
    assert names("白ブ 白ラ 白ガ 黒ブ 黒ガ 黒ガ 青ガ 青ガ 青ガ") == ["ナシゴレン"]


def test_ka_is_not_ga() -> None:
    # ベ ス and the green カ: no ベガス; with ラ it is スカラベ.
    text = "白ベ 白ス 白レ 黒レ 黒レ 黒プ 青レ 青レ 青プ 緑カ"
    assert names(text) == ["ナシゴレン"]
    assert "スカラベ" in names("白ベ 白ス 白ラ 黒レ 黒レ 黒プ 青レ 青レ 青プ 緑カ")
    assert "スカラベ" not in names("白ベ 白ス 白ラ 黒ガ 黒レ 黒プ 青レ 青レ 青プ")


def test_sukarabe_and_burafu_need_the_expansion() -> None:
    assert all(h.needs_expansion for h in map(Hand.parse, ("スカラベ", "白ブラフ", "2色ブラフ", "ブラフプラスベガス")))
    assert not Hand.parse("白プラス").needs_expansion
    state = play(AB, roll(SANSHOKU_BEGASU), shout("A", "スカラベ"), shout("B", "2色ブラフ"))
    assert state.to_json()["shouts"] == [
        {"player": "A", "hand": "スカラベ", "colour": None, "correct": False, "returned": None},
        {"player": "B", "hand": "2色ブラフ", "colour": None, "correct": False, "returned": None},
    ]


def test_hands_are_listed_strongest_first_with_lower_hands_too() -> None:
    listed = names(PURASU_BEGASU)
    assert listed[:2] == ["プラスベガス", "ラスベガス"]
    assert "白プラス" in listed and "2色ベガス" in listed
    strengths = [Hand.parse(h).strength for h in listed]
    assert strengths == sorted(strengths, reverse=True)


# --- Shout strings ----------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [
    ("黒プラス", "黒プラス"), ("黒プラス！", "黒プラス"), (" 3色ブベラ! ", "3色ブベラ"), ("３色ベガス", "3色ベガス"),
    ("サンショクベガス", "3色ベガス"), ("ニショクブベラ", "2色ブベラ"), ("二色ブラフ", "2色ブラフ"),
    ("プラスベガス", "プラスベガス"), ("ﾌﾞﾚﾌﾞﾚ", "ブレブレ"), ("ナシゴレン", "ナシゴレン"),
])
def test_parse_shouts(text: str, canonical: str) -> None:
    assert str(Hand.parse(text)) == canonical


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"), ("   ", "empty"), ("プラス", "needs a grade"), ("1色プラス", "白プラス"), ("赤プラス", "not a grade"),
    ("白ブレブレ", "takes no colour"), ("白ラスベガス", "ラスベガス takes no colour"), ("3色ナシゴレン", "takes no colour"), ("ベガ", "expected one of"),
    (None, "as text"), (3, "as text"), (["プラス"], "as text"),
])
def test_parse_bad_shouts(text: object, fragment: str) -> None:
    with pytest.raises(UnknownHand) as info:
        Hand.parse(text)
    assert isinstance(info.value, MalformedEvent) and fragment in str(info.value)
    assert info.value.code == "unknown_hand"
    assert info.value.message("ja") != str(info.value)


def test_hand_value_checks() -> None:
    with pytest.raises(UnknownHand):
        Hand(HandKind.WORD, Word.PURASU)
    with pytest.raises(UnknownHand):
        Hand(HandKind.BUREBURE, Word.PURASU, Grade.WHITE)
    assert Hand(HandKind.WORD, Word.PURASU, Grade.WHITE) == Hand.parse("白プラス")
    assert Grade.BLUE.colour is Colour.BLUE and Grade.TWO.colour is None


# --- Misreads ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, fragment", [
    ("白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青プ 青ラ", "8 dice read"),
    ("白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青プ 青ラ 青プ 緑フ 緑カ", "11 dice read"),
    ("白プ 白ラ 白ス 白プ 黒ラ 黒ス 青プ 青ラ 青プ", "4 white dice"),
    ("白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青プ 青ラ 緑フ", "2 blue dice"),
    ("白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青プ 青ラ 緑フ 緑カ", "2 blue dice"),
    ("白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青プ 青ラ 青ラ 緑フ 緑カ", "11 dice read"),
    ("白プ 白ラ 白ス 黒プ 黒ラ 黒ス 青プ 青ラ 青レ 白レ", "4 white dice"),
    ("白ス 白ス 白プ 黒プ 黒ラ 黒レ 青プ 青ラ 青プ", "2 white dice show ス but only 1 white die has it"),
    ("白プ 白ラ 白フ 黒プ 黒ラ 黒レ 青プ 青ラ 青プ", "no white die has フ"),
    ("白プ 白ラ 白レ 黒カ 黒ラ 黒レ 青プ 青ラ 青プ", "no black die has カ"),
    ("白プ 白ラ 白レ 黒プ 黒ラ 黒レ 青ベ 青ベ 青ベ", "3 blue dice show ベ but only 2 blue dice have it"),
    ("白プ 白ラ 白レ 黒プ 黒ラ 黒レ 青ベ 青ス 青ガ 緑プ", "no green die has プ"),
])
def test_misreads(text: str, fragment: str) -> None:
    with pytest.raises(Misread) as info:
        check_roll(dice_from_text(text))
    assert fragment in str(info.value)
    assert info.value.message("ja") != str(info.value)
    err = fails(AB, roll(text))
    assert isinstance(err.error, Misread) and err.event == 0


def test_misread_for_a_combination_no_dice_can_show() -> None:
    layout = Layout.from_json({
        "dice": {"P": list("スベレレレレ"), "Q": list("スベレレレレ"), "R": list("ププププププ"), "X": list("フフフカカカ")},
        "colours": {"white": ["P", "Q", "R"], "black": ["P", "Q", "R"], "blue": ["P", "Q", "R"]},
        "expansion": {"die": "X", "colour": "green"},
    })
    fine = dice_from_text("白ス 白ベ 白プ 黒レ 黒レ 黒プ 青ス 青ス 青プ")
    check_roll(fine, layout)
    # Each face is on enough dice by itself, but ス ベ ベ need three dice of the two that have them.
    with pytest.raises(Misread, match="cannot show ス ベ ベ at once"):
        check_roll(dice_from_text("白ス 白ベ 白ベ 黒レ 黒レ 黒プ 青ス 青ス 青プ"), layout)


@pytest.mark.parametrize("die, error", [
    ({"face": "1", "colour": "white"}, Misread),
    ({"face": "プ", "colour": "red"}, Misread),
    ({"face": "プ"}, MalformedEvent),
    ({"face": 3, "colour": "white"}, MalformedEvent),
    ("白プ", MalformedEvent),
])
def test_bad_dice_in_a_roll(die: Any, error: type[RefereeError]) -> None:
    event = roll(KURO_PURASU)
    event["dice"][4] = die
    err = fails(AB, event)
    assert type(err.error) is error and err.event == 0


def test_misread_leaves_the_state_unchanged() -> None:
    state = play(AB, roll(KURO_PURASU), shout("A", "黒プラス"))
    bad = Roll(dice_from_text("白プ 白ラ 白フ 黒プ 黒ラ 黒レ 青プ 青ラ 青プ"))
    with pytest.raises(Misread):
        state.apply(bad)
    assert state.expects() == "roll" and len(state.rounds) == 1


# --- Events, errors, protocol ----------------------------------------------------------------------


@pytest.mark.parametrize("raw, error", [
    (None, MalformedEvent), ([], MalformedEvent), ("shout", MalformedEvent), ({}, MalformedEvent),
    ({"type": "bid"}, MalformedEvent), ({"type": ["roll"]}, MalformedEvent), ({"type": {"a": 1}}, MalformedEvent),
    ({"type": "roll"}, MalformedEvent), ({"type": "roll", "dice": "プラス"}, MalformedEvent),
    ({"type": "shout", "hand": "黒プラス"}, MalformedEvent), ({"type": "shout", "player": 1, "hand": "黒プラス"}, MalformedEvent),
    ({"type": "shout", "player": "Z", "hand": "黒プラス"}, UnknownPlayer),
    ({"type": "shout", "player": "A"}, MalformedEvent), ({"type": "shout", "player": "A", "hand": {}}, UnknownHand),
    ({"type": "shout", "player": "A", "hand": "ナシゴレン", "colour": ["white"]}, MalformedEvent),
    ({"type": "shout", "player": "A", "hand": "ナシゴレン", "colour": "purple"}, MalformedEvent),
])
def test_parse_event_junk(raw: Any, error: type[RefereeError]) -> None:
    with pytest.raises(error):
        parse_event(raw, AB)


def test_events_round_trip() -> None:
    for raw in (roll(BPV), shout("A", "黒プラス"), shout("B", "ナシゴレン", "blue"), END):
        event = parse_event(raw, AB)
        assert event.to_json() == raw
        assert parse_event(event.to_json(), AB) == event


def test_shout_before_any_roll_and_after_the_round() -> None:
    err = fails(AB, shout("A", "ナシゴレン", "white"))
    assert isinstance(err.error, OutOfOrder) and "rolled" in str(err.error)
    err = fails(AB, *nasigoren("A", "white"), shout("B", "ナシゴレン", "white"))
    assert isinstance(err.error, OutOfOrder) and "round is over" in str(err.error)


def test_protocol_before_during_after_a_round() -> None:
    state = new_game(AB, Options())
    assert state.expects() == "roll" and state.legal_actions() == () and not state.is_terminal()
    assert state.to_json() == {
        "game": "nine-dice",
        "players": [{"name": "A", "tokens": {"white": 0, "black": 0, "blue": 0}, "scarab": False},
                    {"name": "B", "tokens": {"white": 0, "black": 0, "blue": 0}, "scarab": False}],
        "best": [], "winner": None, "rounds": [],
        "stock": {"white": 10, "black": 10, "blue": 10, "scarab": True}, "target": 4,
        "round_open": False, "dice": None, "hands": [], "shouts": [],
    }
    state = state.apply(Roll(dice_from_text(KURO_PURASU)))
    assert state.expects() is None
    actions = state.legal_actions()
    assert actions[-1] == EndRound()
    per_player = len(ALL_HANDS) + 3 * 3  # three choosing hands: three colours each, and none while wrong
    assert len(actions) == 2 * per_player + 1
    assert Shout("A", Hand.parse("ナシゴレン"), Colour.BLUE) in actions
    state = state.apply(Shout("A", Hand.parse("3色プラス")))
    assert {a.player for a in state.legal_actions() if isinstance(a, Shout)} == {"B"}
    assert state.to_json()["best"] == ["黒プラス"]
    assert state.to_json()["hands"][0] == {"hand": "黒プラス", "dice": [0, 1, 2], "colours": ["black"]}
    state = state.apply(Shout("B", Hand.parse("黒プラス")))
    assert state.expects() == "roll" and state.to_json()["best"] == ["黒プラス"]


def test_every_legal_action_applies() -> None:
    state = play(["A", "B", "C"], *nasigoren("A", "white"), roll(BOTH_3SHOKU), shout("B", "黒プラス"))
    for action in state.legal_actions():
        after = state.apply(action)
        assert isinstance(after, State)


def test_apply_refuses_foreign_events_and_unknown_players() -> None:
    state = play(AB, roll(KURO_PURASU))
    with pytest.raises(MalformedEvent):
        state.apply("shout")  # type: ignore[arg-type]
    with pytest.raises(UnknownPlayer):
        state.apply(Shout("Z", Hand.parse("黒プラス")))
    with pytest.raises(MalformedEvent):
        Shout("A", Hand.parse("プラスベガス"), Colour.GREEN)  # not a token colour
    with pytest.raises(MalformedEvent):
        Shout("A", Hand.parse("黒プラス"), Colour.BLACK)  # a hand whose winner chooses nothing


def test_hands_benchmark(benchmark: Any) -> None:
    rolls = [nine_dice.random_roll(__import__("random").Random(i), expansion=i % 2 == 0) for i in range(100)]
    benchmark(lambda: [hands(r) for r in rolls])


def test_roll_events_are_immutable_values() -> None:
    event = Roll(list(dice_from_text(KURO_PURASU)))  # type: ignore[arg-type]
    assert isinstance(event.dice, tuple) and hash(event) == hash(Roll(dice_from_text(KURO_PURASU)))
    with pytest.raises(MalformedEvent):
        Roll(("白プ",))  # type: ignore[arg-type]


def test_states_are_immutable() -> None:
    state = play(AB, roll(KURO_PURASU))
    before = state.to_json()
    state.apply(Shout("A", Hand.parse("黒プラス")))
    assert state.to_json() == before
    with pytest.raises(AttributeError):
        state.round_open = False  # type: ignore[misc]
    assert replace(state) == state


def test_state_json_is_json() -> None:
    state = play(AB, roll(SUKARABE), shout("B", "2色プラス"), shout("A", "スカラベ"))
    text = json.dumps(state.to_json(), ensure_ascii=False)
    assert json.loads(text)["rounds"][0] == {
        "best": ["スカラベ"], "winner": "A", "penalised": ["B"], "hand": "スカラベ",
        "dice": roll(SUKARABE)["dice"],
        "shouts": [{"player": "B", "hand": "2色プラス", "colour": None, "correct": False, "returned": None},
                   {"player": "A", "hand": "スカラベ", "colour": None, "correct": True, "returned": None}],
        "awarded": [{"token": "scarab", "from": None}],
    }


# --- Bilingual messages --------------------------------------------------------------------------

_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_game_errors_are_registered_in_both_languages() -> None:
    cat = catalogue()
    for code in ("already_shouted", "unknown_hand"):
        assert set(cat[code]) == {"en", "ja"}


@pytest.mark.parametrize("events", [
    [roll(RASU_BEGASU), shout("A", "3色ベガス"), shout("A", "ラスベガス", "white")],
    [roll(KURO_PURASU), roll(KURO_PURASU)],
    [roll("白ス 白ス 白プ 黒プ 黒ラ 黒レ 青プ 青ラ 青プ")],
    [roll(KURO_PURASU), shout("A", "赤プラス")],
    [roll(KURO_PURASU), shout("A", "黒プラス", "black")],
    [END],
    [shout("Z", "黒プラス")],
    [{"type": "bid"}],
    [roll(BPV), shout("A", "ブラフプラスベガス"), END],
])
def test_messages_in_english_and_japanese(events: list[dict[str, Any]]) -> None:
    err = fails(AB, *events).error
    en, ja = err.message("en"), err.message("ja")
    assert en and ja and en != ja
    assert "{" not in en and "{" not in ja
    assert _JAPANESE.search(ja)
    assert not err.code.endswith("referee_error")


# --- Shouts as DECISIONS.md allows them: colour only to choose a won token ----------------


@pytest.mark.parametrize("hand", ["プラスベガス", "ラスベガス", "ナシゴレン"])
def test_a_wrong_choosing_shout_needs_no_colour(hand: str) -> None:
    """A wrong プラスベガス / ラスベガス / ナシゴレン without a colour is penalised with the
    colour held most (DECISIONS: colour on a wrong shout is optional)."""
    events = [*nasigoren("A", "black"), *nasigoren("A", "blue"), *nasigoren("A", "blue")]
    state = play(AB, *events, roll(KURO_PURASU), shout("A", hand), shout("B", "黒プラス"))
    assert tokens(state, "A") == {"white": 0, "black": 1, "blue": 1}
    first = state.to_json()["rounds"][-1]["shouts"][0]
    assert first == {"player": "A", "hand": hand, "colour": None, "correct": False, "returned": "blue"}


def test_a_wrong_choosing_shout_without_tokens_returns_nothing() -> None:
    state = play(AB, roll(KURO_PURASU), shout("A", "ラスベガス"))
    assert state.round_open and state.to_json()["shouts"][0]["returned"] is None


@pytest.mark.parametrize("text, hand", [(PURASU_BEGASU, "プラスベガス"), (RASU_BEGASU, "ラスベガス"),
                                        (NASIGOREN_ROLL, "ナシゴレン")])
def test_a_winning_choosing_shout_waits_for_its_colour(text: str, hand: str) -> None:
    err = fails(AB, roll(text), shout("B", "3色プラス"), shout("A", hand))
    assert isinstance(err.error, ColourNeeded) and err.event == 2
    state = play(AB, roll(text), shout("B", "3色プラス"), shout("A", hand, "blue"))
    assert tokens(state, "A")["blue"] == 1 and not state.round_open


def test_legal_actions_offer_a_colourless_choosing_shout_only_where_it_is_wrong() -> None:
    state = play(AB, roll(RASU_BEGASU))
    shouts = [a for a in state.legal_actions() if isinstance(a, Shout) and a.player == "A"]
    colourless = {str(a.hand) for a in shouts if a.hand.chooses_colour and a.colour is None}
    assert colourless == {"プラスベガス", "ナシゴレン"}  # ラスベガス wins here: it must name a colour
    for action in state.legal_actions():
        state.apply(action)  # every action listed is accepted


def _legal_logs(seed: int, rounds: int = 12) -> list[dict[str, Any]]:
    """Random complete Nine Dice logs that use every freedom DECISIONS.md gives a shout:
    choosing hands shouted wrongly with and without a colour, winners naming theirs."""
    from random import Random

    rng = Random(seed)
    players = ["A", "B", "C"]
    events: list[dict[str, Any]] = []
    state = play(players)
    for _ in range(rounds):
        if state.is_terminal():
            break
        ev = roll(" ".join(str(d) for d in nine_dice.random_roll(rng, expansion=rng.random() < 0.3)))
        events.append(ev)
        state = play(players, *events)
        order = players[:]
        rng.shuffle(order)
        for who in order:
            if not state.round_open:
                break
            hand = rng.choice([h for h in ALL_HANDS if h.chooses_colour] * 3 + list(ALL_HANDS[:8]) + [Hand.parse(b) for b in state.best])
            colour = None
            if hand.chooses_colour and (str(hand) in state.best or rng.random() < 0.5):
                colour = rng.choice(["white", "black", "blue"])
            events.append(shout(who, str(hand), colour))
            state = play(players, *events)
        if state.round_open:
            events.append(END)
            state = play(players, *events)
    return events


@pytest.mark.parametrize("seed", range(6))
def test_replay_accepts_every_legal_shout_log(seed: int, tmp_path: Any, capsys: Any) -> None:
    """`tableref replay` accepts logs using DECISIONS.md's shout rules (colourless wrong
    choosing shouts included) and prints the referee's state; the contract's state JSON
    is the same whether or not a wrong shout named its colour to return."""
    from web.cli import main

    events = _legal_logs(seed)
    assert any(e.get("type") == "shout" and Hand.parse(e["hand"]).chooses_colour and "colour" not in e for e in events)
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc(["A", "B", "C"], events), ensure_ascii=False), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(replay_json(doc(["A", "B", "C"], events))))
    assert printed["rounds"] and all(set(r) >= {"best", "winner", "penalised"} for r in printed["rounds"])
