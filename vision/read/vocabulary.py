"""What a table's dice can show, so the reader chooses only among those faces and colours.

The classifier knows every face of every game here (16) and 14 body colours. A table plays
one game: Nine Dice dice show only katakana in white, black, blue or green; Liar's Dice
dice show a wheel or 2-6 pips. Reading with the table's :class:`Vocabulary` turns
look-alikes from other games (a katakana die read as a pip face) into the face the game
has, instead of a reading the referee must refuse.

Colours are reported by the plain name players call a die by: the model's *shades*
(:data:`SHADES`: ivory, navy) add their probability to the plain colour they are a shade
of, at every table. A camera's white balance cannot tell them apart: on the reader's own
renders ivory dice were read as ivory only 51-69 % of the time (nearly all the rest as
white) and navy 86-88 %, and the foreign yardstick, like a player, calls an ivory die white.

Faces are *merged*: ``faces`` maps each model face it keeps to the face the game calls
it, and the probabilities of faces with the same name add up (a Liar's die with a plain
1 is the wild one, so ``{"1": "wheel", "wheel": "wheel", ...}``). The score is that
merged probability, *not* renormalised over the kept faces: a die the model reads as a
face the game does not have keeps a low score and stays uncertain. (Renormalising was
measured too: it made more dice sure, but on Nine Dice validation scenes more of those
were wrong than without any vocabulary.) Colours are
*restricted*: the most likely of the allowed colours is reported, with its probability
(likewise not renormalised), so that a table whose words depend on colour can doubt it.

>>> import numpy as np
>>> v = Vocabulary.of({"1": "wheel", "wheel": "wheel", "2": "2"}, name="liars")
>>> faces, score = v.decode_faces(np.array([[0.5, 0.3, 0.1, 0.1]]), ("1", "wheel", "2", "3"))
>>> faces, [round(float(x), 3) for x in score]
(['wheel'], [0.8])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from vision.read.dice_set import SetDie

__all__ = ["SHADES", "Vocabulary", "VocabularyError", "decode_colours", "game_vocabulary", "merge_shades", "plain_colour"]

SHADES: Mapping[str, str] = MappingProxyType({"ivory": "white", "navy": "blue"})
"""Model colours reported as the plain colour they are a shade of."""


def plain_colour(name: str | None) -> str | None:
    """The colour a reading reports for the model colour (or label) ``name``.

    >>> plain_colour("ivory"), plain_colour("grey"), plain_colour(None)
    ('white', 'grey', None)
    """
    return None if name is None else SHADES.get(name, name)


def merge_shades(colour_p: np.ndarray, names: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """The plain colours of the model's ``names`` (in their order, each once), and each row
    of model colour probabilities summed onto them.

    >>> out, p = merge_shades(np.array([[0.5, 0.3, 0.2]]), ("ivory", "white", "black"))
    >>> out, [round(float(x), 2) for x in p[0]]
    (('white', 'black'), [0.8, 0.2])
    """
    plain = [SHADES.get(n, n) for n in names]
    out = tuple(dict.fromkeys(plain))
    merge = np.zeros((len(names), len(out)), np.float32)
    merge[np.arange(len(names)), [out.index(n) for n in plain]] = 1.0
    probs = np.asarray(colour_p, np.float32).reshape(len(colour_p), len(names))
    return out, probs @ merge


def decode_colours(
    colour_p: np.ndarray, names: Sequence[str], allowed: frozenset[str] | None = None
) -> tuple[list[str], np.ndarray]:
    """For each row of model colour probabilities: the most likely plain colour (of
    ``allowed`` ones, None: any) and its probability, not renormalised.

    >>> decode_colours(np.array([[0.5, 0.3, 0.2]]), ("ivory", "white", "black"))[0]
    ['white']
    """
    plain, probs = merge_shades(colour_p, names)
    if allowed is not None:
        probs = np.where(np.array([n in allowed for n in plain])[None, :], probs, -1.0)
    best = probs.argmax(axis=1) if len(probs) else np.zeros((0,), np.int64)
    return [plain[int(i)] for i in best], probs[np.arange(len(probs)), best]


class VocabularyError(ValueError):
    """A vocabulary names a face or colour the reader's model cannot report."""


