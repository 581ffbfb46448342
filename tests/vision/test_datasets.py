"""vision.datasets: the docstring examples hold (the layouts are exercised by the eval and training tests)."""

from __future__ import annotations

import doctest

import vision.datasets


def test_doctests() -> None:
    result = doctest.testmod(vision.datasets)
    assert result.attempted >= 3 and result.failed == 0
