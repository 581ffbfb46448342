"""Helpers for the real-browser tests (``test_browser_*.py``): what each needs before it can
run, and where its screenshots go.

The module-scoped ``browser`` fixture in ``conftest.py`` launches Debian's Chromium through
Playwright with :func:`need_chromium`; a module or test that also reads photos with the
committed reader asks for the ``reader_models`` fixture or calls :func:`need_reader_models`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from web.live_bench import CHROMIUM, MODEL_FILES, REPO, models_present

SCREENSHOT_DIR_VARIABLE = "TABLEREF_SCREENSHOT_DIR"


def need_chromium() -> None:
    """Skip the calling test (or module fixture) when Debian's Chromium is not installed."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")


def need_reader_models() -> None:
    """Skip the calling test (or module fixture) when the dice reader's model files are missing."""
    if not models_present():
        pytest.skip(f"the reader's model files are missing from {REPO / 'models'} ({', '.join(MODEL_FILES)})")


def keep_screenshot(page: Any, path: Path, *, full_page: bool = True, min_bytes: int = 10_000) -> Path:
    """Screenshot ``page`` to ``path``, check it is not blank (a blank PNG is a few hundred
    bytes), and copy it to ``$TABLEREF_SCREENSHOT_DIR`` when that is set."""
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > min_bytes
    target = os.environ.get(SCREENSHOT_DIR_VARIABLE)
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / path.name)
    return path


def tap_object(page: Any, k: int) -> None:
    """Tap die (or card) ``k`` of the reveal photo where its outline's centre is, as a finger
    would, even while a toast or a neighbour's 44 px tap target lies over that point: the
    page opens the die whose centre is nearest the tap."""
    page.wait_for_selector(f"[data-testid=object-box-{k}]", state="attached")
    page.eval_on_selector(f"[data-testid=object-box-{k}]", """e => {
        const r = e.getBoundingClientRect();
        e.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true,
                                                 clientX: r.left + r.width / 2, clientY: r.top + r.height / 2}));
    }""")
    page.wait_for_selector("#editor:not([hidden])")
