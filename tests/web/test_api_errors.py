"""Refusals: the right 4xx status, a stable code and the referee's reason in English or Japanese."""

from __future__ import annotations

from typing import Any

import pytest
from web_support import Tables, faces

from referee.liars_dice import IllegalBid

JAPANESE = ("\u3040", "\u30ff")


def _ja(text: str) -> bool:
    return any(JAPANESE[0] <= ch <= JAPANESE[1] or "\u4e00" <= ch <= "\u9fff" for ch in text)


def test_illegal_actions_are_refused_with_reasons_in_both_languages(tables: Tables) -> None:
    tid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    tables.act(tid, {"type": "start", "opener": "Wanjin"})
    out = tables.act(tid, {"type": "bid", "player": "Saewoon", "quantity": 3, "face": "4"}, status=409)
    assert out["error"]["code"] == "not_your_turn"
    assert out["error"]["message"] == "It is Wanjin's turn, not Saewoon's."
    out = tables.act(tid, {"type": "bid", "player": "Saewoon", "quantity": 3, "face": "4"}, status=409, lang="ja")
    assert out["error"]["message"] == "今はWanjinの番です（Saewoonの番ではありません）。"
    r = tables.client.post(f"/api/tables/{tid}/actions?lang=ja", json={"type": "bid", "player": "Saewoon", "quantity": 3,
                                                                      "face": "4"}, headers={"Accept-Language": "en"})
    assert _ja(r.json["error"]["message"]), "?lang= wins over Accept-Language"

    tables.act(tid, {"type": "bid", "player": "Wanjin", "quantity": 5, "face": "4"})
    out = tables.act(tid, {"type": "bid", "player": "Saewoon", "quantity": 4, "face": "6"}, status=409, lang="ja")
    assert out["error"]["code"] == IllegalBid.code and _ja(out["error"]["message"])
    for event, code in [({"type": "bid", "player": "Saewoon", "quantity": 0, "face": "4"}, "malformed_event"),
                        ({"type": "bid", "player": "Nobody", "quantity": 6, "face": "4"}, "unknown_player"),
                        ({"type": "fly", "player": "Saewoon"}, "malformed_event"),
                        ({"player": "Saewoon"}, "malformed_event")]:
        out = tables.act(tid, event, status=400)
        assert out["error"]["code"] == code, out
        assert out["error"]["message"]
        ja = tables.act(tid, event, status=400, lang="ja")
        assert _ja(ja["error"]["message"]), ja
    # Reveals are read, not decided.
    out = tables.act(tid, {"type": "reveal", "dice": ["4"] * 10}, status=400)
    assert out["error"]["code"] == "use_reveal"
    # A reveal while no challenge is pending.
    r = tables.client.post(f"/api/tables/{tid}/reveal", json={"reading": {"objects": faces("4")}})
    assert r.status_code == 409 and r.json["error"]["code"] == "not_expecting_reading"
    assert tables.view(tid)["seq"] == 2


