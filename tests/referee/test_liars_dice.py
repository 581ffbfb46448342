"""Liar's Dice referee: every rulebook example, every DECISIONS.md rule, the table aids."""

from __future__ import annotations

import doctest
import itertools
import json
from fractions import Fraction
from importlib import resources

import pytest

import referee.liars_dice as liars_dice
from referee.errors import (
    GameOver,
    InvalidOption,
    MalformedEvent,
    MalformedLog,
    Misread,
    NotYourTurn,
    OutOfOrder,
    RefereeError,
    UnknownPlayer,
    catalogue,
)
from referee.game import State as StateProtocol
from referee.liars_dice import (
    RULES,
    Bid,
    BidEvent,
    Challenge,
    Face,
    IllegalBid,
    Options,
    Reveal,
    Space,
    Start,
    State,
    Track,
    WrongRollers,
    bid_probability,
    default_track,
    legal_raises,
    parse_event,
    parse_options,
)
from referee.log import GameLog
from referee.replay import ReplayError, replay

WANJIN, SAEWOON, MINA = "Wanjin", "Saewoon", "Mina"
THREE = (WANJIN, SAEWOON, MINA)
TWO = (WANJIN, SAEWOON)


# --- helpers ---------------------------------------------------------------------------


def doc(events: list, players=THREE, **options) -> dict:
    return {
        "format": "tableref-game/1",
        "game": "liars-dice",
        "options": options,
        "players": list(players),
        "events": events,
    }


def run(events: list, players=THREE, **options) -> State:
    return replay(GameLog.from_json(doc(events, players, **options)))


def fails(events: list, players=THREE, **options) -> tuple[RefereeError, int | None]:
    with pytest.raises(ReplayError) as info:
        run(events, players, **options)
    return info.value.error, info.value.event


def start(opener: str = WANJIN) -> dict:
    return {"type": "start", "opener": opener}


def rolls(**faces: list[str]) -> dict:
    return {"type": "start", "rolls": faces}


def bid(player: str, quantity: int, face: str) -> dict:
    return {"type": "bid", "player": player, "quantity": quantity, "face": face}


def challenge(player: str) -> dict:
    return {"type": "challenge", "player": player}


def reveal(total: int, counts: dict[str, int], filler: str = "2") -> dict:
    """``total`` dice: the given counts, the rest showing ``filler``."""
    dice = [face for face, n in counts.items() for _ in range(n)]
    assert len(dice) <= total
    return {"type": "reveal", "dice": dice + [filler] * (total - len(dice))}


def dice_of(state: State) -> dict[str, int]:
    return dict(zip(state.players, state.dice))


def last_round(state: State) -> dict:
    return state.to_json()["rounds"][-1]


def is_legal(standing: Bid | None, candidate: Bid, track: Track | None = None) -> bool:
    return candidate in legal_raises(standing, track or default_track())


# --- EN rulebook -----------------------------------------------------------------------


def test_en_example_six_3s_means_at_least_six_dice_showing_3_wheels_included():
    six_threes = Bid(6, Face.THREE)
    assert six_threes.count([Face.THREE] * 5 + [Face.WHEEL] + [Face.TWO] * 4) == 6
    assert six_threes.count([Face.THREE] * 5 + [Face.FOUR] * 5) == 5
    # The prediction die sits on space 6 with 3 up.
    track = default_track()
    assert track.spaces[track.position(six_threes)] == Space(6)


def test_en_example_four_wheels_sits_on_the_red_wheel_space():
    four_wheels = Bid(4, Face.WHEEL)
    track = default_track()
    assert track.spaces[track.position(four_wheels)] == Space(4, wheel=True)
    assert str(track.spaces[track.position(four_wheels)]) == "W4"


def test_en_example_wanjin_five_3s_saewoon_challenges_actual_7_saewoon_loses_2():
    state = run(
        [
            start(WANJIN),
            bid(WANJIN, 5, "3"),
            challenge(SAEWOON),
            reveal(15, {"3": 4, "wheel": 3}, filler="5"),
        ]
    )
    assert last_round(state) == {
        "bid": {"player": WANJIN, "quantity": 5, "face": "3"},
        "challenger": SAEWOON,
        "actual": 7,
        "loser": SAEWOON,
        "lost": 2,
        "eliminated": False,
    }
    assert dice_of(state) == {WANJIN: 5, SAEWOON: 3, MINA: 5}


def test_en_start_player_has_the_most_wheels():
    state = run(
        [rolls(Wanjin=["wheel", "2", "3", "4", "5"], Saewoon=["wheel", "wheel", "2", "2", "2"], Mina=["6"] * 5)]
    )
    assert state.turn_player == SAEWOON


def test_en_start_tie_on_wheels_goes_to_highest_total_of_the_other_dice():
    state = run(
        [
            rolls(
                Wanjin=["wheel", "6", "6", "6", "6"],
                Saewoon=["wheel", "2", "2", "2", "2"],
                Mina=["wheel", "6", "6", "6", "5"],
            )
        ]
    )
    assert state.turn_player == WANJIN


def test_en_turns_pass_clockwise_after_the_opening_prediction():
    state = run([start(SAEWOON), bid(SAEWOON, 2, "4")])
    assert state.turn_player == MINA
    state = run([start(SAEWOON), bid(SAEWOON, 2, "4"), bid(MINA, 3, "4")])
    assert state.turn_player == WANJIN


