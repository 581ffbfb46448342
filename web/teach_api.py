"""The JSON API of reader profiles and of teaching a table its set, and the teaching page.

Profiles (``/api/profiles``): list, create, rename, delete, export as a zip and import one;
changing them is for the host computer when the server is exposed, as creating tables is.
A table's teaching (``/api/tables/<id>/teaching``): its profile and switch, the photo
waiting to be confirmed, confirm, undo; these change the table, so they need its token.
Every route is described in :mod:`web.openapi`; refusals are the API's error format.
"""

from __future__ import annotations

import logging

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request

from web.api import body
from web.context import ctx, lang
from web.errors import NoTeachingReader, NotAZip, NotFound
from web.i18n import GAME_NAMES, bundle, text
from web.profiles import IMPORT_MAX_BYTES, ProfileLibrary
from web.security import client_is_local, require_host, require_table_token, token_matches
from web.session import TableSession
from web.teaching import TableTeaching

bp = Blueprint("teach", __name__)
log = logging.getLogger(__name__)

EXTENSION = "tableref_teaching"
ZIP_TYPES = ("application/zip", "application/x-zip-compressed", "application/octet-stream")
#: The routes whose answer may teach the table's profile during play (see :func:`_in_play`).
READING_ROUTES = {"api.reveal": False, "api.reread": False, "api.correct": True}


def teaching() -> TableTeaching:
    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


def library() -> ProfileLibrary:
    return teaching().library


def _table(table_id: str, change: bool = False) -> TableSession:
    table = ctx().sessions.get(table_id)
    if change:
        require_table_token(table.record, ctx().exposed)
    return table


def _host(what: str, what_ja: str) -> None:
    require_host(ctx().exposed, what, what_ja)


# --- profiles ---------------------------------------------------------------------------


@bp.get("/api/profiles")
def list_profiles() -> Response:
    return jsonify(library().list())


@bp.post("/api/profiles")
def create_profile() -> tuple[Response, int]:
    data = body()
    _host("create reader profiles", "プロファイルの作成")
    pid = library().create(data.get("name"))
    return jsonify(library().describe(pid)), 201


@bp.get("/api/profiles/<profile_id>")
def get_profile(profile_id: str) -> Response:
    lib = library()
    out = lib.describe(lib.folder(profile_id).path.name)
    out["held_out"] = teaching().teacher.held_out(out["id"])
    return jsonify(out)


@bp.post("/api/profiles/<profile_id>/rename")
def rename_profile(profile_id: str) -> Response:
    data = body()
    _host("rename reader profiles", "プロファイルの名前の変更")
    library().rename(library().path(profile_id).name, data.get("name"))
    return jsonify(library().describe(profile_id))


@bp.delete("/api/profiles/<profile_id>")
def delete_profile(profile_id: str) -> Response:
    _host("delete reader profiles", "プロファイルの削除")
    library().delete(library().path(profile_id).name)
    teaching().deleted(profile_id)
    return jsonify({"deleted": profile_id})


@bp.get("/api/profiles/<profile_id>/export")
def export_profile(profile_id: str) -> Response:
    _host("export reader profiles", "プロファイルの書き出し")
    lib = library()
    pid = lib.path(profile_id).name
    data = lib.export(pid)
    response = Response(data, mimetype="application/zip")
    response.headers["Content-Disposition"] = f'attachment; filename="tableref-profile-{pid}.zip"'
    return response


@bp.post("/api/profiles/import")
def import_profile() -> tuple[Response, int]:
    """The body is the zip itself; ``?name=`` names the new profile (default: its own name)."""
    _host("import reader profiles", "プロファイルの読み込み")
    if request.mimetype not in ZIP_TYPES:
        raise NotAZip()
    request.max_content_length = IMPORT_MAX_BYTES
    lib = library()
    pid = lib.import_zip(request.get_data(cache=False), request.args.get("name"))
    try:  # fitted again for this server's models (it may come from another version of them)
        teaching().teacher.refit(pid)
    except NoTeachingReader:
        pass  # kept as imported: fitted when a table with a reader teaches it
    return jsonify(lib.describe(pid)), 201


# --- a table's teaching ---------------------------------------------------------------


@bp.get("/api/tables/<table_id>/teaching")
def table_teaching(table_id: str) -> Response:
    return jsonify(teaching().status(_table(table_id)))


@bp.post("/api/tables/<table_id>/teaching")
def set_table_teaching(table_id: str) -> Response:
    """``profile`` (an id, or null for none) and ``learn`` (teach during play), each optional."""
    table = _table(table_id, change=True)
    data = body()
    t = teaching()
    if "profile" in data:
        t.choose(table, data["profile"])
    if "learn" in data:
        t.set_learning(table, data["learn"])
    return jsonify(t.status(table))


@bp.post("/api/tables/<table_id>/teaching/read")
def read_for_teaching(table_id: str) -> Response:
    table = _table(table_id, change=True)
    body()
    return jsonify(teaching().read(table))


@bp.get("/api/tables/<table_id>/teaching/photo.jpg")
def teaching_photo(table_id: str) -> Response:
    table = _table(table_id)
    data = teaching().pending_photo(table, request.args.get("id"))
    if data is None:
        raise NotFound(path=request.path[:200])
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.post("/api/tables/<table_id>/teaching/confirm")
def confirm_teaching(table_id: str) -> Response:
    table = _table(table_id, change=True)
    data = body()
    return jsonify(teaching().confirm(table, data.get("photo"), data.get("objects")))


@bp.post("/api/tables/<table_id>/teaching/<int:entry_id>/undo")
def undo_teaching(table_id: str, entry_id: int) -> Response:
    table = _table(table_id, change=True)
    body()
    return jsonify(teaching().undo(table, entry_id))


@bp.after_app_request
def _in_play(response: Response) -> Response:
    """A reveal, re-read or correction that was answered teaches the table's profile during
    play (:meth:`~web.teaching.TableTeaching.after_reading`), after the answer is made."""
    corrected = READING_ROUTES.get(request.endpoint or "")
    if corrected is None or response.status_code != 200 or not response.is_json:
        return response
    table_id = (request.view_args or {}).get("table_id")
    try:
        table = ctx().sessions.get(str(table_id))
        result = response.get_json(silent=True)
        if isinstance(result, dict):
            teaching().after_reading(table, result, corrected)
    except Exception:  # the game's answer stands whatever teaching does
        log.exception("teaching in play failed on %s", request.path)
    return response


# --- the teaching page ------------------------------------------------------------------


@bp.get("/t/<table_id>/teach")
def teach_page(table_id: str) -> Response:
    c = ctx()
    record = c.sessions.get(table_id).record
    token: str | None = None
    cookie = request.cookies.get(f"tt_{record.id}")
    if not c.exposed or client_is_local():
        token = record.token
    elif token_matches(record, request.args.get("token")):
        token = request.args.get("token")
    elif token_matches(record, cookie):
        token = cookie
    language = lang()
    html = render_template("teach.html", lang=language, t=lambda key: text(key, language), games=GAME_NAMES,
                           i18n=bundle(language), table=record.to_json(), token=token or "",
                           game_name=GAME_NAMES[record.game], host=not c.exposed or client_is_local())
    return Response(html, mimetype="text/html")


def install(app: Flask, teach: TableTeaching) -> None:
    """Serve profiles and teaching on ``app`` with ``teach``."""
    app.extensions[EXTENSION] = teach
    app.register_blueprint(bp)