def test_malformed_requests(tables: Tables) -> None:
    client = tables.client
    tid = tables.create("pin456", ["A", "B"])
    url = f"/api/tables/{tid}/actions"
    r = client.post(url, data="{not json", content_type="application/json")
    assert r.status_code == 400 and r.json["error"]["code"] == "bad_request"
    r = client.post(url, data='{"type": "declare"}', content_type="text/plain")
    assert r.status_code == 415 and r.json["error"]["code"] == "not_json"
    r = client.post(url, data="type=declare", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    r = client.post(url, json=[1, 2])
    assert r.status_code == 400
    r = client.post(url, data="[" * 100000 + "]" * 100000, content_type="application/json")
    assert r.status_code == 400
    r = client.put(url, json={})
    assert r.status_code == 405 and r.json["error"]["code"] == "method_not_allowed"
    r = client.get("/api/tables/0123456789")
    assert r.status_code == 404 and r.json["error"]["code"] == "table_not_found"
    r = client.get("/api/no/such/route", headers={"Accept-Language": "ja"})
    assert r.status_code == 404 and _ja(r.json["error"]["message"])
    r = client.get(f"/api/tables/{tid}/readings/999")
    assert r.status_code == 404 and r.json["error"]["code"] == "reading_not_found"
    r = client.post(f"/api/tables/{tid}/undo", json={})
    assert r.status_code == 409 and r.json["error"]["code"] == "nothing_to_undo"
    # Malformed readings and corrections.
    tables.act(tid, {"type": "declare", "player": "A", "count": 1})
    tables.act(tid, {"type": "stake", "player": "B", "amount": 1000, "guess": 4})
    for reading in [{"objects": "4"}, {"objects": [{"face": 4}]}, {"objects": [{"face": "4", "box": [1, 2]}]},
                    {"objects": [{"face": "4", "score": 7}]}, {"objects": [{"face": "4"}] * 65}, "4"]:
        r = client.post(f"/api/tables/{tid}/reveal", json={"reading": reading})
        assert r.status_code == 400, reading
    out = tables.reveal(tid, faces("4"))
    rid = out["reading"]["id"]
    for changes in [[], [{"index": 3, "face": "5"}], [{"index": 0}], "x", [{"index": 0, "face": ""}]]:
        r = client.post(f"/api/tables/{tid}/readings/{rid}/corrections", json={"changes": changes})
        assert r.status_code == 400, changes
    r = client.post(f"/api/tables/{tid}/readings/{rid}/corrections", json={"who": "x" * 41, "changes": [{"index": 0, "face": "5"}]})
    assert r.status_code == 400


@pytest.mark.parametrize(
    "body, code",
    [
        ({"game": "chess", "players": ["A", "B"]}, "malformed_log"),
        ({"game": "liars-dice", "players": ["A"]}, "malformed_log"),
        ({"game": "liars-dice", "players": ["A", "A"]}, "malformed_log"),
        ({"game": "liars-dice", "players": ["A", ""]}, "malformed_log"),
        ({"game": "liars-dice", "players": "AB"}, "malformed_log"),
        ({"game": "liars-dice", "players": ["A", "B" * 33]}, "bad_request"),
        ({"game": "liars-dice", "players": ["A", "B\u0007"]}, "bad_request"),
        ({"game": "liars-dice", "players": ["A", "B"], "options": {"start_rule": "xx"}}, "invalid_option"),
        ({"game": "pin456", "players": ["A", "B"], "options": {"stake_cap": 5}}, "invalid_option"),
        ({"game": "pin456", "players": ["A", "B"], "options": []}, "malformed_log"),
    ],
)
def test_create_table_is_validated(client: Any, body: dict[str, Any], code: str) -> None:
    r = client.post("/api/tables", json=body, headers={"Accept-Language": "ja"})
    assert r.status_code == 400 and r.json["error"]["code"] == code, r.json
    assert _ja(r.json["error"]["message"])
    assert client.get("/api/tables").json == []


def test_import_is_validated_by_replay(tables: Tables) -> None:
    log = {"format": "tableref-game/1", "game": "liars-dice", "options": {}, "players": ["A", "B"],
           "events": [{"type": "start", "opener": "A"}, {"type": "bid", "player": "B", "quantity": 2, "face": "3"}]}
    r = tables.client.post("/api/import", json=log)
    assert r.status_code == 400
    assert r.json["error"]["event"] == 1 and r.json["error"]["code"] == "not_your_turn"
    r = tables.client.post("/api/import", json={**log, "format": "other"})
    assert r.status_code == 400 and r.json["error"]["event"] is None
    r = tables.client.post("/api/import", json={**log, "events": log["events"][:1], "players": ["A", "B" * 40]})
    assert r.status_code == 400 and r.json["error"]["event"] is None
    r = tables.client.post("/api/import?lang=ja", json={**log, "events": [{"type": "reveal", "dice": []}]})
    assert r.status_code == 400 and _ja(r.json["error"]["message"])
    assert tables.client.get("/api/tables").json == []
    ok = tables.client.post("/api/import", json={**log, "events": log["events"][:1]})
    assert ok.status_code == 201


def test_request_size_limit(tmp_path: Any) -> None:
    from web.app import create_app

    app = create_app({"data_dir": tmp_path, "max_content_length": 4096})
    client = app.test_client()
    big = {"format": "tableref-game/1", "game": "liars-dice", "options": {}, "players": ["A", "B"],
           "events": [{"type": "start", "opener": "A", "pad": "x" * 5000}]}
    r = client.post("/api/import", json=big)
    assert r.status_code == 413 and r.json["error"]["code"] == "too_large"
    assert "4096" in r.json["error"]["message"]
    assert client.get("/api/tables").json == []
    app.extensions["tableref"].store.close()


def test_default_size_limit_is_two_megabytes(client: Any) -> None:
    r = client.post("/api/tables", data=b'{"game": "' + b"x" * (2 * 1024 * 1024) + b'"}', content_type="application/json")
    assert r.status_code == 413


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/api/tables/..%2f..%2fetc%2fpasswd",
        "/api/tables/../../etc/passwd",
        "/api/tables/%2e%2e%2f%2e%2e/log",
        "/t/..%2f..%2fdata",
        "/api/tables/abc/readings/..%2f..%2ftableref.db/snapshot.jpg",
        "/api/tables/abc/readings/1/..%2f..%2f..%2ftableref.db",
        "/snapshots/x.jpg",
        "/tableref.db",
    ],
)
def test_path_traversal_reaches_nothing(client: Any, path: str) -> None:
    r = client.get(path)
    assert r.status_code in (404, 400), (path, r.status_code)
    assert b"SQLite" not in r.data and b"def create_app" not in r.data and b"root:" not in r.data


def test_snapshot_names_never_come_from_requests(tables: Tables, app: Any) -> None:
    store = app.extensions["tableref"].store
    tid = tables.create("pin456", ["A", "B"])
    tables.act(tid, {"type": "declare", "player": "A", "count": 1})
    tables.act(tid, {"type": "stake", "player": "B", "amount": 1000, "guess": 4})
    out = tables.reveal(tid, [{"face": "4", "image": "../../evil.jpg", "snapshot": "../x"}])
    assert out["reading"]["snapshot"] is None  # a hand-entered reading has no photo
    assert list(store.snapshots.iterdir()) == []
    with pytest.raises(ValueError):
        store._snapshot_file("../tableref.db")


def test_host_header_is_checked_on_loopback(client: Any) -> None:
    assert client.get("/api/health", headers={"Host": "localhost:8765"}).status_code == 200
    assert client.get("/api/health", headers={"Host": "127.0.0.1"}).status_code == 200
    r = client.get("/api/health", headers={"Host": "evil.example:8765"})
    assert r.status_code == 403 and r.json["error"]["code"] == "forbidden_host"
    r = client.post("/api/tables", json={"game": "pin456", "players": ["A", "B"]}, headers={"Host": "rebind.example"})
    assert r.status_code == 403


def test_security_headers(client: Any) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Frame-Options"] == "DENY" and r.headers["Referrer-Policy"] == "no-referrer"
