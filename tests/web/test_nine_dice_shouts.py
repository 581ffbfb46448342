"""Nine Dice shouts at the table: scored as entered, one line each, the colour asked only
of a winner who chooses, phone taps scored in the order tapped, and the history."""

from __future__ import annotations

import threading
import time
from typing import Any

from web_support import ScriptedCamera, Tables

from referee import nine_dice as nd
from web.shouts import BUZZER_WINDOW_S

KURO_PURASU = "黒プ 黒ラ 黒ス 白プ 白ラ 白レ 青プ 青レ 青レ"  # best: 黒プラス; 3色プラス and 2色プラス are there too
RASU_BEGASU = "白ラ 白ス 白ベ 黒ガ 黒ス 黒レ 青レ 青レ 青ガ"  # best: ラスベガス


def objects(text: str) -> list[dict[str, str]]:
    return [{"face": d.face.value, "colour": d.colour.value} for d in nd.dice_from_text(text)]


def rolled(tables: Tables, text: str, players: list[str] | None = None) -> str:
    tid = tables.create("nine-dice", players or ["Ben", "Mina", "Ann"])
    assert tables.reveal(tid, objects(text))["status"] == "verdict"
    return tid


def lines(view: dict[str, Any], lang: str = "en") -> list[str]:
    return [line["text"][lang] for line in view["aids"]["shout_lines"]]


def test_each_shout_is_scored_in_one_line_as_it_is_entered(tables: Tables) -> None:
    tid = rolled(tables, KURO_PURASU)
    view = tables.act(tid, {"type": "shout", "player": "Ben", "hand": "ラスベガス"})
    assert view["status"] == "scored" and view["state"]["round_open"]
    assert lines(view) == ["Ben: ラスベガス — not on the table; Ben has no token to return."]
    view = tables.act(tid, {"type": "shout", "player": "Mina", "hand": "3色プラス"})
    assert lines(view)[1] == "Mina: 3色プラス — on the table, but not the best; Mina has no token to return."
    assert lines(view, "ja")[1] == "Mina: 3色プラス — 場にありますが最強ではありません。Minaに返すトークンはありません。"
    view = tables.act(tid, {"type": "shout", "player": "Ann", "hand": "黒プラス"})
    assert not view["state"]["round_open"]
    assert lines(view)[2] == "Ann: 黒プラス — right! Ann takes two black tokens."
    assert lines(view, "ja")[2] == "Ann: 黒プラス — 正解！Annが黒のトークン2個を受け取ります。"
    assert view["score"]["rows"][2]["values"] == [0, 2, 0, False]


def test_a_wrong_shout_says_which_token_it_cost(tables: Tables) -> None:
    tid = rolled(tables, RASU_BEGASU)
    tables.act(tid, {"type": "shout", "player": "Ben", "hand": "ラスベガス", "colour": "black"})  # Ben: 1 black
    tables.reveal(tid, objects(KURO_PURASU))
    view = tables.act(tid, {"type": "shout", "player": "Ben", "hand": "ラスベガス"})  # no colour: it is wrong
    assert lines(view) == ["Ben: ラスベガス — not on the table; Ben returns a black token."]
    assert lines(view, "ja") == ["Ben: ラスベガス — 場にありません。Benは黒のトークンを1つ返します。"]
    assert tables.log(tid)["events"][-1] == {"type": "shout", "player": "Ben", "hand": "ラスベガス"}
    assert view["state"]["players"][0]["tokens"] == {"white": 0, "black": 0, "blue": 0}


def test_the_colour_is_asked_only_when_a_choosing_shout_wins(tables: Tables) -> None:
    tid = rolled(tables, RASU_BEGASU)
    view = tables.act(tid, {"type": "shout", "player": "Mina", "hand": "ラスベガス"})
    assert view["status"] == "colour_needed" and view["aids"]["claim"] == {"player": "Mina", "hand": "ラスベガス"}
    assert view["state"]["round_open"] and view["seq"] == 1  # nothing logged yet
    # The round is won: another shout waits until Mina names her token.
    r = tables.client.post(f"/api/tables/{tid}/actions", json={"type": "shout", "player": "Ben", "hand": "ブレブレ"},
                           headers=tables.headers("ja"))
    assert r.status_code == 409 and r.json["error"]["code"] == "round_claimed" and "Mina" in r.json["error"]["message"]
    view = tables.act(tid, {"type": "shout", "player": "Mina", "hand": "ラスベガス", "colour": "blue"})
    assert view["status"] == "scored" and view["aids"]["claim"] is None and not view["state"]["round_open"]
    assert lines(view) == ["Mina: ラスベガス — right! Mina takes a blue token."]
    assert tables.log(tid)["events"][-1] == {"type": "shout", "player": "Mina", "hand": "ラスベガス", "colour": "blue"}