def test_en_new_prediction_advances_at_least_one_space_with_any_face():
    assert is_legal(Bid(6, Face.THREE), Bid(7, Face.TWO))
    assert is_legal(Bid(6, Face.THREE), Bid(9, Face.SIX))
    state = run([start(), bid(WANJIN, 6, "5"), bid(SAEWOON, 7, "2")])
    assert state.bid == Bid(7, Face.TWO)


def test_en_new_prediction_keeps_the_space_and_shows_a_higher_face():
    assert is_legal(Bid(6, Face.THREE), Bid(6, Face.FOUR))
    assert not is_legal(Bid(6, Face.THREE), Bid(6, Face.TWO))
    assert not is_legal(Bid(6, Face.THREE), Bid(6, Face.THREE))


def test_en_from_the_red_wheel_space_only_advance_wheel_face_up():
    standing = Bid(4, Face.WHEEL)  # sits on W4, after numeric space 8
    assert not is_legal(standing, Bid(8, Face.SIX))
    assert not is_legal(standing, Bid(4, Face.WHEEL))
    assert is_legal(standing, Bid(9, Face.TWO))
    assert is_legal(standing, Bid(5, Face.WHEEL))
    # Only a wheel can sit on a wheel space: no face other than the wheel exists there.
    assert all(b.face is Face.WHEEL for b in default_track().bids if b.space.wheel)


def test_en_actual_less_than_prediction_challenge_succeeds_bidder_loses_difference():
    state = run([start(), bid(WANJIN, 8, "4"), challenge(SAEWOON), reveal(15, {"4": 3, "wheel": 2})])
    assert last_round(state)["actual"] == 5
    assert (last_round(state)["loser"], last_round(state)["lost"]) == (WANJIN, 3)
    assert dice_of(state)[WANJIN] == 2


def test_en_actual_equal_to_prediction_challenger_removes_one_die():
    state = run([start(), bid(WANJIN, 5, "6"), challenge(SAEWOON), reveal(15, {"6": 3, "wheel": 2})])
    assert (last_round(state)["actual"], last_round(state)["loser"], last_round(state)["lost"]) == (5, SAEWOON, 1)


def test_en_ship_wheels_always_count_toward_the_actual_number():
    state = run([start(), bid(WANJIN, 4, "2"), challenge(SAEWOON), reveal(15, {"wheel": 4}, filler="6")])
    assert last_round(state)["actual"] == 4


def test_en_player_who_loses_all_dice_is_eliminated():
    state = run([start(), bid(WANJIN, 10, "5"), challenge(SAEWOON), reveal(15, {"5": 1}, filler="2")])
    assert last_round(state)["lost"] == 5 and last_round(state)["eliminated"] is True
    assert state.to_json()["players"][0] == {"name": WANJIN, "dice": 0, "eliminated": True}


def test_en_end_of_round_the_challenger_makes_the_first_prediction():
    state = run([start(), bid(WANJIN, 3, "5"), challenge(SAEWOON), reveal(15, {"5": 1})])
    assert state.turn_player == SAEWOON and state.bid is None


def test_en_eliminated_challenger_the_player_after_the_challenger_opens():
    events = [
        start(SAEWOON),
        bid(SAEWOON, 2, "3"),
        challenge(MINA),  # Mina loses 5: all her dice
        reveal(15, {"3": 7}),
    ]
    state = run(events)
    assert dice_of(state)[MINA] == 0
    assert state.turn_player == WANJIN


def test_en_last_remaining_player_wins():
    events = [start(WANJIN), bid(WANJIN, 10, "2"), challenge(SAEWOON), reveal(10, {"2": 5}, filler="6")]
    state = run(events, players=TWO)
    assert state.is_terminal() and state.winner() == SAEWOON
    assert state.to_json()["winner"] == SAEWOON and state.to_json()["turn"] is None


# --- JA rulebook -----------------------------------------------------------------------


def test_ja_example_six_2s_with_five_2s_and_three_wheels_counts_eight():
    state = run(
        [start(WANJIN), bid(WANJIN, 6, "2"), challenge(SAEWOON), reveal(10, {"2": 5, "wheel": 3}, filler="4")], TWO
    )
    assert last_round(state)["actual"] == 8
    assert (last_round(state)["loser"], last_round(state)["lost"]) == (SAEWOON, 2)


def test_ja_example_a_wheel_bid_counts_only_the_wheels():
    state = run(
        [start(WANJIN), bid(WANJIN, 3, "wheel"), challenge(SAEWOON), reveal(10, {"2": 5, "wheel": 3}, filler="4")], TWO
    )
    assert last_round(state)["actual"] == 3
    state = run(
        [start(WANJIN), bid(WANJIN, 4, "wheel"), challenge(SAEWOON), reveal(10, {"2": 5, "wheel": 3}, filler="4")], TWO
    )
    assert last_round(state)["actual"] == 3 and last_round(state)["loser"] == WANJIN


def test_ja_example_wajin_five_3s_seun_challenges_and_loses_two_dice():
    wajin, seun = "ワジン", "セウン"
    state = run(
        [start(wajin), bid(wajin, 5, "3"), challenge(seun), reveal(10, {"3": 4, "wheel": 3}, filler="6")], (wajin, seun)
    )
    assert last_round(state)["actual"] == 7
    assert (last_round(state)["loser"], last_round(state)["lost"]) == (seun, 2)


def test_ja_raise_more_dice_same_face():
    assert is_legal(Bid(6, Face.THREE), Bid(7, Face.THREE))


