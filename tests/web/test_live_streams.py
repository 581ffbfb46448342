"""Server-Sent Events, the MJPEG stream, health, OpenAPI coverage and the pages."""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import ScriptedCamera, Tables, faces, jpeg_bytes

from web.app import create_app
from web.camera import mjpeg_from
from web.openapi import document


def _events(response: Any) -> Iterator[tuple[str, Any]]:
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            kind = re.search(r"^event: (.*)$", block, re.M)
            data = re.search(r"^data: (.*)$", block, re.M)
            if kind and data:
                yield kind.group(1), json.loads(data.group(1))


def _next(stream: Iterator[tuple[str, Any]], kind: str) -> Any:
    for got, data in stream:
        if got == kind:
            return data
    raise AssertionError(f"stream ended before a {kind} event")


def test_sse_pushes_state_verdicts_and_camera(app: Any, tables: Tables, camera: ScriptedCamera) -> None:
    app.config["SSE_KEEPALIVE_S"] = 0.05
    tid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    bus = app.extensions["tableref"].bus
    response = tables.client.get(f"/api/tables/{tid}/events?lang=ja", buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    stream = _events(response)
    first = _next(stream, "state")
    assert first["seq"] == 0 and first["expects"] == "start"
    assert _next(stream, "camera")["online"] is True
    assert bus.subscribers(tid) == 1

    tables.act(tid, {"type": "start", "opener": "Wanjin"})
    assert _next(stream, "state")["seq"] == 1
    camera.set_online(False)
    status = _next(stream, "camera")
    assert status["online"] is False and status["last_error"] == "unplugged"
    tables.act(tid, {"type": "bid", "player": "Wanjin", "quantity": 3, "face": "4"})
    tables.act(tid, {"type": "challenge", "player": "Saewoon"})
    tables.reveal(tid, faces("4"))
    reread = _next(stream, "reread")
    assert "もう一度" in reread["reading"]["reason"]["message"]
    tables.reveal(tid, faces(*["4"] * 10))
    verdict = _next(stream, "verdict")
    assert verdict["reading"]["verdict"]["round"]["loser"] == "Saewoon"
    response.close()
    assert bus.subscribers(tid) == 0


def test_sse_for_unknown_table_is_404(client: Any) -> None:
    r = client.get("/api/tables/0000000000/events")
    assert r.status_code == 404 and r.json["error"]["code"] == "table_not_found"


def test_mjpeg_stream_is_multipart_and_capped(app: Any, client: Any, camera: ScriptedCamera) -> None:
    counter = itertools.count()
    picture = jpeg_bytes()
    camera.frame = None  # type: ignore[assignment]
    camera.mjpeg = lambda fps, max_frames=None: mjpeg_from(lambda: (next(counter), picture), fps, max_frames)  # type: ignore[method-assign]
    app.extensions["tableref"].config = app.extensions["tableref"].config.__class__(
        **{**app.extensions["tableref"].config.__dict__, "mjpeg_fps": 20.0})
    t0 = time.monotonic()
    r = client.get("/stream.mjpg?frames=6")
    data = r.data
    elapsed = time.monotonic() - t0
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "multipart/x-mixed-replace; boundary=frame"
    parts = data.split(b"--frame\r\n")[1:]
    assert len(parts) == 6
    head, body = parts[0].split(b"\r\n\r\n", 1)
    assert b"Content-Type: image/jpeg" in head and body.startswith(b"\xff\xd8")
    assert int(re.search(rb"Content-Length: (\d+)", head).group(1)) == len(picture)  # type: ignore[union-attr]
    assert elapsed >= 5 / 20 - 0.01, "at most 20 frames a second"


def test_mjpeg_from_repeats_a_still_frame_and_paces() -> None:
    t0 = time.monotonic()
    chunks = list(mjpeg_from(lambda: ("same", b"JPEG"), fps=50, max_frames=2, repeat_s=0.1))
    assert len(chunks) == 2 and time.monotonic() - t0 >= 0.09


def test_stream_slots_are_limited(tmp_path: Any) -> None:
    """For other devices; the host computer always gets the stream (tests/web/test_streams.py)."""
    app = create_app({"data_dir": tmp_path, "host": "0.0.0.0", "max_streams": 1}, ScriptedCamera())
    client = app.test_client()
    phone = {"REMOTE_ADDR": "192.168.1.20"}
    first = client.get("/stream.mjpg", buffered=False, environ_base=phone)
    assert first.status_code == 200
    second = client.get("/stream.mjpg", buffered=False, environ_base=phone)
    assert second.status_code == 503 and second.json["error"]["code"] == "too_many_streams"
    first.close()
    third = client.get("/stream.mjpg?frames=1", environ_base=phone)
    assert third.status_code == 200
    app.extensions["tableref"].store.close()


def test_health_reports_camera_model_and_version(client: Any, camera: ScriptedCamera) -> None:
    h = client.get("/api/health").json
    assert h["status"] == "ok" and h["version"]
    assert h["camera"]["online"] is True and h["model"]["reader"]["name"] == "scripted-reader"
    assert h["exposed"] is False
    camera.set_online(False)
    assert client.get("/api/health").json["camera"]["online"] is False


def test_openapi_covers_every_route(app: Any, client: Any) -> None:
    doc = client.get("/api/openapi.json").json
    assert doc == document() and doc["openapi"].startswith("3.")
    described = {(path, method.upper()) for path, ops in doc["paths"].items() for method in ops}
    served = set()
    for rule in app.url_map.iter_rules():
        if not (rule.rule.startswith("/api/") or rule.rule == "/stream.mjpg"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            served.add((path, method))
    assert served == described
    for path, ops in doc["paths"].items():
        for op in ops.values():
            assert op["summary"] and {"200", "201"} & set(op["responses"]), path
            for param in op.get("parameters", []):
                if param["in"] == "path":
                    assert "{" + param["name"] + "}" in path
    refs = set(re.findall(r'"#/components/schemas/(\w+)"', json.dumps(doc)))
    assert refs <= set(doc["components"]["schemas"])


def test_games_and_error_catalogue(client: Any) -> None:
    games = {g["game"]: g for g in client.get("/api/games").json}
    assert set(games) == {"liars-dice", "nine-dice", "doubt", "pin456"}
    assert games["pin456"]["min_players"] == games["pin456"]["max_players"] == 2
    assert games["doubt"]["reads"] == "card"
    catalogue = client.get("/api/errors").json
    for code in ("not_your_turn", "misread", "token_required", "no_settled_reading"):
        assert set(catalogue[code]) >= {"en", "ja"}


@pytest.mark.parametrize("game, players", [("liars-dice", ["A", "B", "C"]), ("nine-dice", ["A", "B"]),
                                           ("doubt", ["A", "B", "C"]), ("pin456", ["A", "B"])])
def test_pages_render_with_stable_test_ids(tables: Tables, game: str, players: list[str]) -> None:
    client = tables.client
    tid = tables.create(game, players)
    home = client.get("/").get_data(as_text=True)
    assert f'data-testid="table-link-{tid}"' in home and 'data-testid="create-table"' in home
    page = client.get(f"/t/{tid}?lang=ja")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and '<html lang="ja">' in html
    assert "lang=ja" in page.headers.get("Set-Cookie", "")
    for testid in ("live-video", "verdict-panel", "verdict-summary", "reread-prompt", "reveal-photo", "reveal-button",
                   "manual-entry", "actions", "undo-button", "score", "history", "camera-badge", "lang-switch",
                   "reread-button", "correction-editor", "invite", "export-link"):
        assert f'data-testid="{testid}"' in html, testid
    assert ("odds-toggle" in html) is True  # shown for Liar's Dice by the script
    assert "http://" not in html.replace('href="http', "")  # nothing from the network
    english = client.get(f"/t/{tid}", headers={"Accept-Language": "en"}, environ_base={"HTTP_COOKIE": ""})
    assert english.status_code == 200
    assert client.get("/static/table.js").status_code == 200
    assert client.get("/static/app.css").status_code == 200


def test_unknown_table_page_is_a_404_page(client: Any) -> None:
    r = client.get("/t/0000000000", headers={"Accept-Language": "ja"})
    assert r.status_code == 404 and r.mimetype == "text/html"
    assert "テーブル" in r.get_data(as_text=True)