def test_undo_drops_a_claim(tables: Tables) -> None:
    tid = rolled(tables, RASU_BEGASU)
    tables.act(tid, {"type": "shout", "player": "Ben", "hand": "ブレブレ"})
    assert tables.act(tid, {"type": "shout", "player": "Mina", "hand": "ラスベガス"})["status"] == "colour_needed"
    view = tables.undo(tid)["view"]
    assert view["aids"]["claim"] is None and view["seq"] == 1
    assert tables.act(tid, {"type": "shout", "player": "Ann", "hand": "ラスベガス", "colour": "white"})["status"] == "scored"


def test_phone_taps_are_scored_in_the_order_tapped(app: Any, tables: Tables) -> None:
    """Ann tapped first but her request arrives second: her shout is scored first."""
    tid = rolled(tables, KURO_PURASU)
    results: dict[str, Any] = {}

    def shout(player: str, tapped_ago_ms: int, delay: float) -> None:
        time.sleep(delay)
        now = 1_000_000
        body = {"type": "shout", "player": player, "hand": "黒プラス", "tapped_at": now - tapped_ago_ms, "sent_at": now}
        results[player] = app.test_client().post(f"/api/tables/{tid}/actions", json=body, headers=tables.headers())

    first = threading.Thread(target=shout, args=("Ben", 0, 0.0))
    late = threading.Thread(target=shout, args=("Ann", 600, BUZZER_WINDOW_S / 3))  # tapped 0.6 s before sending
    first.start(), late.start()
    first.join(), late.join()
    assert results["Ann"].status_code == 200 and results["Ann"].json["status"] == "scored"
    assert results["Ben"].status_code == 409 and results["Ben"].json["error"]["code"] == "out_of_order"
    assert tables.view(tid)["state"]["rounds"][-1]["winner"] == "Ann"


def test_a_laptop_shout_is_scored_at_once(tables: Tables) -> None:
    tid = rolled(tables, KURO_PURASU)
    t0 = time.monotonic()
    tables.act(tid, {"type": "shout", "player": "Ben", "hand": "白プラス"})
    assert time.monotonic() - t0 < BUZZER_WINDOW_S


