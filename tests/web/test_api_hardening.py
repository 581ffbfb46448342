"""Bad inputs that once got a 500, a traceback or a silently cut body: each is a clear 4xx
refusal in the API's error format, and nothing is stored (issue 84, points 1-4)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import Tables, faces, serving

from referee.json_limits import MAX_DEPTH
from web.app import create_app

LONE = "\\ud800"  # as it is written in JSON text: an escape that json.loads turns into a lone surrogate


def _post(client: Any, url: str, raw: str, headers: dict[str, str] | None = None) -> Any:
    return client.post(url, data=raw.encode(), content_type="application/json", headers=headers or {})


def _refused(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.get_data()
    error = r.get_json()["error"]
    assert error["code"] == code and error["message"], error
    return dict(error)


def _table_with_reading(tables: Tables) -> tuple[str, int]:
    tid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    tables.act(tid, {"type": "start", "opener": "Wanjin"})
    tables.act(tid, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"})
    tables.act(tid, {"type": "challenge", "player": "Saewoon"})
    out = tables.reveal(tid, faces("4", "4", "2", "3", "5", "6", "1", "2", "3", "5"))
    return tid, int(out["reading"]["id"])


def test_a_lone_surrogate_anywhere_in_a_body_is_a_400_naming_where(tables: Tables) -> None:
    client = tables.client
    tid, rid = _table_with_reading(tables)
    seq = tables.view(tid)["seq"]
    h = tables.headers()
    cases = [
        ("/api/tables", '{"game": "liars-dice", "players": ["%s", "B"]}' % LONE, "players[0]"),
        ("/api/tables", '{"game": "liars-dice", "players": ["A", "B"], "options": {"%s": 1}}' % LONE, "options"),
        ("/api/tables", '{"game": "liars-dice", "players": ["A", "B"], "options": {"track": "%s"}}' % LONE, "options.track"),
        (f"/api/tables/{tid}/actions", '{"type": "bid", "player": "%s", "quantity": 3, "face": "4"}' % LONE, "player"),
        (f"/api/tables/{tid}/actions", '{"type": "bid", "player": "Wanjin", "quantity": 3, "face": "%s"}' % LONE, "face"),
        ("/api/import", '{"format": "tableref-game/1", "game": "liars-dice", "players": ["A", "B"], '
                        '"events": [{"type": "start", "opener": "%s"}]}' % LONE, "events[0].opener"),
        (f"/api/tables/{tid}/discard-reading", '{"player": "%s"}' % LONE, "player"),
        (f"/api/tables/{tid}/reveal", '{"reading": {"objects": [{"face": "%s"}]}}' % LONE, "reading.objects[0].face"),
        (f"/api/tables/{tid}/reread", '{"reading": {"objects": [{"face": "4", "colour": "%s"}]}}' % LONE,
         "reading.objects[0].colour"),
        (f"/api/tables/{tid}/readings/{rid}/corrections", '{"who": "%s", "changes": []}' % LONE, "who"),
        (f"/api/tables/{tid}/readings/{rid}/corrections", '{"changes": [{"index": 0, "face": "%s"}]}' % LONE,
         "changes[0].face"),
        (f"/api/tables/{tid}/readings/{rid}/corrections",
         '{"changes": [{"add": {"face": "4", "colour": "%s"}}]}' % LONE, "changes[0].add.colour"),
        (f"/api/tables/{tid}/odds", '{"dice": ["%s"]}' % LONE, "dice[0]"),
    ]
    for url, raw, where in cases:
        for lang, words in (("en", "lone UTF-16 surrogate"), ("ja", "サロゲート")):
            error = _refused(_post(client, f"{url}?lang={lang}", raw, h), 400, "bad_request")
            assert where in error["message"] and words in error["message"], (url, error)
            assert "\ud800" not in error["message"]
    assert [t["id"] for t in client.get("/api/tables").get_json()] == [tid]
    assert tables.view(tid)["seq"] == seq
    assert len(client.get(f"/api/tables/{tid}/readings").get_json()) == 1


def test_a_refusal_quoting_a_lone_surrogate_is_still_answered(app: Any, client: Any) -> None:
    """The last guard: an error whose message quotes a lone surrogate (which no body can now
    carry) is answered with U+FFFD in its place, not a failure to encode the answer."""
    from referee.errors import UnknownPlayer

    @app.get("/api/test-surrogate")
    def _raise() -> None:
        raise UnknownPlayer("x\ud800")

    for lang in ("en", "ja"):
        error = _refused(client.get(f"/api/test-surrogate?lang={lang}"), 400, "unknown_player")
        assert error["params"]["player"] == "x\ufffd" and "\ud800" not in error["message"]


@pytest.mark.parametrize("rid", ["9223372036854775808", "9223372036854775807", "18446744073709551616",
                                 "1" + "0" * 40])
def test_reading_ids_beyond_64_bits_are_not_found(tables: Tables, rid: str) -> None:
    client = tables.client
    tid, _ = _table_with_reading(tables)
    seq = tables.view(tid)["seq"]
    _refused(client.get(f"/api/tables/{tid}/readings/{rid}"), 404, "reading_not_found")
    _refused(client.get(f"/api/tables/{tid}/readings/{rid}/snapshot.jpg"), 404, "reading_not_found")
    r = client.post(f"/api/tables/{tid}/readings/{rid}/corrections", json={"who": "Mina", "changes": []},
                    headers=tables.headers())
    _refused(r, 404, "reading_not_found")
    assert tables.view(tid)["seq"] == seq


def _nested(depth: int, leaf: str = "1") -> str:
    """JSON text of ``depth`` nested arrays around ``leaf``."""
    return "[" * depth + leaf + "]" * depth


@pytest.mark.parametrize("depth", [MAX_DEPTH, 400, 700, 900, 5000, 100_000])
def test_deep_nesting_is_refused_at_one_limit(tables: Tables, depth: int) -> None:
    client = tables.client
    tid = tables.create("liars-dice", ["A", "B"])
    h = tables.headers()
    for url, raw in [
        ("/api/tables", '{"game": "liars-dice", "players": ["A", "B"], "options": {"x": %s}}' % _nested(depth)),
        ("/api/import", '{"format": "tableref-game/1", "game": "liars-dice", "players": ["A", "B"], '
                        '"events": [{"type": "start", "opener": "A", "x": %s}]}' % _nested(depth)),
        (f"/api/tables/{tid}/actions", '{"type": "start", "opener": "A", "x": %s}' % _nested(depth)),
    ]:
        error = _refused(_post(client, url, raw, h), 400, "bad_request")
        assert f"more than {MAX_DEPTH} levels" in error["message"], error
    assert [t["id"] for t in client.get("/api/tables").get_json()] == [tid]
    assert tables.view(tid)["seq"] == 0


def test_nesting_up_to_the_limit_reaches_the_referee(client: Any) -> None:
    # The body is level 1, options 2, so an option value may hold MAX_DEPTH - 2 levels of arrays.
    raw = '{"game": "liars-dice", "players": ["A", "B"], "options": {"x": %s}}' % _nested(MAX_DEPTH - 2)
    _refused(_post(client, "/api/tables", raw), 400, "invalid_option")


@pytest.fixture
def small_server(tmp_path: Any) -> Iterator[tuple[Any, int]]:
    """The dashboard behind werkzeug's server (as ``tableref serve`` runs it), with a 4 KB body cap."""
    app = create_app({"data_dir": tmp_path / "data", "max_content_length": 4096})
    with serving(app) as port:
        yield app, port


