"""The small examples in the vision.synth docstrings still hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "vision.synth",
    "vision.synth.colour",
    "vision.synth.designs",
    "vision.synth.dice",
    "vision.synth.errors",
    "vision.synth.faces",
    "vision.synth.geometry",
    "vision.synth.kanafonts",
    "vision.synth.lighting",
    "vision.synth.noise",
    "vision.synth.props",
    "vision.synth.scene",
    "vision.synth.sensor",
    "vision.synth.sets",
    "vision.synth.tables",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