def test_history_tells_each_shout_and_each_reveal_its_result(tables: Tables) -> None:
    tid = rolled(tables, KURO_PURASU)
    tables.act(tid, {"type": "shout", "player": "Ben", "hand": "3色プラス"})
    tables.act(tid, {"type": "shout", "player": "Ann", "hand": "黒プラス"})
    tables.reveal(tid, objects(RASU_BEGASU))
    tables.act(tid, {"type": "shout", "player": "Ann", "hand": "黒プラス"})
    history = tables.view(tid)["history"]
    notes = [h["note"]["en"] if h["note"] else None for h in history]
    assert notes == [None, "Ben: 3色プラス — on the table, but not the best; Ben has no token to return.",
                     "Ann: 黒プラス — right! Ann takes two black tokens.", None,
                     "Ann: 黒プラス — not on the table; Ann returns a black token."]
    # Liar's Dice: the reveal says who lost what.
    lid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    for event in ({"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 3, "face": "4"},
                  {"type": "challenge", "player": "Saewoon"}):
        tables.act(lid, event)
    tables.reveal(lid, [{"face": f} for f in ["4", "4", "wheel", "2", "3", "5", "6", "6", "2", "3"]])
    note = tables.view(lid)["history"][-1]["note"]
    assert "Saewoon loses 1 die" in note["en"] and "Saewoonがダイスを1個失います" in note["ja"]


def test_a_new_nine_dice_table_asks_the_camera_for_its_own_dice(tables: Tables, camera: ScriptedCamera) -> None:
    tables.create("nine-dice", ["Ben", "Mina"])
    assert camera.expected and camera.expected[-1][0] == "nine-dice"
    before = len(camera.expected)
    tables.create("liars-dice", ["Ben", "Mina"])  # waits for a start, not a reading: no hint
    assert len(camera.expected) == before


def test_undo_after_a_correction_keeps_the_roll(tables: Tables) -> None:
    tid = rolled(tables, KURO_PURASU)
    rid = tables.view(tid)["reading"]["id"]
    out = tables.correct(tid, rid, [{"index": 0, "face": "ブ"}])  # 黒ブ: 黒プラス is gone
    assert out["status"] == "verdict" and "黒プラス" not in out["view"]["state"]["best"]
    out = tables.undo(tid)
    assert out["undone"]["type"] == "correction" and out["view"]["seq"] == 1
    assert out["view"]["reading"]["objects"][0]["face"] == "プ" and out["view"]["state"]["best"] == ["黒プラス"]
    assert tables.undo(tid)["undone"]["type"] == "roll"


def test_a_phone_buzz_holds_its_place_until_its_hand_comes(app: Any, tables: Tables) -> None:
    """Ann taps "Shout!" first; Ben's shout, entered while she picks her hand, waits for
    it: Ann is scored first (and wins), then Ben finds the round over."""
    tid = rolled(tables, KURO_PURASU)
    now = 2_000_000
    view = tables.act(tid, {"type": "shout", "player": "Ann", "tapped_at": now, "sent_at": now})
    assert view["status"] == "buzzed" and view["aids"]["buzzed"] == ["Ann"] and view["seq"] == 1
    results: dict[str, Any] = {}

    def ben() -> None:
        results["Ben"] = app.test_client().post(f"/api/tables/{tid}/actions", headers=tables.headers(),
                                                json={"type": "shout", "player": "Ben", "hand": "黒プラス"})

    thread = threading.Thread(target=ben)
    thread.start()
    time.sleep(0.6)
    assert "Ben" not in results and tables.view(tid)["seq"] == 1  # Ben waits behind Ann's buzz
    out = tables.act(tid, {"type": "shout", "player": "Ann", "hand": "黒プラス", "tapped_at": now, "sent_at": now + 3000})
    thread.join(5)
    assert out["status"] == "scored" and out["state"]["rounds"][-1]["winner"] == "Ann"
    assert results["Ben"].status_code == 409 and results["Ben"].json["error"]["code"] == "out_of_order"


def test_a_buzz_gives_its_place_up_when_cancelled_or_too_old(app: Any, tables: Tables, monkeypatch: Any) -> None:
    import web.session

    tid = rolled(tables, KURO_PURASU)
    tables.act(tid, {"type": "shout", "player": "Ann", "tapped_at": 1, "sent_at": 1})
    assert tables.act(tid, {"type": "shout", "player": "Ann", "cancel": True})["aids"]["buzzed"] == []
    assert tables.act(tid, {"type": "shout", "player": "Ben", "hand": "白プラス"})["status"] == "scored"
    monkeypatch.setattr(web.session, "BUZZ_HOLD_S", 0.5)
    tables.act(tid, {"type": "shout", "player": "Ann", "tapped_at": 1, "sent_at": 1})
    t0 = time.monotonic()
    view = tables.act(tid, {"type": "shout", "player": "Mina", "hand": "黒プラス"})  # waits, then Ann's place lapses
    assert 0.3 < time.monotonic() - t0 < 3 and view["state"]["rounds"][-1]["winner"] == "Mina"
    assert view["aids"]["buzzed"] == []


def test_a_buzz_is_refused_as_its_shout_would_be(tables: Tables) -> None:
    tid = tables.create("nine-dice", ["Ben", "Mina"])
    r = tables.client.post(f"/api/tables/{tid}/actions", json={"type": "shout", "player": "Ben", "tapped_at": 1, "sent_at": 1},
                           headers=tables.headers())
    assert r.status_code == 409 and r.json["error"]["code"] == "out_of_order"  # no roll yet
    tables.reveal(tid, objects(KURO_PURASU))
    tables.act(tid, {"type": "shout", "player": "Ben", "hand": "白プラス"})
    r = tables.client.post(f"/api/tables/{tid}/actions", json={"type": "shout", "player": "Ben", "tapped_at": 1, "sent_at": 1},
                           headers=tables.headers())
    assert r.status_code == 409 and r.json["error"]["code"] == "already_shouted"
    r = tables.client.post(f"/api/tables/{tid}/actions", json={"type": "shout", "player": "Zed", "tapped_at": 1, "sent_at": 1},
                           headers=tables.headers())
    assert r.status_code in (400, 409) and r.json["error"]["code"] == "unknown_player"
