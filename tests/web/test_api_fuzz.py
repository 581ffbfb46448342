"""Fuzz every route of ``/api/openapi.json``: whatever JSON a client sends (lone surrogates,
huge and non-finite numbers, deep nesting, wrong types, bad path and query values), the
answer is never a 5xx and never a traceback, and every API refusal is the error format
``{"error": {"code", "message"}}`` (issue 84).

Bounded and deterministic for CI: a fixed number of examples per route, derandomized.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web_support import ScriptedCamera, faces

import web.session
from referee.json_limits import MAX_DEPTH
from web.app import create_app
from web.openapi import document

DOC = document()
OPERATIONS = [(path, method) for path, ops in DOC["paths"].items() for method in ops]
EXAMPLES = {"get": 25, "delete": 25, "post": 60}

FUZZ = settings(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

# --- JSON values ------------------------------------------------------------------------

LONE_SURROGATES = st.sampled_from(["\ud800", "\udfff", "a\udc00b", "\udbff\udbff", "ok\ud83d"])
TEXT = st.one_of(st.text(max_size=12), LONE_SURROGATES, LONE_SURROGATES,
                 st.sampled_from(["", " ", "A", "Wanjin", "Saewoon", "4", "wheel", "QS", "track", "start_rule"]))
NUMBERS = st.one_of(
    st.integers(-10, 20),
    st.integers(-(10**40), 10**40),
    st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**4000]),
    st.sampled_from([2**63, 2**64]),  # just past SQLite's 64 bits, drawn more often
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=12)


def mostly(usual: st.SearchStrategy[Any], other: st.SearchStrategy[Any], share: int = 7) -> st.SearchStrategy[Any]:
    """``usual`` in ``share`` of 10 draws, else ``other`` (``one_of`` alone favours neither)."""
    return st.integers(0, 9).flatmap(lambda i: usual if i < share else other)


def _nested_text(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def _dump(value: Any) -> str:
    """JSON text as a client might send it: ASCII escapes (so lone surrogates arrive as
    ``\\ud800``), NaN and Infinity as Python writes them, huge integers in full."""
    return json.dumps(value)


def _schema(ref_or_schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in ref_or_schema:
        return dict(DOC["components"]["schemas"][ref_or_schema["$ref"].rsplit("/", 1)[1]])
    if "allOf" in ref_or_schema:
        return _schema(ref_or_schema["allOf"][0])
    return ref_or_schema


EVENT_FIELDS = {"type": st.sampled_from(["start", "bid", "challenge", "reveal", "roll", "play", "doubt", "shout",
                                          "stake", "declare", "deal", "discard", "pass", "call", "fly"]),
                "player": TEXT, "opener": TEXT, "quantity": NUMBERS, "face": TEXT, "dice": st.lists(TEXT, max_size=6),
                "cards": st.lists(TEXT, max_size=5), "count": NUMBERS, "rank": TEXT, "amount": NUMBERS}


def from_schema(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values shaped like ``schema`` (an OpenAPI schema), each field sometimes of a wrong type."""
    schema = _schema(schema)
    wrong = VALUES
    kind = schema.get("type")
    if kind == "string":
        right: st.SearchStrategy[Any] = st.sampled_from(schema["enum"]) | TEXT if "enum" in schema else TEXT
    elif kind in ("integer", "number"):
        right = NUMBERS
    elif kind == "boolean":
        right = st.booleans()
    elif kind == "array" and depth < 4:
        right = st.lists(from_schema(schema.get("items", {}), depth + 1), max_size=6)
    elif kind == "object" and depth < 4:
        fields = {name: from_schema(sub, depth + 1) for name, sub in schema.get("properties", {}).items()}
        if schema.get("additionalProperties") is True:
            fields = {**EVENT_FIELDS, **fields}
        right = st.fixed_dictionaries({}, optional=fields) if fields else VALUES
    else:
        right = VALUES
    return st.one_of(right, right, right, wrong)


@st.composite
def deep_body(draw: st.DrawFn, schema: dict[str, Any]) -> str:
    """A body with one field (or the whole body) nested about as deep as the limit, or far deeper."""
    depth = draw(st.sampled_from([MAX_DEPTH - 2, MAX_DEPTH, MAX_DEPTH + 1, 400, 700, 1100, 20_000]))
    leaf = draw(st.sampled_from(["1", '"\\ud800"', "{}", "null"]))
    names = list(_schema(schema).get("properties", {})) or ["x"]
    name = draw(st.sampled_from(names))
    if draw(st.booleans()):
        return _nested_text(depth, leaf)
    return '{"%s": %s}' % (name, _nested_text(depth, leaf))


