"""Helpers for the dashboard tests: a scripted camera and a small client wrapper for tables."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from PIL import Image
from werkzeug.serving import make_server

from vision.read.detections import Detection, Reading
from web.camera import Settled, mjpeg_from


def jpeg_bytes(colour: tuple[int, int, int] = (30, 120, 60), size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="JPEG")
    return out.getvalue()


class ScriptedCamera:
    """A camera driven by the test: it settles what the test says, when the test says."""

    def __init__(self) -> None:
        self.online = True
        self.frame = (0, jpeg_bytes())
        self._settled: Settled | None = None
        self._listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._lock = threading.Lock()
        self.started = False
        self.expected: list[tuple[str, dict[str, Any]]] = []
        self.calls: list[str] = []  # "expect" and "keep", in the order the tables made them
        self.settle_state = "moving"  # what the settler is doing, as LiveTableCamera.status says

    def expect(self, game: str, state: dict[str, Any]) -> None:
        self.expected.append((game, state))
        self.calls.append("expect")

    def keep(self) -> None:
        self.calls.append("keep")

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.started = False

    def status(self) -> dict[str, Any]:
        return {"online": self.online, "source": "scripted", "state": "online" if self.online else "offline",
                "last_error": None if self.online else "unplugged", "settle": self.settle_state}

    def info(self) -> dict[str, Any]:
        return {"reader": {"name": "scripted-reader", "version": "test"}}

    def mjpeg(self, fps: float, max_frames: int | None = None) -> Iterator[bytes]:
        return mjpeg_from(lambda: self.frame, fps, max_frames)

    def settled_after(self, t: float, timeout: float) -> Settled | None:
        s = self._settled
        return s if s is not None and s.at > t else None

    def subscribe(self, listener: Callable[[str, dict[str, Any]], None]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def settle(self, objects: list[dict[str, Any]], jpeg: bytes | None = None, width: int = 640, height: int = 480) -> Settled:
        seq = (self._settled.seq if self._settled else 0) + 1
        dets = tuple(Detection.from_json({"kind": "die", "box": [10 * i, 10, 10 * i + 9, 19], "score": 0.9, **o})
                     for i, o in enumerate(objects))
        self._settled = Settled(Reading(dets, width, height, 5.0), jpeg if jpeg is not None else jpeg_bytes(), time.time(), seq)
        for listener in list(self._listeners):
            listener("settled", {"seq": seq, "objects": len(dets), "uncertain": any(d.uncertain for d in dets)})
        return self._settled

    def set_online(self, online: bool) -> None:
        self.online = online
        for listener in list(self._listeners):
            listener("camera", self.status())


class Tables:
    """Thin helpers over the test client (``lang`` and ``token`` sent on every call when set)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.token: str | None = None

    def headers(self, lang: str | None = None) -> dict[str, str]:
        h = {}
        if self.token:
            h["X-Table-Token"] = self.token
        if lang:
            h["Accept-Language"] = lang
        return h

    def create(self, game: str, players: list[str], options: dict[str, Any] | None = None) -> str:
        r = self.client.post("/api/tables", json={"game": game, "players": players, "options": options or {}})
        assert r.status_code == 201, r.json
        self.token = r.json["token"]
        return str(r.json["table"]["id"])

    def act(self, tid: str, event: dict[str, Any], status: int = 200, lang: str | None = None) -> dict[str, Any]:
        r = self.client.post(f"/api/tables/{tid}/actions", json=event, headers=self.headers(lang))
        assert r.status_code == status, (event, r.json)
        return dict(r.json)

    def reveal(self, tid: str, objects: list[dict[str, Any]] | None = None, path: str = "reveal", status: int = 200) -> dict[str, Any]:
        body = {} if objects is None else {"reading": {"objects": objects}}
        r = self.client.post(f"/api/tables/{tid}/{path}", json=body, headers=self.headers())
        assert r.status_code == status, r.json
        return dict(r.json)

    def correct(self, tid: str, rid: int, changes: list[dict[str, Any]], who: str = "Mina", status: int = 200) -> dict[str, Any]:
        r = self.client.post(f"/api/tables/{tid}/readings/{rid}/corrections", json={"who": who, "changes": changes},
                             headers=self.headers())
        assert r.status_code == status, r.json
        return dict(r.json)

    def undo(self, tid: str, status: int = 200) -> dict[str, Any]:
        r = self.client.post(f"/api/tables/{tid}/undo", json={}, headers=self.headers())
        assert r.status_code == status, r.json
        return dict(r.json)

    def view(self, tid: str) -> dict[str, Any]:
        r = self.client.get(f"/api/tables/{tid}")
        assert r.status_code == 200
        return dict(r.json)

    def log(self, tid: str) -> dict[str, Any]:
        r = self.client.get(f"/api/tables/{tid}/log")
        assert r.status_code == 200
        return dict(r.json)

    def roundtrip(self, tid: str) -> str:
        """Export, import as a new table, and check the new table replays to the same state."""
        doc = self.log(tid)
        r = self.client.post("/api/import", json=doc)
        assert r.status_code == 201, r.json
        new = str(r.json["table"]["id"])
        assert self.log(new)["events"] == doc["events"]
        assert self.view(new)["state"] == self.view(tid)["state"]
        return new


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """``app`` behind werkzeug's threaded server on a free local port (as ``tableref serve`` runs
    it: real sockets, real streaming) for the ``with`` block, which gets the port; then the
    server is stopped and the app's table store closed."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(5)
        app.extensions["tableref"].store.close()


def faces(*names: str, kind: str = "die") -> list[dict[str, Any]]:
    return [{"kind": kind, "face": f} for f in names]
