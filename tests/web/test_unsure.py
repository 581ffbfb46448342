"""Verdicts that hold whatever the unsure dice show, and re-reads where they do not."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from web_support import ScriptedCamera, Tables, faces

from referee import nine_dice as nd
from referee.errors import Misread
from web.unsure import MAX_READINGS, candidates, judge_unsure, note_unsure

TEN = ["4", "4", "wheel", "2", "3", "5", "6", "6", "2", "3"]  # three 4s, counting the wheel


def unsure(face: str, *alternatives: str, **extra: Any) -> dict[str, Any]:
    return {"face": face, "uncertain": True, "alternatives": [face, *alternatives], **extra}


def _challenge(tables: Tables) -> str:
    """Wanjin bids three 4s among ten dice; Saewoon challenges."""
    tid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    tables.act(tid, {"type": "start", "opener": "Wanjin"})
    tables.act(tid, {"type": "bid", "player": "Wanjin", "quantity": 3, "face": "4"})
    tables.act(tid, {"type": "challenge", "player": "Saewoon"})
    return tid


def test_candidates_are_every_reading_the_unsure_dice_allow() -> None:
    sure = {"kind": "die", "face": "5"}
    readings = candidates([unsure("2", "3"), sure, unsure("6", "5", "4")])
    assert readings is not None and len(readings) == 6
    assert [o["face"] for o in readings[0]] == ["2", "5", "6"]  # the reading as read comes first
    assert all(not o.get("uncertain") and "alternatives" not in o for r in readings for o in r)
    assert candidates([{"face": "2", "uncertain": True}, sure]) is None  # unsure for another reason
    many = [unsure("2", "3", "4", "5")] * 5  # 4**5 readings
    assert 4 ** 5 > MAX_READINGS and candidates(many) is None


def test_judge_unsure_needs_every_accepted_reading_to_agree() -> None:
    def count_fives(objects: Any) -> tuple[dict[str, Any], dict[str, int]]:
        if any(o["face"] == "1" for o in objects):
            raise Misread("no 1s here")
        return {"dice": [o["face"] for o in objects]}, {"fives": sum(o["face"] == "5" for o in objects)}

    event, after, judged, which = judge_unsure([unsure("4", "6", "1"), {"face": "5"}], count_fives, lambda s: s)
    assert after == {"fives": 1} and event == {"dice": ["4", "5"]} and which == (0,)
    assert judged[0] == {"face": "4"}
    with pytest.raises(Misread, match="changes the verdict"):
        judge_unsure([unsure("4", "5"), {"face": "5"}], count_fives, lambda s: s)
    with pytest.raises(Misread, match="no 1s"):  # nothing accepted: the first reading's reason
        judge_unsure([unsure("1")], count_fives, lambda s: s)
    # a reading with nothing unsure is judged as it is
    assert judge_unsure([{"face": "5"}], count_fives, lambda s: s)[3] == ()


def test_a_liars_dice_die_unsure_between_faces_that_do_not_count_gets_a_verdict(tables: Tables) -> None:
    tid = _challenge(tables)
    objects = faces(*TEN)
    objects[3] = unsure("2", "3", kind="die")  # neither counts for a bid on 4s
    out = tables.reveal(tid, objects)
    assert out["status"] == "verdict", out
    assert out["verdict"]["round"]["actual"] == 3 and out["verdict"]["unsure"] == [3]
    assert "whatever it shows, the verdict is the same" in out["verdict"]["summary"]["en"]
    assert "どの目でも判定は同じ" in out["verdict"]["summary"]["ja"]
    assert tables.log(tid)["events"][-1] == {"type": "reveal", "dice": TEN}
    stored = out["reading"]["objects"][3]  # the photo still shows the die as unsure
    assert stored["uncertain"] and stored["alternatives"] == ["2", "3"]
    tables.roundtrip(tid)


def test_a_die_whose_face_would_change_the_count_asks_for_a_re_read(tables: Tables) -> None:
    tid = _challenge(tables)
    objects = faces(*TEN)
    objects[3] = unsure("2", "4")  # a 4 would make four 4s: another loser
    out = tables.reveal(tid, objects)
    assert out["status"] == "reread" and "changes the verdict" in out["reason"]["message"]
    objects[3] = unsure("2", "wheel")  # a wheel counts as a 4 too
    assert tables.reveal(tid, objects)["status"] == "reread"
    objects[3] = {"face": "2", "uncertain": True}  # unsure for another reason: no alternatives
    out = tables.reveal(tid, objects)
    assert out["status"] == "reread" and "could not be read with confidence" in out["reason"]["message"]
    assert tables.view(tid)["seq"] == 3  # nothing was appended


def test_faces_no_die_of_the_game_can_show_are_ruled_out(tables: Tables) -> None:
    tid = _challenge(tables)
    objects = faces(*TEN)
    objects[3] = unsure("2", "1")  # Liar's Dice dice have a wheel where the 1 would be
    assert tables.reveal(tid, objects)["status"] == "verdict"


def _nine_dice_cases() -> tuple[list[dict[str, Any]], int, int]:
    """A roll, a die whose other reading keeps the best words and one whose other reading changes them."""
    roll = nd.random_roll(Random(3))
    best = nd.correct_shouts(roll)
    same = other = -1
    for i, die in enumerate(roll):
        for letter in nd.Letter:
            if letter == die.face:
                continue
            changed = roll[:i] + (nd.Die(letter, die.colour),) + roll[i + 1:]
            try:
                nd.check_roll(changed)
            except Exception:
                continue
            if nd.correct_shouts(changed) == best:
                same = i if same < 0 else same
            else:
                other = i if other < 0 else other
    assert same >= 0 and other >= 0
    return [{"face": d.face.value, "colour": d.colour.value} for d in roll], same, other


def _letters_for(objects: list[dict[str, Any]], i: int, keep: bool) -> str:
    roll = tuple(nd.Die(nd.Letter(o["face"]), nd.Colour(o["colour"])) for o in objects)
    best = nd.correct_shouts(roll)
    for letter in nd.Letter:
        if letter.value == objects[i]["face"]:
            continue
        changed = roll[:i] + (nd.Die(letter, roll[i].colour),) + roll[i + 1:]
        try:
            nd.check_roll(changed)
        except Exception:
            continue
        if (nd.correct_shouts(changed) == best) == keep:
            return letter.value
    raise AssertionError("no such letter")


def test_a_nine_dice_roll_scores_the_same_whatever_an_unsure_die_shows(tables: Tables) -> None:
    objects, same, other = _nine_dice_cases()
    tid = tables.create("nine-dice", ["A", "B"])
    changed = [dict(o) for o in objects]
    changed[other] = unsure(objects[other]["face"], _letters_for(objects, other, keep=False), colour=objects[other]["colour"])
    assert tables.reveal(tid, changed)["status"] == "reread"
    kept = [dict(o) for o in objects]
    kept[same] = unsure(objects[same]["face"], _letters_for(objects, same, keep=True), colour=objects[same]["colour"])
    out = tables.reveal(tid, kept)
    assert out["status"] == "verdict" and out["verdict"]["unsure"] == [same]
    assert out["verdict"]["round"]["best"] == ["黒ブベラ"]


def test_the_camera_hands_over_the_faces_an_unsure_die_may_show(tables: Tables, camera: object) -> None:
    assert isinstance(camera, ScriptedCamera)
    tid = _challenge(tables)
    objects = faces(*TEN)
    objects[3] = unsure("2", "3")
    camera.settle(objects)
    out = tables.reveal(tid)
    assert out["status"] == "verdict" and out["reading"]["source"] == "camera"
    assert out["reading"]["objects"][3]["alternatives"] == ["2", "3"]
    # a hand correction makes the die sure, and drops its alternatives
    out = tables.correct(tid, out["reading"]["id"], [{"index": 3, "face": "3"}])
    fixed = out["reading"]["objects"][3]
    assert fixed["corrected"] and "uncertain" not in fixed and "alternatives" not in fixed
    assert "unsure" not in out["verdict"]


@pytest.mark.parametrize("alternatives", [["3", "5"], "2", [], ["2"] * 17, ["2", ""]])
def test_alternatives_that_make_no_sense_are_refused(tables: Tables, alternatives: Any) -> None:
    tid = _challenge(tables)
    objects = faces(*TEN)
    objects[3] = {"face": "2", "uncertain": True, "alternatives": alternatives}
    out = tables.reveal(tid, objects, status=400)
    assert "alternatives" in out["error"]["message"]


def test_a_note_is_added_only_when_a_die_was_unsure() -> None:
    v = {"summary": {"en": "Counted 3.", "ja": "3個。"}}
    assert note_unsure(v, []) is v
    two = note_unsure(v, [1, 4])
    assert two["unsure"] == [1, 4] and two["summary"]["en"].endswith("2 dice were read unsurely; whatever they show, the verdict is the same.")


def test_a_doubt_card_unsure_of_its_suit_alone_gets_a_verdict(tables: Tables) -> None:
    tid = tables.create("doubt", ["Wanjin", "Saewoon", "Mina"])
    tables.act(tid, {"type": "deal", "dealer": "Mina"})
    tables.act(tid, {"type": "play", "player": "Wanjin", "count": 2, "rank": "A"})
    tables.act(tid, {"type": "challenge", "player": "Saewoon"})
    # an ace, perhaps of clubs: a lie whatever its suit, since the other card is an 8
    cards = [unsure("AS", "AC", kind="card"), {"kind": "card", "face": "8H"}]
    out = tables.reveal(tid, cards)
    assert out["status"] == "verdict" and out["verdict"]["round"]["liar"] is True and out["verdict"]["unsure"] == [0]
    assert tables.log(tid)["events"][-1] == {"type": "reveal", "cards": ["AS", "8H"]}
    # an ace or a 4 beside another ace: the truth of the play depends on it
    cards = [unsure("AS", "4S", kind="card"), {"kind": "card", "face": "AH"}]
    assert tables.reveal(tid, cards, path="reread")["status"] == "reread"
