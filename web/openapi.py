"""The OpenAPI 3 description of ``/api`` and ``/stream.mjpg``, written by hand.

A test checks that every route of the app is described here and nothing else.

>>> doc = document()
>>> doc["openapi"], "/api/tables/{table_id}/actions" in doc["paths"]
('3.0.3', True)
"""

from __future__ import annotations

from typing import Any

from referee.json_limits import MAX_DEPTH
from web.context import DEFAULT_MAX_BYTES

JSON = dict[str, Any]

_REF = "#/components/schemas/"


def _ref(name: str) -> JSON:
    return {"$ref": _REF + name}


def _json(schema: JSON, description: str) -> JSON:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> JSON:
    texts = {400: "Malformed request or event (reason in `error.message`)", 403: "Join token missing or wrong, or host-only",
             404: "No such table or reading", 409: "Refused by the rules now, or the table changed meanwhile",
             413: "Request body too large", 415: "Body is not application/json", 422: "Misread",
             503: "Too many streams"}
    return {str(c): _json(_ref("Error"), texts[c]) for c in codes}


_TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string", "pattern": "^[0-9a-f]{10}$"}}
_READING_ID = {"name": "reading_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_LANG = {"name": "lang", "in": "query", "required": False, "schema": {"type": "string", "enum": ["en", "ja"]},
         "description": "Language of messages (default: Accept-Language, else en)"}
_TOKEN = {"name": "X-Table-Token", "in": "header", "required": False, "schema": {"type": "string"},
          "description": "The table's join token; required when the server is bound to a non-loopback address"}


def _body(schema: JSON, description: str, required: bool = True) -> JSON:
    return {"required": required, "description": description, "content": {"application/json": {"schema": schema}}}


