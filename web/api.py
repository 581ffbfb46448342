"""The JSON API (``/api``). Every route is described in :mod:`web.openapi`.

Refusals are ``{"error": {"code", "message", "params"}}`` with a 4xx status;
``message`` is in the requested language (``?lang=`` or ``Accept-Language``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from referee.errors import catalogue
from referee.json_limits import MAX_DEPTH, json_flaw
from referee.replay import rules_for

from web.bus import Message
from web.context import ctx, lang
from web.errors import BadRequest, NotFound, NotJSON
from web.i18n import GAME_NAMES
from web.readings import object_kind
from web.security import TOKEN_HEADER, client_is_local, require_host, require_table_token, token_matches
from web.session import TableSession, localize
from web.streams import bound_sending

bp = Blueprint("api", __name__, url_prefix="/api")

SSE_KEEPALIVE_S = 15.0


def body() -> dict[str, Any]:
    """The JSON object sent with a POST (``{}`` when the body is empty): the one gate every
    request body passes. Refused before any route sees it: a body over the size cap however
    it is sent (413), anything but a JSON object, and JSON nested too deeply or holding a
    lone surrogate (:mod:`referee.json_limits`), which would fail whatever handles it next."""
    if not request.is_json:
        raise NotJSON()
    data = _capped_data()
    if not data.strip():
        return {}
    try:
        value = json.loads(data)
    except RecursionError:  # deeper than the parser goes: far deeper than MAX_DEPTH
        raise BadRequest(*_too_deep()) from None
    except ValueError:
        raise BadRequest("the body is not valid JSON", "本文が正しいJSONではありません") from None
    if not isinstance(value, dict):
        raise BadRequest("the body must be a JSON object", "本文はJSONオブジェクトです")
    flaw = json_flaw(value)
    if flaw is not None:
        raise BadRequest(*flaw)
    return value


def _capped_data() -> bytes:
    """The body, refused (413) over ``MAX_CONTENT_LENGTH``. Werkzeug refuses a ``Content-Length``
    over the cap, but a chunked body (no length) is only read up to the cap and silently cut:
    here one more byte read past the cap tells a cut body from one of exactly the cap."""
    data = request.get_data(cache=True)
    cap = request.max_content_length
    if request.content_length is None and cap is not None and len(data) >= cap:
        rest = request.environ.get("wsgi.input")
        if rest is not None and rest.read(1):
            raise RequestEntityTooLarge()
    return data


def _too_deep() -> tuple[str, str]:
    return (f"the body is nested more than {MAX_DEPTH} levels deep", f"本文の入れ子が{MAX_DEPTH}段を超えています")


def _table(table_id: str, change: bool = False) -> TableSession:
    table = ctx().sessions.get(table_id)
    if change:
        require_table_token(table.record, ctx().exposed)
    return table


def _localized(out: dict[str, Any]) -> dict[str, Any]:
    """Fill ``message`` (in the request's language) into every stored bilingual reason."""
    language = lang()
    if out.get("reason") is not None:
        out["reason"] = localize(out["reason"], language)
    reading = out.get("reading")
    if isinstance(reading, dict) and reading.get("reason") is not None:
        reading["reason"] = localize(reading["reason"], language)
    view = out.get("view")
    if isinstance(view, dict):
        _localized(view)
    return out


@bp.get("/health")
def health() -> Response:
    c = ctx()
    try:
        from importlib.metadata import version

        ver = version("tableref")
    except Exception:  # pragma: no cover - running from a bare checkout
        ver = "unknown"
    return jsonify({"status": "ok", "version": ver, "camera": c.camera.status(), "model": c.camera.info(),
                    "tables": len(c.store.list_tables()), "exposed": c.exposed})


@bp.get("/games")
def games() -> Response:
    out = []
    for game, names in GAME_NAMES.items():
        rules = rules_for(game)
        out.append({"game": game, "names": names, "min_players": rules.min_players, "max_players": rules.max_players,
                    "reads": object_kind(game)})
    return jsonify(out)


@bp.get("/errors")
def errors() -> Response:
    return jsonify(catalogue())


@bp.get("/tables")
def list_tables() -> Response:
    return jsonify(ctx().sessions.list())


@bp.post("/tables")
def create_table() -> tuple[Response, int]:
    data = body()
    require_host(ctx().exposed, "create tables", "テーブルの作成")
    record = ctx().sessions.create(data.get("game"), data.get("players"), data.get("options", {}))
    return jsonify({"table": record.to_json(), "token": record.token, "view": ctx().sessions.get(record.id).view()}), 201


@bp.post("/import")
def import_log() -> tuple[Response, int]:
    doc = body()
    require_host(ctx().exposed, "import game logs", "ゲーム記録の読み込み")
    record = ctx().sessions.import_log(doc)
    return jsonify({"table": record.to_json(), "token": record.token, "view": ctx().sessions.get(record.id).view()}), 201


@bp.get("/tables/<table_id>")
def get_table(table_id: str) -> Response:
    return jsonify(_localized(_table(table_id).view()))


@bp.delete("/tables/<table_id>")
def delete_table(table_id: str) -> Response:
    table = _table(table_id, change=True)
    require_host(ctx().exposed, "delete tables", "テーブルの削除")
    ctx().sessions.delete(table.id)
    return jsonify({"deleted": table.id})


@bp.post("/tables/<table_id>/actions")
def apply_action(table_id: str) -> Response:
    table = _table(table_id, change=True)
    return jsonify(_localized(table.apply(body())))


@bp.post("/tables/<table_id>/reveal")
def reveal(table_id: str) -> Response:
    table = _table(table_id, change=True)
    return jsonify(_localized(table.reveal(body().get("reading"))))


@bp.post("/tables/<table_id>/reread")
def reread(table_id: str) -> Response:
    table = _table(table_id, change=True)
    return jsonify(_localized(table.reread(body().get("reading"))))


@bp.post("/tables/<table_id>/discard-reading")
def discard_reading(table_id: str) -> Response:
    table = _table(table_id, change=True)
    return jsonify(_localized(table.discard_from_camera(body().get("player"))))


@bp.post("/tables/<table_id>/undo")
def undo(table_id: str) -> Response:
    table = _table(table_id, change=True)
    body()
    return jsonify(_localized(table.undo()))


@bp.get("/tables/<table_id>/log")
def export_log(table_id: str) -> Response:
    table = _table(table_id)
    response = Response(json.dumps(table.export(), ensure_ascii=False, indent=1), mimetype="application/json")
    if request.args.get("download"):
        response.headers["Content-Disposition"] = f'attachment; filename="tableref-{table.record.game}-{table.id}.json"'
    return response


@bp.get("/tables/<table_id>/readings")
def readings(table_id: str) -> Response:
    table = _table(table_id)
    return jsonify([_localized({"reading": r})["reading"] for r in table.readings()])


@bp.get("/tables/<table_id>/readings/<int:reading_id>")
def reading(table_id: str, reading_id: int) -> Response:
    table = _table(table_id)
    return jsonify(_localized({"reading": table.reading_json(table.reading(reading_id))})["reading"])


@bp.get("/tables/<table_id>/readings/<int:reading_id>/snapshot.jpg")
def snapshot(table_id: str, reading_id: int) -> Response:
    table = _table(table_id)
    data = ctx().store.snapshot_bytes(table.reading(reading_id))
    if data is None:
        raise NotFound(path=request.path)
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "private, max-age=86400, immutable"
    return response


@bp.post("/tables/<table_id>/readings/<int:reading_id>/corrections")
def correct(table_id: str, reading_id: int) -> Response:
    table = _table(table_id, change=True)
    data = body()
    return jsonify(_localized(table.correct(reading_id, data.get("who"), data.get("changes"))))


@bp.post("/tables/<table_id>/odds")
def odds(table_id: str) -> Response:
    table = _table(table_id)
    data = body()
    return jsonify(table.odds(data.get("player"), data.get("dice")))


@bp.get("/tables/<table_id>/join")
def join(table_id: str) -> Response:
    """The join link and its QR code: for the host computer or a holder of the token."""
    table = _table(table_id)
    c = ctx()
    if c.exposed and not client_is_local() and not token_matches(table.record, request.headers.get(TOKEN_HEADER)):
        require_table_token(table.record, True)
    url = c.join_url(table.record)
    return jsonify({"url": url, "token": table.record.token, "qr_svg": qr_svg(url), "exposed": c.exposed})


def qr_svg(url: str) -> str:
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=5, border=2, xmldecl=False, svgclass="qr", lineclass=None)
    return out.getvalue().decode()


