"""``tableref replay LOG.json``: the final state as JSON, or the reason and exit 2.

Never a traceback: whatever is wrong with the file, the player gets
``{"error": ..., "event": index-or-null}`` on stdout and exit status 2. Only a regular
file of at most :data:`referee.log.MAX_LOG_BYTES` is read, and a log nested too deeply or
holding a lone surrogate is malformed (:mod:`referee.json_limits`).
"""

from __future__ import annotations

import argparse
import json
import sys

from referee.errors import MalformedLog
from referee.json_limits import MAX_DEPTH, json_line
from referee.log import MAX_LOG_BYTES
from referee.replay import ReplayError, replay_json
from vision.read.regular_file import FileRefused, read_regular_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", help="game log in the tableref-game/1 format ('-' reads standard input)")
    parser.add_argument("--lang", choices=("en", "ja"), default="en", help="language of error messages")


def _fail(reason: str, event: int | None) -> int:
    print(json_line({"error": reason, "event": event}))
    return 2


def _read(name: str) -> str:
    """The log's text: standard input for ``-``, else a regular file of at most MAX_LOG_BYTES
    (not a pipe or a device, which could block or never end: see :mod:`vision.read.regular_file`)."""
    if name == "-":
        text = sys.stdin.read(MAX_LOG_BYTES + 1)
        if len(text) > MAX_LOG_BYTES:
            raise FileRefused(f"too large: more than {MAX_LOG_BYTES} bytes ({_WHY_LIMIT})")
        return text
    return read_regular_file(name, MAX_LOG_BYTES, _WHY_LIMIT).decode("utf-8")


_WHY_LIMIT = "a game log is far smaller"


def run(args: argparse.Namespace) -> int:
    try:
        text = _read(args.log)
    except (OSError, UnicodeDecodeError) as err:
        return _fail(f"cannot read {args.log}: {err}", None)
    try:
        doc = json.loads(text)
    except RecursionError:  # deeper than the parser goes: far deeper than the log's limit
        return _fail(MalformedLog(f"the log is nested more than {MAX_DEPTH} levels deep").message(args.lang), None)
    except ValueError as err:  # JSONDecodeError, or an int over the 4300-digit limit
        return _fail(f"not JSON: {err}", None)
    try:
        state = replay_json(doc)
    except ReplayError as err:
        return _fail(err.error.message(args.lang), err.event)
    print(json_line(state))
    return 0
