"""A capture thread that always holds the newest frame, and a watchdog that keeps it alive.

:class:`Camera` reads a :class:`~vision.live.sources.FrameSource` on its own thread and keeps
only the latest frame (older ones are dropped, so a slow consumer never sees a backlog).
A watchdog thread notices when the source is lost (``read()`` raised) or frozen (no new
frame for ``stall_s`` seconds, or an open that hangs for ``open_timeout_s``) and opens it
again, waiting ``backoff_s``, then twice that, ... up to ``backoff_max_s`` between tries.
A frozen read cannot be interrupted, so the stuck worker is abandoned (it exits by itself
if its call ever returns) and a fresh one takes over.

Status (online/offline, last error, since when, measured fps) is available any time from
:meth:`Camera.status` and is pushed to listeners whenever it changes state or error::

    cam = Camera("0")
    cam.add_listener(lambda st: print(st.state, st.last_error))
    cam.start()
    frame = cam.wait_frame(after=-1, timeout=5.0)
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.live.sources import FrameSource, SourceError, open_source

log = logging.getLogger(__name__)

Opener = Callable[[], FrameSource]
StatusListener = Callable[["CameraStatus"], None]


@dataclass(frozen=True, eq=False)
class Frame:
    """One captured image. ``index`` counts up across reconnects; ``t`` is ``time.monotonic()``
    and ``wall`` is ``time.time()`` at capture."""

    image: np.ndarray
    index: int
    t: float
    wall: float


@dataclass(frozen=True)
class CameraStatus:
    """A snapshot of the capture link.

    ``since`` is the wall-clock time (``time.time()``) of the last change between online
    and offline; ``last_error`` the player-facing reason of the last failure (kept after
    recovery, so the page can say what happened); ``retry_in`` seconds until the next
    attempt while offline.
    """

    source: str
    running: bool
    online: bool
    since: float
    last_error: str | None = None
    error_code: str | None = None
    fps: float = 0.0
    frames: int = 0
    reconnects: int = 0
    retry_in: float | None = None

    @property
    def state(self) -> str:
        """``"online"``, ``"offline"``, ``"connecting"`` (no failure yet) or ``"stopped"``."""
        if not self.running:
            return "stopped"
        if self.online:
            return "online"
        return "offline" if self.last_error else "connecting"

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "state": self.state,
            "online": self.online,
            "since": round(self.since, 3),
            "last_error": self.last_error,
            "error_code": self.error_code,
            "fps": round(self.fps, 2),
            "frames": self.frames,
            "reconnects": self.reconnects,
            "retry_in": None if self.retry_in is None else round(self.retry_in, 2),
        }


class Camera:
    """Latest-frame capture with a reconnecting watchdog. Thread-safe.

    ``source`` is a spec for :func:`~vision.live.sources.open_source` or a zero-argument
    callable returning a :class:`~vision.live.sources.FrameSource` (tests pass fakes).
    """

    def __init__(
        self,
        source: str | Opener,
        *,
        name: str | None = None,
        stall_s: float = 3.0,
        open_timeout_s: float = 15.0,
        backoff_s: float = 0.5,
        backoff_max_s: float = 10.0,
        fps_window: int = 30,
        source_options: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(source, str):
            self._opener: Opener = functools.partial(open_source, source, **(source_options or {}))
            self.name: str = name or source
        else:
            self._opener = source
            self.name = name or str(getattr(source, "__name__", "source"))
        self.stall_s = stall_s
        self.open_timeout_s = open_timeout_s
        self.backoff_s = backoff_s
        self.backoff_max_s = backoff_max_s

        self._cond = threading.Condition()
        self._listeners: list[StatusListener] = []
        self._stop = threading.Event()
        self._running = False
        self._generation = 0
        self._worker: threading.Thread | None = None
        self._watchdog: threading.Thread | None = None
        self._source: FrameSource | None = None

        self._latest: Frame | None = None
        self._next_index = 0
        self._times: deque[float] = deque(maxlen=max(2, fps_window))
        self._online = False
        self._online_at = 0.0
        self._since = time.time()
        self._error: str | None = None
        self._error_code: str | None = None
        self._failures = 0
        self._reconnects = 0
        self._ever_online = False
        self._retry_at: float | None = None
        # What the current worker is blocked in, and since when (for the watchdog).
        self._phase = "idle"
        self._phase_since = time.monotonic()

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> "Camera":
        with self._cond:
            if self._running:
                return self
            self._running = True
            self._stop.clear()
            self._phase, self._phase_since = "starting", time.monotonic()
        self._notify()  # "connecting", always before anything the worker reports
        with self._cond:
            if not self._running:  # stopped meanwhile
                return self
            self._spawn_worker_locked()
        self._watchdog = threading.Thread(target=self._watch, name=f"camera-watchdog[{self.name}]", daemon=True)
        self._watchdog.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        with self._cond:
            if not self._running:
                return
            self._running = False
            self._generation += 1  # any worker still inside read() exits when it returns
            self._stop.set()
            self._online = False
            self._cond.notify_all()
        for thread in (self._worker, self._watchdog):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout)
        self._notify()

    def __enter__(self) -> "Camera":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- observing ----------------------------------------------------------------------

    def latest(self) -> Frame | None:
        """The newest frame (possibly stale while offline: check :meth:`status`)."""
        with self._cond:
            return self._latest

    def wait_frame(self, after: int = -1, timeout: float | None = None) -> Frame | None:
        """Block until a frame newer than index ``after`` exists; ``None`` on timeout or stop."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._running and (self._latest is None or self._latest.index <= after):
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            if self._latest is None or self._latest.index <= after:
                return None
            return self._latest

    def status(self) -> CameraStatus:
        with self._cond:
            return self._status_locked()

    def current_source(self) -> FrameSource | None:
        """The source object now open (``None`` while offline), e.g. to send the demo a hint."""
        with self._cond:
            return self._source

    def add_listener(self, listener: StatusListener) -> Callable[[], None]:
        """Call ``listener(status)`` on every change of state or error. Returns an unsubscribe function.

        Listeners run on the camera's threads: keep them short and never block.
        """
        with self._cond:
            self._listeners.append(listener)

        def remove() -> None:
            with self._cond:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return remove

    # -- internals ----------------------------------------------------------------------

    def _status_locked(self) -> CameraStatus:
        now = time.monotonic()
        fps = 0.0
        if self._online and len(self._times) >= 2:
            span = self._times[-1] - self._times[0]
            # Count the time since the last frame too, so a slowing source shows a falling fps.
            span = max(span, now - self._times[0] - (span / (len(self._times) - 1)))
            fps = (len(self._times) - 1) / span if span > 0 else 0.0
        retry_in = None
        if self._running and not self._online and self._retry_at is not None:
            retry_in = max(0.0, self._retry_at - now)
        return CameraStatus(
            source=self.name,
            running=self._running,
            online=self._online,
            since=self._since,
            last_error=self._error,
            error_code=self._error_code,
            fps=fps,
            frames=self._next_index,
            reconnects=self._reconnects,
            retry_in=retry_in,
        )

    def _notify(self) -> None:
        with self._cond:
            status = self._status_locked()
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(status)
            except Exception:  # a broken listener must not kill capture
                log.exception("camera status listener failed")

    def _spawn_worker_locked(self) -> None:
        self._generation += 1
        self._source = None
        self._phase, self._phase_since = "starting", time.monotonic()
        gen = self._generation
        self._worker = threading.Thread(target=self._work, args=(gen,), name=f"camera[{self.name}]#{gen}", daemon=True)
        self._worker.start()

    def _current(self, gen: int) -> bool:
        return self._running and gen == self._generation

    def _set_phase(self, gen: int, phase: str) -> bool:
        with self._cond:
            if not self._current(gen):
                return False
            self._phase, self._phase_since = phase, time.monotonic()
            return True

    def _delay(self) -> float:
        if self._failures <= 0:
            return 0.0
        return min(self.backoff_max_s, self.backoff_s * 2 ** (self._failures - 1))

    def _fail(self, gen: int | None, err: BaseException) -> float:
        """Record a failure; returns how long to wait before the next attempt."""
        if isinstance(err, SourceError):
            text, code = str(err), err.code
        else:
            text, code = f"{type(err).__name__}: {err}", "source_failed"
        with self._cond:
            if gen is not None and not self._current(gen):
                return 0.0
            changed = self._online or text != self._error
            if self._online:
                self._since = time.time()
                self._reconnects += 1
            self._online = False
            self._times.clear()
            self._error, self._error_code = text, code
            self._source = None
            self._failures += 1
            delay = self._delay()
            self._retry_at = time.monotonic() + delay
            self._phase, self._phase_since = "waiting", time.monotonic()
            self._cond.notify_all()
        if changed:
            self._notify()
        return delay

    def _publish(self, gen: int, image: np.ndarray) -> bool:
        now = time.monotonic()
        with self._cond:
            if not self._current(gen):
                return False
            self._latest = Frame(image=image, index=self._next_index, t=now, wall=time.time())
            self._next_index += 1
            self._times.append(now)
            self._phase, self._phase_since = "reading", now
            came_online = not self._online
            if came_online:
                self._online = True
                self._online_at = now
                self._since = time.time()
                self._retry_at = None
                self._ever_online = True
            elif self._failures and now - self._online_at >= self.stall_s:
                self._failures = 0  # proven stable: the next loss starts the backoff afresh
            self._cond.notify_all()
        if came_online:
            self._notify()
        return True

    def _work(self, gen: int) -> None:
        source: FrameSource | None = None
        try:
            while not self._stop.is_set():
                if source is None:
                    if not self._set_phase(gen, "opening"):
                        return
                    try:
                        source = self._opener()
                    except Exception as err:  # SourceError, or anything a custom opener raises
                        delay = self._fail(gen, err)
                        if self._stop.wait(delay):
                            return
                        continue
                    with self._cond:
                        if not self._current(gen):
                            return
                        self._source = source
                        self._phase, self._phase_since = "reading", time.monotonic()
                try:
                    image = source.read()
                except Exception as err:
                    _close_quietly(source)
                    source = None
                    delay = self._fail(gen, err)
                    if self._stop.wait(delay):
                        return
                    continue
                if not self._publish(gen, image):
                    return
        finally:
            if source is not None:
                _close_quietly(source)

    def _watch(self) -> None:
        tick = max(0.02, min(0.25, self.stall_s / 4))
        while not self._stop.wait(tick):
            stalled: str | None = None
            with self._cond:
                if not self._running:
                    return
                idle = time.monotonic() - self._phase_since
                if self._phase == "reading" and idle > self.stall_s:
                    stalled = f"no new frame for {self.stall_s:g} s"
                elif self._phase == "opening" and idle > self.open_timeout_s:
                    stalled = f"opening took longer than {self.open_timeout_s:g} s"
                worker_dead = self._worker is not None and not self._worker.is_alive()
                if worker_dead and not self._stop.is_set():
                    stalled = stalled or "capture thread ended"
                if stalled is None:
                    continue
                self._generation += 1  # abandon the stuck worker: its results are ignored from now on
                abandoned_gen = self._generation
            delay = self._fail(None, _Frozen(stalled))
            if self._stop.wait(delay):
                return
            with self._cond:
                if not self._running or self._generation != abandoned_gen:
                    continue
                self._spawn_worker_locked()


class _Frozen(SourceError):
    code = "source_frozen"
    templates = {
        "en": "the source froze: {reason}",
        "ja": "映像が止まりました: {reason}",
    }

    def __init__(self, reason: str) -> None:
        super().__init__(reason=reason)


def _close_quietly(source: FrameSource) -> None:
    try:
        source.close()
    except Exception:
        log.debug("closing %s failed", getattr(source, "name", source), exc_info=True)