LOG = {"format": "tableref-game/1", "game": "liars-dice", "options": {"track": True}, "players": ["Wanjin", "Saewoon"],
       "events": [{"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"},
                  {"type": "challenge", "player": "Saewoon"}]}
READING = {"reading": {"objects": [{"kind": "die", "face": "4", "colour": "white", "box": [1, 2, 30, 40], "score": 0.9}],
                       "width": 640, "height": 480}}
#: A body each route takes (or nearly), to be spoilt in one place: the refusals that once
#: failed quoted a value the referee had read this far.
VALID: dict[str, list[dict[str, Any]]] = {
    "/api/tables": [{"game": "liars-dice", "players": ["Wanjin", "Saewoon"], "options": {"track": True}},
                    {"game": "doubt", "players": ["A", "B", "C"], "options": {}}],
    "/api/import": [LOG],
    "/api/tables/{table_id}/actions": [{"type": "start", "opener": "Wanjin"},
                                       {"type": "bid", "player": "Wanjin", "quantity": 3, "face": "4"},
                                       {"type": "play", "player": "A", "cards": ["2S"], "claim": "A"}],
    "/api/tables/{table_id}/reveal": [READING],
    "/api/tables/{table_id}/reread": [READING],
    "/api/tables/{table_id}/discard-reading": [{"player": "A"}],
    "/api/tables/{table_id}/undo": [{}],
    "/api/tables/{table_id}/readings/{reading_id}/corrections": [
        {"who": "Mina", "changes": [{"index": 0, "face": "5"}, {"add": {"kind": "die", "face": "4", "colour": "red"}},
                                    {"index": 1, "remove": True}, {"index": 2, "colour": "blue"}]}],
    "/api/tables/{table_id}/odds": [{"player": "Wanjin", "dice": ["4", "4", "wheel"]}],
    "/api/profiles": [{"name": "Kitchen table"}],
    "/api/profiles/{profile_id}/rename": [{"name": "Club night"}],
    "/api/tables/{table_id}/teaching": [{"profile": None, "learn": True}],
    "/api/tables/{table_id}/teaching/confirm": [{"photo": 1, "objects": READING["reading"]["objects"]}],
}
DEEP = "__deep__"


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], bool]]:
    """Every place in ``value``: (path, is_key) for each value and each object key."""
    out = [(path, False)]
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((path + (k,), True))
            out += _places(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _places(v, path + (i,))
    return out


@st.composite
def spoilt(draw: st.DrawFn, valid: dict[str, Any]) -> str:
    """``valid`` with one value or key replaced by a lone surrogate, a huge or non-finite number,
    another JSON value or a deep nest."""
    doc = json.loads(json.dumps(valid))
    path, is_key = draw(st.sampled_from(_places(doc)))
    if not path:
        return _dump(draw(VALUES))
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if is_key:
        parent[path[-1] + draw(LONE_SURROGATES)] = parent.pop(path[-1])
    elif isinstance(parent[path[-1]], str):  # the same text with no character in it, mostly
        parent[path[-1]] = draw(mostly(LONE_SURROGATES.map(lambda bad: parent[path[-1]] + bad), VALUES | st.just(DEEP)))
    else:
        parent[path[-1]] = draw(st.one_of(NUMBERS, VALUES, TEXT, st.just(DEEP)))
    depth = draw(st.sampled_from([MAX_DEPTH, 700, 900]))
    return _dump(doc).replace(f'"{DEEP}"', _nested_text(depth))


def bodies(path: str, schema: dict[str, Any]) -> st.SearchStrategy[str]:
    other = st.one_of(from_schema(schema).map(_dump), VALUES.map(_dump), deep_body(schema),
                      st.sampled_from(["", "{", "[]", "nul", '{"a": 1} x', "\ufeff{}"]))
    valid = VALID.get(path)
    return mostly(st.sampled_from(valid).flatmap(spoilt), other, share=6) if valid else other


# --- the app ----------------------------------------------------------------------------


def _seed(client: Any) -> dict[str, Any]:
    """A Liar's Dice table with a camera reading, and a Doubt table."""
    liars = client.post("/api/tables", json={"game": "liars-dice", "players": ["Wanjin", "Saewoon"]}).json["table"]["id"]
    for event in ({"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"},
                  {"type": "challenge", "player": "Saewoon"}):
        assert client.post(f"/api/tables/{liars}/actions", json=event).status_code == 200
    objects = faces("4", "2", "3", "5", "6", "1", "2", "3", "5", "6")
    r = client.post(f"/api/tables/{liars}/reveal", json={"reading": {"objects": objects}})
    assert r.status_code == 200, r.json
    doubt = client.post("/api/tables", json={"game": "doubt", "players": ["A", "B", "C"]}).json["table"]["id"]
    profile = client.post("/api/profiles", json={"name": "Fuzz"}).json["id"]
    return {"tables": [liars, doubt], "reading": int(r.json["reading"]["id"]), "profile": profile}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: Any) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The dashboard and its seed tables (:func:`_seed`), made again when a fuzzed DELETE removed one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(web.session, "DISCARD_WAIT_S", 0.0)  # no camera here: do not wait 8 s for one
        app = create_app({"data_dir": tmp_path_factory.mktemp("fuzz") / "data", "settle_wait_s": 0.0}, ScriptedCamera())
        app.config["SSE_KEEPALIVE_S"] = 0.05
        yield app, _seed(app.test_client())
        app.extensions["tableref"].store.close()


