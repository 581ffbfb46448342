"""Settling: moving dice never settle, a noisy misread is outvoted, a changed scene re-arms."""

from __future__ import annotations

import doctest
import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.live.settle as settle_mod
from vision.read.boxes import iou
from vision.read.detections import Detection, Reading
from vision.live.settle import SettleConfig, Settler, SettleState, displacement, match_still

CFG = SettleConfig(stable_frames=5, min_still_s=0.0)


def die(x: float, y: float, face: str, *, colour: str = "white", score: float = 0.9, size: float = 40.0, uncertain: bool = False) -> Detection:
    return Detection("die", face, colour, (x, y, x + size, y + size), score, uncertain)


def speck(x: float, y: float, *, box_score: float = 0.3) -> Detection:
    """A box the detector doubts (a pattern on the table, or a die it barely sees)."""
    return Detection("die", "3", "white", (x, y, x + 30, y + 30), 0.4, True, box_score=box_score)


def frame(*dets: Detection) -> Reading:
    return Reading(objects=tuple(dets), width=640, height=480, ms=5.0)


def feed(settler: Settler, frames: list[Reading], start: int = 0, fps: float = 10.0) -> list:
    return [settler.update(r, index=start + k, t=(start + k) / fps) for k, r in enumerate(frames)]


def test_doctests() -> None:
    assert doctest.testmod(settle_mod).failed == 0


def test_geometry_helpers() -> None:
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0.0
    assert displacement((0, 0, 10, 10), (0, 3, 10, 13)) == pytest.approx(0.3)


def test_moving_dice_never_settle() -> None:
    s = Settler(CFG)
    rolling = [frame(die(100 + 12 * k, 100, "3"), die(300, 200 - 10 * k, "5")) for k in range(40)]
    assert all(out is None for out in feed(s, rolling))
    assert s.state is SettleState.MOVING and s.last is None


def test_small_jitter_is_still() -> None:
    s = Settler(CFG)
    jitter = [frame(die(100 + (k % 3), 100 - (k % 2), "3")) for k in range(5)]
    out = feed(s, jitter)
    assert out[:4] == [None] * 4 and out[4] is not None
    assert out[4].reading.faces() == ("3",) and out[4].frame_index == 4


def test_one_noisy_misread_is_voted_right() -> None:
    s = Settler(CFG)
    faces = ["4", "4", "6", "4", "4"]  # frame 2 misreads the die at (300, 100)
    frames = [frame(die(100, 100, "2"), die(300, 100, f, colour="blue" if k != 3 else "black")) for k, f in enumerate(faces)]
    settled = feed(s, frames)[-1]
    assert settled is not None and settled.reading.faces() == ("2", "4")
    vote = settled.votes[1]
    assert (vote.face, vote.face_share, vote.colour, vote.colour_share) == ("4", 0.8, "blue", 0.8)
    assert vote.counts == (("4", 4), ("6", 1))
    assert vote.confidence == pytest.approx(0.8 * 0.9)
    assert settled.reading.objects[1].score == pytest.approx(0.72) and not settled.reading.objects[1].uncertain
    assert settled.votes[0].confidence == pytest.approx(0.9)


def test_split_vote_is_uncertain() -> None:
    s = Settler(CFG)
    faces = ["ブ", "プ", "ブ", "プ", "フ"]
    settled = feed(s, [frame(die(100, 100, f)) for f in faces])[-1]
    assert settled is not None
    assert settled.reading.objects[0].uncertain and settled.uncertain
    assert settled.votes[0].face_share == 0.4


def test_tie_goes_to_the_more_confident_face() -> None:
    s = Settler(SettleConfig(stable_frames=4, min_still_s=0.0))
    reads = [die(100, 100, "5", score=0.6), die(100, 100, "6", score=0.9), die(100, 100, "5", score=0.6), die(100, 100, "6", score=0.9)]
    settled = feed(s, [frame(d) for d in reads])[-1]
    assert settled is not None and settled.reading.faces() == ("6",)


def test_settles_once_then_stays_quiet_while_still() -> None:
    s = Settler(CFG)
    out = feed(s, [frame(die(100, 100, "1"))] * 30)
    assert sum(o is not None for o in out) == 1
    assert s.state is SettleState.SETTLED and s.progress == 1.0


