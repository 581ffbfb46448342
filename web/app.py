"""The Flask application: ``create_app(config)``.

>>> import tempfile
>>> app = create_app({"data_dir": tempfile.mkdtemp()})
>>> client = app.test_client()
>>> client.get("/api/health").json["status"]
'ok'
>>> r = client.post("/api/tables", json={"game": "liars-dice", "players": ["A"]})
>>> r.status_code, r.json["error"]["code"]
(400, 'malformed_log')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed as HTTPMethodNotAllowed, RequestEntityTooLarge

from referee.errors import RefereeError
from referee.replay import ReplayError

from web import teach_api
from web.bus import Bus
from web.camera import NoCamera, TableCamera
from web.context import Context, ServerConfig, ctx, lang
from web.errors import MethodNotAllowed, NotFound, TooLarge, WebError, http_status
from web.i18n import bundle, text
from web.profiles import ProfileLibrary
from web.security import check_host_header
from web.session import Sessions
from web.store import Store
from web.teaching import TableTeaching, Teacher

log = logging.getLogger(__name__)

CSP = ("default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


class InternalError(WebError):
    code = "internal_error"
    status = 500
    templates = {"en": "Something went wrong on the server ({kind}).", "ja": "サーバーでエラーが起きました（{kind}）。"}


def _config(config: ServerConfig | Mapping[str, Any]) -> ServerConfig:
    if isinstance(config, ServerConfig):
        return config
    values = dict(config)
    values["data_dir"] = Path(values["data_dir"])
    return ServerConfig(**values)


def create_app(config: ServerConfig | Mapping[str, Any], camera: TableCamera | None = None,
               teach_reader: Callable[[], Any] | None = None) -> Flask:
    """The dashboard for ``config`` (a :class:`ServerConfig` or a mapping of its fields).

    ``camera`` is anything following :class:`~web.camera.TableCamera` (default: no camera);
    the caller starts and stops it. ``teach_reader`` loads the base dice reader that teaches
    tables' profiles (:mod:`web.teaching`; None: profiles are kept but not taught).
    """
    cfg = _config(config)
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config["MAX_CONTENT_LENGTH"] = cfg.max_content_length
    app.config["JSON_SORT_KEYS"] = False
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    store = Store(cfg.data_dir)
    bus = Bus()
    cam = camera if camera is not None else NoCamera()
    sessions = Sessions(store, cam, bus, settle_wait=cfg.settle_wait_s)
    app.extensions["tableref"] = Context(cfg, store, sessions, bus, cam)

    from web.api import bp as api_bp
    from web.pages import bp as pages_bp

    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    profiles = ProfileLibrary(cfg.data_dir)
    teach_api.install(app, TableTeaching(sessions, profiles, Teacher(profiles, teach_reader)))

    @app.before_request
    def _host() -> None:
        check_host_header(ctx().exposed)

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"  # join links carry the table token
        chosen = request.args.get("lang")
        if chosen in ("en", "ja") and request.cookies.get("lang") != chosen:
            response.set_cookie("lang", chosen, max_age=365 * 86400, samesite="Lax")
        return response

    app.register_error_handler(RefereeError, _referee_error)
    app.register_error_handler(ReplayError, _replay_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
    return app


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/stream.mjpg" or request.is_json


def _error_response(err: RefereeError, status: int) -> tuple[Response, int]:
    language = lang()
    if _wants_json():
        return jsonify({"error": _characters(err.to_json(language))}), status
    page = render_template("error.html", message=_characters(err.message(language)), status=status, lang=language,
                           t=lambda key: text(key, language), i18n=bundle(language))
    return Response(page, mimetype="text/html"), status


def _referee_error(err: RefereeError) -> tuple[Response, int]:
    return _error_response(err, http_status(err))


def _replay_error(err: ReplayError) -> tuple[Response, int]:
    language = lang()
    payload = err.error.to_json(language)
    payload["event"] = err.event
    return jsonify({"error": _characters(payload)}), 400


def _characters(value: Any) -> Any:
    """``value`` with every lone UTF-16 surrogate (text that is no character, which UTF-8 cannot
    write) shown as U+FFFD, so a refusal that quotes what was sent can always be answered.
    Request bodies with one are refused first (:func:`web.api.body`); this is the last guard."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {_characters(k): _characters(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_characters(v) for v in value]
    return value


def _http_error(err: HTTPException) -> tuple[Response, int]:
    status = err.code or 500
    mapped: RefereeError
    if isinstance(err, RequestEntityTooLarge):
        mapped = TooLarge(limit=ctx().config.max_content_length)
    elif isinstance(err, HTTPMethodNotAllowed):
        mapped = MethodNotAllowed(method=request.method, path=request.path[:200])
    elif status == 404:
        mapped = NotFound(path=request.path[:200])
    else:
        mapped = WebError(reason=err.description or err.name)
    return _error_response(mapped, status)


def _unexpected(err: Exception) -> tuple[Response, int]:
    if isinstance(err, HTTPException):
        return _http_error(err)
    log.exception("unexpected error on %s %s", request.method, request.path)
    return _error_response(InternalError(kind=type(err).__name__), 500)