def test_ja_raise_same_space_higher_face():
    assert is_legal(Bid(6, Face.THREE), Bid(6, Face.FIVE))


def test_ja_raise_more_dice_with_a_lower_face():
    assert is_legal(Bid(6, Face.FIVE), Bid(7, Face.TWO))


def test_ja_may_move_onto_a_wheel_space_in_the_direction_of_more_dice():
    # Default track: ..., 6, W3, 7, ...; W3 lies ahead of six 5s, W2 lies behind it.
    assert is_legal(Bid(6, Face.FIVE), Bid(3, Face.WHEEL))
    assert not is_legal(Bid(6, Face.FIVE), Bid(2, Face.WHEEL))


def test_ja_outcome_1_actual_more_than_predicted_challenger_loses_difference():
    state = run([start(), bid(WANJIN, 3, "4"), challenge(SAEWOON), reveal(15, {"4": 4, "wheel": 2})])
    assert (last_round(state)["actual"], last_round(state)["loser"], last_round(state)["lost"]) == (6, SAEWOON, 3)


def test_ja_outcome_1_1_actual_equal_to_predicted_challenger_loses_one():
    state = run([start(), bid(WANJIN, 6, "4"), challenge(SAEWOON), reveal(15, {"4": 4, "wheel": 2})])
    assert (last_round(state)["loser"], last_round(state)["lost"]) == (SAEWOON, 1)


def test_ja_outcome_2_actual_less_than_predicted_bidder_loses_difference():
    state = run([start(), bid(WANJIN, 8, "4"), challenge(SAEWOON), reveal(15, {"4": 4, "wheel": 2})])
    assert (last_round(state)["loser"], last_round(state)["lost"]) == (WANJIN, 2)


def test_ja_start_each_player_rolls_two_dice_highest_sum_starts():
    state = run([rolls(Wanjin=["6", "5"], Saewoon=["6", "6"], Mina=["wheel", "2"])], start_rule="ja")
    assert state.turn_player == SAEWOON


def test_ja_the_challenger_becomes_the_next_start_player():
    state = run([start(MINA), bid(MINA, 4, "2"), challenge(WANJIN), reveal(15, {"2": 1}, filler="3")], start_rule="ja")
    assert (last_round(state)["loser"], state.turn_player) == (MINA, WANJIN)


def test_ja_a_player_with_no_dice_leaves_the_game():
    events = [start(MINA), bid(MINA, 10, "6"), challenge(WANJIN), reveal(15, {"6": 2}, filler="3")]
    state = run(events)
    assert dice_of(state)[MINA] == 0
    # Mina is skipped from now on: after Wanjin, Saewoon, then Wanjin again.
    state = run(events + [bid(WANJIN, 2, "3"), bid(SAEWOON, 3, "3")])
    assert state.turn_player == WANJIN
    error, index = fails(events + [bid(WANJIN, 2, "3"), bid(MINA, 3, "3")])
    assert isinstance(error, NotYourTurn) and index == 5


# --- DECISIONS.md ----------------------------------------------------------------------


def test_decision_five_dice_each_two_to_six_players():
    for n in range(2, 7):
        state = RULES.new_game(tuple(f"P{i}" for i in range(n)), Options())
        assert state.dice == (5,) * n and state.dice_in_play == 5 * n
    for n in (1, 7):
        with pytest.raises(InvalidOption):
            RULES.new_game(tuple(f"P{i}" for i in range(n)), Options())
        with pytest.raises(ReplayError) as info:
            replay(GameLog.from_json(doc([], tuple(f"P{i}" for i in range(n)))))
        assert isinstance(info.value.error, MalformedLog) and info.value.event is None
    assert (RULES.name, RULES.min_players, RULES.max_players) == ("liars-dice", 2, 6)


def test_decision_faces_are_wheel_and_two_to_six():
    assert [face.value for face in Face] == ["wheel", "2", "3", "4", "5", "6"]
    assert Face("wheel").rank < Face("2").rank < Face("6").rank


def test_decision_default_track_numeric_1_to_30_with_a_wheel_space_after_every_second():
    expected: list[int | str] = []
    for n in range(1, 31):
        expected.append(n)
        if n % 2 == 0:
            expected.append(f"W{n // 2}")
    assert default_track().to_json() == expected
    assert default_track().to_json()[:6] == [1, 2, "W1", 3, 4, "W2"]
    assert len(default_track().bids) == 30 * 5 + 15


def test_decision_track_is_editable_data_shipped_with_the_package():
    text = resources.files("referee").joinpath("data/liars-dice.json").read_text(encoding="utf-8")
    assert Track.from_json(json.loads(text)["track"]) == default_track()
    assert default_track() is default_track()  # read once


def test_decision_track_option_replaces_the_board():
    board = [1, 2, 3, "W1", 4, 5, 6, "W2"]
    state = run([start(), bid(WANJIN, 1, "wheel"), bid(SAEWOON, 4, "2")], track=board)
    assert state.bid == Bid(4, Face.TWO)
    error, index = fails([start(), bid(WANJIN, 7, "2")], track=board)
    assert isinstance(error, IllegalBid) and index == 1
    assert error.message("en").endswith("the board has no space 7. The lowest legal bid now is one 2.")
    error, _ = fails([start(), bid(WANJIN, 3, "wheel")], track=board)
    assert isinstance(error, IllegalBid) and "wheel space W3" in error.message("en")
    # The default board would have taken one wheel only after two of a face.
    # On this board W1 follows space 3; on the default board it follows space 2.
    assert is_legal(Bid(3, Face.TWO), Bid(1, Face.WHEEL), Track.from_json(board))
    assert not is_legal(Bid(3, Face.TWO), Bid(1, Face.WHEEL))
    assert is_legal(Bid(2, Face.TWO), Bid(1, Face.WHEEL))


