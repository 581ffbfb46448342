"""Helpers for the teaching tests: the tiny known reader's models, a camera that shows its
scene (each photo told apart by a mark far from the dice) and remembers the profile it
was asked to read with, and a dashboard that teaches with the tiny reader."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from web_support import ScriptedCamera

from tests.vision import tiny_reader as tiny
from vision.read.detections import Detection, Reading
from vision.live.overlay import encode_jpeg
from vision.read.reader import DiceReader, load_reader
from web.app import create_app
from web.camera import Settled

#: The tiny scene's dice as a player confirms them: the grey die (a tie for the tiny
#: classifier, read unsure) is a 2.
GREY = 3


def scene(mark: int) -> np.ndarray:
    """The tiny reader's frame with photo number ``mark`` drawn in a corner no die is near."""
    img = tiny.scene()
    cv2.putText(img, str(mark), (4, 470), cv2.FONT_HERSHEY_PLAIN, 1.0, (255, 255, 255), 1)
    return img


def jpeg(mark: int) -> bytes:
    return encode_jpeg(scene(mark), 95)


class TeachCamera(ScriptedCamera):
    """A scripted camera whose scene shown settles a moment later (a teaching read asks for a
    reading newer than its request), and which remembers the profiles it was given."""

    SETTLES_IN_S = 5.0

    def __init__(self) -> None:
        super().__init__()
        self.profiles: list[Any] = []

    def use_profile(self, profile: Any) -> None:
        self.profiles.append(profile)

    def show(self, reading: Reading, photo: bytes) -> None:
        seq = (self._settled.seq if self._settled else 0) + 1
        self._settled = Settled(reading, photo, time.time() + self.SETTLES_IN_S, seq)

    def show_roll(self, reader: DiceReader, mark: int) -> None:
        """The tiny scene number ``mark``, read by ``reader``."""
        self.show(reader.read(scene(mark)), jpeg(mark))


def liars_reading(faces: list[str]) -> Reading:
    """A Liar's Dice reveal of ``faces`` with boxes inside the tiny 640x480 frame."""
    dice = tuple(Detection("die", f, None, (20.0 + 60 * k, 200.0, 56.0 + 60 * k, 236.0), 0.95)
                 for k, f in enumerate(faces))
    return Reading(dice, tiny.FRAME_W, tiny.FRAME_H, 5.0)


def make_app(data: Path, camera: Any, models: Path | None) -> Any:
    app = create_app({"data_dir": data, "settle_wait_s": 0.0}, camera,
                     teach_reader=None if models is None else (lambda: load_reader(models, cards=False)))
    app.config["TESTING"] = True
    return app


@contextmanager
def running(app: Any) -> Iterator[Any]:
    """``app`` for the ``with`` block, then its teaching worker and its table store closed (a
    restart's second app, or one made with other settings, must not leave threads or files open)."""
    try:
        yield app
    finally:
        app.extensions["tableref_teaching"].close()
        app.extensions["tableref"].store.close()


def confirmed(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A teaching reading as a player confirms it: the grey die corrected to a 2."""
    out = [dict(o) for o in objects]
    for o in out:
        if o["box"][0] == 200.0:
            o.update(face="2", corrected=True, uncertain=False)
            o.pop("alternatives", None)
    return out
