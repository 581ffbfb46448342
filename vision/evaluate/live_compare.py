"""Two readers on the same live clips, compared reveal by reveal (``eval-live --against``).

Counts over a hundred clips move by several from one training seed to the next (two card
classifier fine-tunes differing only in their seed played 56 and 61 of 120 clips right), so a
total alone cannot say that one reader plays better. What can is the clips where the two
differ: a reveal right with one reader only counts for it, and an even split of those is what
chance gives.

>>> before = [{"game": "pin456", "seed": 1, "closer": {"outcome": "right"}},
...           {"game": "pin456", "seed": 2, "closer": {"outcome": "re-read"}}]
>>> after = [{"game": "pin456", "seed": 1, "closer": {"outcome": "count"}},
...          {"game": "pin456", "seed": 2, "closer": {"outcome": "right"}}]
>>> c = compare_reveals(before, after)
>>> (c.right_before_only, c.right_after_only, c.right_both), c.changed[0].outcomes
((1, 1, 0), ('right', 'count'))
>>> round(sign_test_p(1, 1), 3)
1.0
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

class LiveCompareError(ValueError):
    """The earlier run cannot be compared with this one: unreadable, or other clips."""


@dataclass(frozen=True)
class RevealChange:
    """One clip whose settled outcome differs between the two readers."""

    game: str
    seed: int
    outcomes: tuple[str, str]  # (before, after)
    found: tuple[int, int]
    dice: int


@dataclass(frozen=True)
class Comparison:
    """Reveal-by-reveal counts of two runs over the same clips (the closer look's outcomes)."""

    reveals: int
    right_both: int
    right_before_only: int
    right_after_only: int
    wrong_before: int
    wrong_after: int
    changed: tuple[RevealChange, ...]

    @property
    def p_value(self) -> float:
        """Two-sided sign test on the clips right with one reader only."""
        return sign_test_p(self.right_before_only, self.right_after_only)

    def to_json(self) -> dict[str, Any]:
        return {
            "reveals": self.reveals, "right_both": self.right_both, "right_before_only": self.right_before_only,
            "right_after_only": self.right_after_only, "wrong_before": self.wrong_before,
            "wrong_after": self.wrong_after, "sign_test_p": round(self.p_value, 4),
            "changed": [{"game": c.game, "seed": c.seed, "before": c.outcomes[0], "after": c.outcomes[1],
                         "found": list(c.found), "dice": c.dice} for c in self.changed],
        }


def sign_test_p(a: int, b: int) -> float:
    """Two-sided exact sign test: how likely a split at least as uneven as ``a`` against ``b`` is
    when each discordant clip is a fair coin.

    >>> sign_test_p(0, 0), round(sign_test_p(9, 8), 2), round(sign_test_p(10, 0), 4)
    (1.0, 1.0, 0.002)
    """
    n = a + b
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(a, b) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare_reveals(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> Comparison:
    """Pair the reveals of two runs by position; each pair must be the same game and seed."""
    if len(before) != len(after):
        raise LiveCompareError(f"the earlier run played {len(before)} reveals, this one {len(after)}")
    both = before_only = after_only = wrong_before = wrong_after = 0
    changed = []
    for x, y in zip(before, after):
        if (x["game"], x["seed"]) != (y["game"], y["seed"]):
            raise LiveCompareError(f"reveal {x['game']} seed {x['seed']} of the earlier run faces "
                                   f"{y['game']} seed {y['seed']} in this one: not the same clips")
        a, b = x["closer"], y["closer"]
        right_a, right_b = a["outcome"] == "right", b["outcome"] == "right"
        both += right_a and right_b
        before_only += right_a and not right_b
        after_only += right_b and not right_a
        wrong_before += a["outcome"] == "wrong"
        wrong_after += b["outcome"] == "wrong"
        if a["outcome"] != b["outcome"]:
            changed.append(RevealChange(x["game"], int(x["seed"]), (a["outcome"], b["outcome"]),
                                        (int(a.get("found", 0)), int(b.get("found", 0))), int(a.get("dice", 0))))
    return Comparison(len(before), both, before_only, after_only, wrong_before, wrong_after, tuple(changed))


def load_earlier(path: Path, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reveals of an earlier ``eval-live --out`` run, checked to have the options in ``config``:
    those that decide the clips (the reader's own settings may differ, being what is compared),
    and under ``"clip"`` how their frames are made."""
    try:
        earlier = json.loads(path.read_text())
        reveals, their = earlier["reveals"], earlier["config"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LiveCompareError(f"{path}: not a live-metrics.json written by eval-live --out ({exc})") from None
    for key, value in config.items():
        if key == "clip":
            # Through JSON, as the earlier run's was: a tuple there reads back as a list.
            if their.get(key) != json.loads(json.dumps(value)):
                raise LiveCompareError(f"{path} played other clips (frame size or camera differ): "
                                       "give the same options")
        elif their.get(key) != value:
            raise LiveCompareError(f"{path} played other clips: {key} was {their.get(key)!r}, "
                                   f"here {value!r}; give the same options")
    return reveals


def report_comparison(c: Comparison, label: str) -> str:
    """The lines ``eval-live --against`` prints."""
    lines = [f"against {label}, reveal by reveal ({c.reveals} reveals, closer look):",
             f"  right with both {c.right_both}, the earlier reader only {c.right_before_only}, "
             f"this one only {c.right_after_only} (sign test p = {c.p_value:.2f})",
             f"  wrong: the earlier reader {c.wrong_before}, this one {c.wrong_after}"]
    for ch in c.changed:
        lines.append(f"  {ch.game} seed {ch.seed}: {ch.outcomes[0]} -> {ch.outcomes[1]} "
                     f"(found {ch.found[0]} -> {ch.found[1]} of {ch.dice})")
    return "\n".join(lines)