def test_count_change_rearms() -> None:
    s = Settler(CFG)
    first = feed(s, [frame(die(100, 100, "1"), die(200, 100, "2"))] * 6)
    second = feed(s, [frame(die(100, 100, "1"), die(200, 100, "2"), die(300, 100, "3"))] * 6, start=6)
    third = feed(s, [frame(die(100, 100, "1"))] * 6, start=12)
    settled = [o for o in first + second + third if o is not None]
    assert [o.reading.faces() for o in settled] == [("1", "2"), ("1", "2", "3"), ("1",)]
    assert [o.seq for o in settled] == [1, 2, 3]
    assert settled[1].frame_index == 10  # fifth still frame of the new run (frames 6..10)


def test_motion_then_new_resting_place_settles_again() -> None:
    s = Settler(CFG)
    still_a = [frame(die(100, 100, "1"))] * 6
    rolling = [frame(die(100 + 30 * k, 100, "2")) for k in range(1, 6)]
    still_b = [frame(die(250, 100, "5"))] * 6
    out = [o for o in feed(s, still_a + rolling + still_b) if o is not None]
    assert [o.reading.faces() for o in out] == [("1",), ("5",)]


def test_same_scene_after_a_brief_disturbance_is_not_emitted_twice() -> None:
    s = Settler(CFG)
    scene = frame(die(100, 100, "1"), die(200, 100, "4"))
    occluded = frame(die(100, 100, "1"))  # a hand covers a die for two frames
    out = feed(s, [scene] * 6 + [occluded] * 2 + [scene] * 8)
    assert sum(o is not None for o in out) == 1
    assert s.state is SettleState.SETTLED


def test_rearm_emits_the_scene_again() -> None:
    s = Settler(CFG)
    scene = frame(die(100, 100, "1"))
    feed(s, [scene] * 6)
    s.rearm()
    again = s.update(scene, index=6, t=0.6)
    assert again is not None and again.seq == 2


def test_a_die_turned_in_place_is_a_new_reveal() -> None:
    s = Settler(CFG)
    out = feed(s, [frame(die(100, 100, "1"))] * 6 + [frame()] + [frame(die(100, 100, "6"))] * 6)
    assert [o.reading.faces() for o in out if o is not None] == [("1",), ("6",)]


def test_min_still_time_is_respected() -> None:
    s = Settler(SettleConfig(stable_frames=3, min_still_s=1.0))
    out = feed(s, [frame(die(100, 100, "2"))] * 12, fps=10)
    assert [k for k, o in enumerate(out) if o is not None] == [10]


def test_empty_table_never_settles() -> None:
    s = Settler(CFG)
    assert all(o is None for o in feed(s, [frame()] * 20))
    assert s.state is SettleState.EMPTY and s.progress == 0.0


def test_uncertain_reads_stay_uncertain() -> None:
    s = Settler(CFG)
    settled = feed(s, [frame(die(100, 100, "3", score=0.95, uncertain=True))] * 5)[-1]
    assert settled is not None and settled.reading.objects[0].uncertain


def test_image_and_wall_time_are_passed_through() -> None:
    s = Settler(SettleConfig(stable_frames=1, min_still_s=0.0))
    marker = object()
    out = s.update(frame(die(1, 1, "2")), index=7, t=3.0, image=marker, at=1700000000.5)  # type: ignore[arg-type]
    assert out is not None and out.image is marker and out.at == 1700000000.5
    assert out.to_json()["reading"]["objects"][0]["face"] == "2"


