"""Frame pacing for sources that are not a live device: a still folder, a video file, the demo.

A camera delivers frames at its own rate; a source that replays stored or rendered pixels
would otherwise hand them out as fast as the reader asks. :class:`Pacer` makes such a source
deliver ``fps`` frames a second, so a reader sees it exactly as it would see a camera.
It lives here rather than in :mod:`vision.live.sources` because the demo source
(:mod:`vision.demo.table`) paces itself too, and :mod:`vision.live.sources` opens the demo.

>>> Pacer(0)
Traceback (most recent call last):
...
ValueError: fps must be positive, got 0
>>> Pacer(20).period
0.05
"""

from __future__ import annotations

import time


class Pacer:
    """Sleeps so that successive ``wait()`` calls return ``fps`` times a second.

    If the caller falls behind by more than a frame, the schedule restarts from now
    rather than bursting frames to catch up.
    """

    def __init__(self, fps: float) -> None:
        if fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.period = 1.0 / fps
        self._next: float | None = None

    def wait(self) -> None:
        now = time.monotonic()
        if self._next is None or now - self._next > self.period:
            self._next = now
        delay = self._next - now
        if delay > 0:
            time.sleep(delay)
        self._next += self.period
