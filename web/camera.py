"""The dashboard's view of the camera: a small protocol, whatever runs behind it.

The web side needs four things from a camera: is it online, the newest annotated
frame (for ``/stream.mjpg``), a settled reading with the photo it was read from
(for a reveal), and a call when either of those changes (for the live page).
:class:`TableCamera` is that protocol; :class:`NoCamera` is the honest answer
when the server runs without one (``--source none``: readings are entered by
hand), and :mod:`web.live` adapts the vision pipeline to it.

>>> cam = NoCamera(placard=lambda: b"JPEG")
>>> cam.status()["online"], cam.settled_after(0.0, timeout=0)
(False, None)
>>> next(cam.mjpeg(fps=5)).startswith(b"--frame")
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from vision.read.detections import Reading

JSON = dict[str, Any]

#: ``callback(kind, data)`` with kind ``"camera"`` (status changed: data is the status)
#: or ``"settled"`` (a new settled reading: data is its summary).
Listener = Callable[[str, JSON], None]


@dataclass(frozen=True)
class Settled:
    """A settled reading, the JPEG of the frame it was read from, and when it settled.

    ``at`` is wall-clock time (``time.time()``), comparable with the times of the
    table's events; ``seq`` counts settled readings of this camera from 1.
    """

    reading: Reading
    jpeg: bytes | None
    at: float
    seq: int


@runtime_checkable
class TableCamera(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...

    def status(self) -> JSON:
        """At least ``{"online": bool, "source": str}``."""
        ...

    def info(self) -> JSON:
        """What reads the frames (model name, version, input size ...), for ``/api/health``."""
        ...

    def mjpeg(self, fps: float, max_frames: int | None = None) -> Iterator[bytes]:
        """Multipart chunks (boundary ``frame``) of the annotated view, at most ``fps`` a second."""
        ...

    def settled_after(self, t: float, timeout: float) -> Settled | None:
        """The newest settled reading if it settled after ``t``; else wait up to
        ``timeout`` seconds for one (asking the camera to read the still scene again)."""
        ...

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every change; returns the function that unsubscribes."""
        ...

    def expect(self, game: str, state: JSON) -> None:
        """A table now waits for a reading (``state`` is its state JSON, see
        :func:`reveal_hint`): a hint for the camera, e.g. the demo source shows a reveal
        with the dice in play. May do nothing."""
        ...

    def keep(self) -> None:
        """The table has taken the reading of the reveal it waited for: what is on the table
        stays as it is (the demo source rolls nothing new until the next :meth:`expect`, as
        when that reading does not add up). May do nothing."""
        ...


def reveal_hint(state: Any) -> JSON:
    """``state``'s JSON for :meth:`TableCamera.expect`, plus, for a Doubt reveal, what it
    must show (``reveal``: ``count``, ``rank`` and the ``possible`` cards), so the demo
    source shows a play the referee can accept."""
    out = dict(state.to_json())
    expected = getattr(state, "expected_reveal", None)
    spec = expected() if callable(expected) else None
    if spec is not None:
        out["reveal"] = {"count": spec.count, "rank": str(spec.rank), "possible": sorted(str(c) for c in spec.possible)}
    return out


MJPEG_BOUNDARY = "frame"
MJPEG_MIMETYPE = f"multipart/x-mixed-replace; boundary={MJPEG_BOUNDARY}"


def mjpeg_part(jpeg: bytes) -> bytes:
    head = f"--{MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
    return head.encode() + jpeg + b"\r\n"


def mjpeg_from(frame: Callable[[], tuple[object, bytes] | None], fps: float, max_frames: int | None = None,
               repeat_s: float = 2.0) -> Iterator[bytes]:
    """MJPEG chunks from ``frame() -> (key, jpeg)``: a new chunk when the key changes (at most
    ``fps`` a second), and the same frame again every ``repeat_s`` so a closed connection is noticed."""
    period = 1.0 / fps
    last_key: object = object()
    last_sent = -repeat_s
    sent = 0
    while max_frames is None or sent < max_frames:
        got = frame()
        now = time.monotonic()
        if got is not None and (got[0] != last_key or now - last_sent >= repeat_s):
            last_key, last_sent = got[0], now
            yield mjpeg_part(got[1])
            sent += 1
        time.sleep(max(0.0, last_sent + period - time.monotonic()) if got is not None else period)


def _placard() -> bytes:
    from vision.live.overlay import draw_placard, encode_jpeg

    return encode_jpeg(draw_placard(["no camera", "enter readings by hand", "tableref serve --source 0|FILE|URL|DIR|demo"]))


class NoCamera:
    """No camera at all: always offline, never a reading. Reveals are entered by hand."""

    def __init__(self, reason: str = "no camera (--source none)", placard: Callable[[], bytes] = _placard) -> None:
        self._reason = reason
        self._make_placard = placard
        self._placard: bytes | None = None

    def start(self) -> None:
        return None

    def stop(self) -> None:
        return None

    def status(self) -> JSON:
        return {"online": False, "source": "none", "state": "offline", "last_error": self._reason}

    def info(self) -> JSON:
        return {"reader": None}

    def mjpeg(self, fps: float, max_frames: int | None = None) -> Iterator[bytes]:
        if self._placard is None:
            self._placard = self._make_placard()
        placard = self._placard
        return mjpeg_from(lambda: ("placard", placard), min(fps, 1.0), max_frames)

    def settled_after(self, t: float, timeout: float) -> Settled | None:
        return None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return lambda: None

    def expect(self, game: str, state: JSON) -> None:
        return None

    def keep(self) -> None:
        return None