_PROFILE_ID = {"name": "profile_id", "in": "path", "required": True, "schema": {"type": "string", "pattern": "^[0-9a-f]{10}$"}}
_ENTRY_ID = {"name": "entry_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_NAME = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 40}}}


def _teaching(change: list[JSON], read: list[JSON]) -> JSON:
    """Reader profiles and teaching a table its set (docs/teach.md, :mod:`web.teaching`)."""
    profile = [_PROFILE_ID, _LANG]
    teaching = _json(_ref("Teaching"), "The table's teaching")
    return {
        "/api/profiles": {
            "get": {"summary": "List the reader profiles (newest first)",
                    "responses": {"200": _json({"type": "array", "items": _ref("Profile")}, "Profiles")}},
            "post": {"summary": "Create an empty, named reader profile (host computer only when exposed)",
                     "parameters": [_LANG], "requestBody": _body(_NAME, "Its name"),
                     "responses": {"201": _json(_ref("Profile"), "The new profile"), **_errors(400, 403, 413, 415)}}},
        "/api/profiles/import": {"post": {
            "summary": "Import a profile file (a zip made by export) as a new profile, fitted again for this "
                       "server's models (host computer only when exposed)",
            "description": "The body is the zip itself (Content-Type: application/zip), at most 64 MB. Refused, "
                           "keeping nothing, unless it holds only meta.json, labels.jsonl, profile.json and "
                           "photos/<sha256>.<ext>, each photo named by its content and readable, and every labels "
                           "line as `tableref teach` takes it.",
            "parameters": [_LANG, {"name": "name", "in": "query", "required": False, "schema": {"type": "string"},
                                   "description": "Name of the new profile (default: the file's)"}],
            "requestBody": {"required": True, "description": "The profile file",
                            "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}},
            "responses": {"201": _json(_ref("Profile"), "The imported profile"), **_errors(400, 403, 413, 415)}}},
        "/api/profiles/{profile_id}": {
            "get": {"summary": "One reader profile, with its held-out score", "parameters": profile,
                    "responses": {"200": _json(_ref("Profile"), "Profile"), **_errors(404)}},
            "delete": {"summary": "Delete a reader profile and its photos (host computer only when exposed)",
                       "parameters": profile,
                       "responses": {"200": _json({"type": "object"}, "Deleted"), **_errors(403, 404)}}},
        "/api/profiles/{profile_id}/rename": {"post": {
            "summary": "Rename a reader profile (host computer only when exposed)", "parameters": profile,
            "requestBody": _body(_NAME, "The new name"),
            "responses": {"200": _json(_ref("Profile"), "Profile"), **_errors(400, 403, 404, 413, 415)}}},
        "/api/profiles/{profile_id}/export": {"get": {
            "summary": "The profile as a file: a zip of its name, labels, fitted profile and photos "
                       "(host computer only when exposed)", "parameters": profile,
            "responses": {"200": {"description": "zip", "content": {"application/zip": {
                "schema": {"type": "string", "format": "binary"}}}}, **_errors(403, 404)}}},
        "/api/tables/{table_id}/teaching": {
            "get": {"summary": "The table's teaching: its profile, held-out score, ready, the photo waiting, "
                               "photos taught", "parameters": read,
                    "responses": {"200": teaching, **_errors(404)}},
            "post": {"summary": "Choose the table's profile (`profile`: an id or null) and whether play teaches "
                                "it (`learn`); the table remembers both",
                     "parameters": change, "requestBody": _body({"type": "object", "properties": {
                         "profile": {"type": "string", "nullable": True}, "learn": {"type": "boolean"}}}, "Settings"),
                     "responses": {"200": teaching, **_errors(400, 403, 404, 409, 413, 415)}}},
        "/api/tables/{table_id}/teaching/read": {"post": {
            "summary": "Read the table's still frame with its profile for teaching (the demo source rolls every die)",
            "parameters": change, "requestBody": _body({"type": "object"}, "Empty object", False),
            "responses": {"200": teaching, **_errors(403, 404, 409, 415)}}},
        "/api/tables/{table_id}/teaching/photo.jpg": {"get": {
            "summary": "The photo waiting to be confirmed (boxes are in its pixel coordinates)",
            "parameters": [_TABLE_ID, {"name": "id", "in": "query", "required": False, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {
                "schema": {"type": "string", "format": "binary"}}}}, **_errors(404)}}},
        "/api/tables/{table_id}/teaching/confirm": {"post": {
            "summary": "Keep the waiting photo with its reading as confirmed or corrected in the table's profile, "
                       "and fit the profile again; acknowledged once the photo and its labels are on disk",
            "parameters": change, "requestBody": _body({"type": "object", "required": ["photo", "objects"], "properties": {
                "photo": {"type": "integer"}, "objects": {"type": "array", "items": _ref("Object")}}},
                "The waiting photo's id and every die (or card) on it"),
            "responses": {"200": teaching, **_errors(400, 403, 404, 409, 413, 415)}}},
        "/api/tables/{table_id}/teaching/{entry_id}/undo": {"post": {
            "summary": "Take back one photo the table taught (its labels before come back, or it leaves the "
                       "profile), and fit the profile again",
            "parameters": [*change, _ENTRY_ID], "requestBody": _body({"type": "object"}, "Empty object", False),
            "responses": {"200": teaching, **_errors(403, 404, 409, 415)}}},
    }


def document() -> JSON:
    change = [_TABLE_ID, _TOKEN, _LANG]
    read = [_TABLE_ID, _LANG]
    paths: JSON = {
        "/api/health": {"get": {
            "summary": "Server health: camera state, reader model, version",
            "responses": {"200": _json(_ref("Health"), "Health")}}},
        "/api/games": {"get": {
            "summary": "The games this referee knows, with player counts",
            "responses": {"200": _json({"type": "array", "items": {"type": "object"}}, "Games")}}},
        "/api/errors": {"get": {
            "summary": "Every refusal code with its English and Japanese message templates",
            "responses": {"200": _json({"type": "object", "additionalProperties": {"type": "object"}}, "Catalogue")}}},
        "/api/tables": {
            "get": {"summary": "List tables (newest first)",
                    "responses": {"200": _json({"type": "array", "items": _ref("TableSummary")}, "Tables")}},
            "post": {"summary": "Create a table (host computer only when exposed)", "parameters": [_LANG],
                     "requestBody": _body(_ref("NewTable"), "Game, players in seat order (clockwise), options"),
                     "responses": {"201": _json(_ref("Created"), "The new table, its join token and view"),
                                   **_errors(400, 403, 413, 415)}}},
        "/api/import": {"post": {
            "summary": "Import a tableref-game/1 log as a new table; refused with the reason unless it replays",
            "parameters": [_LANG], "requestBody": _body(_ref("GameLog"), "The game log"),
            "responses": {"201": _json(_ref("Created"), "The new table"), **_errors(400, 403, 413, 415)}}},
        "/api/tables/{table_id}": {
            "get": {"summary": "The table's view: state, legal actions, score, history, current reading",
                    "parameters": read, "responses": {"200": _json(_ref("View"), "View"), **_errors(404)}},
            "delete": {"summary": "Delete a table with its readings and photos (host computer only when exposed)",
                       "parameters": change, "responses": {"200": _json({"type": "object"}, "Deleted"), **_errors(403, 404)}}},
        "/api/tables/{table_id}/actions": {"post": {
            "summary": "Apply one decision (bid, challenge, shout, play, stake, start, deal ...)",
            "description": "The body is one event of the game log (tableref-game/1). It is validated by applying it to "
                           "the replayed state, then appended. Reveals and rolls are read: use /reveal. "
                           "A Nine Dice shout may carry `tapped_at` and `sent_at` (a phone's own clock, ms): it is "
                           "then scored after a short wait, in the order of the taps (neither is logged). A correct "
                           "プラスベガス / ラスベガス / ナシゴレン without `colour` is not logged: the view says "
                           "`status: colour_needed` and `aids.claim`, and other shouts are refused (409 "
                           "round_claimed) until the winner's colour comes.",
            "parameters": change, "requestBody": _body(_ref("Event"), "The event"),
            "responses": {"200": _json(_ref("View"), "The new view"), **_errors(400, 403, 404, 409, 413, 415)}}},
        "/api/tables/{table_id}/reveal": {"post": {
            "summary": "Read the table for the pending reveal/roll: the camera's settled reading or `reading`",
            "description": "Answers `status: verdict` (the reveal event was appended) or `status: reread` (the reading "
                           "does not add up; nothing appended; `reason` says why). Both store the reading.",
            "parameters": change, "requestBody": _body(_ref("RevealRequest"), "Optional explicit reading", False),
            "responses": {"200": _json(_ref("RevealResult"), "Verdict or re-read"), **_errors(400, 403, 404, 409, 415)}}},
        "/api/tables/{table_id}/reread": {"post": {
            "summary": "Read again: replace the last reveal's reading (or read the pending reveal)",
            "parameters": change, "requestBody": _body(_ref("RevealRequest"), "Optional explicit reading", False),
            "responses": {"200": _json(_ref("RevealResult"), "Verdict or re-read"), **_errors(400, 403, 404, 409, 415)}}},
        "/api/tables/{table_id}/discard-reading": {"post": {
            "summary": "Doubt: read the four cards a player lays face up from the camera and discard their rank "
                       "(waits up to 8 s for four sure cards of one rank, one per suit; 422 names what was read)",
            "parameters": change,
            "requestBody": _body({"type": "object", "required": ["player"], "properties": {
                "player": {"type": "string", "description": "Who discards"}}}, "Who discards"),
            "responses": {"200": _json({"type": "object", "properties": {
                "status": {"type": "string", "enum": ["discarded"]}, "event": _ref("Event"),
                "cards": {"type": "array", "items": {"type": "string"}}, "view": _ref("View")}}, "Discarded"),
                **_errors(400, 403, 404, 409, 415, 422)}}},
        "/api/tables/{table_id}/undo": {"post": {
            "summary": "Take back the last thing done: the last event, or a hand correction made after it"
                       " (then `undone` is {type: correction, reading, who, before, after} and the reveal stays)",
            "parameters": change,
            "requestBody": _body({"type": "object"}, "Empty object", False),
            "responses": {"200": _json({"type": "object", "properties": {"undone": _ref("Event"), "view": _ref("View")}}, "Undone"),
                          **_errors(403, 404, 409, 415)}}},
        "/api/tables/{table_id}/log": {"get": {
            "summary": "Export the table as a tableref-game/1 log (exactly its events)",
            "parameters": [_TABLE_ID, {"name": "download", "in": "query", "required": False, "schema": {"type": "string"},
                                       "description": "Any value: send as an attachment"}],
            "responses": {"200": _json(_ref("GameLog"), "The log"), **_errors(404)}}},
        "/api/tables/{table_id}/readings": {"get": {
            "summary": "Recent readings of the table (newest first) with verdicts and corrections",
            "parameters": read, "responses": {"200": _json({"type": "array", "items": _ref("Reading")}, "Readings"),
                                              **_errors(404)}}},
        "/api/tables/{table_id}/readings/{reading_id}": {"get": {
            "summary": "One reading", "parameters": [*read, _READING_ID],
            "responses": {"200": _json(_ref("Reading"), "Reading"), **_errors(404)}}},
        "/api/tables/{table_id}/readings/{reading_id}/snapshot.jpg": {"get": {
            "summary": "The photo a camera reading was taken from (boxes are in its pixel coordinates)",
            "parameters": [_TABLE_ID, _READING_ID],
            "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}},
                          **_errors(404)}}},
        "/api/tables/{table_id}/readings/{reading_id}/corrections": {"post": {
            "summary": "Correct a reading by hand; the verdict is recomputed (the reveal event replaced)",
            "parameters": [*change, _READING_ID], "requestBody": _body(_ref("Correction"), "Who and what changes"),
            "responses": {"200": _json(_ref("RevealResult"), "The recomputed verdict (or re-read)"),
                          **_errors(400, 403, 404, 409, 415)}}},
        "/api/tables/{table_id}/odds": {"post": {
            "summary": "Liar's Dice: exact chance the standing bid and each legal raise are true for a player",
            "parameters": read,
            "requestBody": _body({"type": "object", "properties": {
                "player": {"type": "string", "description": "Default: the player to act"},
                "dice": {"type": "array", "items": {"type": "string"}, "description": "That player's own dice"}}},
                "Whose odds", False),
            "responses": {"200": _json(_ref("Odds"), "Odds"), **_errors(400, 404, 409, 415)}}},
        "/api/tables/{table_id}/join": {"get": {
            "summary": "Join link and QR code (SVG) for the table (host computer or token holder)",
            "parameters": [_TABLE_ID, _TOKEN],
            "responses": {"200": _json({"type": "object", "properties": {
                "url": {"type": "string"}, "token": {"type": "string"}, "qr_svg": {"type": "string"},
                "exposed": {"type": "boolean"}}}, "Join"), **_errors(403, 404)}}},
        "/api/tables/{table_id}/events": {"get": {
            "summary": "Server-Sent Events: `state` (the view) at once and on every change, `verdict`, `reread`, "
                       "`camera` (online/offline), `settled`, `deleted`",
            "parameters": read,
            "responses": {"200": {"description": "text/event-stream", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                          **_errors(404)}}},
        **_teaching(change, read),
        "/api/openapi.json": {"get": {
            "summary": "This document", "responses": {"200": _json({"type": "object"}, "OpenAPI 3 document")}}},
        "/stream.mjpg": {"get": {
            "summary": "Live annotated camera view (multipart/x-mixed-replace MJPEG, capped frame rate)",
            "parameters": [{"name": "frames", "in": "query", "required": False, "schema": {"type": "integer"},
                            "description": "Stop after this many frames"}],
            "responses": {"200": {"description": "MJPEG", "content": {"multipart/x-mixed-replace": {"schema": {"type": "string", "format": "binary"}}}},
                          **_errors(503)}}},
    }
    obj = {"type": "object"}
    schemas: JSON = {
        "Error": {"type": "object", "required": ["error"], "properties": {"error": {
            "type": "object", "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "params": obj,
                           "event": {"type": "integer", "nullable": True,
                                     "description": "Import only: index of the failing event"}}}}},
        "Health": {"type": "object", "properties": {
            "status": {"type": "string"}, "version": {"type": "string"}, "camera": _ref("CameraStatus"),
            "model": obj, "tables": {"type": "integer"}, "exposed": {"type": "boolean"}}},
        "CameraStatus": {"type": "object", "properties": {"online": {"type": "boolean"}, "source": {"type": "string"},
                                                         "state": {"type": "string"}, "last_error": {"type": "string", "nullable": True}}},
        "TableSummary": {"type": "object", "properties": {
            "id": {"type": "string"}, "game": {"type": "string"}, "players": {"type": "array", "items": {"type": "string"}},
            "options": obj, "created": {"type": "string"}, "events": {"type": "integer"}}},
        "NewTable": {"type": "object", "required": ["game", "players"], "properties": {
            "game": {"type": "string", "enum": ["liars-dice", "nine-dice", "doubt", "pin456"]},
            "players": {"type": "array", "items": {"type": "string"}}, "options": obj}},
        "Created": {"type": "object", "properties": {"table": _ref("TableSummary"), "token": {"type": "string"}, "view": _ref("View")}},
        "GameLog": {"type": "object", "required": ["format", "game", "players", "events"], "properties": {
            "format": {"type": "string", "enum": ["tableref-game/1"]}, "game": {"type": "string"}, "options": obj,
            "players": {"type": "array", "items": {"type": "string"}}, "events": {"type": "array", "items": _ref("Event")}}},
        "Event": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}},
                  "additionalProperties": True, "description": "One game-log event (shared/docs/game-log.md)"},
        "View": {"type": "object", "properties": {
            "table": _ref("TableSummary"), "seq": {"type": "integer", "description": "Number of events"},
            "state": {"type": "object", "description": "The contract's state JSON"},
            "expects": {"type": "string", "nullable": True}, "reading_expected": {"type": "boolean"},
            "legal_actions": {"type": "array", "items": _ref("Event")}, "terminal": {"type": "boolean"},
            "winner": {"type": "string", "nullable": True}, "score": obj,
            "history": {"type": "array", "items": obj}, "reading": {"allOf": [_ref("Reading")], "nullable": True},
            "aids": obj}},
        "Object": {"type": "object", "required": ["face"], "properties": {
            "kind": {"type": "string", "enum": ["die", "card"]}, "face": {"type": "string"},
            "colour": {"type": "string", "nullable": True},
            "box": {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4},
            "score": {"type": "number"}, "uncertain": {"type": "boolean"},
            "alternatives": {"type": "array", "items": {"type": "string"}, "maxItems": 16,
                             "description": "an unsure die's possible faces, likeliest first: a verdict that holds "
                                            "for all of them is given"},
            "corrected": {"type": "boolean"}}},
        "ReadingIn": {"type": "object", "required": ["objects"], "properties": {
            "objects": {"type": "array", "items": _ref("Object")}, "width": {"type": "integer"}, "height": {"type": "integer"}}},
        "RevealRequest": {"type": "object", "properties": {"reading": _ref("ReadingIn")}},
        "Reading": {"type": "object", "properties": {
            "id": {"type": "integer"}, "created": {"type": "string"}, "source": {"type": "string", "enum": ["camera", "manual"]},
            "status": {"type": "string", "enum": ["verdict", "reread", "withdrawn", "stale"]},
            "at_seq": {"type": "integer"}, "event_seq": {"type": "integer", "nullable": True},
            "width": {"type": "integer"}, "height": {"type": "integer"},
            "objects": {"type": "array", "items": _ref("Object")}, "original": {"type": "array", "items": _ref("Object")},
            "snapshot": {"type": "string", "nullable": True}, "verdict": {"type": "object", "nullable": True},
            "reason": {"type": "object", "nullable": True}, "corrections": {"type": "array", "items": obj}}},
        "RevealResult": {"type": "object", "properties": {
            "status": {"type": "string", "enum": ["verdict", "reread"]}, "reading": _ref("Reading"),
            "verdict": {"type": "object", "nullable": True}, "reason": {"type": "object", "nullable": True},
            "view": _ref("View")}},
        "Correction": {"type": "object", "required": ["changes"], "properties": {
            "who": {"type": "string"},
            "changes": {"type": "array", "items": {"type": "object", "properties": {
                "index": {"type": "integer"}, "face": {"type": "string"}, "colour": {"type": "string", "nullable": True},
                "remove": {"type": "boolean"}, "add": _ref("Object")}}}}},
        "Profile": {"type": "object", "properties": {
            "id": {"type": "string"}, "name": {"type": "string"}, "created": {"type": "string"},
            "photos": {"type": "integer", "description": "Photos kept (taught)"},
            "objects": {"type": "integer", "description": "Dice the fitted profile was taught"},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Taught dice by face"},
            "held_out": {"type": "object", "nullable": True, "description":
                         "How a profile taught on the other photos reads each photo (5 folds): dice, found, "
                         "sure_right, sure_wrong, accuracy, confidently_wrong; `current` when for the photos kept now, "
                         "`computing` while a newer score is computed in the background"},
            "ready": {"type": "boolean", "description": "At least 10 photos, held-out accuracy >= 98 % and "
                                                        "confidently wrong <= 0.5 % (in a table's teaching only)"}}},
        "Teaching": {"type": "object", "properties": {
            "table": {"type": "string"}, "profile": {"allOf": [_ref("Profile")], "nullable": True},
            "learn": {"type": "boolean", "description": "Confirmed reveals and corrections teach the profile during play"},
            "pending": {"type": "object", "nullable": True, "description":
                        "The photo read for teaching, waiting to be confirmed: id, width, height, objects, photo (URL)"},
            "taught": {"type": "array", "items": obj, "description":
                       "Photos taught, newest first: id, created, profile, photo, source (teach, reveal, correction), "
                       "reading, undone, can_undo"},
            "ready_when": obj}},
        "Odds": {"type": "object", "properties": {
            "player": {"type": "string"}, "own": {"type": "array", "items": {"type": "string"}},
            "unseen": {"type": "integer"}, "bid": {"type": "object", "nullable": True},
            "raises": {"type": "array", "items": obj}}},
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "tableref dashboard API", "version": "1",
                 "description": "Table sessions for the tableref referee. Every table is a tableref-game/1 log. "
                                "POST bodies must be application/json, at most "
                                f"{DEFAULT_MAX_BYTES // (1024 * 1024)} MB however sent (413) and nested at most "
                                f"{MAX_DEPTH} levels deep, with no lone UTF-16 surrogate in any text (400). "
                                "Errors: {\"error\": {\"code\", \"message\"}}, "
                                "message in the language of ?lang= or Accept-Language (en, ja)."},
        "paths": paths,
        "components": {"schemas": schemas},
    }
