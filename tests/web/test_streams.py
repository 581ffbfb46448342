"""Live video slots: a viewer that stops reading frees its slot, and the host computer always
gets the stream (issue 84, point 6: eight viewers that never read once locked everyone out)."""

from __future__ import annotations

import doctest
import http.client
import itertools
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import ScriptedCamera, serving

import web.streams
from web.app import create_app
from web.camera import mjpeg_from


def test_doctests() -> None:
    result = doctest.testmod(web.streams)
    assert result.attempted >= 3 and result.failed == 0


def _busy_camera(size: int = 256 * 1024) -> ScriptedCamera:
    """A camera whose every frame is new and ``size`` bytes: a viewer that does not read falls behind fast."""
    camera = ScriptedCamera()
    counter = itertools.count()
    picture = b"\xff\xd8" + bytes(size)
    camera.mjpeg = lambda fps, max_frames=None: mjpeg_from(lambda: (next(counter), picture), fps, max_frames)  # type: ignore[method-assign]
    return camera


def _first_chunk(response: Any) -> bytes:
    return next(iter(response.response))


def test_the_host_computer_always_gets_the_stream(tmp_path: Any) -> None:
    app = create_app({"data_dir": tmp_path, "host": "0.0.0.0", "max_streams": 2, "mjpeg_fps": 50.0}, _busy_camera(1000))
    client = app.test_client()
    phones = [client.get("/stream.mjpg", buffered=False, environ_base={"REMOTE_ADDR": f"192.168.1.{i}"}) for i in (20, 21)]
    assert [p.status_code for p in phones] == [200, 200]
    for phone in phones:
        _first_chunk(phone)
    late = client.get("/stream.mjpg", buffered=False, environ_base={"REMOTE_ADDR": "192.168.1.22"})
    assert late.status_code == 503 and late.json["error"]["code"] == "too_many_streams"
    # The host screen's request closes the phone stream served least recently (the first).
    host = client.get("/stream.mjpg", buffered=False)
    assert host.status_code == 200 and _first_chunk(host).startswith(b"--frame")
    assert list(phones[0].response) == [], "the first phone's stream ends at its next frame"
    assert b"--frame" in _first_chunk(phones[1])
    assert app.extensions["tableref_streams"].open == 2
    # A second host screen takes the other phone's slot; a third takes the oldest host stream.
    second_host = client.get("/stream.mjpg", buffered=False)
    assert second_host.status_code == 200 and list(phones[1].response) == []
    third_host = client.get("/stream.mjpg", buffered=False)
    assert third_host.status_code == 200 and list(host.response) == []
    for r in (*phones, late, host, second_host, third_host):
        r.close()
    assert app.extensions["tableref_streams"].open == 0
    app.extensions["tableref"].store.close()


@pytest.fixture
def served(tmp_path: Any) -> Iterator[tuple[Any, int]]:
    """The dashboard behind werkzeug's server, as ``tableref serve`` runs it, with a 0.5 s send timeout."""
    app = create_app({"data_dir": tmp_path, "mjpeg_fps": 50.0, "stream_send_timeout_s": 0.5}, _busy_camera())
    with serving(app) as port:
        yield app, port


def _open_slots(app: Any) -> int:
    slots = app.extensions.get("tableref_streams")
    return 0 if slots is None else int(slots.open)


def _wait(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def test_viewers_that_never_read_free_their_slots(served: tuple[Any, int]) -> None:
    app, port = served
    stalled = []
    for _ in range(8):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        sock.sendall(b"GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        stalled.append(sock)  # and never read
    try:
        assert _wait(lambda: _open_slots(app) == 8, 5)
        start = time.monotonic()
        assert _wait(lambda: _open_slots(app) == 0, 15), f"{_open_slots(app)} stalled viewers still hold a slot"
        freed_after = time.monotonic() - start
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/stream.mjpg?frames=2")
        r = conn.getresponse()
        assert r.status == 200 and r.read().count(b"--frame") == 2
        conn.close()
    finally:
        for sock in stalled:
            sock.close()
    assert freed_after < 10, freed_after
