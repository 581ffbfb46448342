"""``tableref replay LOG.json``: the final state as JSON, or the reason and exit 2.

Never a traceback: whatever is wrong with the file, the player gets
``{"error": ..., "event": index-or-null}`` on stdout and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from referee.errors import MalformedLog
from referee.replay import ReplayError, replay_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", help="game log in the tableref-game/1 format ('-' reads standard input)")
    parser.add_argument("--lang", choices=("en", "ja"), default="en", help="language of error messages")


def _fail(reason: str, event: int | None) -> int:
    print(json.dumps({"error": reason, "event": event}, ensure_ascii=False))
    return 2


def run(args: argparse.Namespace) -> int:
    try:
        if args.log == "-":
            text = sys.stdin.read()
        else:
            with open(args.log, "rb") as fh:
                text = fh.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return _fail(f"cannot read {args.log}: {err}", None)
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError, or an int over the 4300-digit limit
        return _fail(f"not JSON: {err}", None)
    try:
        state = replay_json(doc)
    except ReplayError as err:
        return _fail(err.error.message(args.lang), err.event)
    except RecursionError:
        return _fail(MalformedLog("the log is nested too deeply").message(args.lang), None)
    print(json.dumps(state, ensure_ascii=False))
    return 0
