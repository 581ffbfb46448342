"""The colours of a roll read as dice of one known set: each box is a different die of it.

A Nine Dice roll is three white, three black and three blue dice and the green expansion
die (``referee/data/nine-dice.json``). The classifier reads every die alone, so in a dim
room a blue die reads black beside three dice surely black, and the table's word is
graded by colour. :func:`set_colours` conditions the colours of one frame's boxes on the
set: every box is a different physical die (dice may be out of view or not found; a die
is never read twice), showing one of its six faces, with the classifier's face and colour
probabilities as each box's evidence (taken as independent; the faces were balanced in
training). It returns the exact marginal probability of each box's colour under that
model, summed over every way of matching the boxes to the set's dice by a forward-backward
pass over how many dice of each kind are used (432 states for Nine Dice, about a
millisecond a frame). A box read as a face only the green die has is read green, and four
boxes read black cannot all be.

Faces are left as read: conditioned the same way, the set's face layout (``ス`` on one die
of each colour, ``ベ`` on two) took ``ス`` for ``ベ`` surely on the foreign yardstick, while
the count of dice per colour is the set's plain fact.

A box with no evidence for any die of the set (a face or colour none has) still uses up a
die, with no say in which; a frame with more boxes than the set has dice is not a roll of
the set and comes back as read.

>>> dice = (SetDie("white", ("A", "B")), SetDie("black", ("A", "B")))
>>> face_p = np.array([[0.9, 0.1], [0.8, 0.2]])
>>> colour_p = np.array([[0.1, 0.9], [0.4, 0.6]])  # both read white, the second less surely
>>> out = set_colours(face_p, ("A", "B"), colour_p, ("black", "white"), dice)
>>> [round(float(x), 2) for x in out[:, 0]]  # one die of each colour: the second is the black one
[0.14, 0.86]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["SetDie", "set_colours"]


@dataclass(frozen=True)
class SetDie:
    """One physical die of a set: its body colour and its six faces (a face printed on
    several sides repeated)."""

    colour: str
    faces: tuple[str, ...]


def _kinds(dice: Sequence[SetDie]) -> tuple[list[SetDie], list[int]]:
    """The distinct dice of the set, and how many of each."""
    kinds: dict[tuple[str, tuple[str, ...]], int] = {}
    for die in dice:
        key = (die.colour, tuple(sorted(die.faces)))
        kinds[key] = kinds.get(key, 0) + 1
    return [SetDie(c, f) for c, f in kinds], list(kinds.values())


def _step(counts: Sequence[int], t: int) -> tuple[tuple[slice, ...], tuple[slice, ...], np.ndarray]:
    """Index of the states before and after one more die of kind ``t`` is used, and how many
    dice of that kind are still free in each state before."""
    before = [slice(None)] * len(counts)
    after = [slice(None)] * len(counts)
    before[t], after[t] = slice(0, counts[t]), slice(1, counts[t] + 1)
    free = np.arange(counts[t], 0, -1, dtype=np.float64).reshape([-1 if k == t else 1 for k in range(len(counts))])
    return tuple(before), tuple(after), free


def set_colours(
    face_p: np.ndarray, faces: Sequence[str], colour_p: np.ndarray, colours: Sequence[str], dice: Sequence[SetDie],
) -> np.ndarray:
    """Colour probabilities of the ``n`` boxes of one frame given that they are different
    dice of ``dice``.

    ``face_p`` ``(n, len(faces))`` and ``colour_p`` ``(n, len(colours))`` are each box's
    probabilities, not necessarily summing to one. Each colour row's total is kept and
    shared out again by the set's posterior, so a box read in a colour the set does not
    have keeps that doubt. Rows with no evidence, and every row when the frame holds more
    boxes than the set has dice, come back unchanged; the inputs are not modified.

    >>> dice = [SetDie(c, ("A",) * 6) for c in ("white", "white", "black")]
    >>> p = np.array([[0.2, 0.8], [0.1, 0.9], [0.3, 0.7]])  # three boxes read white
    >>> out = set_colours(np.ones((3, 1)), ("A",), p, ("black", "white"), dice)
    >>> [round(float(x), 2) for x in out[:, 0]], round(float(out[:, 0].sum()), 6)  # one of them is black
    ([0.32, 0.14, 0.54], 1.0)
    """
    face_p = np.asarray(face_p, np.float64)
    colour_in = np.asarray(colour_p, np.float64)
    n = len(face_p)
    kinds, counts = _kinds(dice)
    if n == 0 or n > sum(counts):
        return colour_in.copy()
    face_index = {f: j for j, f in enumerate(faces)}
    colour_index = {c: j for j, c in enumerate(colours)}
    shows = np.zeros((len(kinds), len(faces)))  # the share of each kind's sides showing each face
    for t, kind in enumerate(kinds):
        for f in kind.faces:
            if f in face_index:
                shows[t, face_index[f]] += 1.0 / len(kind.faces)
    face_rel = face_p / np.maximum(face_p.sum(axis=1), 1e-12)[:, None]
    colour_mass = colour_in.sum(axis=1)
    colour_rel = colour_in / np.maximum(colour_mass, 1e-12)[:, None]
    of_kind = np.array([colour_index.get(kind.colour, -1) for kind in kinds])
    like = (face_rel @ shows.T) * np.where(of_kind >= 0, colour_rel[:, np.maximum(of_kind, 0)], 0.0)
    silent = like.max(axis=1) <= 0.0
    like[silent] = 1.0  # no evidence for any die of the set: it still uses one up
    like /= like.max(axis=1, keepdims=True)

    steps = [_step(counts, t) for t in range(len(kinds))]
    shape = tuple(c + 1 for c in counts)  # how many dice of each kind are used
    forward = [np.zeros(shape)]
    forward[0][(0,) * len(counts)] = 1.0
    for i in range(n):
        nxt = np.zeros(shape)
        for t, (before, after, free) in enumerate(steps):
            nxt[after] += forward[i][before] * free * like[i, t]
        forward.append(nxt)
    backward = np.ones(shape)
    post = np.zeros((n, len(kinds)))
    for i in range(n - 1, -1, -1):
        prev = np.zeros(shape)
        for t, (before, after, free) in enumerate(steps):
            term = free * like[i, t] * backward[after]
            post[i, t] = float((forward[i][before] * term).sum())
            prev[before] += term
        backward = prev
    total = post.sum(axis=1, keepdims=True)
    if not (total > 0).all():
        return colour_in.copy()
    post /= total
    out = np.zeros_like(colour_rel)
    for t, j in enumerate(of_kind):
        if j >= 0:
            out[:, j] += post[:, t]
    out *= colour_mass[:, None]
    out[silent] = colour_in[silent]
    return out