@dataclass(frozen=True)
class Vocabulary:
    """The faces (model face -> reported face) and body colours a table's dice can show.

    ``colours`` None keeps every colour the model knows.

    >>> Vocabulary.of(["2", "wheel", "3"], ["white", "black"], name="liars").reported_faces
    ('2', '3', 'wheel')
    """

    faces: tuple[tuple[str, str], ...]
    colours: frozenset[str] | None = None
    name: str = ""
    dice: tuple[SetDie, ...] = ()  # the set every roll comes from (empty: any dice)

    @classmethod
    def of(
        cls,
        faces: Mapping[str, str] | Iterable[str],
        colours: Iterable[str] | None = None,
        name: str = "",
        dice: Iterable[SetDie] = (),
    ) -> Vocabulary:
        """A vocabulary from a face mapping (or a list of faces reported as they are), and
        the dice of the set a roll comes from, when there is one (their faces reported ones)."""
        pairs = tuple(faces.items()) if isinstance(faces, Mapping) else tuple((str(f), str(f)) for f in faces)
        if not pairs:
            raise VocabularyError("a vocabulary needs at least one face")
        if colours is not None:
            colours = frozenset(str(c) for c in colours)
            if not colours:
                raise VocabularyError("a vocabulary's colours, when given, must not be empty")
        dice = tuple(dice)
        reported = {out for _, out in pairs}
        strange = sorted({f for die in dice for f in die.faces} - reported)
        if strange:
            raise VocabularyError(f"the set's dice show faces the vocabulary does not report: {', '.join(strange)}")
        unknown = sorted({d.colour for d in dice if colours is None or d.colour not in colours})
        if unknown:
            raise VocabularyError(f"the set's dice have colours the vocabulary does not allow: {', '.join(unknown)}")
        return cls(tuple(sorted(pairs)), colours, name, dice)

    def to_json(self) -> dict[str, object]:
        """What ``tableref read`` and the dashboard show of it.

        >>> Vocabulary.of({"1": "wheel", "wheel": "wheel"}, name="liars-dice").to_json()
        {'name': 'liars-dice', 'faces': {'1': 'wheel', 'wheel': 'wheel'}, 'colours': None}
        """
        return {"name": self.name, "faces": dict(self.faces),
                "colours": None if self.colours is None else sorted(self.colours)}

    @property
    def reported_faces(self) -> tuple[str, ...]:
        """The faces a reading with this vocabulary can report, sorted."""
        return tuple(sorted({out for _, out in self.faces}))

    def check(self, faces: Sequence[str] | None, colours: Sequence[str] | None) -> None:
        """Raise :class:`VocabularyError` unless the model's ``faces`` and plain ``colours``
        (None: not checked) include every name here; a shade is never reported, so a
        vocabulary cannot name one.

        >>> Vocabulary.of(["1"], ["ivory"], name="t").check(["1"], ["ivory", "white"])
        Traceback (most recent call last):
        ...
        vision.read.vocabulary.VocabularyError: vocabulary t: the model has no colour ivory
        """
        missing = [f for f, _ in self.faces if f not in faces] if faces is not None else []
        if missing:
            raise VocabularyError(f"vocabulary {self.name or '?'}: the model has no face {', '.join(missing)}")
        if self.colours is not None and colours is not None:
            unknown = sorted(self.colours - {plain_colour(c) for c in colours})
            if unknown:
                raise VocabularyError(f"vocabulary {self.name or '?'}: the model has no colour {', '.join(unknown)}")

    def decode_faces(self, face_p: np.ndarray, names: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """For each row of model face probabilities: the reported face and its score (the
        summed probability of the model faces it stands for)."""
        out, merged = self.merge_faces(face_p, names)
        best = merged.argmax(axis=1) if len(merged) else np.zeros((0,), np.int64)
        return [out[int(j)] for j in best], merged[np.arange(len(merged)), best]

    def merge_faces(self, face_p: np.ndarray, names: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
        """The reported faces, and each row of model face probabilities summed onto them.

        >>> v = Vocabulary.of({"wheel": "wheel", "1": "wheel", "2": "2"}, None)
        >>> out, p = v.merge_faces(np.array([[0.5, 0.3, 0.2]]), ("1", "wheel", "2"))
        >>> out, [round(float(x), 2) for x in p[0]]
        (('2', 'wheel'), [0.2, 0.8])
        """
        self.check(names, None)
        out = self.reported_faces
        merge = np.zeros((len(names), len(out)), np.float32)
        index = {n: i for i, n in enumerate(names)}
        column = {n: j for j, n in enumerate(out)}
        for model_face, reported in self.faces:
            merge[index[model_face], column[reported]] = 1.0
        return out, np.asarray(face_p, np.float32) @ merge

    def decode_colours(self, colour_p: np.ndarray, names: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """For each row of model colour probabilities: the most likely allowed plain colour
        (shades merged, :func:`merge_shades`) and its probability.

        >>> v = Vocabulary.of(["1"], ["white", "black"])
        >>> colours, p = v.decode_colours(np.array([[0.6, 0.3, 0.1]]), ("ivory", "white", "black"))
        >>> colours, [round(float(x), 2) for x in p]
        (['white'], [0.9])
        """
        if self.colours is not None:
            self.check(None, names)
        return decode_colours(colour_p, names, self.colours)



def game_vocabulary(game: str) -> Vocabulary | None:
    """The vocabulary of ``game``'s dice, from its rules (``die_faces``, ``die_colours`` of
    :class:`referee.game.Rules`); None for a card game. Raises :class:`VocabularyError` for
    a game the referee does not know.

    Liar's Dice: the wheel and 2-6, a plain 1 counting as the wheel it replaces. Nine Dice:
    the nine katakana in white, black, blue and green, and its set, three dice of each token
    colour and the green expansion die (``referee/data/nine-dice.json``), whose colours a
    roll is read by (:mod:`vision.read.dice_set`). Pin-456: the faces of the dice set in
    ``referee/data/pin456.json``.

    >>> game_vocabulary("liars-dice").to_json()["faces"]["1"]
    'wheel'
    >>> game_vocabulary("nine-dice").to_json()["colours"]
    ['black', 'blue', 'green', 'white']
    >>> game_vocabulary("pin456").reported_faces, game_vocabulary("doubt")
    (('1', '4', '5', '6'), None)
    >>> len(game_vocabulary("nine-dice").dice), game_vocabulary("liars-dice").dice
    (10, ())
    """
    from referee.log import GAMES
    from referee.replay import rules_for

    if game not in GAMES:
        raise VocabularyError(f"unknown game {game!r}: choose from {', '.join(GAMES)}")
    rules = rules_for(game)
    if not rules.die_faces:
        return None
    return Vocabulary.of(dict(rules.die_faces), rules.die_colours, name=game,
                         dice=tuple(SetDie(colour, faces) for colour, faces in rules.dice))