def _noisy_table(k: int, sigma: float) -> np.ndarray:
    table = np.full((120, 160, 3), 110.0)
    table[40:80, 60:100] = 230.0  # a die
    noise = np.random.default_rng(k).normal(0.0, sigma, table.shape)
    return np.clip(table + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma", [2.0, 9.0])
def test_a_noisy_sensor_settles_on_the_mean_of_the_still_frames(sigma: float) -> None:
    """In a dim room the settled reveal carries the mean of the still frames (which the dice's
    closer look reads), with a third of one frame's noise; a clean sensor's carries none. Its
    image stays the newest frame either way."""
    s = Settler(SettleConfig(stable_frames=5, min_still_s=0.0))
    pictures = [_noisy_table(k, sigma) for k in range(5)]
    out = [s.update(frame(die(80, 60, "4")), index=k, t=k / 15, image=pictures[k]) for k in range(5)]
    settled = out[-1]
    assert settled is not None and all(o is None for o in out[:-1])
    clean = _noisy_table(0, 0.0).astype(float)
    assert settled.image is pictures[-1]
    if sigma < SettleConfig().average_above:  # type: ignore[operator]
        assert settled.mean_image is None
    else:
        assert float(np.abs(settled.mean_image.astype(float) - clean).std()) < sigma / 2  # type: ignore[union-attr]
        never = Settler(SettleConfig(stable_frames=5, min_still_s=0.0, average_above=None))
        out = [never.update(frame(die(80, 60, "4")), index=k, t=k / 15, image=pictures[k]) for k in range(5)]
        assert out[-1] is not None and out[-1].mean_image is None


def test_frames_from_before_the_picture_moved_are_not_averaged() -> None:
    """The dice held still, but a hand passed at the table's edge two frames before they
    settled: only the frames since are averaged."""
    s = Settler(SettleConfig(stable_frames=5, min_still_s=0.0))
    pictures = [_noisy_table(k, 9.0) for k in range(5)]
    for k in (3, 4):
        pictures[k][:, :30] = 20  # the hand
    out = [s.update(frame(die(80, 60, "4")), index=k, t=k / 15, image=pictures[k]) for k in range(5)]
    assert out[-1] is not None
    mean = np.mean(np.stack(pictures[3:]).astype(np.float32), axis=0)
    assert np.array_equal(out[-1].mean_image, np.clip(mean + 0.5, 0, 255).astype(np.uint8))  # type: ignore[arg-type]


def test_match_still_pairs_nearest() -> None:
    prev = [die(100, 100, "1"), die(104, 100, "2")]
    cur = [die(105, 100, "2"), die(99, 100, "1")]
    assert match_still(prev, cur, SettleConfig(move_frac=0.3, min_iou=0.1)) == [1, 0]
    assert match_still(prev, cur[:1], CFG) is None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 12))
