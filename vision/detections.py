"""Plain value types for what the camera saw (the shape of ``tableref read --json``).

>>> d = Detection(kind="die", face="wheel", colour="white", box=(412.0, 233.5, 455.2, 279.0), score=0.97)
>>> d.to_json()["face"]
'wheel'
>>> Reading(objects=(d,), width=1280, height=720, ms=11.8).faces()
('wheel',)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DIE_FACES = ("1", "2", "3", "4", "5", "6", "wheel", "プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "フ", "カ")
CARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_SUITS = ("S", "H", "D", "C")
# A card classifier may have one more rank class: "this box is no corner index" (a detector
# false alarm: a pip, a court figure's detail, an index mostly hidden), and a dice classifier
# one more face class: "this box is no die" (a chip, a card's back, a die mostly hidden).
# Such boxes are dropped.
NOT_AN_INDEX = "none"

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Detection:
    """One die or card: its up face (or ``<rank><suit>``), body colour, pixel box, confidence."""

    kind: str
    face: str
    colour: str | None
    box: Box
    score: float
    uncertain: bool = False
    # The reader's confidence that this box is a die at all: the detector's, raised to its
    # sure threshold where the classifier vouches for a box it doubts (vision.reader.vouched).
    # None: not known, e.g. cards or hand-made readings. Not part of the JSON contract; the
    # settler uses it to tell a speck the detector doubts from a die.
    box_score: float | None = field(default=None, compare=False, repr=False)
    # A die unsure of its face alone (its box sure, and its colour where the game reads
    # one): every face it may show, likeliest first. Empty for a sure die and for one whose
    # box or colour is in doubt. Not part of the JSON contract; the table uses it to give a
    # verdict that holds whatever such a die shows (web.unsure).
    alternatives: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def centre(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "face": self.face,
            "colour": self.colour,
            "box": [round(float(v), 1) for v in self.box],
            "score": round(float(self.score), 4),
        }
        if self.uncertain:
            out["uncertain"] = True
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Detection":
        x1, y1, x2, y2 = (float(v) for v in obj["box"])
        return cls(
            kind=str(obj["kind"]),
            face=str(obj["face"]),
            colour=None if obj.get("colour") is None else str(obj["colour"]),
            box=(x1, y1, x2, y2),
            score=float(obj.get("score", 1.0)),
            uncertain=bool(obj.get("uncertain", False)),
            alternatives=tuple(str(f) for f in obj.get("alternatives") or ()),
        )


@dataclass(frozen=True)
class Reading:
    """Everything read from one frame."""

    objects: tuple[Detection, ...] = field(default_factory=tuple)
    width: int = 0
    height: int = 0
    ms: float = 0.0

    def dice(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind == "die")

    def cards(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind == "card")

    def faces(self) -> tuple[str, ...]:
        return tuple(o.face for o in self.objects)

    @property
    def uncertain(self) -> bool:
        return any(o.uncertain for o in self.objects)

    def to_json(self, image: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if image is not None:
            out["image"] = image
        out.update(width=self.width, height=self.height, ms=round(self.ms, 2), objects=[o.to_json() for o in self.objects])
        return out
