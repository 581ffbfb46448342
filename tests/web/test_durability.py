"""``tableref serve`` as a real process: threaded (SSE never blocks), and killed with SIGKILL,
even in the middle of a stream of writes, it restarts with every table exactly as acknowledged."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, data: Path) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "serve", "--source", "none", "--port", "0", "--data", str(data)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if found:
                self.port = int(found.group(1))
                break
            if not line and self.proc.poll() is not None:
                break
        else:  # pragma: no cover
            raise AssertionError("server did not start")
        if not found:
            raise AssertionError(f"server did not start: {line}")

    def call(self, method: str, path: str, body: Any = None, timeout: float = 10) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            headers = {"Content-Type": "application/json"} if method == "POST" else {}
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            r = conn.getresponse()
            return r.status, json.loads(r.read() or b"null")
        finally:
            conn.close()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        if self.proc.stdout:
            self.proc.stdout.close()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def _bids(players: list[str], n: int) -> list[dict[str, Any]]:
    """``n`` ever-higher legal bids, players taking turns."""
    from referee.liars_dice import default_track

    bids = default_track().bids
    return [{"type": "bid", "player": players[i % len(players)], **bids[i].to_json()} for i in range(n)]


def test_sse_does_not_block_and_state_survives_kill(data: Path) -> None:
    server = Server(data)
    try:
        status, out = server.call("POST", "/api/tables", {"game": "liars-dice", "players": ["Wanjin", "Saewoon", "Mina"]})
        assert status == 201
        tid = out["table"]["id"]
        # Two live SSE streams stay open while the game goes on.
        streams = []
        for _ in range(2):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", f"/api/tables/{tid}/events")
            response = conn.getresponse()
            assert response.status == 200
            streams.append((conn, response))
        t0 = time.monotonic()
        events = [{"type": "start", "opener": "Wanjin"}, *_bids(["Wanjin", "Saewoon", "Mina"], 4),
                  {"type": "challenge", "player": "Saewoon"}]
        for event in events:
            status, out = server.call("POST", f"/api/tables/{tid}/actions", event)
            assert status == 200, out
        status, out = server.call("POST", f"/api/tables/{tid}/reveal",
                                  {"reading": {"objects": [{"face": "2"}] * 14}})
        assert status == 200 and out["status"] == "reread"
        status, out = server.call("POST", f"/api/tables/{tid}/reveal",
                                  {"reading": {"objects": [{"face": "3"}] * 15}})
        assert status == 200 and out["status"] == "verdict"
        assert time.monotonic() - t0 < 20
        for _, response in streams:  # each stream got the whole story, live
            seen = ""
            while "event: verdict" not in seen and time.monotonic() - t0 < 20:
                seen += response.read1(65536).decode()
            assert "event: state" in seen and "event: reread" in seen and "event: verdict" in seen
        for conn, _ in streams:
            conn.close()
        status, before = server.call("GET", f"/api/tables/{tid}")
        _, log_before = server.call("GET", f"/api/tables/{tid}/log")
        _, readings_before = server.call("GET", f"/api/tables/{tid}/readings")
    finally:
        server.kill()

    server = Server(data)
    try:
        _, after = server.call("GET", f"/api/tables/{tid}")
        _, log_after = server.call("GET", f"/api/tables/{tid}/log")
        _, readings_after = server.call("GET", f"/api/tables/{tid}/readings")
        assert log_after == log_before and after["state"] == before["state"]
        assert after["legal_actions"] == before["legal_actions"] and after["seq"] == len(events) + 1
        assert readings_after == readings_before
        # The game goes on from where it stopped.
        status, out = server.call("POST", f"/api/tables/{tid}/actions", {"type": "bid", "player": after["state"]["turn"],
                                                                         "quantity": 1, "face": "2"})
        assert status == 200 and out["seq"] == len(events) + 2
    finally:
        server.kill()


def test_kill_during_a_stream_of_writes(data: Path) -> None:
    server = Server(data)
    acknowledged: list[dict[str, Any]] = []
    try:
        status, out = server.call("POST", "/api/tables", {"game": "liars-dice", "players": ["A", "B"]})
        tid = out["table"]["id"]
        server.call("POST", f"/api/tables/{tid}/actions", {"type": "start", "opener": "A"})
        bids = _bids(["A", "B"], 40)
        in_flight: list[dict[str, Any]] = []

        def hammer() -> None:
            for bid in bids:
                in_flight[:] = [bid]
                try:
                    status, _ = server.call("POST", f"/api/tables/{tid}/actions", bid, timeout=5)
                except (OSError, http.client.HTTPException):
                    return
                if status != 200:
                    return
                acknowledged.append(bid)

        writer = threading.Thread(target=hammer)
        writer.start()
        deadline = time.monotonic() + 20
        while len(acknowledged) < 8 and time.monotonic() < deadline:
            time.sleep(0.005)
        server.kill()  # while the writer is in the middle of its stream
        writer.join(10)
        assert 8 <= len(acknowledged) < len(bids), "the kill must land in the middle of the writes"
    finally:
        if server.proc.poll() is None:
            server.kill()

    server = Server(data)
    try:
        status, log = server.call("GET", f"/api/tables/{tid}/log")
        assert status == 200
        stored = log["events"][1:]
        # Everything acknowledged is there, in order; at most the one request in flight got in too.
        assert stored[: len(acknowledged)] == acknowledged
        assert len(stored) - len(acknowledged) in (0, 1)
        if len(stored) > len(acknowledged):
            assert stored[-1] == in_flight[0]
        status, view = server.call("GET", f"/api/tables/{tid}")
        assert status == 200 and view["seq"] == len(stored) + 1
    finally:
        server.kill()
