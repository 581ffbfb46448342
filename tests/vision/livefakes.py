"""Test doubles for the live pipeline tests: drawn scenes, a blob reader, scripted sources.

The blob reader is a fake *reader* for tests only: it finds bright discs drawn by
:func:`scene` and reads a die's face from the disc's red channel (see ``FACE_LEVELS``),
so a test controls exactly what the "model" sees.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.read.detections import Detection, Reading
from vision.live.sources import SourceLost

FACE_LEVELS = {"1": 130, "2": 150, "3": 170, "4": 190, "5": 210, "6": 230, "wheel": 250}
_LEVEL_FACE = {v: k for k, v in FACE_LEVELS.items()}



def wait_until(cond: Callable[[], bool], timeout: float = 8.0) -> bool:
    """Poll ``cond`` until it holds or ``timeout`` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return cond()

def scene(dice: Sequence[tuple[int, int, str]], size: tuple[int, int] = (320, 240), radius: int = 16) -> np.ndarray:
    """A dark table with one disc per ``(x, y, face)``."""
    w, h = size
    img = np.full((h, w, 3), 40, np.uint8)
    for x, y, face in dice:
        cv2.circle(img, (x, y), radius, (255, 255, FACE_LEVELS[face]), -1)
    return img


def write_scene(path: Path, dice: Sequence[tuple[int, int, str]]) -> Path:
    cv2.imwrite(str(path), scene(dice))
    return path


class BlobReader:
    """Finds the discs of :func:`scene` and reads their faces from the red level."""

    info = {"name": "blob-reader", "kind": "test double"}

    def __init__(self) -> None:
        self.calls = 0
        self.threads: set[str] = set()

    def read(self, image_bgr: np.ndarray) -> Reading:
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        mask = (image_bgr[:, :, 0] > 200).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        objects = []
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < 20:
                continue
            red = int(image_bgr[y + h // 2, x + w // 2, 2])
            level = min(_LEVEL_FACE, key=lambda v: abs(v - red))
            objects.append(Detection("die", _LEVEL_FACE[level], "white", (float(x), float(y), float(x + w), float(y + h)), 0.9))
        objects.sort(key=lambda d: d.box)
        return Reading(tuple(objects), image_bgr.shape[1], image_bgr.shape[0], 0.1)


class ScriptedSource:
    """A frame source that serves ``frames`` images, then fails or freezes as told."""

    live = True

    def __init__(
        self,
        image: np.ndarray,
        *,
        frames: int | None = None,
        then: str = "lose",
        release: threading.Event | None = None,
        period: float = 0.01,
    ) -> None:
        self.name = "scripted"
        self.image = image
        self.left = frames
        self.then = then
        self.release = release or threading.Event()
        self.period = period
        self.closed = False

    def read(self) -> np.ndarray:
        if self.left is not None:
            if self.left <= 0:
                if self.then == "freeze":
                    self.release.wait(30)
                raise SourceLost(name=self.name, reason="scripted loss")
            self.left -= 1
        threading.Event().wait(self.period)
        return self.image

    def close(self) -> None:
        self.closed = True


class Opener:
    """Calls ``factories`` in turn, one per open attempt (the last one repeats), recording when."""

    def __init__(self, *factories: Callable[[], object]) -> None:
        self.factories = list(factories)
        self.calls: list[float] = []
        self.opened: list[object] = []
        self.__name__ = "scripted"

    def __call__(self) -> object:
        import time

        self.calls.append(time.monotonic())
        factory = self.factories[min(len(self.calls) - 1, len(self.factories) - 1)]
        source = factory()
        self.opened.append(source)
        return source
