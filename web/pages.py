"""HTML pages (home, table) and the live MJPEG stream.

Pages are server-rendered Jinja templates with small vanilla scripts that talk
to the JSON API and listen to Server-Sent Events; no CDN, nothing from the
network. Controls carry stable ``data-testid`` attributes for browser tests.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template, request

from web.camera import MJPEG_MIMETYPE
from web.context import ctx, lang
from web.i18n import GAME_NAMES, bundle, text
from web.security import client_is_local, token_matches
from web.streams import StreamSlots, bound_sending

bp = Blueprint("pages", __name__)


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


@bp.get("/stream.mjpg")
def stream() -> Response:
    """The camera's annotated view as MJPEG, at most ``mjpeg_fps`` frames a second, to at most
    ``max_streams`` viewers at once (the rules of :mod:`web.streams`)."""
    c = ctx()
    slots: StreamSlots = current_app.extensions.setdefault("tableref_streams", StreamSlots(c.config.max_streams))
    hang_up = bound_sending(request.environ, c.config.stream_send_timeout_s)
    viewer = slots.take(host=client_is_local(), hang_up=hang_up)
    max_frames = request.args.get("frames", type=int)
    response = Response(slots.serve(viewer, c.camera.mjpeg(c.config.mjpeg_fps, max_frames)), mimetype=MJPEG_MIMETYPE)
    response.call_on_close(lambda: slots.give(viewer))  # also when the body was never started
    response.headers["Cache-Control"] = "no-cache, no-store"
    return response