def _chunked_post(port: int, total: int) -> tuple[int, dict[str, Any]]:
    head = b'{"game": "liars-dice", "players": ["A", "B"], "options": {}}'

    def chunks() -> Iterator[bytes]:
        yield head
        left = total - len(head)
        while left > 0:
            n = min(1000, left)
            yield b" " * n
            left -= n

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/api/tables", body=chunks(), encode_chunked=True,
                      headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def test_a_chunked_body_over_the_cap_is_413_like_any_other(small_server: tuple[Any, int]) -> None:
    app, port = small_server
    status, out = _chunked_post(port, 4097)
    assert status == 413 and out["error"]["code"] == "too_large", out
    status, out = _chunked_post(port, 11 * 4096)
    assert status == 413 and out["error"]["code"] == "too_large", out
    assert app.extensions["tableref"].sessions.list() == []
    status, out = _chunked_post(port, 4096)  # exactly the cap, as with a Content-Length
    assert status == 201, out


def test_nan_and_infinity_are_refused_so_an_export_stays_json(tables: Tables) -> None:
    """Python's parser takes NaN, Infinity and 1e999; an imported log kept them and exported as no JSON."""
    client = tables.client
    for number in ("NaN", "Infinity", "-Infinity", "1e999"):
        raw = ('{"format": "tableref-game/1", "game": "liars-dice", "players": ["A", "B"], '
               '"events": [{"type": "start", "opener": "A", "x": %s}]}' % number)
        error = _refused(_post(client, "/api/import", raw), 400, "bad_request")
        assert "events[0].x is not a finite number" in error["message"]
    assert client.get("/api/tables").get_json() == []