@pytest.mark.parametrize(
    ("track", "needle"),
    [
        ([], "at least one space"),
        ("1,2,W1", "list of spaces"),
        ([1, 3, 2], "numeric spaces must strictly increase"),
        ([1, 1], "numeric spaces must strictly increase"),
        ([1, "W2", 2, "W1"], "wheel spaces must strictly increase"),
        (["W1", "W2"], "at least one numeric space"),
        ([0, 1], "is not a space"),
        ([-1], "is not a space"),
        ([1.5], "is not a space"),
        ([True], "is not a space"),
        (["3"], "is not a space"),
        (["W0"], "is not a space"),
        (["w1"], "is not a space"),
        (["W01"], "is not a space"),
        ([None], "is not a space"),
        ([[1]], "is not a space"),
        (list(range(1, 202)), "at most 200 spaces"),
    ],
)
def test_decision_user_track_is_validated(track, needle):
    with pytest.raises(InvalidOption) as info:
        parse_options({"track": track})
    assert needle in info.value.message("en")
    assert info.value.params["option"] == "track"
    assert info.value.message("ja") != info.value.message("en")
    error, index = fails([], track=track)
    assert isinstance(error, InvalidOption) and index is None


def test_decision_raise_forward_any_face_on_a_numeric_space():
    standing = Bid(5, Face.SIX)
    for face in (Face.TWO, Face.THREE, Face.FOUR, Face.FIVE, Face.SIX):
        assert is_legal(standing, Bid(6, face))


def test_decision_raise_onto_a_wheel_space_shows_the_wheel():
    standing = Bid(2, Face.SIX)
    assert is_legal(standing, Bid(1, Face.WHEEL))  # W1 follows space 2
    assert Bid(3, Face.WHEEL).space == Space(3, wheel=True)
    # Wheel bids live on wheel spaces only, face bids on numeric spaces only.
    assert all(b.space.wheel == (b.face is Face.WHEEL) for b in default_track().bids)


def test_decision_raise_same_space_higher_face_on_numeric_spaces_only():
    assert [b for b in legal_raises(Bid(4, Face.FOUR), default_track()) if b.quantity == 4 and not b.space.wheel] == [
        Bid(4, Face.FIVE),
        Bid(4, Face.SIX),
    ]
    assert not is_legal(Bid(2, Face.WHEEL), Bid(2, Face.WHEEL))


def test_decision_from_a_wheel_space_you_can_only_advance():
    error, index = fails([start(), bid(WANJIN, 3, "wheel"), bid(SAEWOON, 6, "6")])
    assert isinstance(error, IllegalBid) and index == 2
    assert "back" in error.message("en")
    assert legal_raises(Bid(3, Face.WHEEL), default_track())[0] == Bid(7, Face.TWO)
    assert "seven 2s" in error.message("en") and "2のダイスが7個" in error.message("ja")


def test_decision_opening_bid_may_be_any_space():
    for opening in (Bid(1, Face.TWO), Bid(15, Face.WHEEL), Bid(30, Face.SIX), Bid(17, Face.FOUR)):
        state = run([start(), bid(WANJIN, opening.quantity, opening.face.value)])
        assert state.bid == opening


def test_decision_same_or_lower_bid_is_illegal_with_a_bilingual_reason_and_minimum_raise():
    error, index = fails([start(), bid(WANJIN, 6, "3"), bid(SAEWOON, 6, "3")])
    assert isinstance(error, IllegalBid) and index == 2 and error.code == "liars_dice_illegal_bid"
    assert error.message("en") == (
        "A bid of six 3s is not legal: on the same space the face must be higher than the standing bid's 3. "
        "The lowest legal bid now is six 4s."
    )
    assert error.message("ja") == (
        "「3のダイスが6個」とは推測できません: 同じスペースでは現在の推測の目（3）より大きい目にする必要があります。"
        "今できる最小の推測は「4のダイスが6個」です。"
    )
    assert error.params["minimum"] == {"quantity": 6, "face": "4"}
    error, _ = fails([start(), bid(WANJIN, 6, "3"), bid(SAEWOON, 5, "6")])
    assert "moves the prediction die back from space 6 to space 5" in error.message("en")


def test_decision_no_raise_left_at_the_end_of_the_track_says_challenge():
    error, _ = fails([start(), bid(WANJIN, 15, "wheel"), bid(SAEWOON, 15, "wheel")])
    assert isinstance(error, IllegalBid) and "challenge instead" in error.message("en")
    assert "チャレンジ" in error.message("ja")
    state = run([start(), bid(WANJIN, 15, "wheel")])
    assert state.legal_actions() == (Challenge(SAEWOON),)


def test_decision_actual_is_counted_over_all_dice_in_play():
    events = [start(), bid(WANJIN, 3, "5"), challenge(SAEWOON), reveal(15, {"5": 1})]
    state = run(events)  # Wanjin loses 2 -> 13 dice in play
    assert state.dice_in_play == 13
    state = run(events + [bid(SAEWOON, 2, "6"), challenge(MINA), reveal(13, {"6": 2, "wheel": 1})])
    assert last_round(state)["actual"] == 3


