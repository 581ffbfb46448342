"""Physical dice designs: which face sits on which side of the cube, colours, sizes.

A die is a cube whose six sides are listed in :data:`SIDES` order
``(+Z, -Z, +X, -X, +Y, -Y)`` of its own frame. Ordinary dice put 1, 2, 3 around one
corner counter-clockwise and opposite faces sum to 7.

>>> DESIGNS["liars"].faces
('wheel', '6', '2', '5', '3', '4')
>>> DESIGNS["nine-x"].labels
('フ', 'カ')
>>> body_rgb("white")[0] > 200
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from vision.synth.colour import delta_e, linear_to_srgb, srgb_to_lab, srgb_to_linear
from vision.synth.errors import UnknownColour, UnknownDesign, UnknownFace

# (axis index, sign) of the six cube sides, in the order Design.faces uses.
SIDES: tuple[tuple[int, int], ...] = ((2, 1), (2, -1), (0, 1), (0, -1), (1, 1), (1, -1))

# Plain-English body colours with a representative sRGB value (the label is the name;
# each die jitters around it).
BODY_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (238, 238, 232),
    "ivory": (236, 226, 196),
    "black": (26, 26, 30),
    "red": (196, 24, 30),
    "green": (22, 142, 62),
    "blue": (28, 68, 186),
    "yellow": (246, 204, 24),
    "purple": (100, 42, 148),
    "orange": (238, 112, 22),
    "pink": (238, 124, 170),
    "grey": (122, 122, 128),
    "brown": (112, 70, 38),
    "teal": (8, 136, 138),
    "navy": (22, 32, 88),
}

# Ink / pip colours (not labels).
INK_COLOURS: dict[str, tuple[int, int, int]] = {
    "black": (22, 22, 24),
    "white": (242, 242, 238),
    "red": (204, 22, 28),
    "yellow": (246, 210, 40),
    "gold": (206, 168, 70),
    "blue": (30, 60, 170),
    "green": (24, 130, 60),
}

_LIGHT = frozenset({"white", "ivory", "yellow", "pink", "orange"})


def ink_choices(body: str) -> tuple[str, ...]:
    """Pip/ink colours that contrast with a body colour, most common first."""
    if body in _LIGHT:
        return ("black", "black", "black", "red", "blue") if body != "yellow" else ("black", "black", "red")
    if body == "red":
        return ("white", "white", "black", "yellow")
    if body in ("green", "teal"):
        return ("white", "white", "yellow", "black")
    if body == "black":
        return ("white", "white", "red", "yellow", "gold")
    if body == "grey":
        return ("white", "black")
    return ("white", "white", "gold", "yellow")


def body_rgb(name: str) -> tuple[int, int, int]:
    try:
        return BODY_COLOURS[name]
    except KeyError:
        raise UnknownColour(name) from None


VEIN_SHARE = 0.7  # a vein is this much of its own colour over the body's


def vein_rgb(body: str, vein: str) -> tuple[int, int, int]:
    """The sRGB colour of a marbled body's veins: the vein colour mixed into the body's."""
    lin = srgb_to_linear(np.array(body_rgb(vein), np.float32) / 255.0) * VEIN_SHARE
    lin = lin + srgb_to_linear(np.array(body_rgb(body), np.float32) / 255.0) * (1.0 - VEIN_SHARE)
    r, g, b = (int(v) for v in np.clip(linear_to_srgb(lin) * 255.0 + 0.5, 0, 255))
    return r, g, b


# A vein must stand out from every ink on the die at least as much as the least
# contrasting body and ink that :func:`ink_choices` pairs, in colour (CIE76: an orange
# body with red pips, about 33) and in lightness (L*: the same pair, about 18). Blur,
# noise and glare wash hue out first, so colour alone is not enough: a pale yellow
# vein differs from yellow pips in hue only, and hides them.
_PAIRS = [(BODY_COLOURS[b], INK_COLOURS[i]) for b in BODY_COLOURS for i in sorted(set(ink_choices(b)))]
MIN_VEIN_CONTRAST: float = min(delta_e(body, ink) for body, ink in _PAIRS)
MIN_VEIN_LIGHTNESS: float = min(abs(float(srgb_to_lab(body)[0] - srgb_to_lab(ink)[0])) for body, ink in _PAIRS)


@lru_cache(maxsize=None)
def vein_stands_out(body: str, vein: str, ink: str) -> bool:
    """Whether marks in ``ink`` stay readable on a ``body`` die's ``vein``-coloured veins.

    >>> vein_stands_out("black", "ivory", "yellow")  # far apart in hue, not in lightness
    False
    """
    vein_lab, ink_lab = srgb_to_lab(vein_rgb(body, vein)), srgb_to_lab(INK_COLOURS[ink])
    return bool(np.linalg.norm(vein_lab - ink_lab) >= MIN_VEIN_CONTRAST and abs(vein_lab[0] - ink_lab[0]) >= MIN_VEIN_LIGHTNESS)


def _readable_inks(body: str, vein: str, inks: tuple[str, ...]) -> int:
    return sum(vein_stands_out(body, vein, ink) for ink in inks)


def vein_choice(drawn: str, body: str, inks: tuple[str, ...]) -> str:
    """The vein colour for a marbled ``body`` whose marks are printed in ``inks``.

    ``drawn`` is the colour picked at random among the other body colours. When its
    veins would hide the marks (a white vein under white pips shows a 6 as a 4), the
    next colour in :data:`BODY_COLOURS` order that contrasts with every ink is taken
    instead, so the choice costs no further random draw and dice whose drawn vein was
    fine render exactly as before.

    >>> vein_choice("white", "blue", ("white",))  # ivory would hide white pips too
    'black'
    >>> vein_choice("red", "blue", ("white",))
    'red'
    """
    others = [c for c in BODY_COLOURS if c != body]
    start = others.index(drawn)
    order = others[start:] + others[:start]
    for c in order:
        if _readable_inks(body, c, inks) == len(inks):
            return c
    return max(order, key=lambda c: _readable_inks(body, c, inks))  # the first of the best


@dataclass(frozen=True)
class Design:
    """One physical die design.

    ``faces`` gives the label on each side in :data:`SIDES` order; ``labels`` the
    distinct labels the design can show; ``colours`` the bodies it is sold in;
    ``size_mm`` the edge-length range.
    """

    name: str
    faces: tuple[str, ...]
    colours: tuple[str, ...]
    size_mm: tuple[float, float] = (14.0, 19.0)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.faces))

    def check_face(self, face: str) -> None:
        if face not in self.faces:
            raise UnknownFace(self.name, face)

    def sides_with(self, face: str) -> tuple[int, ...]:
        """Indices into :data:`SIDES` that carry ``face``."""
        self.check_face(face)
        return tuple(i for i, f in enumerate(self.faces) if f == face)


_PIP_COLOURS = ("white", "ivory", "black", "red", "green", "blue", "yellow", "purple", "orange", "pink", "teal", "grey", "brown", "navy")

DESIGNS: dict[str, Design] = {
    d.name: d
    for d in (
        Design("pips", ("1", "6", "2", "5", "3", "4"), _PIP_COLOURS, (12.0, 20.0)),
        Design("pips-jp", ("1", "6", "2", "5", "3", "4"), ("white", "ivory"), (14.0, 18.0)),
        Design("pin", ("1",) * 6, ("white", "ivory", "red", "black"), (14.0, 18.0)),
        Design("456", ("4", "6", "5", "5", "6", "4"), ("white", "ivory", "red", "black"), (14.0, 18.0)),
        Design("liars", ("wheel", "6", "2", "5", "3", "4"), ("white", "red", "blue", "green", "yellow", "black", "purple", "orange"), (15.0, 19.0)),
        Design("nine-a", ("プ", "レ", "ラ", "ブ", "ベ", "ガ"), ("white", "black", "blue"), (15.0, 19.0)),
        Design("nine-c", ("プ", "レ", "ラ", "ブ", "ス", "ガ"), ("white", "black", "blue"), (15.0, 19.0)),
        Design("nine-x", ("フ", "カ", "フ", "カ", "フ", "カ"), ("green",), (15.0, 19.0)),
    )
}


def design(name: str) -> Design:
    try:
        return DESIGNS[name]
    except KeyError:
        raise UnknownDesign(name) from None
