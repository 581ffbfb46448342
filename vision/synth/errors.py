"""One error class per kind of mistake in a scene request.

>>> try:
...     raise UnknownDesign("d20")
... except SynthError as err:
...     print(err)
unknown die design 'd20'
"""

from __future__ import annotations


class SynthError(ValueError):
    """A scene or dataset request that cannot be rendered."""


class UnknownDesign(SynthError):
    def __init__(self, design: str) -> None:
        super().__init__(f"unknown die design {design!r}")
        self.design = design


class UnknownColour(SynthError):
    def __init__(self, colour: str) -> None:
        super().__init__(f"unknown die colour {colour!r}")
        self.colour = colour


class UnknownFace(SynthError):
    def __init__(self, design: str, face: str) -> None:
        super().__init__(f"design {design!r} has no face {face!r}")
        self.design = design
        self.face = face


class UnknownTableFamily(SynthError):
    def __init__(self, family: str) -> None:
        super().__init__(f"unknown table family {family!r}")
        self.family = family


class BadSceneConfig(SynthError):
    """Sizes or counts that make no scene (e.g. a width without a height)."""


class PlacementFailed(SynthError):
    """The requested dice do not fit in view, even after shrinking them."""


class UnknownCard(SynthError):
    """A playing card code that is not ``<rank><suit>`` (ranks A 2-10 J Q K, suits S H D C)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"unknown playing card {code!r}: give a rank A 2-10 J Q K and a suit S H D C, e.g. '10H'")
        self.code = code


class UnknownCardLayout(SynthError):
    def __init__(self, layout: str) -> None:
        super().__init__(f"unknown card layout {layout!r}")
        self.layout = layout


class UnknownIndexFont(SynthError):
    def __init__(self, font: str) -> None:
        super().__init__(f"unknown card index font {font!r}")
        self.font = font
