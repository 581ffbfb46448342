"""Plausible random sets of dice for a scene: a Liar's Dice reveal, a Nine Dice roll,
a Pin-456 reveal, a tray of mixed pip dice, or a mix of two of these.

>>> import numpy as np
>>> specs = nine_dice_set(np.random.default_rng(0), subset=False, expansion=True)
>>> len(specs), sorted({s.colour for s in specs})
(10, ['black', 'blue', 'green', 'white'])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synth.designs import DESIGNS


@dataclass(frozen=True)
class DieSpec:
    """One die to render: its design, body colour and up face (None = random)."""

    design: str
    colour: str | None = None
    face: str | None = None


def liars_set(rng: np.random.Generator) -> list[DieSpec]:
    colours = list(DESIGNS["liars"].colours)
    rng.shuffle(colours)
    if rng.random() < 0.3:
        return [DieSpec("liars", colours[0]) for _ in range(int(rng.integers(1, 6)))]
    players = int(rng.integers(2, 6))
    specs = []
    for p in range(players):
        specs += [DieSpec("liars", colours[p % len(colours)]) for _ in range(int(rng.integers(1, 6)) if rng.random() < 0.3 else 5)]
    return specs


def nine_dice_set(rng: np.random.Generator, subset: bool | None = None, expansion: bool | None = None) -> list[DieSpec]:
    """The 9 basic dice (per colour two A dice and one C die) and maybe the green expansion die."""
    specs = [DieSpec(d, c) for c in ("white", "black", "blue") for d in ("nine-a", "nine-a", "nine-c")]
    if subset if subset is not None else rng.random() < 0.3:
        keep = rng.choice(len(specs), int(rng.integers(1, 9)), replace=False)
        specs = [specs[int(i)] for i in sorted(keep)]
    if expansion if expansion is not None else rng.random() < 0.5:
        specs.append(DieSpec("nine-x", "green"))
    return specs


def pin456_set(rng: np.random.Generator) -> list[DieSpec]:
    colour = str(rng.choice(["white", "white", "ivory", "red"]))
    specs = [DieSpec("pin", colour)] * 3 + [DieSpec("456", colour)] * 3
    if rng.random() < 0.5:
        keep = rng.choice(6, int(rng.integers(1, 7)), replace=False)
        specs = [specs[int(i)] for i in sorted(keep)]
    return specs


def pips_set(rng: np.random.Generator) -> list[DieSpec]:
    """A tray of ordinary dice: one colour, or many like a family's dice drawer."""
    n = int(min(25, max(1, rng.geometric(0.12))))
    if rng.random() < 0.35:
        design = "pips-jp" if rng.random() < 0.2 else "pips"
        colour = str(rng.choice(DESIGNS[design].colours))
        return [DieSpec(design, colour) for _ in range(n)]
    specs = []
    for _ in range(n):
        r = rng.random()
        design = "pips-jp" if r < 0.08 else ("456" if r < 0.12 else ("pin" if r < 0.15 else "pips"))
        specs.append(DieSpec(design, str(rng.choice(DESIGNS[design].colours))))
    return specs


GAMES = ("pips", "liars", "nine", "pin456")  # the set makers, in random_dice's order
_GAME_WEIGHTS = (0.3, 0.25, 0.2, 0.1)  # the fifth share (0.15) mixes two sets


def check_games(games: tuple[str, ...]) -> None:
    """Raise ``ValueError`` naming an unknown game set, or an empty choice.

    >>> check_games(("nine",))
    >>> check_games(("poker",))
    Traceback (most recent call last):
    ...
    ValueError: unknown dice set 'poker': choose from pips, liars, nine, pin456
    """
    if not games:
        raise ValueError("no dice sets chosen")
    for g in games:
        if g not in GAMES:
            raise ValueError(f"unknown dice set {g!r}: choose from {', '.join(GAMES)}")


def random_dice(rng: np.random.Generator, games: tuple[str, ...] | None = None) -> tuple[DieSpec, ...]:
    """A random plausible set, 1..25 dice, with colours and faces left to the renderer.

    ``games`` keeps only those sets (e.g. ``("nine",)`` for more katakana dice);
    ``None`` draws from all of them exactly as before, so old seeds render the same.

    >>> {s.design for s in random_dice(np.random.default_rng(3), ("nine",))} <= {"nine-a", "nine-c", "nine-x"}
    True
    """
    makers = (pips_set, liars_set, nine_dice_set, pin456_set)
    if games is None:
        kind = int(rng.choice(5, p=[*_GAME_WEIGHTS, 0.15]))
        pair = rng.choice(4, 2, replace=False) if kind == 4 else None
    else:
        check_games(games)
        allowed = sorted({GAMES.index(g) for g in games})
        weights = [_GAME_WEIGHTS[i] for i in allowed] + ([0.15] if len(allowed) > 1 else [])
        pick = int(rng.choice(len(weights), p=np.array(weights) / sum(weights)))
        kind = allowed[pick] if pick < len(allowed) else 4
        pair = rng.choice(allowed, 2, replace=False) if kind == 4 else None
    if pair is None:
        specs = makers[kind](rng)
    else:
        specs = makers[int(pair[0])](rng) + makers[int(pair[1])](rng)
    if len(specs) > 25:
        keep = sorted(int(i) for i in rng.choice(len(specs), 25, replace=False))
        specs = [specs[i] for i in keep]
    return tuple(specs)