def test_decision_a_loss_never_exceeds_the_dice_held():
    events = [start(), bid(WANJIN, 1, "2"), challenge(SAEWOON), reveal(15, {"2": 15})]
    state = run(events)  # actual 15 - 1 = 14 > 5 held
    assert (last_round(state)["loser"], last_round(state)["lost"]) == (SAEWOON, 5)
    assert dice_of(state)[SAEWOON] == 0


def test_decision_a_player_with_zero_dice_is_eliminated_and_skipped():
    events = [start(), bid(WANJIN, 1, "2"), challenge(SAEWOON), reveal(15, {"2": 15})]
    state = run(events)
    assert state.to_json()["players"][1]["eliminated"] is True
    assert state.turn_player == MINA  # Saewoon challenged and is out: the next live player opens
    state = run(events + [bid(MINA, 2, "2")])
    assert state.turn_player == WANJIN
    state = run(events + [bid(MINA, 2, "2"), bid(WANJIN, 3, "2")])
    assert state.turn_player == MINA


def test_decision_next_round_opener_is_the_challenger():
    state = run([start(), bid(WANJIN, 9, "2"), challenge(SAEWOON), reveal(15, {"2": 1}, filler="3")])
    assert last_round(state)["loser"] == WANJIN and state.turn_player == SAEWOON
    state = run([start(), bid(WANJIN, 1, "2"), challenge(SAEWOON), reveal(15, {"2": 3}, filler="3")])
    assert last_round(state)["loser"] == SAEWOON and state.turn_player == SAEWOON


def test_decision_eliminated_challenger_next_live_player_clockwise_opens():
    four = ("A", "B", "C", "D")
    events = [
        start("B"),
        bid("B", 1, "2"),
        challenge("C"),
        reveal(20, {"2": 20}),  # C loses everything
        bid("D", 1, "3"),
        challenge("A"),
        reveal(15, {"3": 15}),  # A loses everything; next after A clockwise is B (C is out)
    ]
    state = run(events, four)
    assert dice_of(state) == {"A": 0, "B": 5, "C": 0, "D": 5}
    assert state.turn_player == "B"
    events = [
        start("A"),
        bid("A", 1, "2"),
        challenge("B"),
        reveal(20, {"2": 20}),  # B out; C opens
        bid("C", 1, "3"),
        bid("D", 2, "3"),
        challenge("A"),
        reveal(15, {"3": 15}),  # A out; B after A is out too, so C opens
    ]
    state = run(events, four)
    assert dice_of(state) == {"A": 0, "B": 0, "C": 5, "D": 5}
    assert state.turn_player == "C"


def test_decision_last_player_with_dice_wins_and_nothing_follows():
    events = [start(WANJIN), bid(WANJIN, 1, "2"), challenge(SAEWOON), reveal(10, {"2": 10})]
    state = run(events, TWO)
    assert state.winner() == WANJIN and state.is_terminal()
    assert state.legal_actions() == () and state.expects() is None
    for extra in (bid(WANJIN, 1, "2"), challenge(WANJIN), reveal(5, {}), start(WANJIN)):
        error, index = fails(events + [extra], TWO)
        assert isinstance(error, GameOver) and index == 4


def test_decision_start_rule_en_is_the_default():
    assert parse_options({}).start_rule == "en"
    error, _ = fails([rolls(Wanjin=["2", "3"], Saewoon=["6", "6"], Mina=["5", "5"])])
    assert isinstance(error, Misread) and "rolls 5 each" in error.message("en")


def test_decision_start_rule_en_further_tie_the_tied_players_reroll():
    first = rolls(
        Wanjin=["wheel", "6", "6", "2", "2"],
        Saewoon=["wheel", "5", "5", "3", "3"],
        Mina=["2", "2", "2", "2", "2"],
    )
    state = run([first])
    assert state.expects() == "start" and state.turn is None
    assert state.to_json()["start_tie"] == [WANJIN, SAEWOON]
    assert state.legal_actions() == ()
    state = run([first, rolls(Wanjin=["2"] * 5, Saewoon=["wheel", "2", "2", "2", "2"])])
    assert state.turn_player == SAEWOON and state.expects() is None
    assert state.to_json()["start_tie"] is None


def test_decision_start_reroll_must_hold_only_the_tied_players():
    first = rolls(
        Wanjin=["wheel", "6", "6", "2", "2"],
        Saewoon=["wheel", "5", "5", "3", "3"],
        Mina=["2", "2", "2", "2", "2"],
    )
    everyone = rolls(Wanjin=["2"] * 5, Saewoon=["wheel"] + ["2"] * 4, Mina=["wheel"] * 5)
    error, index = fails([first, everyone])
    assert isinstance(error, WrongRollers) and index == 1
    assert (
        error.message("en") == "The start roll must list exactly Wanjin, Saewoon, but it lists Wanjin, Saewoon, Mina."
    )
    error, _ = fails([first, rolls(Wanjin=["2"] * 5)])
    assert isinstance(error, WrongRollers)
    error, _ = fails([first, bid(WANJIN, 1, "2")])
    assert isinstance(error, OutOfOrder) and "tied between Wanjin, Saewoon" in error.message("en")
    # Naming an opener settles the tie only for one of the tied players.
    assert run([first, start(SAEWOON)]).turn_player == SAEWOON
    error, _ = fails([first, start(MINA)])
    assert isinstance(error, OutOfOrder)


