"""What every request handler reaches: configuration, store, tables, live bus, camera."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from flask import current_app, request

from web.bus import Bus
from web.camera import TableCamera
from web.i18n import pick_language
from web.security import is_loopback
from web.session import Sessions
from web.store import Store, TableRecord

DEFAULT_PORT = 8765
DEFAULT_MAX_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class ServerConfig:
    """How ``tableref serve`` runs. ``host`` decides whether tokens are needed (see :mod:`web.security`)."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    max_content_length: int = DEFAULT_MAX_BYTES
    mjpeg_fps: float = 10.0
    max_streams: int = 8
    stream_send_timeout_s: float = 5.0  # a live stream's write that takes longer drops that viewer
    settle_wait_s: float = 2.0
    public_url: str | None = None  # base of join links; default: this machine's LAN address


@dataclass
class Context:
    config: ServerConfig
    store: Store
    sessions: Sessions
    bus: Bus
    camera: TableCamera

    @property
    def exposed(self) -> bool:
        return not is_loopback(self.config.host)

    def base_url(self) -> str:
        if self.config.public_url:
            return self.config.public_url.rstrip("/")
        host = self.config.host
        if host in ("0.0.0.0", "::", ""):
            host = lan_address()
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.config.port}"

    def join_url(self, record: TableRecord) -> str:
        return f"{self.base_url()}/t/{record.id}?token={quote(record.token)}"


def lan_address() -> str:
    """This machine's address on its LAN (no packet is sent); 127.0.0.1 when there is none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def ctx() -> Context:
    return current_app.extensions["tableref"]  # type: ignore[no-any-return]


def lang() -> str:
    return pick_language(request.args.get("lang"), request.cookies.get("lang"), request.accept_languages)
