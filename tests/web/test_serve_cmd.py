"""``tableref serve`` options and defaults (the server itself runs in test_durability)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from web import serve_cmd
from web.camera import NoCamera


def test_default_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TABLEREF_DATA", str(tmp_path / "here"))
    assert serve_cmd.default_data_dir() == tmp_path / "here"
    monkeypatch.delenv("TABLEREF_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert serve_cmd.default_data_dir() == tmp_path / "xdg" / "tableref"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert serve_cmd.default_data_dir() == tmp_path / ".local" / "share" / "tableref"


def test_arguments_and_defaults() -> None:
    parser = argparse.ArgumentParser()
    serve_cmd.add_arguments(parser)
    args = parser.parse_args([])
    assert (args.host, args.port, args.source, args.data, args.fps) == ("127.0.0.1", 8765, None, None, 10.0)
    args = parser.parse_args(["--source", "demo", "--host", "0.0.0.0", "--port", "9000", "--data", "d", "--models", "m"])
    assert (args.source, args.host, args.port, args.data, args.models) == ("demo", "0.0.0.0", 9000, Path("d"), Path("m"))


def test_camera_size_option(capsys: pytest.CaptureFixture[str]) -> None:
    from vision.live.sources import WEBCAM_SIZE

    parser = argparse.ArgumentParser()
    serve_cmd.add_arguments(parser)
    assert parser.parse_args([]).camera_size == WEBCAM_SIZE == serve_cmd.WEBCAM_SIZE
    assert parser.parse_args(["--camera-size", "640x480"]).camera_size == (640, 480)
    assert parser.parse_args(["--camera-size", "native"]).camera_size is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--camera-size", "0x0"])
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_sources_without_a_reader_fall_back_to_hand_entry(tmp_path: Path) -> None:
    assert serve_cmd._pick_source("clip.mp4") == ("clip.mp4", "as given")
    camera, note = serve_cmd._camera("none", None, 10.0)
    assert isinstance(camera, NoCamera) and "by hand" in note
    camera, note = serve_cmd._camera("demo", tmp_path / "no-models", 10.0)
    assert isinstance(camera, NoCamera) and "no reader model" in note
    assert "no reader model" in camera.status()["last_error"]


def test_busy_port_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        parser = argparse.ArgumentParser()
        serve_cmd.add_arguments(parser)
        args = parser.parse_args(["--source", "none", "--port", str(port), "--data", str(tmp_path)])
        assert serve_cmd.run(args) == 2
    assert "cannot listen" in capsys.readouterr().err


def test_the_default_camera_says_what_size_it_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.live.sources as sources

    class Webcam:
        size = (960, 540)  # the nearest this driver has to what was asked

        def close(self) -> None:
            pass

    asked = []
    monkeypatch.setattr(sources, "open_source", lambda spec, size: asked.append((spec, size)) or Webcam())
    source, why = serve_cmd._pick_source(None, (1280, 720))
    assert source == "0" and why.startswith("camera 0 opened at 960x540; smaller than 1280x720")
    assert "bring the camera closer" in why
    assert asked == [("0", (1280, 720))]
    Webcam.size = (1280, 720)
    assert serve_cmd._pick_source(None, (1280, 720)) == ("0", "camera 0 opened at 1280x720")
