"""Bound to 0.0.0.0: every change to a table needs its join token; creating tables is for the host."""

from __future__ import annotations

from typing import Any

import pytest
from web_support import ScriptedCamera, faces

from web.app import create_app

PHONE = {"REMOTE_ADDR": "192.168.1.23"}


@pytest.fixture
def exposed(tmp_path: Any) -> Any:
    app = create_app({"data_dir": tmp_path, "host": "0.0.0.0", "port": 8765, "public_url": "http://table.lan:8765",
                      "settle_wait_s": 0.0}, ScriptedCamera())
    yield app
    app.extensions["tableref"].store.close()


def test_token_enforced_on_every_change(exposed: Any) -> None:
    host = exposed.test_client()
    phone = exposed.test_client()
    r = host.post("/api/tables", json={"game": "liars-dice", "players": ["A", "B"]})
    assert r.status_code == 201
    tid, token = r.json["table"]["id"], r.json["token"]
    assert "token" not in r.json["table"] and len(token) >= 16
    other = host.post("/api/tables", json={"game": "liars-dice", "players": ["A", "B"]}).json["token"]

    # Creating, importing and deleting tables is for the host computer only.
    r = phone.post("/api/tables", json={"game": "liars-dice", "players": ["A", "B"]}, environ_base=PHONE)
    assert r.status_code == 403 and r.json["error"]["code"] == "host_only"
    r = phone.post("/api/import", json={"format": "tableref-game/1", "game": "pin456", "players": ["A", "B"], "events": []},
                   environ_base=PHONE)
    assert r.status_code == 403

    changes = [
        ("post", f"/api/tables/{tid}/actions", {"type": "start", "opener": "A"}),
        ("post", f"/api/tables/{tid}/undo", {}),
        ("post", f"/api/tables/{tid}/reveal", {"reading": {"objects": faces("2")}}),
        ("post", f"/api/tables/{tid}/reread", {}),
        ("post", f"/api/tables/{tid}/readings/1/corrections", {"changes": [{"index": 0, "face": "3"}]}),
        ("delete", f"/api/tables/{tid}", None),
    ]
    for method, url, body in changes:
        for headers in ({}, {"X-Table-Token": "wrong"}, {"X-Table-Token": other}):
            for client, env in ((phone, PHONE), (host, {})):
                r = getattr(client, method)(url, json=body, headers=headers, environ_base=env)
                assert r.status_code == 403, (method, url, headers, r.json)
                assert r.json["error"]["code"] == "token_required"
    assert host.get(f"/api/tables/{tid}").json["seq"] == 0

    # With the token a phone plays.
    ok = {"X-Table-Token": token}
    r = phone.post(f"/api/tables/{tid}/actions", json={"type": "start", "opener": "A"}, headers=ok, environ_base=PHONE)
    assert r.status_code == 200 and r.json["seq"] == 1
    r = phone.post(f"/api/tables/{tid}/undo", json={}, headers=ok, environ_base=PHONE)
    assert r.status_code == 200
    # ... but may not delete the table (host only), even with the token.
    r = phone.delete(f"/api/tables/{tid}", headers=ok, environ_base=PHONE)
    assert r.status_code == 403 and r.json["error"]["code"] == "host_only"
    # Reading needs no token: state, log, live events, video.
    assert phone.get(f"/api/tables/{tid}", environ_base=PHONE).status_code == 200
    assert phone.get(f"/api/tables/{tid}/log", environ_base=PHONE).status_code == 200
    # Any Host header is fine when exposed (phones use the LAN address or a name).
    assert phone.get("/api/health", headers={"Host": "192.168.1.5:8765"}, environ_base=PHONE).status_code == 200


def test_join_link_and_page_token(exposed: Any) -> None:
    host = exposed.test_client()
    phone = exposed.test_client()
    r = host.post("/api/tables", json={"game": "pin456", "players": ["A", "B"]})
    tid, token = r.json["table"]["id"], r.json["token"]

    join = host.get(f"/api/tables/{tid}/join").json
    assert join["url"] == f"http://table.lan:8765/t/{tid}?token={token}"
    assert join["qr_svg"].startswith("<svg") and "path" in join["qr_svg"]
    assert phone.get(f"/api/tables/{tid}/join", environ_base=PHONE).status_code == 403
    assert phone.get(f"/api/tables/{tid}/join", headers={"X-Table-Token": token}, environ_base=PHONE).status_code == 200

    # A phone without the token sees the table read-only; with it, the page carries the token.
    page = phone.get(f"/t/{tid}", environ_base=PHONE).get_data(as_text=True)
    assert 'data-token=""' in page and 'data-testid="view-only"' in page
    r = phone.get(f"/t/{tid}?token={token}", environ_base=PHONE)
    assert f'data-token="{token}"' in r.get_data(as_text=True)
    cookie = r.headers["Set-Cookie"]
    assert f"tt_{tid}={token}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    # The cookie keeps the token for a reload without the query.
    again = phone.get(f"/t/{tid}", environ_base=PHONE).get_data(as_text=True)
    assert f'data-token="{token}"' in again
    wrong = exposed.test_client().get(f"/t/{tid}?token=nope", environ_base=PHONE).get_data(as_text=True)
    assert 'data-token=""' in wrong
    # The host page carries the token (the host shows the QR code).
    assert f'data-token="{token}"' in host.get(f"/t/{tid}").get_data(as_text=True)
    # Home page: no create form for phones.
    assert 'data-testid="create-form"' not in phone.get("/", environ_base=PHONE).get_data(as_text=True)
    assert 'data-testid="create-form"' in host.get("/").get_data(as_text=True)


def test_loopback_needs_json_posts_not_tokens(client: Any, tables: Any) -> None:
    tid = tables.create("liars-dice", ["A", "B"])
    r = client.post(f"/api/tables/{tid}/actions", json={"type": "start", "opener": "A"})
    assert r.status_code == 200
    # A cross-site form can only send simple content types: refused, so no CSRF.
    r = client.post(f"/api/tables/{tid}/undo", data="", content_type="text/plain")
    assert r.status_code == 415
    r = client.post(f"/api/tables/{tid}/undo", data="x=1", content_type="multipart/form-data; boundary=x")
    assert r.status_code == 415
    assert tables.view(tid)["seq"] == 1
