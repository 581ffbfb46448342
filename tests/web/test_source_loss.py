"""The dashboard when its camera source disappears and comes back (an image folder as the camera).

The app runs on a real :class:`~vision.live.pipeline.LivePipeline` behind
:class:`~web.live.PipelineCamera`, with a fixed reader (a test double: this is about
the camera link, not about reading dice). The folder's images are taken away (the
folder emptied, or renamed away); ``/api/health`` and the table's SSE stream must say
the camera is offline, with the reason, the video stream must go on (a placard), and a
reveal must be refused as "camera offline". With the images back, the camera must come
online again by itself, and read frames again, within a bounded time.
"""

from __future__ import annotations

import json
import queue
import re
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.read.detections import Detection, Reading
from vision.live.pipeline import LivePipeline
from web.app import create_app
from web.live import PipelineCamera

OFFLINE_WITHIN_S = 15.0
#: The watchdog retries with backoff capped at 1 s here (``backoff_max_s``): generous for a loaded machine.
RECOVER_WITHIN_S = 15.0


class FixedReader:
    """Three dice, always in the same places (a test double for the dice reader)."""

    info = {"name": "fixed-reader", "version": "test"}

    def read(self, image: np.ndarray) -> Reading:
        dice = tuple(Detection("die", face, "white", (20.0 + 60 * i, 40.0, 70.0 + 60 * i, 90.0), 0.95)
                     for i, face in enumerate(["4", "wheel", "2"]))
        return Reading(dice, int(image.shape[1]), int(image.shape[0]), 1.0)


class SseReader:
    """Reads a table's SSE stream (Flask test client, unbuffered) on a thread into a queue."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        buffer = ""
        try:
            for chunk in self.response.response:  # keepalives arrive every SSE_KEEPALIVE_S
                if self._stop.is_set():
                    return
                buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    kind = re.search(r"^event: (.*)$", block, re.M)
                    data = re.search(r"^data: (.*)$", block, re.M)
                    if kind and data:
                        self.events.put((kind.group(1), json.loads(data.group(1))))
        finally:
            self.response.close()

    def wait(self, kind: str, match: Callable[[Any], bool], timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no '{kind}' event as expected within {timeout:g} s")
            try:
                got, data = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if got == kind and match(data):
                return data

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


def wait_for(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def table(image_folder: Path, name: str, shade: int) -> None:
    cv2.imwrite(str(image_folder / name), np.full((240, 320, 3), shade, np.uint8))


@pytest.mark.parametrize("how", ["emptied", "renamed"])
def test_camera_goes_offline_and_recovers_by_itself(tmp_path: Path, how: str) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    table(photos, "a.png", 80)
    table(photos, "b.png", 120)
    pipeline = LivePipeline(str(photos), FixedReader(), detect_fps=15, stream_fps=5,
                            source_options={"fps": 15, "hold_s": 0.2},
                            camera_options={"backoff_s": 0.2, "backoff_max_s": 1.0})
    camera = PipelineCamera(pipeline)
    app = create_app({"data_dir": tmp_path / "data", "settle_wait_s": 0.0}, camera)
    app.config["SSE_KEEPALIVE_S"] = 0.2
    client = app.test_client()
    camera.start()
    sse = None
    try:
        health = lambda: client.get("/api/health").json  # noqa: E731
        wait_for(lambda: health()["camera"]["online"], 30, "the folder camera to come online")
        r = client.post("/api/tables", json={"game": "liars-dice", "players": ["Wanjin", "Saewoon"]})
        tid = r.json["table"]["id"]
        for event in ({"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"},
                      {"type": "challenge", "player": "Saewoon"}):
            assert client.post(f"/api/tables/{tid}/actions", json=event).status_code == 200
        sse = SseReader(client.get(f"/api/tables/{tid}/events", buffered=False))
        sse.wait("camera", lambda d: d["online"] is True, 10)

        aside = tmp_path / "aside"
        if how == "emptied":
            aside.mkdir()
            for image in photos.iterdir():
                shutil.move(str(image), aside / image.name)
        else:
            photos.rename(aside)
        lost_at = time.monotonic()

        offline = sse.wait("camera", lambda d: d["online"] is False, OFFLINE_WITHIN_S)
        assert offline["state"] == "offline" and offline["last_error"]
        status = wait_for(lambda: (h := health()["camera"])["online"] is False and h, 5, "health to say offline")
        assert status["state"] == "offline" and status["source"] == str(photos)
        reason = status["last_error"]
        assert ("no readable images" in reason) if how == "emptied" else ("photos" in reason), reason
        print(f"\n{how}: offline after {time.monotonic() - lost_at:.2f} s: {reason}")

        # The video goes on (a placard saying why), and a reveal is refused with the reason.
        frame = client.get("/stream.mjpg?frames=1")
        assert frame.status_code == 200 and b"\xff\xd8" in frame.data
        refused = client.post(f"/api/tables/{tid}/reveal", json={})
        assert refused.status_code >= 400 and refused.json["error"]["code"] == "no_settled_reading"
        assert "offline" in refused.json["error"]["message"]

        if how == "emptied":
            for image in aside.iterdir():
                shutil.move(str(image), photos / image.name)
        else:
            aside.rename(photos)
        back_at = time.monotonic()
        online = sse.wait("camera", lambda d: d["online"] is True, RECOVER_WITHIN_S)
        recovered_s = time.monotonic() - back_at
        assert online["reconnects"] >= 1
        status = health()["camera"]
        assert status["online"] is True and status["state"] == "online"
        assert "demo" not in status  # only the demo source reports what it shows
        detected = health()["model"]["stats"]["frames_detected"]
        wait_for(lambda: health()["model"]["stats"]["frames_detected"] > detected + 3, 10, "frames read after recovery")
        print(f"{how}: back online {recovered_s:.2f} s after the images returned")

        # And the table can read the scene again.
        # (Each refused try asks the pipeline to read the still scene again: the next one has it.)
        out = wait_for(lambda: (o := client.post(f"/api/tables/{tid}/reveal", json={})).status_code == 200 and o,
                       10, "a reading after recovery")
        assert out.json["status"] == "reread"  # three dice read where ten are in play: the count does not add up
    finally:
        if sse is not None:
            sse.close()
        camera.stop()
        app.extensions["tableref"].sessions.close()
        app.extensions["tableref"].store.close()
