"""Fixtures for the dashboard tests: an app on a temporary data folder with a scripted camera,
and, for the real-browser tests, one Chromium per module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import need_chromium, need_reader_models
from web_support import ScriptedCamera, Tables

from web.app import create_app
from web.live_bench import chromium


@pytest.fixture
def camera() -> ScriptedCamera:
    return ScriptedCamera()


@pytest.fixture
def app(tmp_path: Any, camera: ScriptedCamera) -> Any:
    application = create_app({"data_dir": tmp_path / "data", "settle_wait_s": 0.0}, camera)
    application.config["TESTING"] = True
    yield application
    application.extensions["tableref"].store.close()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def tables(client: Any) -> Tables:
    return Tables(client)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright, one per test module (a launch takes seconds);
    the module's tests are skipped without ``/usr/bin/chromium``."""
    need_chromium()
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def reader_models() -> None:
    """Skips the tests that ask for it when the dice reader's model files are missing."""
    need_reader_models()