def test_detection_order_does_not_matter(seed: int, n: int) -> None:
    rng = random.Random(seed)
    faces = [rng.choice("123456") for _ in range(n)]
    dice = [die(60 * (k % 10), 60 * (k // 10), f) for k, f in enumerate(faces)]
    frames = []
    for _ in range(5):
        shuffled = dice[:]
        rng.shuffle(shuffled)
        frames.append(frame(*shuffled))
    settled = feed(Settler(CFG), frames)[-1]
    assert settled is not None
    assert sorted(zip((d.box for d in settled.reading.objects), settled.reading.faces())) == sorted((d.box, d.face) for d in dice)
    assert all(v.face_share == 1.0 for v in settled.votes)


def settled_of(*dice_votes: tuple[Detection, tuple[tuple[str, int], ...]]) -> settle_mod.SettledReading:
    objects = tuple(d for d, _ in dice_votes)
    votes = tuple(
        settle_mod.ObjectVote(d.face, c[0][1] / sum(n for _, n in c), d.colour, 1.0, d.score, c) for d, c in dice_votes
    )
    return settle_mod.SettledReading(frame(*objects), votes, frame_index=9, t=1.0, frames=5, seq=1)


def test_a_closer_look_confirms_a_sure_die_and_lifts_an_agreeing_unsure_one() -> None:
    sure, unsure = die(0, 0, "5", score=0.95), die(100, 0, "ブ", score=0.7, uncertain=True)
    s = settled_of((sure, (("5", 5),)), (unsure, (("ブ", 4), ("プ", 1))))
    closer = [die(101, 1, "ブ", score=0.9), die(1, 0, "5", score=0.85)]  # any order
    folded = settle_mod.fold_closer(s, closer, CFG)
    first, second = folded.reading.objects
    assert (first.face, first.score, first.uncertain) == ("5", 0.95, False)  # a sure vote confirmed stands
    assert (second.face, second.score, second.uncertain) == ("ブ", 0.72, False)  # 0.9 x 4 of 5 frames
    assert folded.votes[0].closer == ("5", 0.85) and folded.votes[1].closer == ("ブ", 0.9)
    assert folded.votes[1].to_json()["closer"] == {"face": "ブ", "score": 0.9}
    assert "closer" not in s.votes[1].to_json() and s.reading.objects[1].uncertain  # the input is unchanged
    assert not folded.uncertain


def test_a_closer_look_that_disagrees_with_the_frames_asks_for_a_re_read() -> None:
    s = settled_of((die(0, 0, "5", score=0.95), (("5", 5),)), (die(100, 0, "プ", score=0.7, uncertain=True), (("プ", 5),)))
    folded = settle_mod.fold_closer(s, [die(0, 0, "6", score=0.99), die(100, 0, "ブ", score=0.95)], CFG)
    assert [(o.face, o.score, o.uncertain) for o in folded.reading.objects] == [("6", 0.0, True), ("ブ", 0.0, True)]
    assert folded.votes[0].face_share == 0.0 and folded.uncertain


def test_dice_the_closer_look_did_not_find_and_cards_keep_their_vote() -> None:
    card = Detection("card", "QS", None, (300, 0, 360, 90), 0.97)
    s = settled_of((die(0, 0, "5", score=0.6, uncertain=True), (("5", 5),)), (card, (("QS", 5),)))
    far = die(200, 200, "5", score=0.99)
    queen_as_die = Detection("die", "5", "white", card.box, 0.99)
    folded = settle_mod.fold_closer(s, [far, queen_as_die], CFG)
    assert folded.reading.objects == s.reading.objects and folded.votes == s.votes
    assert settle_mod.fold_closer(s, [], CFG).reading.objects == s.reading.objects


def test_a_speck_blinking_in_place_does_not_keep_the_reveal_from_settling() -> None:
    dice = [die(100, 100, "2"), die(300, 100, "5")]
    blink = [True, False, True, False, False, True, True, False, True, False]
    out = feed(Settler(CFG), [frame(*dice, *([speck(200, 300)] if on else [])) for on in blink])
    settled = [o for o in out if o is not None]
    assert len(settled) == 1
    # in the settling window (frames 1-5) the speck was there twice: left out
    assert settled[0].reading.faces() == ("2", "5") and not settled[0].uncertain


def test_a_speck_there_in_most_frames_is_left_out() -> None:
    dice = [die(100, 100, "2"), die(300, 100, "5")]
    blink = [True, True, False, True, True]
    out = feed(Settler(CFG), [frame(*dice, *([speck(200, 300)] if on else [])) for on in blink])
    assert out[-1] is not None
    assert out[-1].reading.faces() == ("2", "5") and not out[-1].uncertain


def test_a_die_the_detector_is_sure_of_most_of_the_time_is_kept() -> None:
    scores = [0.8, 0.45, 0.7, 0.4, 0.9]
    frames = [frame(die(100, 100, "2"), replace(die(300, 100, "5"), box_score=b)) for b in scores]
    out = feed(Settler(CFG), frames)
    assert out[-1] is not None and out[-1].reading.faces() == ("2", "5")
    assert out[-1].reading.objects[1].box_score == pytest.approx(0.65)


def test_a_speck_in_a_new_place_is_motion() -> None:
    dice = [die(100, 100, "2")]
    # a doubted box that is somewhere else every frame: a die rolling in, blurred
    out = feed(Settler(CFG), [frame(*dice, speck(200 + 45 * k, 300)) for k in range(12)])
    assert all(o is None for o in out)


def test_a_firm_die_that_vanishes_or_appears_is_still_motion() -> None:
    s = Settler(CFG)
    dice = [die(100, 100, "2"), die(300, 100, "5")]
    frames = [frame(*dice), frame(*dice), frame(dice[0]), frame(*dice), frame(*dice), frame(*dice), frame(*dice)]
    assert all(o is None for o in feed(s, frames))
    assert s.state is SettleState.STEADY


def test_a_speck_is_remembered_across_motion_for_faint_memory_frames() -> None:
    def run(memory: int) -> list:
        # the speck is seen, then a die is nudged (motion: a new run without the speck),
        # then the speck blinks back in where it was
        before, after = die(100, 100, "2"), die(160, 100, "2")
        frames = [frame(before, speck(200, 300)), frame(after)] + [frame(after)] * 2 + [frame(after, speck(200, 300))] * 6
        return feed(Settler(SettleConfig(stable_frames=5, min_still_s=0.0, faint_memory=memory)), frames)

    remembered, forgotten = run(30), run(2)
    assert [k for k, o in enumerate(remembered) if o is not None] == [5]
    assert [k for k, o in enumerate(forgotten) if o is not None] == [8]  # a new run began at frame 4


def test_detections_without_a_box_score_are_never_faint() -> None:
    s = Settler(CFG)
    dice = [die(100, 100, "2")]
    frames = [frame(*dice, die(200, 300, "4", uncertain=True)) if k % 2 else frame(*dice) for k in range(10)]
    assert all(o is None for o in feed(s, frames))


def test_faint_memory_is_checked() -> None:
    with pytest.raises(ValueError, match="faint_memory"):
        SettleConfig(faint_memory=-1)


def test_faint_means_what_the_committed_detector_calls_unsure() -> None:
    from vision.read.manifest import MANIFEST_NAME, ReaderManifest
    from vision.read.reader import DEFAULT_MODEL_DIR

    manifest = ReaderManifest.load(DEFAULT_MODEL_DIR / MANIFEST_NAME)
    assert SettleConfig().faint_below == manifest.detector.sure_threshold


def card(box: tuple[float, float, float, float], face: str, *, uncertain: bool = True) -> Detection:
    return Detection("card", face, None, box, 0.5 if uncertain else 0.95, uncertain)


WHOLE = (100.0, 100.0, 180.0, 220.0)  # a card read from both corners: the corners' union
TOP, BOTTOM = (100.0, 100.0, 112.0, 122.0), (168.0, 198.0, 180.0, 220.0)  # its corner indices
QUEEN = card((300.0, 100.0, 380.0, 220.0), "QS", uncertain=False)


def paired(k: int) -> Reading:
    """Frame ``k``: the 3D's unsure corners read alike (or paired by its outline) every
    third frame, and read 3H and 3D apart otherwise, with a sure queen beside it."""
    if k % 3 == 0:
        return frame(card(WHOLE, "3D"), QUEEN)
    return frame(card(TOP, "3H"), card(BOTTOM, "3D"), QUEEN)


def test_a_card_paired_in_some_frames_and_not_in_others_settles() -> None:
    out = [o for o in feed(Settler(CFG), [paired(k) for k in range(12)]) if o is not None]
    assert len(out) == 1
    faces = sorted(out[0].reading.faces())
    assert faces == ["3D", "3H", "QS"]  # the grouping seen in most frames: a count to re-read
    never = feed(Settler(replace(CFG, regroup_cards=False)), [paired(k) for k in range(12)])
    assert never == [None] * 12  # what the flicker did before: a table waiting for ever


def test_the_grouping_seen_most_wins() -> None:
    frames = [frame(card(WHOLE, "3D"), QUEEN) if k % 3 else paired(1) for k in range(12)]
    out = [o for o in feed(Settler(CFG), frames) if o is not None]
    assert sorted(out[0].reading.faces()) == ["3D", "QS"]
    assert sorted(o.box for o in out[0].reading.objects) == [WHOLE, QUEEN.box]


def test_a_card_that_moves_is_still_motion() -> None:
    s = Settler(CFG)
    sliding = [frame(card((100.0 + 20 * k, 100.0, 180.0 + 20 * k, 220.0), "3D"), QUEEN) for k in range(12)]
    assert feed(s, sliding) == [None] * 12
    # a corner index coming into view beside a card (not inside it) is motion too
    beside = [frame(card(WHOLE, "3D"), QUEEN) if k % 2 else frame(card(WHOLE, "3D"), QUEEN, card((200.0, 100.0, 212.0, 122.0), "5C"))
              for k in range(12)]
    assert feed(Settler(CFG), beside) == [None] * 12


def test_dice_are_not_regrouped() -> None:
    big, small = die(100, 100, "3", size=80), die(105, 105, "3", size=20)
    frames = [frame(big) if k % 2 else frame(small) for k in range(12)]
    assert feed(Settler(CFG), frames) == [None] * 12


def test_a_card_whose_frames_disagree_on_its_suit_is_uncertain() -> None:
    # 3C surely in three frames of five, 3S in two: a sure majority, but the suit is in doubt
    suits = ["C", "S", "C", "S", "C"]
    frames = [frame(card(WHOLE, "3" + s, uncertain=False), QUEEN) for s in suits]
    settled = feed(Settler(CFG), frames)[-1]
    assert settled is not None and settled.reading.faces() == ("3C", "QS")
    three, queen = settled.reading.objects
    assert three.uncertain and not queen.uncertain
    assert settled.votes[0].face_share == 0.6
    before = feed(Settler(replace(CFG, card_suits_agree=False)), frames)[-1]
    assert before is not None and not before.reading.objects[0].uncertain  # what the vote alone said
    # frames that disagree on the rank only are left to the vote, as are dice
    ranks = [frame(card(WHOLE, r + "C", uncertain=False), QUEEN) for r in ["3", "3", "8", "3", "3"]]
    assert not feed(Settler(CFG), ranks)[-1].reading.objects[0].uncertain
    dice = [frame(die(100, 100, f)) for f in ["4", "4", "6", "4", "4"]]
    assert not feed(Settler(CFG), dice)[-1].reading.objects[0].uncertain


def test_a_split_vote_lists_the_faces_the_die_may_show() -> None:
    faces = ["ブ", "プ", "ブ", "プ", "ブ"]
    reads = [die(100, 100, f, score=0.7, uncertain=True) for f in faces]
    reads = [replace(d, alternatives=(d.face, "フ")) for d in reads]
    settled = feed(Settler(CFG), [frame(r) for r in reads])[-1]
    assert settled is not None and settled.reading.objects[0].uncertain
    assert settled.reading.objects[0].alternatives == ("ブ", "プ", "フ")  # the vote's faces first
    # a sure die has none
    sure = feed(Settler(CFG), [frame(die(100, 100, "2"))] * 5)[-1]
    assert sure is not None and sure.reading.objects[0].alternatives == ()


def test_a_die_whose_box_or_colour_was_in_doubt_has_no_alternatives() -> None:
    # one frame unsure for another reason (no alternatives of its own): the die stays a re-read
    reads = [replace(die(100, 100, "5", score=0.7, uncertain=True), alternatives=("5", "6"))] * 4
    reads.append(die(100, 100, "5", score=0.9, uncertain=True))
    settled = feed(Settler(CFG), [frame(r) for r in reads])[-1]
    assert settled is not None and settled.reading.objects[0].uncertain
    assert settled.reading.objects[0].alternatives == ()
    # a split colour vote
    colours = ["white", "black", "white", "black", "blue"]
    reads = [replace(die(100, 100, "5", colour=c, score=0.6, uncertain=True), alternatives=("5", "6")) for c in colours]
    settled = feed(Settler(CFG), [frame(r) for r in reads])[-1]
    assert settled is not None and settled.reading.objects[0].alternatives == ()
    # a box the detector doubts in a frame
    reads = [replace(die(100, 100, "5", score=0.6, uncertain=True), alternatives=("5", "6"), box_score=b)
             for b in (0.9, 0.9, 0.3, 0.9, 0.9)]
    settled = feed(Settler(CFG), [frame(r) for r in reads])[-1]
    assert settled is not None and settled.reading.objects[0].alternatives == ()


def test_a_closer_look_that_leaves_a_die_unsure_keeps_every_face_it_may_show() -> None:
    unsure = replace(die(100, 0, "ブ", score=0.7, uncertain=True), alternatives=("ブ", "プ"))
    s = settled_of((unsure, (("ブ", 4), ("プ", 1))),)
    closer = replace(die(101, 1, "プ", score=0.6, uncertain=True), alternatives=("プ", "フ"))
    folded = settle_mod.fold_closer(s, [closer], CFG).reading.objects[0]
    assert folded.uncertain and folded.face == "プ" and folded.alternatives == ("プ", "ブ", "フ")
    # up close the box (or the colour) is in doubt: no alternatives
    doubted = die(101, 1, "プ", score=0.9, uncertain=True)
    assert settle_mod.fold_closer(s, [doubted], CFG).reading.objects[0].alternatives == ()
    # and a closer look that makes it sure drops them
    sure = settle_mod.fold_closer(s, [die(101, 1, "ブ", score=0.95)], CFG).reading.objects[0]
    assert not sure.uncertain and sure.alternatives == ()


def card_at(x: float, face: str, score: float = 0.97, uncertain: bool = False) -> Detection:
    return Detection("card", face, None, (x, 0, x + 12, 24), score, uncertain)


def settled_cards(*cards: Detection) -> settle_mod.SettledReading:
    votes = tuple(settle_mod.ObjectVote(c.face, 1.0, None, 0.0, c.score, ((c.face, 5),)) for c in cards)
    return settle_mod.SettledReading(frame(*cards), votes, frame_index=9, t=1.0, frames=5, seq=1)


def test_a_closer_look_all_sure_settles_an_unsure_card() -> None:
    s = settled_cards(card_at(0, "7D", 0.4, uncertain=True), card_at(50, "9C"))
    folded = settle_mod.fold_card_closer(s, [card_at(50, "9C", 1.0), card_at(1, "7D", 0.93)])
    assert [(o.face, o.score, o.uncertain) for o in folded.reading.objects] == [("9C", 1.0, False), ("7D", 0.93, False)]
    assert folded.votes[1].counts == (("7D", 5),) and folded.votes[1].confidence == 0.93
    assert not folded.uncertain and s.uncertain  # the input is unchanged


def test_a_closer_look_adds_a_card_the_frames_missed() -> None:
    s = settled_cards(card_at(0, "7S"), card_at(50, "7D"))
    folded = settle_mod.fold_card_closer(s, [card_at(0, "7S"), card_at(50, "7D"), card_at(100, "7H", 0.9)])
    assert folded.reading.faces() == ("7S", "7D", "7H") and folded.votes[2].counts == ()


def test_the_vote_stands_unless_the_closer_look_settles_it_whole() -> None:
    open_vote = settled_cards(card_at(0, "7D", 0.4, uncertain=True), card_at(50, "9C"))
    for closer in (
        [card_at(0, "7D", 0.93), card_at(50, "9C", 0.6, uncertain=True)],  # a card left unsure up close
        [card_at(0, "7D", 0.93), card_at(50, "9S")],  # a card the frames were sure of, read another
        [card_at(0, "7D", 0.93)],  # a card the frames were sure of, missed
        [card_at(0, "7D"), card_at(50, "9C"), card_at(90, "7D")],  # one deck: a face read twice
        [],
    ):
        assert settle_mod.fold_card_closer(open_vote, closer) is open_vote
    sure = settled_cards(card_at(0, "7D"), card_at(50, "9C"))
    assert settle_mod.fold_card_closer(sure, [card_at(0, "7D", 0.99), card_at(50, "9C", 0.99)]) is sure
    assert settle_mod.fold_card_closer(sure, [card_at(0, "7D")]) is sure
    dice = settled_of((die(0, 0, "5", score=0.6, uncertain=True), (("5", 5),)))
    assert settle_mod.fold_card_closer(dice, [die(0, 0, "5", score=0.99)]) is dice


# A still picture whose readings flicker (step 5 of vision.live.settle's list).

def table_picture(seed: int, *, die_at: tuple[int, int] | None = None) -> np.ndarray:
    """A 640x480 felt with fresh sensor noise, and a white square where a die lies."""
    rng = np.random.default_rng(seed)
    image = np.full((480, 640, 3), (40, 110, 60), np.float32) + rng.normal(0, 2.5, (480, 640, 3))
    if die_at is not None:
        x, y = die_at
        image[y:y + 40, x:x + 40] = 235
    return np.clip(image, 0, 255).astype(np.uint8)


def index_at(x: float, face: str, *, score: float = 0.95, uncertain: bool = False) -> Detection:
    return Detection("card", face, None, (x, 100, x + 12, 120), score, uncertain)


FLICKER = SettleConfig()  # 5 frames of 0.4 s to settle; a still picture flickering 12 frames of 0.8 s


def flickering(k: int) -> Reading:
    """Two cards, the second found only in two frames of three: never five frames alike."""
    return frame(index_at(100, "2H"), *([index_at(300, "2S", score=0.9)] if k % 3 else []))


def test_a_still_picture_settles_though_its_readings_flicker() -> None:
    s = Settler(FLICKER)
    out = [s.update(flickering(k), index=k, t=k / 15, image=table_picture(k)) for k in range(30)]
    settled = [(k, o) for k, o in enumerate(out) if o is not None]
    assert [k for k, _ in settled] == [12]  # the 13th still frame: 0.8 s after the first
    got = settled[0][1]
    assert got.reading.faces() == ("2H", "2S") and got.frames == 13 and got.image is not None
    first, second = got.reading.objects
    assert not first.uncertain  # seen in every frame, read alike
    assert second.uncertain and second.alternatives == ()  # seen in 8 of 13: it may not be there


def test_progress_follows_the_still_picture_while_readings_flicker() -> None:
    s = Settler(FLICKER)
    seen = []
    for k in range(12):
        s.update(flickering(k), index=k, t=k / 15, image=table_picture(k))
        seen.append(s.progress)
    # The readings' own run starts over at every flicker; the picture's goes on.
    assert seen[-1] == pytest.approx(1.0) and seen[6:] == sorted(seen[6:])
    blind = Settler(FLICKER)
    for k in range(12):
        blind.update(flickering(k), index=k, t=k / 15)
    assert blind.progress <= 0.4


def test_without_frames_flickering_readings_never_settle() -> None:
    s = Settler(FLICKER)
    assert all(s.update(flickering(k), index=k, t=k / 15) is None for k in range(60))


def test_a_moving_picture_never_settles_by_flicker() -> None:
    s = Settler(FLICKER)
    out = [s.update(flickering(k), index=k, t=k / 15, image=table_picture(k, die_at=(20 + 40 * (k % 12), 300)))
           for k in range(60)]
    assert all(o is None for o in out)


def test_flicker_settles_once_per_still_picture_and_again_after_motion() -> None:
    s = Settler(FLICKER)
    out = [s.update(flickering(k), index=k, t=k / 15, image=table_picture(k)) for k in range(40)]
    assert sum(o is not None for o in out) == 1
    # A die laid down: the picture moved, then holds still with the same flickering cards.
    out = [s.update(frame(*flickering(k).objects, die(400, 300, "5")), index=k, t=k / 15,
                    image=table_picture(k, die_at=(400, 300))) for k in range(40, 80)]
    assert sum(o is not None for o in out) == 1


def test_readings_that_settle_keep_the_flicker_rule_away() -> None:
    s = Settler(FLICKER)
    steady = frame(index_at(100, "2H"), index_at(300, "2S"))
    out = [s.update(steady if k < 8 else flickering(k), index=k, t=k / 15, image=table_picture(k)) for k in range(40)]
    assert [k for k, o in enumerate(out) if o is not None] == [6]  # the readings' own settle, alone


def test_rearm_lets_a_flickering_still_picture_settle_again() -> None:
    s = Settler(FLICKER)
    out = [s.update(flickering(k), index=k, t=k / 15, image=table_picture(k)) for k in range(20)]
    assert sum(o is not None for o in out) == 1
    s.rearm()
    again = s.update(flickering(20), index=20, t=20 / 15, image=table_picture(20))
    assert again is not None and again.seq == 2


def test_flicker_vote_takes_the_common_count_and_follows_regrouped_cards() -> None:
    whole = Detection("card", "7H", None, (100, 100, 160, 190), 0.97)
    corner = Detection("card", "7H", None, (102, 102, 114, 122), 0.6, uncertain=True)
    five = index_at(300, "5D", score=0.85)
    frames = [(whole, five), (corner, five), (whole, five), (), (whole,), (whole, five), (corner, five)]
    decided = settle_mod.flicker_vote(frames, FLICKER)
    assert [d.face for d, _ in decided] == ["7H", "5D"]
    (seven, seven_vote), (fifth, _) = decided
    assert seven.box == corner.box  # the latest frame of the common count names the boxes
    assert seven_vote.counts == (("7H", 6),)  # the whole card and its corner are one card
    assert not seven.uncertain  # in 6 of 7 frames, two of them as its unsure corner
    assert fifth.uncertain  # in 5 of 7 frames


def test_flicker_vote_of_empty_frames_is_empty() -> None:
    assert settle_mod.flicker_vote([(), ()], FLICKER) == []


def test_flicker_config_is_checked() -> None:
    with pytest.raises(ValueError, match="flicker_frames"):
        SettleConfig(stable_frames=5, flicker_frames=3)
    with pytest.raises(ValueError, match="image_still_tol"):
        SettleConfig(image_still_tol=0)
    assert SettleConfig(flicker_frames=None).flicker_frames is None
