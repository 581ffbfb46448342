"""Fixtures for the dashboard tests: an app on a temporary data folder with a scripted camera."""

from __future__ import annotations

from typing import Any

import pytest
from web_support import ScriptedCamera, Tables

from web.app import create_app


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