def test_decision_start_rolls_with_wrong_players_or_dice_counts_are_errors():
    error, _ = fails([rolls(Wanjin=["2"] * 5, Saewoon=["3"] * 5)])
    assert isinstance(error, WrongRollers)
    error, _ = fails([rolls(Wanjin=["2"] * 5, Saewoon=["3"] * 5, Mina=["4"] * 4)])
    assert isinstance(error, Misread) and "Mina's start roll has 4 dice" in error.message("en")
    error, _ = fails([rolls(Wanjin=["2"] * 5, Saewoon=["3"] * 5, Mina=["4"] * 5, Kim=["5"] * 5)])
    assert isinstance(error, UnknownPlayer)
    error, _ = fails([rolls(Wanjin=["2"] * 2, Saewoon=["3"] * 2, Mina=["4"] * 5)], start_rule="ja")
    assert isinstance(error, Misread)


def test_decision_start_rule_ja_wheel_counts_one_and_ties_reroll():
    state = run([rolls(Wanjin=["wheel", "2"], Saewoon=["2", "2"])], TWO, start_rule="ja")
    assert state.turn_player == SAEWOON  # 3 vs 4
    state = run([rolls(Wanjin=["wheel", "3"], Saewoon=["2", "2"], Mina=["wheel", "wheel"])], start_rule="ja")
    assert state.to_json()["start_tie"] == [WANJIN, SAEWOON]
    state = run(
        [
            rolls(Wanjin=["wheel", "3"], Saewoon=["2", "2"], Mina=["wheel", "wheel"]),
            rolls(Saewoon=["6", "5"], Wanjin=["6", "6"]),
        ],
        start_rule="ja",
    )
    assert state.turn_player == WANJIN


def test_decision_start_rule_option_is_validated():
    for bad in ("EN", "jp", "", None, 1, ["en"]):
        with pytest.raises(InvalidOption) as info:
            parse_options({"start_rule": bad})
        assert info.value.params["option"] == "start_rule"
    with pytest.raises(InvalidOption) as info:
        parse_options({"startRule": "ja"})
    assert "unknown option" in info.value.message("en") and "start_rule, track" in info.value.message("en")
    assert parse_options({"start_rule": "ja"}) == Options(start_rule="ja")


def test_decision_turn_is_null_between_challenge_and_reveal():
    state = run([start(), bid(WANJIN, 4, "4"), challenge(SAEWOON)])
    assert state.to_json()["turn"] is None and state.turn is None
    assert state.to_json()["challenger"] == SAEWOON
    assert state.expects() == "reveal" and state.legal_actions() == ()
    for extra, kind in ((bid(MINA, 5, "4"), "bid"), (challenge(MINA), "challenge")):
        error, index = fails([start(), bid(WANJIN, 4, "4"), challenge(SAEWOON), extra])
        assert isinstance(error, OutOfOrder) and index == 3 and error.params["event"] == kind


@pytest.mark.parametrize("count", [0, 14, 16, 30])
def test_decision_reveal_count_must_equal_dice_in_play_else_misread(count):
    error, index = fails([start(), bid(WANJIN, 4, "4"), challenge(SAEWOON), reveal(count, {})])
    assert isinstance(error, Misread) and index == 3
    assert (
        error.message("en")
        == f"The reading does not add up ({count} dice were read but 15 are in play); please re-read."
    )
    assert "場には15個" in error.message("ja")


@pytest.mark.parametrize("face", ["1", "プ", "7", "Wheel", ""])
def test_decision_reveal_of_a_face_no_liars_die_shows_is_misread(face):
    event = reveal(15, {face: 1})
    error, index = fails([start(), bid(WANJIN, 4, "4"), challenge(SAEWOON), event])
    assert isinstance(error, Misread) and index == 3


def test_decision_wheel_bid_counts_wheels_only():
    assert Bid(3, Face.WHEEL).count([Face.WHEEL, Face.WHEEL, Face.SIX, Face.SIX]) == 2
    assert Bid(3, Face.SIX).count([Face.WHEEL, Face.WHEEL, Face.SIX, Face.SIX]) == 4
    state = run([start(), bid(WANJIN, 3, "wheel"), challenge(SAEWOON), reveal(15, {"wheel": 2}, filler="2")])
    assert (last_round(state)["actual"], last_round(state)["loser"], last_round(state)["lost"]) == (2, WANJIN, 1)


def test_decision_a_new_round_starts_right_after_a_reveal():
    state = run([start(), bid(WANJIN, 3, "5"), challenge(SAEWOON), reveal(15, {"5": 3})])
    assert state.bid is None and state.to_json()["bid"] is None and state.expects() is None
    assert len(state.legal_actions()) == len(default_track().bids)  # any opening bid, no challenge


# --- protocol, events and errors -------------------------------------------------------


def test_state_implements_the_game_protocol_and_is_immutable():
    state = RULES.new_game(THREE, parse_options({}))
    assert isinstance(state, StateProtocol)
    assert state.expects() == "start" and state.legal_actions() == () and state.turn is None
    opened = state.apply(Start(opener=MINA))
    assert state.expects() == "start" and opened.turn_player == MINA
    with pytest.raises(AttributeError):
        opened.turn = 0  # type: ignore[misc]
    actions = opened.legal_actions()
    assert len(actions) == 165 and all(isinstance(a, BidEvent) and a.player == MINA for a in actions)
    after = opened.apply(actions[7])
    assert after.legal_actions()[-1] == Challenge(WANJIN)
    assert len(after.legal_actions()) == 165 - 8 + 1
    for action in after.legal_actions():
        after.apply(action)  # every listed action is legal


