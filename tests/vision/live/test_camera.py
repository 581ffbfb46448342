"""Capture thread and watchdog: newest frame only, loss and freeze detection, reconnect with backoff."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import numpy as np

from tests.vision.livefakes import Opener, ScriptedSource, wait_until, write_scene
from vision.live.camera import Camera, CameraStatus
from vision.live.sources import FolderEmpty

IMAGE = np.zeros((8, 8, 3), np.uint8)



class Recorder:
    def __init__(self) -> None:
        self.seen: list[CameraStatus] = []
        self.lock = threading.Lock()

    def __call__(self, status: CameraStatus) -> None:
        with self.lock:
            self.seen.append(status)

    def states(self) -> list[str]:
        with self.lock:
            out: list[str] = []
            for s in self.seen:
                if not out or out[-1] != s.state:
                    out.append(s.state)
            return out


def test_folder_camera_delivers_frames_and_measures_fps(tmp_path: Path) -> None:
    write_scene(tmp_path / "a.png", [(50, 50, "1")])
    with Camera(str(tmp_path), source_options={"fps": 40}) as cam:
        first = cam.wait_frame(timeout=5)
        assert first is not None and first.image.shape == (240, 320, 3)
        assert wait_until(lambda: cam.status().frames >= 25)
        status = cam.status()
        assert status.online and status.state == "online" and status.last_error is None
        assert 25 < status.fps < 55
    assert cam.status().state == "stopped"


def test_only_the_newest_frame_is_kept() -> None:
    opener = Opener(lambda: ScriptedSource(IMAGE, period=0.002))
    with Camera(opener) as cam:
        a = cam.wait_frame(timeout=5)
        assert a is not None
        time.sleep(0.1)  # a slow consumer
        b = cam.wait_frame(after=a.index, timeout=5)
        assert b is not None and b.index > a.index + 5  # frames in between were dropped, not queued
        assert cam.latest() is not None and cam.latest().index >= b.index


def test_lost_source_goes_offline_then_online_by_itself() -> None:
    opener = Opener(lambda: ScriptedSource(IMAGE, frames=5), lambda: ScriptedSource(IMAGE))
    events = Recorder()
    cam = Camera(opener, backoff_s=0.05)
    cam.add_listener(events)
    with cam:
        assert wait_until(lambda: len(opener.calls) >= 2 and cam.status().online and cam.status().frames > 10)
        status = cam.status()
        assert status.reconnects == 1
        assert "scripted loss" in (status.last_error or "")  # the reason stays visible after recovery
    assert events.states() == ["connecting", "online", "offline", "online", "stopped"]
    offline = next(s for s in events.seen if s.state == "offline")
    assert offline.error_code == "source_lost" and offline.retry_in is not None
    assert opener.opened[0].closed


def test_emptied_folder_goes_offline_until_refilled(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    write_scene(folder / "a.png", [(50, 50, "2")])
    events = Recorder()
    cam = Camera(str(folder), backoff_s=0.02, backoff_max_s=0.1, source_options={"fps": 50, "hold_s": 0.04})
    cam.add_listener(events)
    with cam:
        assert wait_until(lambda: cam.status().online)
        shutil.rmtree(folder)
        folder.mkdir()
        assert wait_until(lambda: not cam.status().online)
        time.sleep(0.3)  # stays offline, retrying, while there is nothing to show
        status = cam.status()
        assert not status.online and status.error_code == FolderEmpty.code
        assert "has no readable images" in (status.last_error or "")
        write_scene(folder / "b.png", [(80, 80, "6")])
        assert wait_until(lambda: cam.status().online)
        frame = cam.wait_frame(after=cam.latest().index, timeout=5)
        assert frame is not None and frame.image[80, 80, 2] == 230
    assert events.states()[:4] == ["connecting", "online", "offline", "online"]


def test_frozen_source_is_abandoned_and_reopened() -> None:
    release = threading.Event()
    opener = Opener(lambda: ScriptedSource(IMAGE, frames=3, then="freeze", release=release), lambda: ScriptedSource(IMAGE))
    events = Recorder()
    cam = Camera(opener, stall_s=0.2, backoff_s=0.01)
    cam.add_listener(events)
    try:
        with cam:
            assert wait_until(lambda: len(opener.calls) >= 2 and cam.status().online)
            frozen = [s for s in events.seen if s.state == "offline"]
            assert frozen and frozen[0].error_code == "source_frozen"
            assert "no new frame for 0.2 s" in (frozen[0].last_error or "")
            n = cam.status().frames
            assert wait_until(lambda: cam.status().frames > n + 5)  # the fresh worker delivers
    finally:
        release.set()  # let the abandoned worker return; it must not publish or reopen
    time.sleep(0.05)
    assert len(opener.calls) == 2


def test_backoff_doubles_and_is_capped() -> None:
    def fail() -> ScriptedSource:
        raise FolderEmpty(path="x")

    opener = Opener(fail)
    cam = Camera(opener, backoff_s=0.03, backoff_max_s=0.12)
    with cam:
        assert wait_until(lambda: len(opener.calls) >= 6, timeout=5)
        status = cam.status()
    gaps = np.diff(opener.calls[:6])
    # Sleeps never end early; on a busy machine they may end late, hence the loose upper bounds.
    for gap, expected in zip(gaps, (0.03, 0.06, 0.12, 0.12, 0.12)):
        assert expected * 0.9 <= gap <= expected + 0.1
    assert status.state == "offline" and status.retry_in is not None and status.retry_in <= 0.12


def test_listener_errors_do_not_stop_capture() -> None:
    def broken(_: CameraStatus) -> None:
        raise RuntimeError("listener bug")

    cam = Camera(Opener(lambda: ScriptedSource(IMAGE)))
    cam.add_listener(broken)
    with cam:
        assert wait_until(lambda: cam.status().frames > 3)


def test_unsubscribe_and_wait_frame_timeout() -> None:
    events = Recorder()
    cam = Camera(Opener(lambda: ScriptedSource(IMAGE)))
    remove = cam.add_listener(events)
    remove()
    assert cam.wait_frame(timeout=0.01) is None  # not started
    with cam:
        assert cam.wait_frame(timeout=5) is not None
    assert events.seen == []


def test_stop_is_prompt_even_while_a_read_hangs() -> None:
    release = threading.Event()
    cam = Camera(Opener(lambda: ScriptedSource(IMAGE, frames=1, then="freeze", release=release)), stall_s=30)
    cam.start()
    assert cam.wait_frame(timeout=5) is not None
    t0 = time.monotonic()
    cam.stop(timeout=0.2)
    assert time.monotonic() - t0 < 1.0
    assert cam.wait_frame(after=10**9, timeout=1) is None
    release.set()
