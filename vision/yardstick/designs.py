"""The yardstick's dice sets and playing-card decks, as frozen data.

Every design here is drawn only by this renderer (vision/yardstick), never by vision/synth: its own
ship's wheels, pip shapes, katakana fonts (see ``fonts.py``) and card decks. Designs are split: the
``val`` designs never appear in ``test`` and the other way round, so a number measured on ``test``
says how the reader does on dice it has not been tuned on. Each design also gets a ``teach-<id>``
split of its own (``splits.py``).

Face lists follow ``geometry.FACE_NORMALS`` order (+X, -X, +Y, -Y, +Z, -Z of the die's own frame).
Nine Dice and Pin-456 faces come from the referee's set files, so the yardstick stays in step with
the rules engine when a table edits its set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path

RGB = tuple[float, float, float]  # sRGB in [0, 1]

GAMES: tuple[str, ...] = ("liars-dice", "nine-dice", "pin456", "doubt")
SPLITS: tuple[str, ...] = ("val", "test")

_REFEREE_DATA = Path(__file__).resolve().parents[2] / "referee" / "data"

# Liar's Dice (Playte): the ship's wheel replaces the 1; opposite faces as on a standard die.
LIARS_WHEEL_FACES: tuple[str, ...] = ("2", "5", "3", "4", "wheel", "6")
STANDARD_FACES: tuple[str, ...] = ("2", "5", "3", "4", "1", "6")


class Marking(str, Enum):
    """How the faces are put on the die (decides the bump of the marks, not only their colour)."""

    ENGRAVED = "engraved"  # cut into the body and filled with ink: marks sit below the surface
    PAINTED = "painted"  # raised paint on a flat face
    PRINTED = "printed"  # flat print, no relief


class Finish(str, Enum):
    GLOSSY = "glossy"
    MATTE = "matte"
    TRANSLUCENT = "translucent"  # resin dice that let some light through


class Shape(str, Enum):
    BEVELLED = "bevelled"  # sharp cube with a small chamfer
    ROUNDED = "rounded"  # casino-free "round corner" dice


@dataclass(frozen=True)
class BodyColour:
    """One body colour of a set: its label name (read-json vocabulary), body and ink in sRGB."""

    name: str
    body: RGB
    ink: RGB
    accent: RGB | None = None  # ink of the big 1 / the wheel when it differs (red on many sets)


@dataclass(frozen=True)
class DieKind:
    """A kind of die inside a set: its faces and which body colours it comes in."""

    name: str
    faces: tuple[str, ...]
    colours: tuple[BodyColour, ...]


@dataclass(frozen=True)
class DiceDesign:
    id: str
    game: str
    split: str
    kinds: tuple[DieKind, ...]
    shape: Shape
    bevel: float  # bevel width as a fraction of the die's side
    size_mm: tuple[float, float]  # side length range of a die
    marking: Marking
    finish: Finish
    pip_shape: str = "round"  # round | square | ring | hex
    pip_scale: float = 1.0
    big_red_one: bool = False  # the Japanese large red 1 pip
    wheel: str | None = None  # wheel drawing, see faces.WHEEL_STYLES
    font: str | None = None  # katakana font key, see fonts.FONTS


@dataclass(frozen=True)
class DeckDesign:
    id: str
    game: str
    split: str
    index_font: str  # fonts.FONTS key for ranks
    back: RGB
    back_pattern: str  # lattice | dots
    centre: str  # pip: one big suit in the middle; frame: rank inside a framed panel
    paper: RGB
    red_ink: RGB
    black_ink: RGB


# ---- body colours -------------------------------------------------------------------------------

_WHITE = BodyColour("white", (0.93, 0.93, 0.90), (0.06, 0.06, 0.07))
_IVORY = BodyColour("white", (0.94, 0.91, 0.82), (0.10, 0.08, 0.07))  # slightly off-white, still "white"
_BLACK = BodyColour("black", (0.06, 0.06, 0.07), (0.92, 0.92, 0.88))
_BLUE = BodyColour("blue", (0.10, 0.22, 0.62), (0.95, 0.95, 0.92))
_RED = BodyColour("red", (0.70, 0.07, 0.08), (0.96, 0.94, 0.90))
_GREEN = BodyColour("green", (0.08, 0.45, 0.20), (0.96, 0.96, 0.92))
_WHEEL_RED = (0.80, 0.08, 0.08)


def _accent(c: BodyColour, accent: RGB) -> BodyColour:
    return BodyColour(c.name, c.body, c.ink, accent)


@lru_cache(maxsize=1)
def _nine_dice_set() -> dict:
    return json.loads((_REFEREE_DATA / "nine-dice.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _pin456_set() -> dict:
    return json.loads((_REFEREE_DATA / "pin456.json").read_text(encoding="utf-8"))


def nine_dice_kinds(palette: dict[str, BodyColour]) -> tuple[DieKind, ...]:
    """One DieKind per (kind, colour) of referee/data/nine-dice.json, repeated as the set counts them."""
    data = _nine_dice_set()
    kinds: list[DieKind] = []
    for colour, names in data["colours"].items():
        for name in names:
            kinds.append(DieKind(name, tuple(data["dice"][name]), (palette[colour],)))
    exp = data["expansion"]
    kinds.append(DieKind("expansion", tuple(data["dice"][exp["die"]]), (palette[exp["colour"]],)))
    return tuple(kinds)


def pin456_kinds(pin: tuple[BodyColour, ...], other: tuple[BodyColour, ...]) -> tuple[DieKind, ...]:
    kinds: list[DieKind] = []
    for kind in _pin456_set()["kinds"]:
        colours = pin if kind["name"] == "pin" else other
        kinds.extend(DieKind(kind["name"], tuple(kind["faces"]), colours) for _ in range(int(kind["count"])))
    return tuple(kinds)


def _nd_palette(white: BodyColour, ink_on_white: RGB) -> dict[str, BodyColour]:
    return {
        "white": BodyColour("white", white.body, ink_on_white),
        "black": _BLACK,
        "blue": _BLUE,
        "green": _GREEN,
    }


def _dice_designs() -> tuple[DiceDesign, ...]:
    ld = "liars-dice"
    nd = "nine-dice"
    pn = "pin456"
    return (
        # ---- Liar's Dice, val
        DiceDesign("ld-wheel-rope-engraved", ld, "val",
                   (DieKind("ld", LIARS_WHEEL_FACES, (_accent(_WHITE, _WHEEL_RED), _accent(_BLUE, (0.95, 0.95, 0.92)),
                                                      _accent(_IVORY, _WHEEL_RED))),),
                   Shape.BEVELLED, 0.07, (15.5, 16.5), Marking.ENGRAVED, Finish.GLOSSY, "round", 1.0, wheel="rope"),
        DiceDesign("ld-wheel-solid-printed", ld, "val",
                   (DieKind("ld", LIARS_WHEEL_FACES, (_BLACK, _RED, _accent(_WHITE, _WHEEL_RED))),),
                   Shape.ROUNDED, 0.16, (15.0, 17.0), Marking.PRINTED, Finish.MATTE, "square", 0.9, wheel="solid"),
        DiceDesign("ld-pips-bigred-rounded", ld, "val",
                   (DieKind("ld", STANDARD_FACES, (_accent(_IVORY, _WHEEL_RED), _accent(_WHITE, _WHEEL_RED))),),
                   Shape.ROUNDED, 0.20, (15.0, 16.0), Marking.ENGRAVED, Finish.GLOSSY, "round", 1.05, big_red_one=True),
        # ---- Liar's Dice, test
        DiceDesign("ld-wheel-tapered-painted", ld, "test",
                   (DieKind("ld", LIARS_WHEEL_FACES, (_RED, _accent(_WHITE, _WHEEL_RED), _GREEN)),),
                   Shape.BEVELLED, 0.05, (16.0, 18.0), Marking.PAINTED, Finish.GLOSSY, "hex", 1.1, wheel="tapered"),
        DiceDesign("ld-wheel-outline-engraved", ld, "test",
                   (DieKind("ld", LIARS_WHEEL_FACES, (_BLUE, _BLACK, _accent(_IVORY, _WHEEL_RED))),),
                   Shape.ROUNDED, 0.13, (15.0, 16.0), Marking.ENGRAVED, Finish.MATTE, "ring", 1.0, wheel="outline"),
        DiceDesign("ld-pips-square-translucent", ld, "test",
                   (DieKind("ld", STANDARD_FACES, (BodyColour("red", (0.75, 0.12, 0.12), (0.97, 0.97, 0.97)),
                                                   BodyColour("blue", (0.15, 0.30, 0.75), (0.97, 0.97, 0.97)),
                                                   BodyColour("green", (0.12, 0.55, 0.30), (0.97, 0.97, 0.97)))),),
                   Shape.BEVELLED, 0.04, (14.0, 16.0), Marking.ENGRAVED, Finish.TRANSLUCENT, "square", 0.85),
        # ---- Nine Dice, val
        DiceDesign("nd-sawarabi-engraved", nd, "val", nine_dice_kinds(_nd_palette(_WHITE, (0.06, 0.06, 0.07))),
                   Shape.BEVELLED, 0.06, (16.0, 16.0), Marking.ENGRAVED, Finish.GLOSSY, font="sawarabi-gothic"),
        DiceDesign("nd-maruberi-printed", nd, "val", nine_dice_kinds(_nd_palette(_IVORY, (0.55, 0.05, 0.06))),
                   Shape.ROUNDED, 0.17, (15.0, 16.0), Marking.PRINTED, Finish.MATTE, font="maruberi"),
        # ---- Nine Dice, test
        DiceDesign("nd-migu-printed", nd, "test", nine_dice_kinds(_nd_palette(_WHITE, (0.05, 0.05, 0.05))),
                   Shape.BEVELLED, 0.05, (16.0, 17.0), Marking.PRINTED, Finish.GLOSSY, font="migu"),
        DiceDesign("nd-konatu-engraved", nd, "test", nine_dice_kinds(_nd_palette(_IVORY, (0.08, 0.08, 0.10))),
                   Shape.ROUNDED, 0.14, (15.0, 16.0), Marking.ENGRAVED, Finish.MATTE, font="konatu"),
        DiceDesign("nd-mincho-painted", nd, "test", nine_dice_kinds(_nd_palette(_WHITE, (0.05, 0.05, 0.06))),
                   Shape.BEVELLED, 0.08, (16.0, 16.0), Marking.PAINTED, Finish.GLOSSY, font="sawarabi-mincho"),
        # ---- Pin-456, val
        DiceDesign("pn-round-redpin", pn, "val",
                   pin456_kinds((_accent(_WHITE, _WHEEL_RED),), (_WHITE,)),
                   Shape.ROUNDED, 0.18, (15.0, 16.0), Marking.ENGRAVED, Finish.GLOSSY, "round", 1.0, big_red_one=True),
        DiceDesign("pn-square-black", pn, "val",
                   pin456_kinds((_BLACK,), (_IVORY,)),
                   Shape.BEVELLED, 0.06, (16.0, 17.0), Marking.PAINTED, Finish.MATTE, "square", 1.0),
        # ---- Pin-456, test
        DiceDesign("pn-ring-blue", pn, "test",
                   pin456_kinds((_BLUE,), (_WHITE,)),
                   Shape.ROUNDED, 0.14, (15.0, 16.0), Marking.ENGRAVED, Finish.MATTE, "ring", 1.1),
        DiceDesign("pn-hex-ivory", pn, "test",
                   pin456_kinds((_accent(_IVORY, _WHEEL_RED),), (_BLACK,)),
                   Shape.BEVELLED, 0.05, (15.0, 16.0), Marking.PRINTED, Finish.GLOSSY, "hex", 0.95, big_red_one=True),
    )


DICE_DESIGNS: tuple[DiceDesign, ...] = _dice_designs()

DECK_DESIGNS: tuple[DeckDesign, ...] = (
    DeckDesign("deck-lattice-gothic", "doubt", "val", "sawarabi-gothic", (0.12, 0.30, 0.55), "lattice", "pip",
               (0.97, 0.96, 0.93), (0.78, 0.10, 0.12), (0.08, 0.08, 0.10)),
    DeckDesign("deck-dots-ume", "doubt", "test", "ume-mincho", (0.55, 0.12, 0.14), "dots", "frame",
               (0.95, 0.94, 0.90), (0.72, 0.12, 0.20), (0.12, 0.10, 0.18)),
)

ALL_DESIGNS: tuple[DiceDesign | DeckDesign, ...] = DICE_DESIGNS + DECK_DESIGNS


def _train_dice_designs() -> tuple[DiceDesign, ...]:
    """Designs for training a reader on this renderer's pictures: their own wheels
    (faces.TRAIN_WHEEL_STYLES), fonts (fonts.FONTS' training group) and round pips only, so that
    nothing a ``val`` or ``test`` design draws is learnt from them but the renderer's look."""
    ld, nd, pn = "liars-dice", "nine-dice", "pin456"
    cream = BodyColour("white", (0.96, 0.95, 0.88), (0.05, 0.05, 0.06))
    return (
        DiceDesign("ld-train-knobbed-engraved", ld, "train",
                   (DieKind("ld", LIARS_WHEEL_FACES, (_accent(_WHITE, _WHEEL_RED), _BLACK, _RED)),),
                   Shape.BEVELLED, 0.08, (15.0, 17.0), Marking.ENGRAVED, Finish.GLOSSY, "round", 1.0, wheel="knobbed"),
        DiceDesign("ld-train-cross-printed", ld, "train",
                   (DieKind("ld", LIARS_WHEEL_FACES, (_BLUE, _GREEN, _accent(_IVORY, _WHEEL_RED))),),
                   Shape.ROUNDED, 0.15, (15.0, 16.5), Marking.PRINTED, Finish.MATTE, "round", 0.9, wheel="cross"),
        DiceDesign("ld-train-knobbed-translucent", ld, "train",
                   (DieKind("ld", LIARS_WHEEL_FACES,
                            (BodyColour("red", (0.72, 0.10, 0.10), (0.97, 0.97, 0.97)),
                             BodyColour("blue", (0.14, 0.28, 0.72), (0.97, 0.97, 0.97)))),),
                   Shape.BEVELLED, 0.05, (15.0, 16.0), Marking.PAINTED, Finish.TRANSLUCENT, "round", 1.05,
                   wheel="knobbed"),
        DiceDesign("ld-train-pips-painted", ld, "train",
                   (DieKind("ld", STANDARD_FACES, (_WHITE, _BLACK, _GREEN)),),
                   Shape.ROUNDED, 0.12, (15.0, 17.0), Marking.PAINTED, Finish.GLOSSY, "round", 1.1),
        DiceDesign("nd-train-umegothic-engraved", nd, "train", nine_dice_kinds(_nd_palette(_WHITE, (0.05, 0.05, 0.06))),
                   Shape.BEVELLED, 0.07, (15.5, 16.5), Marking.ENGRAVED, Finish.GLOSSY, font="ume-gothic"),
        DiceDesign("nd-train-droid-printed", nd, "train", nine_dice_kinds(_nd_palette(cream, (0.05, 0.05, 0.06))),
                   Shape.ROUNDED, 0.15, (15.0, 16.0), Marking.PRINTED, Finish.MATTE, font="droid-fallback"),
        DiceDesign("nd-train-hanazono-painted", nd, "train", nine_dice_kinds(_nd_palette(_IVORY, (0.45, 0.05, 0.06))),
                   Shape.BEVELLED, 0.05, (16.0, 17.0), Marking.PAINTED, Finish.GLOSSY, font="hanazono-mincho"),
        DiceDesign("nd-train-seto-engraved", nd, "train", nine_dice_kinds(_nd_palette(_WHITE, (0.07, 0.07, 0.09))),
                   Shape.ROUNDED, 0.18, (15.0, 16.0), Marking.ENGRAVED, Finish.MATTE, font="seto"),
        DiceDesign("pn-train-round-redpin", pn, "train",
                   pin456_kinds((_accent(_WHITE, _WHEEL_RED),), (_BLACK,)),
                   Shape.BEVELLED, 0.07, (15.0, 16.5), Marking.ENGRAVED, Finish.GLOSSY, "round", 0.95,
                   big_red_one=True),
        DiceDesign("pn-train-green-printed", pn, "train",
                   pin456_kinds((_GREEN,), (_WHITE,)),
                   Shape.ROUNDED, 0.16, (15.0, 16.0), Marking.PRINTED, Finish.MATTE, "round", 1.1),
        DiceDesign("pn-train-red-painted", pn, "train",
                   pin456_kinds((_RED,), (_IVORY, _BLUE)),
                   Shape.BEVELLED, 0.09, (16.0, 17.0), Marking.PAINTED, Finish.GLOSSY, "round", 1.0),
    )


TRAIN_DICE_DESIGNS: tuple[DiceDesign, ...] = _train_dice_designs()

TRAIN_DECK_DESIGNS: tuple[DeckDesign, ...] = (
    DeckDesign("deck-train-lattice-kiloji", "doubt", "train", "kiloji", (0.10, 0.38, 0.22), "lattice", "frame",
               (0.98, 0.97, 0.94), (0.80, 0.08, 0.10), (0.05, 0.05, 0.08)),
    DeckDesign("deck-train-dots-yoz", "doubt", "train", "yoz-cf", (0.10, 0.10, 0.12), "dots", "pip",
               (0.96, 0.96, 0.95), (0.75, 0.10, 0.15), (0.10, 0.10, 0.12)),
    DeckDesign("deck-train-dots-umegothic", "doubt", "train", "ume-gothic", (0.20, 0.45, 0.70), "dots", "frame",
               (0.99, 0.99, 0.97), (0.85, 0.15, 0.10), (0.02, 0.02, 0.02)),
    DeckDesign("deck-train-lattice-oradano", "doubt", "train", "oradano-mincho", (0.45, 0.08, 0.30), "lattice", "pip",
               (0.93, 0.92, 0.86), (0.70, 0.05, 0.08), (0.15, 0.15, 0.20)),
    DeckDesign("deck-train-lattice-hanazono", "doubt", "train", "hanazono-mincho", (0.05, 0.25, 0.12), "lattice",
               "frame", (0.97, 0.95, 0.90), (0.65, 0.10, 0.25), (0.08, 0.06, 0.04)),
    DeckDesign("deck-train-dots-seto", "doubt", "train", "seto", (0.60, 0.45, 0.10), "dots", "pip",
               (0.95, 0.96, 0.98), (0.80, 0.20, 0.05), (0.05, 0.10, 0.20)),
)

# Training designs are kept apart from ALL_DESIGNS (the measured ones: val, test and their teach
# splits); ``tableref yardstick render --split train`` renders them.
TRAIN_DESIGNS: tuple[DiceDesign | DeckDesign, ...] = TRAIN_DICE_DESIGNS + TRAIN_DECK_DESIGNS


def design(design_id: str) -> DiceDesign | DeckDesign:
    for d in ALL_DESIGNS + TRAIN_DESIGNS:
        if d.id == design_id:
            return d
    raise KeyError(design_id)


def designs_for(game: str, split: str) -> tuple[DiceDesign | DeckDesign, ...]:
    """The designs of one game in one split (``val``, ``test`` or ``train``), in a fixed order."""
    return tuple(d for d in ALL_DESIGNS + TRAIN_DESIGNS if d.game == game and d.split == split)