def test_state_json_has_the_contract_fields():
    state = run(
        [start(), bid(WANJIN, 5, "3"), challenge(SAEWOON), reveal(15, {"3": 4, "wheel": 3}), bid(SAEWOON, 2, "4")]
    )
    out = state.to_json()
    assert {"game", "players", "turn", "bid", "winner", "rounds"} <= set(out)
    assert out["game"] == "liars-dice"
    assert out["players"] == [
        {"name": WANJIN, "dice": 5, "eliminated": False},
        {"name": SAEWOON, "dice": 3, "eliminated": False},
        {"name": MINA, "dice": 5, "eliminated": False},
    ]
    assert out["turn"] == MINA and out["winner"] is None
    assert out["bid"] == {"player": SAEWOON, "quantity": 2, "face": "4"}
    assert {"bid", "challenger", "actual", "loser", "lost"} <= set(out["rounds"][0])
    assert json.loads(json.dumps(out)) == out


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "start", "opener": WANJIN},
        {"type": "start", "rolls": {WANJIN: ["wheel", "2", "3", "4", "5"], SAEWOON: ["6"] * 5}},
        {"type": "bid", "player": MINA, "quantity": 12, "face": "wheel"},
        {"type": "bid", "player": MINA, "quantity": 3, "face": "5"},
        {"type": "challenge", "player": SAEWOON},
        {"type": "reveal", "dice": ["wheel", "6", "2"]},
    ],
)
def test_events_round_trip_through_json(raw):
    event = parse_event(raw, THREE)
    assert event.to_json() == raw
    assert parse_event(event.to_json(), THREE) == event


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ([], MalformedEvent),
        ("bid", MalformedEvent),
        (None, MalformedEvent),
        ({}, MalformedEvent),
        ({"type": "raise", "player": WANJIN}, MalformedEvent),
        ({"type": ["bid"]}, MalformedEvent),
        ({"type": "bid", "quantity": 3, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": 3}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": "3", "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": 3.0, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": True, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": 0, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": 3, "face": "1"}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": 3, "face": 3}, MalformedEvent),
        ({"type": "bid", "player": WANJIN, "quantity": 3, "face": ["3"]}, MalformedEvent),
        ({"type": "bid", "player": ["Wanjin"], "quantity": 3, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": {"a": 1}, "quantity": 3, "face": "3"}, MalformedEvent),
        ({"type": "bid", "player": "Kim", "quantity": 3, "face": "3"}, UnknownPlayer),
        ({"type": "challenge"}, MalformedEvent),
        ({"type": "challenge", "player": "Kim"}, UnknownPlayer),
        ({"type": "reveal"}, MalformedEvent),
        ({"type": "reveal", "dice": "33333"}, MalformedEvent),
        ({"type": "reveal", "dice": [3, 3]}, MalformedEvent),
        ({"type": "reveal", "dice": [["3"]]}, MalformedEvent),
        ({"type": "reveal", "dice": ["1"]}, Misread),
        ({"type": "reveal", "dice": ["ガ"]}, Misread),
        ({"type": "start"}, MalformedEvent),
        ({"type": "start", "opener": WANJIN, "rolls": {}}, MalformedEvent),
        ({"type": "start", "opener": 3}, MalformedEvent),
        ({"type": "start", "opener": "Kim"}, UnknownPlayer),
        ({"type": "start", "rolls": [["Wanjin", ["2"]]]}, MalformedEvent),
        ({"type": "start", "rolls": {"Kim": ["2"] * 5}}, UnknownPlayer),
        ({"type": "start", "rolls": {WANJIN: "22222"}}, MalformedEvent),
        ({"type": "start", "rolls": {WANJIN: ["1"] * 5}}, Misread),
    ],
)
def test_parse_event_rejects_bad_input_with_its_own_error(raw, kind):
    with pytest.raises(RefereeError) as info:
        parse_event(raw, THREE)
    assert type(info.value) is kind
    assert info.value.message("en") and info.value.message("ja")


def test_out_of_order_events():
    cases = [
        ([bid(WANJIN, 1, "2")], OutOfOrder, "has not started"),
        ([challenge(WANJIN)], OutOfOrder, "has not started"),
        ([reveal(15, {})], OutOfOrder, "has not started"),
        ([start(), start(SAEWOON)], OutOfOrder, "already started"),
        ([start(), challenge(WANJIN)], OutOfOrder, "no bid to challenge"),
        ([start(), reveal(15, {})], OutOfOrder, "only after a challenge"),
        ([start(), bid(WANJIN, 2, "2"), reveal(15, {})], OutOfOrder, "only after a challenge"),
        ([start(), bid(SAEWOON, 2, "2")], NotYourTurn, "Wanjin's turn"),
        ([start(), bid(WANJIN, 2, "2"), bid(WANJIN, 3, "2")], NotYourTurn, "Saewoon's turn"),
        ([start(), bid(WANJIN, 2, "2"), challenge(WANJIN)], NotYourTurn, "Saewoon's turn"),
        ([start(), bid(WANJIN, 2, "2"), challenge(MINA)], NotYourTurn, "Saewoon's turn"),
        ([start(), bid(WANJIN, 2, "3"), challenge(SAEWOON), reveal(15, {}), challenge(SAEWOON)], OutOfOrder, "no bid"),
    ]
    for events, kind, needle in cases:
        error, index = fails(events)
        assert type(error) is kind and index == len(events) - 1, events
        assert needle in error.message("en"), error.message("en")