def _reseed(client: Any, seeds: dict[str, Any]) -> None:
    if any(client.get(f"/api/tables/{t}").status_code == 404 for t in seeds["tables"]):
        seeds.update(_seed(client))
    elif client.get(f"/api/profiles/{seeds['profile']}").status_code == 404:
        seeds["profile"] = client.post("/api/profiles", json={"name": "Fuzz"}).json["id"]


def _path_value(name: str, seeds: dict[str, Any]) -> st.SearchStrategy[str]:
    if name == "table_id":
        return mostly(st.sampled_from(seeds["tables"]), TEXT | st.sampled_from(["0000000000", "..", "%2e%2e", "a/b"]))
    if name == "profile_id":
        return mostly(st.just(seeds["profile"]), TEXT | st.sampled_from(["0000000000", "..", "%2e%2e", "a/b"]))
    if name == "reading_id":
        edges = st.sampled_from([2**63 - 1, 2**63, 2**64, 10**40, 0]).map(str)
        others = NUMBERS.map(lambda n: str(n) if isinstance(n, int) else repr(n)) | TEXT
        return mostly(st.just(str(seeds["reading"])), mostly(edges, others), share=4)
    return TEXT


def _query_value(name: str) -> st.SearchStrategy[Any]:
    if name == "lang":
        return st.one_of(st.sampled_from(["en", "ja"]), TEXT)
    if name == "frames":
        return st.one_of(st.sampled_from(["1", "2"]), NUMBERS.map(str), TEXT)
    return TEXT


@st.composite
def urls(draw: st.DrawFn, path: str, params: list[dict[str, Any]], seeds: dict[str, Any]) -> str:
    """``path`` with its path parameters filled and some of its query parameters, percent-encoded
    (a lone surrogate as the bytes it would be, which are no UTF-8)."""
    for param in params:
        if param["in"] == "path":
            value = draw(_path_value(param["name"], seeds))
            path = path.replace("{%s}" % param["name"], quote(value, safe="", errors="surrogatepass"))
    query = {p["name"]: draw(_query_value(p["name"])) for p in params if p["in"] == "query" and draw(st.booleans())}
    if not query:
        return path
    encoded = {k: str(v).encode("utf-8", "surrogatepass") for k, v in query.items()}
    return f"{path}?{urlencode(encoded)}"


def _check(r: Any, path: str, what: str) -> None:
    """No server error, no traceback, and an API refusal in the error format."""
    data = r.get_data() if not r.is_streamed else b"".join(_first(r))
    assert r.status_code < 500, (what, r.status_code, data[:500])
    assert b"Traceback" not in data, (what, data[:500])
    if r.status_code >= 400 and path.startswith("/api/"):
        error = json.loads(data)["error"]
        assert isinstance(error["code"], str) and isinstance(error["message"], str) and error["message"], what


def _first(r: Any) -> list[bytes]:
    """The first chunk of a streamed answer (live events, video), which never ends by itself."""
    try:
        return [next(iter(r.response), b"")]
    finally:
        r.close()


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=[f"{m.upper()} {p}" for p, m in OPERATIONS])
def test_no_request_gets_a_server_error(seeded: tuple[Any, dict[str, Any]], path: str, method: str) -> None:
    app, seeds = seeded
    operation = DOC["paths"][path][method]
    params = operation.get("parameters", [])
    body_schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")

    @settings(FUZZ, max_examples=EXAMPLES[method])
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        client = app.test_client()
        _reseed(client, seeds)
        url = data.draw(urls(path, params, seeds))
        streamed = path.endswith("/events") or path == "/stream.mjpg"
        if body_schema is None:
            r = client.open(url, method=method.upper(), buffered=not streamed)
            _check(r, path, url)
            return
        body = data.draw(bodies(path, body_schema))
        r = client.open(url, method=method.upper(), data=body.encode("utf-8", "surrogatepass"),
                        content_type="application/json")
        _check(r, path, f"{url} {body[:300]!r}")

    run()
