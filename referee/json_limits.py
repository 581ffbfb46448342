"""What a JSON value from outside (a game log, a request body) may hold before anything uses it.

Some values parse (in Python) but break whatever handles them next, so they are refused
up front, with the place they were found:

- nesting deeper than :data:`MAX_DEPTH`: ``copy.deepcopy``, ``json.dumps`` and every
  other recursive walk stop with a RecursionError somewhere under Python's limit of
  1000 frames (the game log's deepcopy at about 600 levels);
- a lone UTF-16 surrogate (``"\\ud800"`` written as a JSON escape): a valid JSON
  string but no character, so it cannot be written back as UTF-8 (a reply, a log
  export, an error message that quotes it all fail);
- NaN, Infinity, or a number too large for a float (``1e999``), which Python's parser
  lets through but no JSON can hold: a log exported with one is no longer JSON.

>>> json_flaw({"players": ["A", "B"], "options": {"track": True}}) is None
True
>>> json_flaw({"players": ["A", "\\ud800"]})[0]
'players[1] holds a lone UTF-16 surrogate (\\\\ud800), which is no character'
>>> deep: object = 1
>>> for _ in range(MAX_DEPTH):
...     deep = [deep]
>>> json_flaw({"options": deep})[0]
'options[0][0][0][0][0][0][0]... is nested more than 32 levels deep'
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: The deepest nesting (objects and arrays, the outermost counting 1) accepted from outside.
#: The deepest document tableref itself reads is 4 levels (a request, its reading, its
#: objects, an object's box); 32 leaves room for options and future fields while staying
#: far below the depth where a recursive walk of the value fails.
MAX_DEPTH = 32

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN_STEPS = 8  # a path to a deep flaw is cut after this many steps


def json_flaw(value: Any, max_depth: int = MAX_DEPTH) -> tuple[str, str] | None:
    """Why ``value`` (as :func:`json.loads` returns it) cannot be used, in English and
    Japanese, or None. Walks without recursion, so any depth is measured safely."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return _lone_surrogate(item, path)
            continue
        if isinstance(item, float) and not math.isfinite(item):
            return _not_finite(path)
        if isinstance(item, dict):
            children: Any = item.items()
        elif isinstance(item, list):
            children = enumerate(item)
        else:
            continue
        if len(path) >= max_depth:
            return _too_deep(path, max_depth)
        for key, child in children:
            if isinstance(key, str):
                if _SURROGATE.search(key):
                    return _lone_surrogate(key, path)
                step = f".{_shown(key)}" if path else _shown(key)
            else:
                step = f"[{key}]"
            stack.append((child, path + (step,)))
    return None


def _shown(text: str) -> str:
    """A key as it can be printed in a message: ASCII escapes, at most 40 characters."""
    out = ascii(text)[1:-1]
    return out if len(out) <= 40 else out[:37] + "..."


def _where(path: tuple[str, ...]) -> str:
    shown = "".join(path[:_SHOWN_STEPS]) + ("..." if len(path) > _SHOWN_STEPS else "")
    return shown or "the document"


def _lone_surrogate(text: str, path: tuple[str, ...]) -> tuple[str, str]:
    found = _SURROGATE.search(text)
    code = f"\\u{ord(found.group()):04x}" if found else "?"
    where = _where(path)
    return (f"{where} holds a lone UTF-16 surrogate ({code}), which is no character",
            f"{where} に単独のUTF-16サロゲート（{code}）があり、文字として読めません")


def _not_finite(path: tuple[str, ...]) -> tuple[str, str]:
    where = _where(path)
    return (f"{where} is not a finite number (NaN, Infinity or beyond 1.8e308 are not JSON numbers)",
            f"{where} は有限の数ではありません（NaN・Infinity・1.8e308を超える数はJSONの数ではありません）")


def _too_deep(path: tuple[str, ...], max_depth: int) -> tuple[str, str]:
    where = _where(path)
    return (f"{where} is nested more than {max_depth} levels deep",
            f"{where} の入れ子が{max_depth}段を超えています")


def json_line(value: Any) -> str:
    """``value`` as one line of JSON, in UTF-8 where it can be, with ASCII escapes when some text
    in it is no character (a file name of bytes that are not UTF-8 reaches Python as lone
    surrogates), since UTF-8 cannot write that and printing it would fail.

    >>> json_line({"image": "写真.jpg"}), json_line({"image": "\\udcff.jpg"})
    ('{"image": "写真.jpg"}', '{"image": "\\\\udcff.jpg"}')
    """
    text = json.dumps(value, ensure_ascii=False)
    if _SURROGATE.search(text):
        return json.dumps(value)
    return text
