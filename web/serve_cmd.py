"""``tableref serve``: the table dashboard.

    tableref serve [--source 0|FILE|URL|DIR|demo|none] [--camera-size WxH|native] [--host H] [--port P]
                   [--data DIR] [--models DIR]

- ``--source``: where frames come from (see :mod:`vision.live.sources`). Default: camera 0
  if it opens, else the built-in demo (the choice is printed at start). ``none`` runs
  without a camera: reveals are entered by hand on the page.
- ``--camera-size``: what a webcam is asked for, 1280x720 by default (a Doubt card's
  index is then twice as many pixels as at 640x480); ``native`` keeps the driver's own.
- ``--host``: 127.0.0.1 by default (this computer only). With any other address, e.g.
  ``0.0.0.0``, phones on the LAN can join, and every change to a table needs that
  table's join token (the QR code on the host's table page).
- ``--port``: 8765 by default.
- ``--data``: where tables, readings and reveal photos are kept (SQLite + JPEG files).
  Default: ``$TABLEREF_DATA``, else ``$XDG_DATA_HOME/tableref``, else
  ``~/.local/share/tableref``.
- ``--models``: the reader's model folder (default: the ``models/`` folder of tableref).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from web.context import DEFAULT_PORT, ServerConfig

# The same as vision.live.sources.WEBCAM_SIZE, which is not imported here: `serve --help` and a
# table without a camera should not load OpenCV.
WEBCAM_SIZE = (1280, 720)

log = logging.getLogger("tableref.serve")


def default_data_dir() -> Path:
    if os.environ.get("TABLEREF_DATA"):
        return Path(os.environ["TABLEREF_DATA"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "tableref"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", default=None,
                        help="camera index, video file, stream URL, image folder, 'demo' or 'none' "
                             "(default: camera 0 if it opens, else demo)")
    parser.add_argument("--camera-size", type=camera_size, default=WEBCAM_SIZE, metavar="WxH",
                        help="capture size a webcam is asked for (default 1280x720; 'native': the driver's own)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 lets phones join, with join tokens)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--data", type=Path, default=None,
                        help="data folder (default $TABLEREF_DATA, $XDG_DATA_HOME/tableref or ~/.local/share/tableref)")
    parser.add_argument("--models", type=Path, default=None, help="reader model folder (default: tableref's models/)")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="read every table's dice with this profile (tableref teach; docs/teach.md)")
    parser.add_argument("--fps", type=float, default=10.0, help="frame-rate cap of the live MJPEG stream (default 10)")
    parser.add_argument("--public-url", default=None, help="base URL for join links (default: this machine's LAN address)")
    parser.add_argument("--verbose", action="store_true", help="log every request")


def camera_size(text: str) -> tuple[int, int] | None:
    """``--camera-size``: ``"1280x720"``, or ``"native"`` (``None``) for the driver's own.

    >>> camera_size("1920x1080"), camera_size("native")
    ((1920, 1080), None)
    >>> camera_size("big")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: give the camera size as WIDTHxHEIGHT, e.g. 1280x720, or 'native'
    """
    if text.strip().lower() == "native":
        return None
    try:
        w, h = (int(v) for v in text.lower().replace("×", "x").split("x"))
    except ValueError:
        w = h = 0
    if not (160 <= w <= 7680 and 120 <= h <= 4320):
        raise argparse.ArgumentTypeError("give the camera size as WIDTHxHEIGHT, e.g. 1280x720, or 'native'")
    return w, h


def _small_frame_note(size: tuple[int, int]) -> str:
    """A warning for frames narrower than :data:`WEBCAM_SIZE`: on rendered Doubt clips at
    640x480 a card's 4 px index suit was sometimes read surely wrong (a club as a spade),
    and never at 1280x720.

    >>> _small_frame_note((1280, 720)), _small_frame_note((640, 480))[:40]
    ('', '; smaller than 1280x720: at Doubt, bring')
    """
    if size[0] >= WEBCAM_SIZE[0]:
        return ""
    return (f"; smaller than {WEBCAM_SIZE[0]}x{WEBCAM_SIZE[1]}: at Doubt, bring the camera closer to the cards "
            "or use a 720p webcam, since small card suits can be misread")


def _pick_source(spec: str | None, size: tuple[int, int] | None = WEBCAM_SIZE) -> tuple[str, str]:
    """(source, why): the default tries camera 0, then falls back to the demo."""
    if spec is not None:
        return spec, "as given"
    try:
        from vision.live.sources import open_source

        source = open_source("0", size=size)
        got = getattr(source, "size", None)
        source.close()
        return "0", "camera 0 opened" + (f" at {got[0]}x{got[1]}{_small_frame_note(got)}" if got else "")
    except Exception as err:  # SourceError, or OpenCV without a camera backend
        return "demo", f"camera 0 did not open ({err})"


def _camera(
    source: str, models: Path | None, fps: float, size: tuple[int, int] | None = WEBCAM_SIZE,
    profile: Any = None,
) -> tuple[Any, str]:
    from web.camera import NoCamera

    if source.lower() == "none":
        return NoCamera(), "no camera: readings are entered by hand"
    try:
        from vision.read.reader import load_reader

        reader = load_reader(models).with_profile(profile)
    except Exception as err:
        reason = f"no reader model ({err}); readings are entered by hand"
        return NoCamera(reason), reason
    from vision.live.pipeline import LivePipeline

    from web.live import PipelineCamera

    # No words burnt into the video: the page captions it in the viewer's language.
    pipeline = LivePipeline(source, reader, stream_fps=fps, source_options={"size": size}, banner=False)
    return PipelineCamera(pipeline), f"reader {dict(reader.info).get('name', 'loaded')}"


def _teach_reader(models: Path | None) -> Any:
    """The base dice reader that teaches tables' profiles (:mod:`web.teaching`): loaded when a
    table first teaches, apart from the live reader, whose models it shares on disk."""
    from vision.read.reader import load_reader

    return load_reader(models, cards=False)


def run(args: argparse.Namespace) -> int:
    from werkzeug.serving import make_server

    from web.app import create_app

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if not args.verbose:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    data = (args.data or default_data_dir()).expanduser()
    profile = None
    if args.profile is not None:
        from vision.read.profile import Profile, ProfileError

        try:
            profile = Profile.load(args.profile)
        except ProfileError as err:
            print(f"tableref serve: --profile {args.profile}: {err}", file=sys.stderr)
            return 2
    source, why = _pick_source(args.source, args.camera_size)
    camera, reader_note = _camera(source, args.models, args.fps, args.camera_size, profile)
    if profile is not None:
        reader_note += f", profile {args.profile} ({profile.photos} photos)"
    config = ServerConfig(data_dir=data, host=args.host, port=args.port, mjpeg_fps=args.fps, public_url=args.public_url)
    app = create_app(config, camera, teach_reader=lambda: _teach_reader(args.models))
    try:
        server = make_server(args.host, args.port, app, threaded=True)
    except (OSError, SystemExit) as err:  # werkzeug exits on a port in use, after saying so
        print(f"tableref serve: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr)
        app.extensions["tableref"].store.close()
        return 2
    ctx = app.extensions["tableref"]
    ctx.config = dataclasses.replace(config, port=server.server_port)  # the real port when --port 0
    camera.start()
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    print(f"tableref serve: http://{shown_host}:{server.server_port}/", flush=True)
    print(f"  source: {source} ({why}); {reader_note}", flush=True)
    print(f"  data:   {ctx.store.root}", flush=True)
    if ctx.exposed:
        print(f"  LAN:    {ctx.base_url()}/  (changes need each table's join token: see its QR code)", flush=True)

    def stop(*_: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        camera.stop()
        ctx.sessions.close()
        ctx.store.close()
    return 0
