"""The examples in the web modules' docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["web.app", "web.bus", "web.camera", "web.errors", "web.i18n", "web.live", "web.openapi", "web.readings",
           "web.security", "web.serve_cmd", "web.session", "web.store", "web.unsure", "web.verdicts"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
