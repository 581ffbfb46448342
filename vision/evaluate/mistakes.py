"""What a reader got wrong on one labelled photo, and a picture of it (``tableref eval --mistakes DIR``).

A photo's dice are read exactly when every labelled die is matched (IoU at least the
threshold, as :func:`vision.evaluate.scoring.score` matches) with its own face and nothing else is
read: the rule of the scene-exact rate. Anything else is drawn: the reading as the
overlay shows it, wrong and extra readings highlighted, and each missed die's true box
in red, with a headline that says what went wrong.

>>> from vision.read.detections import Detection as D
>>> truth = [D("die", "3", None, (0, 0, 10, 10), 1.0), D("die", "5", None, (20, 0, 30, 10), 1.0)]
>>> errors = dice_errors(truth, [D("die", "2", "red", (0, 0, 10, 10), 0.95), D("die", "6", None, (50, 50, 60, 60), 0.4, uncertain=True)])
>>> errors.exact, errors.headline()
(False, 'missed 1 (5) | wrong 1: 3 read 2 sure | extra 1')
>>> dice_errors(truth, truth).exact
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.read.boxes import greedy_match
from vision.read.detections import Detection
from vision.live.overlay import OverlayStyle, draw_overlay, encode_jpeg, face_text

MISSED_STYLE = OverlayStyle(box=(40, 40, 235), scores=False, colours=False, thickness=2)
"""A missed die's true box: red, labelled with its true face."""


def _ascii(face: str) -> str:
    return face_text(face, cjk=False)


@dataclass(frozen=True)
class DiceErrors:
    """One photo's dice mistakes: labelled dice missed, dice read with another face, readings of no labelled die."""

    missed: tuple[Detection, ...]
    wrong: tuple[tuple[Detection, Detection], ...]  # (truth, reading)
    extra: tuple[Detection, ...]

    @property
    def exact(self) -> bool:
        return not (self.missed or self.wrong or self.extra)

    def headline(self, show: int = 3) -> str:
        """One ASCII line (katakana as their romaji names): what was missed, misread and read extra."""
        parts = []
        if self.missed:
            parts.append(f"missed {len(self.missed)} ({', '.join(_ascii(d.face) for d in self.missed[:show])}"
                         + (", ..." if len(self.missed) > show else "") + ")")
        if self.wrong:
            said = [f"{_ascii(t.face)} read {_ascii(r.face)} {'unsure' if r.uncertain else 'sure'}" for t, r in self.wrong[:show]]
            parts.append(f"wrong {len(self.wrong)}: " + ", ".join(said) + (", ..." if len(self.wrong) > show else ""))
        if self.extra:
            sure = sum(not d.uncertain for d in self.extra)
            parts.append(f"extra {len(self.extra)}" + (f" ({sure} sure)" if sure else ""))
        return " | ".join(parts) or "exact"


def dice_errors(truth: Sequence[Detection], reading: Sequence[Detection], iou_threshold: float = 0.5) -> DiceErrors:
    """Match the dice of ``reading`` to those of ``truth`` (other kinds are left out) and list the mistakes."""
    g = [o for o in truth if o.kind == "die"]
    p = [o for o in reading if o.kind == "die"]
    pairs = greedy_match(np.array([o.box for o in g]), np.array([o.box for o in p]), iou_threshold)
    matched_g, matched_p = {gi for gi, _ in pairs}, {pi for _, pi in pairs}
    return DiceErrors(
        missed=tuple(o for i, o in enumerate(g) if i not in matched_g),
        wrong=tuple((g[gi], p[pi]) for gi, pi in sorted(pairs) if g[gi].face != p[pi].face),
        extra=tuple(o for i, o in enumerate(p) if i not in matched_p),
    )


def draw_mistakes(image: np.ndarray, reading: Sequence[Detection], errors: DiceErrors) -> np.ndarray:
    """``image`` with its dice reading drawn (wrong and extra readings highlighted), each missed
    die's true box in red, and :meth:`DiceErrors.headline` as the banner."""
    dice = [o for o in reading if o.kind == "die"]
    bad = {id(r) for _, r in errors.wrong} | {id(o) for o in errors.extra}
    out = draw_overlay(image, dice, highlight={k for k, o in enumerate(dice) if id(o) in bad}, banner=errors.headline())
    return draw_overlay(out, errors.missed, style=MISSED_STYLE) if errors.missed else out


def picture_name(image_name: str) -> str:
    """A flat file name for the picture of ``image_name`` (a path inside the set).

    >>> picture_name("images/test/IMG_1.jpg")
    'images_test_IMG_1.jpg'
    """
    return Path(image_name).with_suffix(".jpg").as_posix().replace("/", "_")


def write_mistakes(folder: Path, image_name: str, image: np.ndarray, reading: Sequence[Detection], errors: DiceErrors) -> Path:
    """Write :func:`draw_mistakes` of one photo into ``folder``; return its path."""
    path = folder / picture_name(image_name)
    path.write_bytes(encode_jpeg(draw_mistakes(image, reading, errors), quality=90))
    return path
