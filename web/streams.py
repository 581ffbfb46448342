"""Open video streams: how many, and what happens to a viewer that stops reading.

Each ``/stream.mjpg`` viewer holds a server thread for as long as it watches, so at
most ``max_streams`` are open. Two rules keep that limit from locking viewers out:

- A write to a viewer must finish within ``stream_send_timeout_s`` (a socket send
  timeout): a viewer that stops reading (a phone put to sleep, a stuck tab, a client
  that never reads) fails its next write once its (small) buffers are full, and frees
  its slot.
- The host computer (a loopback client, see :mod:`web.security`) always gets the
  stream: when every slot is taken, the stream served least recently is closed for
  it, another device's before one of the host's own. Other devices are refused (503)
  until a slot frees.

>>> slots = StreamSlots(limit=1)
>>> phone = slots.take(host=False)
>>> slots.take(host=False)
Traceback (most recent call last):
...
web.streams.TooManyStreams: Too many video streams are open (at most 1).
>>> screen = slots.take(host=True)
>>> phone.closed, slots.open
(True, 1)
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from web.errors import WebError


class TooManyStreams(WebError):
    code = "too_many_streams"
    status = 503
    templates = {"en": "Too many video streams are open (at most {limit}).", "ja": "映像の同時視聴数が上限（{limit}）に達しています。"}


class Stream:
    """One open stream: whose it is, when its last chunk was written, and how to end it early."""

    def __init__(self, host: bool, hang_up: Callable[[], None]) -> None:
        self.host = host
        self.served = time.monotonic()
        self.closed = False
        self._hang_up = hang_up

    def close(self) -> None:
        """End the stream at its next chunk, and now if a write to it is blocked."""
        self.closed = True
        self._hang_up()


class StreamSlots:
    """The open MJPEG streams of one app, at most ``limit`` (see the module's rules)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: list[Stream] = []
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        with self._lock:
            return len(self._open)

    def take(self, host: bool, hang_up: Callable[[], None] = lambda: None) -> Stream:
        """A slot for a new viewer (``host``: the host computer's), or :class:`TooManyStreams`.
        ``hang_up`` shuts the viewer's connection, for when the host needs its slot."""
        stream = Stream(host, hang_up)
        victim: Stream | None = None
        with self._lock:
            if len(self._open) >= self.limit:
                if not host or not self._open:
                    raise TooManyStreams(limit=self.limit)
                victim = min(self._open, key=lambda s: (s.host, s.served))
                self._open.remove(victim)
            self._open.append(stream)
        if victim is not None:
            victim.close()
        return stream

    def give(self, stream: Stream) -> None:
        """Free ``stream``'s slot (again is harmless)."""
        with self._lock:
            if stream in self._open:
                self._open.remove(stream)

    def serve(self, stream: Stream, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks`` for ``stream``'s viewer, noting when each was written, until the stream is closed."""
        try:
            for chunk in chunks:
                if stream.closed:
                    return
                yield chunk
                stream.served = time.monotonic()  # the write of ``chunk`` has returned
        finally:
            self.give(stream)
            close = getattr(chunks, "close", None)
            if close is not None:
                close()


#: The kernel's send buffer asked for a streaming connection. By default a viewer that never
#: reads takes 2.9 MB (measured on loopback) before a write blocks and the send timeout
#: starts: 3-6 s of camera frames but 8 minutes of the 6 KB/s no-camera placard. With 128 KB
#: (Linux doubles it) it takes 0.3 MB, under a second of frames and 51 s of placard, and the
#: buffer still carries 2.6 MB/s to a phone 100 ms away, more than 10 frames a second of a
#: 1280x720 view need.
STREAM_SEND_BUFFER = 128 * 1024


def bound_sending(environ: dict[str, Any], seconds: float) -> Callable[[], None]:
    """Give the request's connection a send timeout of ``seconds`` and a small send buffer
    (:data:`STREAM_SEND_BUFFER`), and return what hangs it up. Werkzeug's server puts the
    socket in ``werkzeug.socket``; without one (a test client) nothing is done."""
    sock = environ.get("werkzeug.socket")
    if not isinstance(sock, socket.socket):
        return lambda: None
    sock.settimeout(seconds)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_SEND_BUFFER)
    except OSError:  # a platform that will not say: the send timeout still holds
        pass

    def hang_up() -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)  # a write blocked on it returns with an error now
        except OSError:
            pass

    return hang_up