def test_errors_are_bilingual_and_have_their_own_codes():
    codes = catalogue()
    for cls in (IllegalBid, WrongRollers):
        assert cls.code in codes and cls.code.startswith("liars_dice_")
        assert any("\u3040" <= ch <= "\u9fff" for ch in codes[cls.code]["ja"])
    assert issubclass(IllegalBid, RefereeError) and issubclass(WrongRollers, RefereeError)
    samples = [
        fails([start(), bid(WANJIN, 31, "2")])[0],
        fails([start(), bid(WANJIN, 5, "5"), bid(SAEWOON, 5, "4")])[0],
        fails([rolls(Wanjin=["2"] * 5)])[0],
        fails([start(), bid(WANJIN, 5, "5"), challenge(SAEWOON), reveal(3, {})])[0],
        fails([start(), bid(WANJIN, 5, "5"), challenge(SAEWOON), {"type": "reveal", "dice": ["1"] * 15}])[0],
        fails([start(), bid(SAEWOON, 5, "5")])[0],
        fails([bid(WANJIN, 5, "5")])[0],
    ]
    for error in samples:
        en, ja = error.message("en"), error.message("ja")
        assert en and ja and en != ja, error
        assert "{" not in en and "{" not in ja
        assert any("\u3040" <= ch <= "\u9fff" for ch in ja), ja
        assert error.to_json("ja")["message"] == ja


def test_off_board_bid_names_the_lowest_legal_bid():
    error, _ = fails([start(), bid(WANJIN, 31, "2")])
    assert (
        error.message("en")
        == "A bid of 31 2s is not legal: the board has no space 31. The lowest legal bid now is one 2."
    )
    error, _ = fails([start(), bid(WANJIN, 29, "6"), bid(SAEWOON, 16, "wheel")])
    assert error.message("en") == (
        "A bid of 16 wheels is not legal: the board has no wheel space W16. The lowest legal bid now is 30 2s."
    )
    assert error.params["minimum"] == {"quantity": 30, "face": "2"}


def test_replay_is_a_pure_function_of_the_log():
    events = [start(), bid(WANJIN, 5, "3"), challenge(SAEWOON), reveal(15, {"3": 4, "wheel": 3})]
    assert run(events) == run(events)
    assert run(events).to_json() == run(events).to_json()


# --- table aids ------------------------------------------------------------------------


def test_legal_raises_matches_the_raise_rule_for_every_bid_on_the_default_track():
    track = default_track()
    bids = track.bids
    for standing in bids:
        here = track.position(standing)
        expected = tuple(
            b
            for b in bids
            if track.position(b) > here
            or (track.position(b) == here and not b.space.wheel and b.face.rank > standing.face.rank)
        )
        assert legal_raises(standing, track) == expected
    assert legal_raises(None, track) == bids


def test_legal_raises_of_an_off_board_bid_is_refused():
    with pytest.raises(IllegalBid):
        legal_raises(Bid(31, Face.TWO), default_track())


def _brute_force(bid: Bid, own: tuple[Face, ...], unseen: int) -> Fraction:
    hits = 0
    outcomes = list(itertools.product(list(Face), repeat=unseen))
    for outcome in outcomes:
        if bid.count(list(own) + list(outcome)) >= bid.quantity:
            hits += 1
    return Fraction(hits, len(outcomes))


@pytest.mark.parametrize("unseen", [0, 1, 2, 3, 4])
def test_bid_probability_matches_brute_force_enumeration(unseen):
    owns = [(), (Face.THREE,), (Face.WHEEL, Face.THREE), (Face.SIX, Face.TWO, Face.WHEEL)]
    for own in owns:
        for face in (Face.WHEEL, Face.THREE, Face.SIX):
            for quantity in range(1, len(own) + unseen + 2):
                bid = Bid(quantity, face)
                assert bid_probability(bid, own, unseen) == _brute_force(bid, own, unseen), (bid, own, unseen)


def test_bid_probability_known_values_and_input_checks():
    assert bid_probability(Bid(1, Face.FOUR), [], 1) == Fraction(1, 3)
    assert bid_probability(Bid(1, Face.WHEEL), [], 1) == Fraction(1, 6)
    assert bid_probability(Bid(5, Face.THREE), [Face.THREE] * 5, 0) == 1
    assert bid_probability(Bid(10, Face.THREE), [], 9) == 0
    # 25 unseen dice, at least 10 matching a face bid: exact, a Fraction with denominator dividing 6**25.
    p = bid_probability(Bid(10, Face.FOUR), [], 25)
    assert isinstance(p, Fraction) and 0 < p < 1 and (6**25) % p.denominator == 0
    with pytest.raises(ValueError):
        bid_probability(Bid(1, Face.FOUR), [], -1)
    with pytest.raises(TypeError):
        bid_probability(Bid(1, Face.FOUR), ["4"], 1)  # type: ignore[list-item]


def test_value_types_reject_nonsense():
    with pytest.raises(ValueError):
        Bid(0, Face.TWO)
    with pytest.raises(TypeError):
        Bid(1, "2")  # type: ignore[arg-type]
    with pytest.raises(InvalidOption):
        Options(start_rule="de")
    with pytest.raises(ValueError):
        Start()
    assert Reveal((Face.TWO,)).to_json() == {"type": "reveal", "dice": ["2"]}


def test_module_doctests_pass():
    result = doctest.testmod(liars_dice)
    assert result.attempted >= 10 and result.failed == 0
