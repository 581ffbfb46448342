"""Verdicts that hold whatever the unsure dice (or cards) show.

A die (or card) read unsurely makes a reveal a re-read, unless what it shows cannot change
the outcome: a Liar's Dice bid on 5s does not care whether a die is a 4 or a 6, a Nine
Dice roll whose best words are the same with a ブ or a プ scores the same either way, and
a Doubt play is a lie or not whatever the suits.

The camera gives a die or card that is unsure of its face alone (its box sure, and its
colour where the game reads one) its ``alternatives``: every face the reader gives at least 2 %
probability, likeliest first, when together they hold at least 80 % of it
(:mod:`vision.read.alternatives`). The table then judges every combination of
them. Combinations the referee refuses are dropped, such as a 1 on a Liar's Dice die or
a second white ス in Nine Dice. If every combination it accepts leads to the same
:func:`outcome`, the first of them is the verdict. The dice stay marked unsure on the
photo, and the summary says their faces did not matter.

Everything else still asks for a re-read:

- a die unsure for another reason, which has no alternatives;
- a reading whose unsure faces change the outcome;
- more than :data:`MAX_READINGS` combinations.

>>> die = {"kind": "die", "face": "4", "colour": "white", "uncertain": True, "alternatives": ["4", "6"]}
>>> [[o["face"] for o in c] for c in candidates([die, {"kind": "die", "face": "5"}])]
[['4', '5'], ['6', '5']]
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from referee.errors import Misread, RefereeError

JSON = dict[str, Any]
S = TypeVar("S")

#: The most combinations of unsure faces judged for one reading (each is one referee step).
MAX_READINGS = 256


def candidates(objects: Sequence[Mapping[str, Any]]) -> list[tuple[JSON, ...]] | None:
    """Every reading the unsure objects allow, likeliest faces first, as sure objects; None
    when an unsure object has no alternatives or there are more than :data:`MAX_READINGS`."""
    choices: list[list[JSON]] = []
    for obj in objects:
        if not obj.get("uncertain"):
            choices.append([dict(obj)])
            continue
        faces = obj.get("alternatives") or ()
        if not faces:
            return None
        plain = {k: v for k, v in obj.items() if k not in ("uncertain", "alternatives")}
        choices.append([{**plain, "face": str(face)} for face in faces])
    count = 1
    for choice in choices:
        count *= len(choice)
    if count > MAX_READINGS:
        return None
    return list(itertools.product(*choices))


def judge_unsure(
    objects: Sequence[Mapping[str, Any]],
    judge: Callable[[Sequence[Mapping[str, Any]]], tuple[JSON, S]],
    state_json: Callable[[S], JSON],
) -> tuple[JSON, S, tuple[JSON, ...], tuple[int, ...]]:
    """Judge ``objects`` with ``judge`` (a reading -> its event and the state after it, or
    :class:`~referee.errors.RefereeError`): the event, the state, the objects it was made of
    and the indices of the unsure objects whose faces did not matter.

    A reading with no unsure object is judged as it is. Otherwise every combination of the
    unsure faces is judged, and the first one the referee accepts is returned when all the
    accepted ones give the same ``state_json``. Raises :class:`~referee.errors.Misread`
    when they differ, and the first combination's error when none is accepted.
    """
    unsure = tuple(i for i, o in enumerate(objects) if o.get("uncertain"))
    options = candidates(objects) if unsure else None
    if options is None:
        event, after = judge(objects)  # raises the plain misread for an unsure object
        return event, after, tuple(dict(o) for o in objects), ()
    first: tuple[JSON, S, tuple[JSON, ...]] | None = None
    first_error: RefereeError | None = None
    outcomes: set[str] = set()
    for reading in options:
        try:
            event, after = judge(reading)
        except RefereeError as err:
            first_error = first_error or err
            continue
        first = first or (event, after, reading)
        outcomes.add(canonical(state_json(after)))
        if len(outcomes) > 1:
            n = len(unsure)
            raise Misread(f"{n} object(s) could not be read with confidence, and what they show changes the verdict",
                          f"{n}個を確実に読み取れず、その目によって判定が変わります", uncertain=n)
    if first is None:
        assert first_error is not None
        raise first_error
    event, after, reading = first
    return event, after, reading, unsure


def note_unsure(verdict: JSON, unsure: Sequence[int], kind: str = "die") -> JSON:
    """``verdict`` with the unsure objects (of ``kind``: die or card) listed and its summary
    saying they did not matter.

    >>> v = note_unsure({"summary": {"en": "Counted 3.", "ja": "3個。"}}, [2])
    >>> v["unsure"], v["summary"]["en"]
    ([2], 'Counted 3. One die was read unsurely; whatever it shows, the verdict is the same.')
    >>> note_unsure({"summary": {"en": "A lie.", "ja": "嘘。"}}, [0, 1], "card")["summary"]["ja"]
    '嘘。2枚のカードは確実に読み取れませんでしたが、どの札でも判定は同じです。'
    """
    if not unsure:
        return verdict
    n = len(unsure)
    if n == 1:
        en = f"One {kind} was read unsurely; whatever it shows, the verdict is the same."
    else:
        en = f"{n} {'cards' if kind == 'card' else 'dice'} were read unsurely; whatever they show, the verdict is the same."
    ja = (f"{n}枚のカードは確実に読み取れませんでしたが、どの札でも判定は同じです。" if kind == "card" else
          f"{n}個のダイスは確実に読み取れませんでしたが、どの目でも判定は同じです。")
    summary = dict(verdict.get("summary", {}))
    summary["en"] = f"{summary.get('en', '')} {en}".strip()
    summary["ja"] = f"{summary.get('ja', '')}{ja}"
    return {**verdict, "summary": summary, "unsure": list(unsure)}


def outcome(state: Mapping[str, Any]) -> JSON:
    """What a reveal decided, as the contract's state JSON shows it, without the state's
    record of the faces themselves. Nine Dice keeps its roll (``dice``, also in each round)
    and every word the roll makes (``hands``); Doubt keeps each round's revealed ``cards``. Only the best words win a round, so of those
    the best words are kept, with the token colours each one pays; which dice make them is
    dropped. Everything else stays.

    >>> outcome({"best": ["白プラス"], "dice": [{"face": "プ"}], "hands": [{"hand": "白プラス", "dice": [0, 4, 7],
    ...          "colours": ["white"]}, {"hand": "2色ブベラ", "dice": [1, 2, 3], "colours": ["white", "blue"]}],
    ...          "rounds": [{"best": [], "dice": []}], "players": [{"name": "A", "dice": 5}]})
    {'best': ['白プラス'], 'hands': [{'hand': '白プラス', 'colours': ['white']}], 'rounds': [{'best': []}], 'players': [{'name': 'A', 'dice': 5}]}
    """
    out = {k: v for k, v in state.items() if k != "dice"}
    if isinstance(out.get("hands"), list):
        best = set(out.get("best") or ())
        out["hands"] = [{k: v for k, v in h.items() if k != "dice"} for h in out["hands"]
                        if isinstance(h, Mapping) and h.get("hand") in best]
    if isinstance(out.get("rounds"), list):
        out["rounds"] = [{k: v for k, v in r.items() if k not in ("dice", "cards")} if isinstance(r, Mapping) else r
                         for r in out["rounds"]]
    return out


def canonical(state: Mapping[str, Any]) -> str:
    """A state (or :func:`outcome`) as one comparable string."""
    return json.dumps(state, sort_keys=True, ensure_ascii=False)
