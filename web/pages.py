"""HTML pages (home, table) and the live MJPEG stream.

Pages are server-rendered Jinja templates with small vanilla scripts that talk
to the JSON API and listen to Server-Sent Events; no CDN, nothing from the
network. Controls carry stable ``data-testid`` attributes for browser tests.
"""

from __future__ import annotations

import threading

from flask import Blueprint, Response, current_app, render_template, request

from web.camera import MJPEG_MIMETYPE
from web.context import ctx, lang
from web.errors import WebError
from web.i18n import GAME_NAMES, bundle, text
from web.security import client_is_local, token_matches

bp = Blueprint("pages", __name__)


class TooManyStreams(WebError):
    code = "too_many_streams"
    status = 503
    templates = {"en": "Too many video streams are open (at most {limit}).", "ja": "映像の同時視聴数が上限（{limit}）に達しています。"}


def _page(template: str, **values: object) -> str:
    language = lang()
    return render_template(template, lang=language, t=lambda key: text(key, language),
                           games=GAME_NAMES, i18n=bundle(language), **values)


@bp.get("/")
def home() -> str:
    c = ctx()
    return _page("home.html", tables=c.sessions.list(), host_only=c.exposed and not client_is_local())


@bp.get("/t/<table_id>")
def table(table_id: str) -> Response:
    c = ctx()
    session = c.sessions.get(table_id)
    record = session.record
    cookie_name = f"tt_{record.id}"
    offered = request.args.get("token")
    token: str | None = None
    if not c.exposed or client_is_local():
        token = record.token
    elif token_matches(record, offered):
        token = offered
    elif token_matches(record, request.cookies.get(cookie_name)):
        token = request.cookies.get(cookie_name)
    html = _page("table.html", table=record.to_json(), token=token or "", can_invite=token is not None,
                 exposed=c.exposed, game_name=GAME_NAMES[record.game])
    response = Response(html, mimetype="text/html")
    if c.exposed and offered and token == offered:
        response.set_cookie(cookie_name, offered, max_age=7 * 86400, httponly=True, samesite="Strict",
                            path=f"/t/{record.id}")
    return response


class StreamSlots:
    """Counts open MJPEG streams of one app (each holds a server thread)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> None:
        with self._lock:
            if self.open >= self.limit:
                raise TooManyStreams(limit=self.limit)
            self.open += 1

    def give(self) -> None:
        with self._lock:
            self.open -= 1


@bp.get("/stream.mjpg")
def stream() -> Response:
    """The camera's annotated view as MJPEG, at most ``mjpeg_fps`` frames a second."""
    c = ctx()
    slots: StreamSlots = current_app.extensions.setdefault("tableref_streams", StreamSlots(c.config.max_streams))
    slots.take()
    max_frames = request.args.get("frames", type=int)
    response = Response(c.camera.mjpeg(c.config.mjpeg_fps, max_frames), mimetype=MJPEG_MIMETYPE)
    response.call_on_close(slots.give)
    response.headers["Cache-Control"] = "no-cache, no-store"
    return response