@bp.get("/tables/<table_id>/events")
def events(table_id: str) -> Response:
    """Server-Sent Events: ``state`` (the whole view) now and on every change, ``verdict``,
    ``reread``, ``camera`` (online/offline), ``settled``, ``deleted``."""
    table = _table(table_id)
    c = ctx()
    language = lang()
    bound_sending(request.environ, c.config.stream_send_timeout_s)  # a stalled listener frees its thread
    sub = c.bus.subscribe(table.id)
    first = [Message(0, "state", _localized(table.view())), Message(0, "camera", c.camera.status())]
    keepalive = float(current_app.config.get("SSE_KEEPALIVE_S", SSE_KEEPALIVE_S))

    def stream() -> Iterator[str]:
        try:
            yield "retry: 2000\n\n"
            for message in first:
                yield message.sse()
            while True:
                message = sub.get(timeout=keepalive)
                if message is None:
                    yield ": keepalive\n\n"
                    continue
                data = message.data
                if message.kind in ("state", "verdict", "reread"):
                    data = _reasons(data, language)
                yield Message(message.id, message.kind, data).sse()
                if message.kind == "deleted":
                    return
        finally:
            sub.close()

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _reasons(data: dict[str, Any], language: str) -> dict[str, Any]:
    out = json.loads(json.dumps(data))  # the same message goes to every subscriber: never edit it in place
    reading = out.get("reading")  # a view and a verdict/reread message both carry the reading here
    if isinstance(reading, dict) and reading.get("reason"):
        reading["reason"] = localize(reading["reason"], language)
    return out


@bp.get("/openapi.json")
def openapi() -> Response:
    from web.openapi import document

    return jsonify(document())
