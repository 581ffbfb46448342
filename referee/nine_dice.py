"""Nine Dice (ナインダイス, BrainBrainGames ver.): the hand finder and the referee.

Sources: ``shared/rules/nine-dice.ja.md`` and the "Nine Dice" section of
``shared/rules/DECISIONS.md``; events and state JSON follow the ``nine-dice``
section of ``shared/docs/game-log.md``.

The table aid
-------------
:func:`hands` lists every hand a roll makes, strongest first, each with the
dice that form it (one best formation per hand, for highlighting), and
:func:`correct_shouts` the shouts that win the round:

>>> roll = dice_from_text("黒プ 黒ラ 黒ス 白プ 白ラ 白レ 青プ 青レ 青レ")
>>> [str(m.hand) for m in hands(roll)]
['黒プラス', '3色プラス', '2色プラス']
>>> hands(roll)[0].dice
(0, 1, 2)
>>> sorted(correct_shouts(dice_from_text("白ベ 白レ 白レ 黒ガ 黒レ 黒プ 青ス 青プ 青プ")))
['3色ベガス']

A word is made of distinct dice, one letter each. A 3-letter word is graded by
the colours of its dice: 1色 (all three dice the same colour; shouted with that
colour, 白/黒/青), 3色 (three colours) or 2色 (two). A word using the green
expansion die (ブラフ, whose フ only that die shows) is graded by the distinct
colours of its *other* dice, so 白ブラフ exists and 3色ブラフ never does. A
formation needs at least one die of a token colour to have a grade. Hands,
strongest first (``Hand.strength``)::

    ブラフプラスベガス > プラスベガス > ラスベガス > スカラベ > ブレブレ
    > 1色 プラス/ベガス/ブラフ > 1色 ブベラ > 3色 プラス/ベガス/ブラフ > 3色 ブベラ
    > 2色 プラス/ベガス/ブラフ > 2色 ブベラ > ナシゴレン (nothing else formable)

Faces are read literally: フ is neither ブ nor プ and カ is not ガ (the expansion
die exists to make those confusions, the referee never makes them).

The face layout (an ASSUMPTION, data)
-------------------------------------
``referee/data/nine-dice.json`` describes the physical set; edit it to match
yours. It is one JSON object:

- ``"dice"``: ``{kind: [six faces]}``: each kind of die and its six faces
  (katakana プ ラ ス ベ ガ ブ レ フ カ; a face may repeat).
- ``"colours"``: ``{"white": [kinds], "black": [...], "blue": [...]}``: the
  basic dice of each token colour, by kind. Exactly these three colours.
- ``"expansion"``: ``{"die": kind, "colour": "green"}``: the optional tenth
  die; its colour must not be a token colour.
- ``"about"``: free text, ignored.

Default: per colour two dice A = プ ラ ベ ガ ブ レ and one die C = プ ラ ス ガ ブ
レ; expansion die X = フ×3 カ×3, green. A reading is checked against it
(:func:`check_roll`): 9 dice as the colours list them, or 10 with the
expansion die, and the faces of each colour's dice must be showable by that
colour's physical dice all at once (a small bipartite matching: with the
default layout at most one white ス, at most two white ベ). Anything else is a
:class:`~referee.errors.Misread`: a re-read, never a verdict.

Referee decisions where the rulebook and DECISIONS.md are silent
------------------------------------------------------------------
- A shout is the player and the hand. プラスベガス, ラスベガス and ナシゴレン
  (the winner picks a token colour) may carry ``colour`` (white, black or
  blue); no other shout may. A wrong one needs none: its colour, when given,
  is what the penalty returns first, else the colour held most. A *correct*
  one without a colour is refused (:class:`ColourNeeded`): the winner must say
  which token they take, and nothing is applied until they do.
- Every well-formed shout is accepted, even one that can never be right
  (3色ブラフ, スカラベ in a 9-dice game): it is simply a wrong shout and is
  penalised. ``legal_actions()`` lists exactly the shouts ``apply`` accepts.
- A round stays open until a correct shout or an ``end_round``, even once
  every player has shouted wrongly (the log then needs the ``end_round``).
  ``end_round`` with no shout at all voids the roll (nobody shouted, or the
  dice were re-rolled): no token moves, the round is recorded with no winner.
- ``best`` keeps the correct shouts of the latest roll after its round has
  closed (the dice are still on the table) until the next roll; ``[]`` before
  the first roll. ``round_open`` tells the two apart.
- The scarab already held by a スカラベ winner stays with them (nothing moves).
- ブラフプラスベガス shouted correctly wins the game at once; no token moves.
- Shout strings are read after NFKC normalisation (full-width ３色 is 3色),
  ignoring surrounding spaces and a trailing ! or ！; サンショク / 三色 and
  ニショク / 二色 read as 3色 / 2色. The log keeps what was sent; state JSON
  uses the canonical spelling.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cache
from importlib import resources
from itertools import combinations, product
from random import Random
from typing import Any

from referee.errors import (
    GameOver,
    InvalidOption,
    MalformedEvent,
    Misread,
    OutOfOrder,
    RefereeError,
    UnknownPlayer,
)
from referee.game import JSON, Rules

__all__ = [
    "LAYOUT",
    "RULES",
    "AlreadyShouted",
    "Colour",
    "ColourNeeded",
    "Die",
    "EndRound",
    "Grade",
    "Hand",
    "HandKind",
    "HandMatch",
    "Layout",
    "LayoutError",
    "Letter",
    "Options",
    "PhysicalDie",
    "Reward",
    "Roll",
    "Shout",
    "State",
    "UnknownHand",
    "Word",
    "check_roll",
    "correct_shouts",
    "dice_from_text",
    "hands",
    "new_game",
    "parse_event",
    "parse_options",
    "random_roll",
]

STOCK_PER_COLOUR = 10


# --- Faces, colours and dice ---------------------------------------------------------


class Letter(Enum):
    """A die face."""

    PU = "プ"
    RA = "ラ"
    SU = "ス"
    BE = "ベ"
    GA = "ガ"
    BU = "ブ"
    RE = "レ"
    FU = "フ"
    KA = "カ"


class Colour(Enum):
    """A die body colour. Tokens (cubes) come in the first three only."""

    WHITE = "white"
    BLACK = "black"
    BLUE = "blue"
    GREEN = "green"

    @property
    def ja(self) -> str:
        return _COLOUR_JA[self]


_COLOUR_JA = {Colour.WHITE: "白", Colour.BLACK: "黒", Colour.BLUE: "青", Colour.GREEN: "緑"}

TOKEN_COLOURS: tuple[Colour, Colour, Colour] = (Colour.WHITE, Colour.BLACK, Colour.BLUE)
"""Token colours in tie-break order (white, black, blue)."""

_TOKEN_INDEX = {c: i for i, c in enumerate(TOKEN_COLOURS)}
_TOKEN_BIT = {c: 1 << i for i, c in enumerate(TOKEN_COLOURS)}


@dataclass(frozen=True)
class Die:
    """One die as rolled (or read by the camera).

    >>> str(Die(Letter.SU, Colour.BLACK)), Die(Letter.SU, Colour.BLACK).to_json()
    ('黒ス', {'face': 'ス', 'colour': 'black'})
    """

    face: Letter
    colour: Colour

    def to_json(self) -> JSON:
        return {"face": self.face.value, "colour": self.colour.value}

    def __str__(self) -> str:
        return f"{self.colour.ja}{self.face.value}"


def dice_from_text(text: str) -> tuple[Die, ...]:
    """Dice written as colour kanji + face, separated by spaces (a test and UI helper).

    >>> dice_from_text("白プ 緑フ")
    (Die(face=<Letter.PU: 'プ'>, colour=<Colour.WHITE: 'white'>), Die(face=<Letter.FU: 'フ'>, colour=<Colour.GREEN: 'green'>))
    """
    colours = {v: k for k, v in _COLOUR_JA.items()}
    faces = {letter.value: letter for letter in Letter}
    dice = []
    for word in text.split():
        if len(word) != 2 or word[0] not in colours or word[1] not in faces:
            raise MalformedEvent(
                f"{word!r} is not a die (write colour kanji 白黒青緑 then a face, e.g. 白プ)",
                f"「{word}」はダイスの表記ではありません（例: 白プ）",
            )
        dice.append(Die(faces[word[1]], colours[word[0]]))
    return tuple(dice)


# --- The physical set (data) ---------------------------------------------------------


class LayoutError(ValueError):
    """The layout data file does not describe a usable set (a configuration mistake)."""


@dataclass(frozen=True)
class PhysicalDie:
    """One physical die of the set: its kind (name in the data file), colour and six faces."""

    kind: str
    colour: Colour
    faces: tuple[Letter, ...]

    @property
    def face_set(self) -> frozenset[Letter]:
        return frozenset(self.faces)


@dataclass(frozen=True)
class Layout:
    """The dice of the set: the basic dice (by colour) and the expansion die."""

    basic: tuple[PhysicalDie, ...]
    expansion: PhysicalDie

    @classmethod
    def from_json(cls, doc: Any) -> "Layout":
        """Read and check the data file's object (format in the module docstring)."""
        if not isinstance(doc, dict):
            raise LayoutError("the layout must be a JSON object")
        kinds = doc.get("dice")
        if not isinstance(kinds, dict) or not kinds:
            raise LayoutError('"dice" must map die kinds to their six faces')
        faces_of: dict[str, tuple[Letter, ...]] = {}
        letters = {letter.value: letter for letter in Letter}
        for kind, faces in kinds.items():
            if not isinstance(faces, list) or len(faces) != 6 or not all(f in letters for f in faces):
                raise LayoutError(f"die kind {kind!r} must list six faces among {' '.join(letters)}")
            faces_of[kind] = tuple(letters[f] for f in faces)
        colours = doc.get("colours")
        if not isinstance(colours, dict) or set(colours) != {c.value for c in TOKEN_COLOURS}:
            raise LayoutError('"colours" must give the dice of exactly white, black and blue')
        basic: list[PhysicalDie] = []
        for colour in TOKEN_COLOURS:
            names = colours[colour.value]
            if not isinstance(names, list) or not names or not all(isinstance(n, str) and n in faces_of for n in names):
                raise LayoutError(f"the {colour.value} dice must be a non-empty list of kinds from \"dice\"")
            basic.extend(PhysicalDie(n, colour, faces_of[n]) for n in names)
        expansion = doc.get("expansion")
        if not isinstance(expansion, dict) or expansion.get("die") not in faces_of:
            raise LayoutError('"expansion" must name its die kind from "dice"')
        try:
            green = Colour(expansion.get("colour"))
        except ValueError:
            raise LayoutError("the expansion die's colour must be one of " + ", ".join(c.value for c in Colour)) from None
        if green in TOKEN_COLOURS:
            raise LayoutError("the expansion die's colour must not be a token colour (white, black, blue)")
        return cls(tuple(basic), PhysicalDie(expansion["die"], green, faces_of[expansion["die"]]))

    def dice_of(self, colour: Colour) -> tuple[PhysicalDie, ...]:
        """The physical dice of ``colour`` (the expansion die for its colour)."""
        if colour == self.expansion.colour:
            return (self.expansion,)
        return tuple(d for d in self.basic if d.colour == colour)

    @property
    def sizes(self) -> tuple[int, int]:
        """Dice in a roll without and with the expansion die."""
        return len(self.basic), len(self.basic) + 1


def _load_layout() -> Layout:
    text = resources.files("referee").joinpath("data/nine-dice.json").read_text(encoding="utf-8")
    return Layout.from_json(json.loads(text))


LAYOUT: Layout = _load_layout()
"""The set in use, read once from ``referee/data/nine-dice.json``."""


def _matchable(faces: Sequence[Letter], dice: Sequence[PhysicalDie]) -> bool:
    """Can each rolled face be shown by a different physical die? (Kuhn's matching)"""
    owner: list[int | None] = [None] * len(dice)

    def place(i: int, seen: set[int]) -> bool:
        for d, die in enumerate(dice):
            if d not in seen and faces[i] in die.face_set:
                seen.add(d)
                held = owner[d]
                if held is None or place(held, seen):
                    owner[d] = i
                    return True
        return False

    return len(faces) <= len(dice) and all(place(i, set()) for i in range(len(faces)))


def check_roll(dice: Sequence[Die], layout: Layout = LAYOUT) -> None:
    """Raise :class:`Misread` unless ``dice`` could be a roll of the set.

    >>> check_roll(dice_from_text("白ス 白ス 白プ 黒プ 黒プ 黒プ 青プ 青プ 青プ"))
    Traceback (most recent call last):
    ...
    referee.errors.Misread: The reading does not add up (2 white dice show ス but only 1 white die has it); please re-read.
    """
    small, large = layout.sizes
    if len(dice) not in (small, large):
        raise Misread(
            f"{len(dice)} dice read; a roll is {small} dice, or {large} with the expansion die",
            f"{len(dice)}個のダイスを読み取りました。{small}個（拡張ダイスありは{large}個）のはずです",
        )
    seen = Counter(d.colour for d in dice)
    for colour in (*TOKEN_COLOURS, layout.expansion.colour):
        physical = layout.dice_of(colour)
        want = len(physical) if colour != layout.expansion.colour else len(dice) - small
        if seen[colour] != want:
            raise Misread(
                f"{seen[colour]} {colour.value} dice read, the roll has {want}",
                f"{colour.ja}のダイスが{seen[colour]}個読み取られました（{want}個のはずです）",
            )
        faces = [d.face for d in dice if d.colour == colour]
        if _matchable(faces, physical):
            continue
        for letter, n in Counter(faces).items():
            having = sum(letter in p.face_set for p in physical)
            if n > having:
                if having == 0:
                    raise Misread(
                        f"no {colour.value} die has {letter.value}",
                        f"{colour.ja}のダイスに「{letter.value}」の面はありません",
                    )
                plural = "die has" if having == 1 else "dice have"
                raise Misread(
                    f"{n} {colour.value} dice show {letter.value} but only {having} {colour.value} {plural} it",
                    f"{colour.ja}の「{letter.value}」が{n}個ありますが、その面を持つ{colour.ja}のダイスは{having}個です",
                )
        shown = " ".join(f.value for f in faces)
        raise Misread(
            f"the {colour.value} dice cannot show {shown} at once",
            f"{colour.ja}のダイスが同時に{shown}を出すことはできません",
        )


def random_roll(rng: Random, expansion: bool = False, layout: Layout = LAYOUT) -> tuple[Die, ...]:
    """A fair roll of the set (every die shows one of its six faces), in shuffled order.

    >>> len(random_roll(Random(1))), len(random_roll(Random(1), expansion=True))
    (9, 10)
    """
    physical = layout.basic + ((layout.expansion,) if expansion else ())
    dice = [Die(rng.choice(p.faces), p.colour) for p in physical]
    rng.shuffle(dice)
    return tuple(dice)


# --- Hands -----------------------------------------------------------------------------


class UnknownHand(MalformedEvent):
    """A shout string that names no Nine Dice hand."""

    code = "unknown_hand"
    templates = {
        "en": "{hand!r} is not a Nine Dice hand: {reason}.",
        "ja": "「{hand}」はナインダイスの役ではありません: {reason_ja}。",
    }

    def __init__(self, hand: object, reason: str, reason_ja: str) -> None:
        super().__init__(reason, reason_ja, hand=hand)


class HandKind(Enum):
    BURAFU_PURASU_BEGASU = "ブラフプラスベガス"
    PURASU_BEGASU = "プラスベガス"
    RASU_BEGASU = "ラスベガス"
    SUKARABE = "スカラベ"
    BUREBURE = "ブレブレ"
    WORD = "3文字"
    NASIGOREN = "ナシゴレン"


class Word(Enum):
    """The 3-letter words. プラス, ベガス and ブラフ share one strength; ブベラ is weaker."""

    PURASU = "プラス"
    BEGASU = "ベガス"
    BURAFU = "ブラフ"
    BUBERA = "ブベラ"

    @property
    def letters(self) -> tuple[Letter, ...]:
        return _WORD_LETTERS[self]

    @property
    def strong(self) -> bool:
        return self is not Word.BUBERA


_WORD_LETTERS = {w: tuple(Letter(ch) for ch in w.value) for w in Word}


class Grade(Enum):
    """How a 3-letter word is coloured: one colour (named), 3 colours or 2 colours."""

    WHITE = "白"
    BLACK = "黒"
    BLUE = "青"
    THREE = "3色"
    TWO = "2色"

    @property
    def colour(self) -> Colour | None:
        """The colour of a one-colour grade, else None."""
        return {Grade.WHITE: Colour.WHITE, Grade.BLACK: Colour.BLACK, Grade.BLUE: Colour.BLUE}.get(self)


class Reward(Enum):
    """What a correct shout earns."""

    WIN = "win"  # ブラフプラスベガス: the game
    CHOOSE = "choose"  # 1 token of the colour the winner names
    COLOURS = "colours"  # 1 token of each colour the formation uses
    DOUBLE = "double"  # 2 tokens of the word's colour
    SCARAB = "scarab"  # the scarab token


_FIXED_LETTERS = {
    HandKind.BURAFU_PURASU_BEGASU: tuple(Letter(ch) for ch in "ブラフプラスベガス"),
    HandKind.PURASU_BEGASU: tuple(Letter(ch) for ch in "プラスベガス"),
    HandKind.RASU_BEGASU: tuple(Letter(ch) for ch in "ラスベガス"),
    HandKind.SUKARABE: tuple(Letter(ch) for ch in "スカラベ"),
    HandKind.BUREBURE: tuple(Letter(ch) for ch in "ブレブレ"),
}
_FIXED_STRENGTH = {
    HandKind.BURAFU_PURASU_BEGASU: 11,
    HandKind.PURASU_BEGASU: 10,
    HandKind.RASU_BEGASU: 9,
    HandKind.SUKARABE: 8,
    HandKind.BUREBURE: 7,
    HandKind.NASIGOREN: 0,
}
_GRADE_ALIASES = {"サンショク": "3色", "三色": "3色", "ニショク": "2色", "二色": "2色"}


@dataclass(frozen=True)
class Hand:
    """A hand (役) as shouted: a kind, plus word and grade for 3-letter words.

    >>> Hand.parse("3色ブベラ")
    Hand(kind=<HandKind.WORD: '3文字'>, word=<Word.BUBERA: 'ブベラ'>, grade=<Grade.THREE: '3色'>)
    >>> str(Hand.parse("サンショクベガス！")), Hand.parse("黒プラス").strength > Hand.parse("3色ベガス").strength
    ('3色ベガス', True)
    >>> Hand.parse("赤プラス")
    Traceback (most recent call last):
    ...
    referee.nine_dice.UnknownHand: '赤プラス' is not a Nine Dice hand: 赤 is not a grade (白, 黒, 青, 3色 or 2色).
    """

    kind: HandKind
    word: Word | None = None
    grade: Grade | None = None

    def __post_init__(self) -> None:
        has_word = self.word is not None, self.grade is not None
        if has_word != ((True, True) if self.kind is HandKind.WORD else (False, False)):
            raise UnknownHand(
                self.kind.value,
                "a 3-letter word needs a word and a grade, other hands neither",
                "3文字の役には言葉と色が必要で、それ以外の役には不要です",
            )

    @property
    def strength(self) -> int:
        """Higher is stronger; equal strengths are equally good shouts (11 down to 0)."""
        if self.kind is not HandKind.WORD:
            return _FIXED_STRENGTH[self.kind]
        assert self.word is not None and self.grade is not None
        if self.grade.colour is not None:
            base = 5
        elif self.grade is Grade.THREE:
            base = 3
        else:
            base = 1
        return base + (1 if self.word.strong else 0)

    @property
    def reward(self) -> Reward:
        if self.kind is HandKind.BURAFU_PURASU_BEGASU:
            return Reward.WIN
        if self.kind in (HandKind.PURASU_BEGASU, HandKind.RASU_BEGASU, HandKind.NASIGOREN):
            return Reward.CHOOSE
        if self.kind is HandKind.SUKARABE:
            return Reward.SCARAB
        if self.grade is not None and self.grade.colour is not None:
            return Reward.DOUBLE
        return Reward.COLOURS

    @property
    def chooses_colour(self) -> bool:
        """Does the shout name the token colour its winner takes?"""
        return self.reward is Reward.CHOOSE

    @property
    def needs_expansion(self) -> bool:
        """Can only be formed with the expansion die (フ or カ)."""
        return self.kind in (HandKind.BURAFU_PURASU_BEGASU, HandKind.SUKARABE) or self.word is Word.BURAFU

    def __str__(self) -> str:
        if self.kind is HandKind.WORD:
            assert self.word is not None and self.grade is not None
            return self.grade.value + self.word.value
        return self.kind.value

    @classmethod
    def parse(cls, text: object) -> "Hand":
        """Read a shout such as "黒プラス", "3色ブベラ", "プラスベガス"; :class:`UnknownHand` if none."""
        if not isinstance(text, str):
            raise UnknownHand(text, "a hand is written as text", "役は文字列で書きます")
        s = unicodedata.normalize("NFKC", text).strip().rstrip("!").strip()
        if not s:
            raise UnknownHand(text, "the shout is empty", "宣言が空です")
        found = _BY_NAME.get(s)
        if found is not None:
            return found
        for kind in _FIXED_STRENGTH:
            if s.endswith(kind.value):
                raise UnknownHand(text, f"{kind.value} takes no colour or grade", f"{kind.value}には色を付けません")
        for word in Word:
            if s.endswith(word.value):
                prefix = s[: -len(word.value)]
                prefix = _GRADE_ALIASES.get(prefix, prefix)
                if not prefix:
                    raise UnknownHand(
                        text,
                        f"{word.value} needs a grade in front: 白, 黒, 青, 3色 or 2色",
                        f"{word.value}には色を付けて宣言します（白・黒・青・3色・2色）",
                    )
                if prefix in ("1色", "一色", "イッショク"):
                    raise UnknownHand(
                        text,
                        f"a one-colour {word.value} is shouted with its colour: 白{word.value}, 黒{word.value} or 青{word.value}",
                        f"1色の{word.value}は色名を付けて宣言します（白{word.value}・黒{word.value}・青{word.value}）",
                    )
                try:
                    grade = Grade(prefix)
                except ValueError:
                    raise UnknownHand(
                        text,
                        f"{prefix} is not a grade (白, 黒, 青, 3色 or 2色)",
                        f"「{prefix}」は色の指定ではありません（白・黒・青・3色・2色）",
                    ) from None
                return _WORD_HANDS[word, grade]
        names = ", ".join(k.value for k in _FIXED_STRENGTH) + ", <grade><word>"
        raise UnknownHand(
            text,
            f"expected one of {names} (grade 白 黒 青 3色 2色, word プラス ベガス ブラフ ブベラ)",
            "役は ブラフプラスベガス・プラスベガス・ラスベガス・スカラベ・ブレブレ・ナシゴレン、"
            "または 色(白・黒・青・3色・2色)+言葉(プラス・ベガス・ブラフ・ブベラ) です",
        )


_WORD_HANDS: dict[tuple[Word, Grade], Hand] = {(w, g): Hand(HandKind.WORD, w, g) for w in Word for g in Grade}


def _catalogue() -> tuple[Hand, ...]:
    fixed = [Hand(k) for k in _FIXED_STRENGTH]
    words = [_WORD_HANDS[w, g] for g in Grade for w in Word]
    hands_ = fixed + words
    # Stable sort: strength first, then words word-major (白プラス 黒プラス 青プラス 白ベガス ...).
    order = {h: (-h.strength, list(Word).index(h.word) if h.word else 0, list(Grade).index(h.grade) if h.grade else 0)
             for h in hands_}
    return tuple(sorted(hands_, key=lambda h: order[h]))


ALL_HANDS: tuple[Hand, ...] = _catalogue()
"""Every hand that can be shouted, strongest first (the order used everywhere)."""

_INDEX = {h: i for i, h in enumerate(ALL_HANDS)}
_BY_NAME = {str(h): h for h in ALL_HANDS}
NASIGOREN = _BY_NAME["ナシゴレン"]


@dataclass(frozen=True)
class HandMatch:
    """A hand the roll makes: ``dice`` are indices into the roll, in the word's letter
    order (empty for ナシゴレン); ``colours`` are the token colours those dice use
    (white, black, blue order), what a colour-using reward pays."""

    hand: Hand
    dice: tuple[int, ...]
    colours: tuple[Colour, ...]

    def to_json(self) -> JSON:
        return {"hand": str(self.hand), "dice": list(self.dice), "colours": [c.value for c in self.colours]}


_MASK_COLOURS = {m: tuple(c for c in TOKEN_COLOURS if m & _TOKEN_BIT[c]) for m in range(8)}
_POPCOUNT = {m: bin(m).count("1") for m in range(8)}
_SINGLE_GRADE = {1: Grade.WHITE, 2: Grade.BLACK, 4: Grade.BLUE}


def hands(dice: Sequence[Die]) -> tuple[HandMatch, ...]:
    """Every hand ``dice`` make, strongest first (ties in catalogue order).

    Each hand comes with one best formation: for a colour-graded word the one
    of that grade (2色: the first colour pair in white, black, blue order), for
    ブレブレ the one with the most distinct colours (ties the same way), else
    the lowest dice indices. No roll makes nothing: ナシゴレン is the hand when
    no other is formable. ``dice`` need not be a physical roll (see
    :func:`check_roll`).
    """
    by_face: dict[Letter, list[int]] = {}
    for i, d in enumerate(dice):
        by_face.setdefault(d.face, []).append(i)
    bits = [_TOKEN_BIT.get(d.colour, 0) for d in dice]
    found: list[HandMatch] = []

    for kind, letters in _FIXED_LETTERS.items():
        if kind is HandKind.BUREBURE:
            continue
        taken: dict[Letter, int] = {}
        formation = []
        for letter in letters:
            pool = by_face.get(letter, ())
            k = taken.get(letter, 0)
            if k >= len(pool):
                break
            taken[letter] = k + 1
            formation.append(pool[k])
        else:
            found.append(HandMatch(_BY_NAME[kind.value], tuple(formation), ()))

    bu, re = by_face.get(Letter.BU, ()), by_face.get(Letter.RE, ())
    if len(bu) >= 2 and len(re) >= 2:
        best_key: tuple[int, int] | None = None
        best_formation: tuple[int, ...] = ()
        for b0, b1 in combinations(bu, 2):
            for r0, r1 in combinations(re, 2):
                mask = bits[b0] | bits[b1] | bits[r0] | bits[r1]
                key = (-_POPCOUNT[mask], mask)
                if best_key is None or key < best_key:
                    best_key, best_formation = key, (b0, r0, b1, r1)
        assert best_key is not None
        found.append(HandMatch(_BY_NAME["ブレブレ"], best_formation, _MASK_COLOURS[best_key[1]]))

    for word, letters in _WORD_LETTERS.items():
        pools = [by_face.get(letter) for letter in letters]
        if not all(pools):
            continue
        singles: dict[int, tuple[int, ...]] = {}
        three: tuple[int, ...] | None = None
        two: tuple[int, ...] | None = None
        two_mask = 8
        for formation in product(*pools):  # type: ignore[arg-type]
            mask = bits[formation[0]] | bits[formation[1]] | bits[formation[2]]
            if mask in _SINGLE_GRADE:
                singles.setdefault(mask, formation)
            elif mask == 7:
                if three is None:
                    three = formation
            elif mask and mask < two_mask:
                two_mask, two = mask, formation
        for mask, formation in singles.items():
            found.append(HandMatch(_WORD_HANDS[word, _SINGLE_GRADE[mask]], formation, _MASK_COLOURS[mask]))
        if three is not None:
            found.append(HandMatch(_WORD_HANDS[word, Grade.THREE], three, TOKEN_COLOURS))
        if two is not None:
            found.append(HandMatch(_WORD_HANDS[word, Grade.TWO], two, _MASK_COLOURS[two_mask]))

    if not found:
        return (HandMatch(NASIGOREN, (), ()),)
    found.sort(key=lambda m: _INDEX[m.hand])
    return tuple(found)


def _top(matches: Sequence[HandMatch]) -> tuple[HandMatch, ...]:
    top = matches[0].hand.strength
    return tuple(m for m in matches if m.hand.strength == top)


def correct_shouts(dice: Sequence[Die]) -> frozenset[str]:
    """Every shout that wins the round: each hand at the top strength present.

    >>> sorted(correct_shouts(dice_from_text("白プ 白ベ 白レ 黒ラ 黒ガ 黒レ 青ス 青レ 青レ")))
    ['3色プラス', '3色ベガス']
    """
    return frozenset(str(m.hand) for m in _top(hands(dice)))


# --- Events ----------------------------------------------------------------------------


class AlreadyShouted(RefereeError):
    """A second shout by the same player in one round (解答権は1人1回)."""

    code = "already_shouted"
    templates = {
        "en": "{player} has already shouted this round ({hand}): one shout per player, no take-backs.",
        "ja": "{player}はこのラウンドですでに宣言しています（{hand}）。解答権は1人1回、言い直しはできません。",
    }

    def __init__(self, player: str, hand: str) -> None:
        super().__init__(player=player, hand=hand)


class ColourNeeded(MalformedEvent):
    """A correct プラスベガス / ラスベガス / ナシゴレン shout that names no colour: the winner
    chooses the token they take, so the shout waits for that choice (a wrong one needs none)."""

    code = "colour_needed"
    templates = {
        "en": "{player}'s {hand} is right: say which token {player} takes (white, black or blue).",
        "ja": "{player}の{hand}は正解です。受け取るトークンの色（白・黒・青）を選んでください。",
    }

    def __init__(self, player: str, hand: str) -> None:
        RefereeError.__init__(self, player=player, hand=hand)


@dataclass(frozen=True)
class Roll:
    """All dice thrown: 9, or 10 with the expansion die (checked by :func:`check_roll`)."""

    dice: tuple[Die, ...]

    def __post_init__(self) -> None:
        if not all(isinstance(d, Die) for d in self.dice):
            raise MalformedEvent("a roll is a list of dice", "rollはダイスのリストです")
        object.__setattr__(self, "dice", tuple(self.dice))  # keep the event hashable and immutable

    def to_json(self) -> JSON:
        return {"type": "roll", "dice": [d.to_json() for d in self.dice]}


@dataclass(frozen=True)
class Shout:
    """A player's one shout of the round. ``colour`` only for the colour-choosing hands, and
    optional there: the token a winner takes, or the one a wrong shout returns first."""

    player: str
    hand: Hand
    colour: Colour | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.player, str):
            raise MalformedEvent("the shout's player must be a name", "宣言したプレイヤー名が必要です")
        if not isinstance(self.hand, Hand):
            raise MalformedEvent("the shout's hand must be a hand", "宣言の役が必要です")
        if self.hand.chooses_colour:
            if self.colour is not None and self.colour not in TOKEN_COLOURS:
                raise MalformedEvent(
                    f"a {self.hand} shout names the token colour its winner takes: colour white, black or blue",
                    f"{self.hand}の宣言には受け取るトークンの色（white・black・blue）が必要です",
                )
        elif self.colour is not None:
            raise MalformedEvent(
                f"a {self.hand} shout takes no colour (only プラスベガス, ラスベガス and ナシゴレン choose one)",
                f"{self.hand}の宣言に色は付けません（色を選ぶのはプラスベガス・ラスベガス・ナシゴレンだけです）",
            )

    def to_json(self) -> JSON:
        out: JSON = {"type": "shout", "player": self.player, "hand": str(self.hand)}
        if self.colour is not None:
            out["colour"] = self.colour.value
        return out


@dataclass(frozen=True)
class EndRound:
    """Nobody else will shout: closes a round that had no correct shout."""

    def to_json(self) -> JSON:
        return {"type": "end_round"}


Event = Roll | Shout | EndRound
EVENT_TYPES = ("roll", "shout", "end_round")
_EVENT_NAMES: dict[type, str] = {Roll: "roll", Shout: "shout", EndRound: "end_round"}


def _parse_die(raw: Any, index: int) -> Die:
    i = index + 1  # messages count dice from 1
    if not isinstance(raw, Mapping):
        raise MalformedEvent(f"die {i} must be an object with face and colour", f"{i}個目のダイスはfaceとcolourを持つオブジェクトである必要があります")
    face, colour = raw.get("face"), raw.get("colour")
    if not isinstance(face, str) or not isinstance(colour, str):
        raise MalformedEvent(f"die {i} needs a face and a colour, as text", f"{i}個目のダイスにはfaceとcolour（文字列）が必要です")
    try:
        letter = Letter(face)
    except ValueError:
        raise Misread(
            f"die {i} shows {face!r}, not a Nine Dice face ({' '.join(x.value for x in Letter)})",
            f"{i}個目のダイスの目「{face}」はナインダイスの目ではありません",
        ) from None
    try:
        col = Colour(colour)
    except ValueError:
        raise Misread(f"a {colour} die is not part of this set", f"{colour}のダイスはこのセットにありません") from None
    return Die(letter, col)


def parse_event(raw: Any, players: Sequence[str]) -> Event:
    """A log event as a typed event; never a ``KeyError``/``TypeError`` on junk.

    >>> parse_event({"type": "shout", "player": "A", "hand": "黒プラス"}, ["A", "B"])
    Shout(player='A', hand=Hand(kind=<HandKind.WORD: '3文字'>, word=<Word.PURASU: 'プラス'>, grade=<Grade.BLACK: '黒'>), colour=None)
    """
    if not isinstance(raw, Mapping):
        raise MalformedEvent("an event must be a JSON object", "イベントはJSONオブジェクトである必要があります")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise MalformedEvent(
            f"unknown event type {kind!r} (Nine Dice has {', '.join(EVENT_TYPES)})",
            f"不明なイベント「{kind}」です（ナインダイスは {', '.join(EVENT_TYPES)}）",
        )
    if kind == "roll":
        dice = raw.get("dice")
        if not isinstance(dice, list):
            raise MalformedEvent("a roll needs the list of dice", "rollにはダイスのリストが必要です")
        return Roll(tuple(_parse_die(d, i) for i, d in enumerate(dice)))
    if kind == "end_round":
        return EndRound()
    player = raw.get("player")
    if not isinstance(player, str):
        raise MalformedEvent("a shout needs the player's name", "shoutにはプレイヤー名が必要です")
    if player not in players:
        raise UnknownPlayer(player)
    if raw.get("hand") is None:
        raise MalformedEvent("a shout needs the hand shouted", "shoutには宣言した役が必要です")
    hand = Hand.parse(raw["hand"])
    colour_raw = raw.get("colour")
    colour: Colour | None = None
    if colour_raw is not None:
        if not isinstance(colour_raw, str) or colour_raw not in {c.value for c in TOKEN_COLOURS}:
            raise MalformedEvent(
                f"the shout's colour must be white, black or blue, got {colour_raw!r}",
                f"宣言の色はwhite・black・blueのどれかです（{colour_raw}）",
            )
        colour = Colour(colour_raw)
    return Shout(player, hand, colour)


# --- Options ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """Nine Dice has no options: a roll of 10 dice means the expansion die is in play."""

    def to_json(self) -> JSON:
        return {}


def parse_options(raw: Mapping[str, Any]) -> Options:
    if not isinstance(raw, Mapping):
        raise InvalidOption("options", "options must be an object", "optionsはオブジェクトである必要があります")
    for name in sorted(map(str, raw)):
        raise InvalidOption(
            name,
            "Nine Dice has no options (roll 10 dice to play with the expansion die)",
            "ナインダイスにオプションはありません（拡張ダイスを使うときは10個振ります）",
        )
    return Options()


# --- State -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Transfer:
    """One token given to a round winner: ``token`` a colour or "scarab", ``source`` the
    player it was taken from (None: the stock)."""

    token: str
    source: str | None

    def to_json(self) -> JSON:
        return {"token": self.token, "from": self.source}


@dataclass(frozen=True)
class ShoutRecord:
    player: str
    hand: Hand
    colour: Colour | None
    correct: bool
    returned: str | None  # a wrong shout's returned token: a colour, "scarab" or None

    def to_json(self) -> JSON:
        return {
            "player": self.player,
            "hand": str(self.hand),
            "colour": self.colour.value if self.colour else None,
            "correct": self.correct,
            "returned": self.returned,
        }


@dataclass(frozen=True)
class RoundRecord:
    dice: tuple[Die, ...]
    best: tuple[str, ...]
    winner: str | None
    hand: Hand | None
    shouts: tuple[ShoutRecord, ...]
    awarded: tuple[Transfer, ...]

    @property
    def penalised(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.shouts if not s.correct)

    def to_json(self) -> JSON:
        return {
            "best": list(self.best),
            "winner": self.winner,
            "penalised": list(self.penalised),
            "hand": str(self.hand) if self.hand else None,
            "dice": [d.to_json() for d in self.dice],
            "shouts": [s.to_json() for s in self.shouts],
            "awarded": [t.to_json() for t in self.awarded],
        }


Cubes = tuple[int, int, int]


def _has_won(cubes: Cubes, scarab: bool, target: int) -> bool:
    if all(n >= target for n in cubes):
        return True
    return scarab and any(
        all(n + (3 if i == j else 0) >= target for i, n in enumerate(cubes)) for j in range(3)
    )


@cache
def _shouts_for(player: str, best: tuple[str, ...]) -> tuple[Shout, ...]:
    """Every shout ``player`` may make against a roll whose correct shouts are ``best``:
    a colour-choosing hand with each colour, and without one unless it would win."""
    out: list[Shout] = []
    for hand in ALL_HANDS:
        if hand.chooses_colour:
            if str(hand) not in best:
                out.append(Shout(player, hand))
            out.extend(Shout(player, hand, c) for c in TOKEN_COLOURS)
        else:
            out.append(Shout(player, hand))
    return tuple(out)


@dataclass(frozen=True)
class State:
    """A Nine Dice game between rolls or during a round. Immutable; build with :func:`new_game`.

    ``cubes[i]`` are player i's white, black, blue tokens; ``scarab`` the index
    of the scarab's holder (None: in the stock). Stock plus players is always
    10 per colour, and the scarab is in exactly one place. ``dice``,
    ``matches`` and ``best`` describe the latest roll (see :func:`hands`);
    ``shouts`` are the open round's shouts so far; ``champion`` is the
    winner's index once the game is over.
    """

    players: tuple[str, ...]
    cubes: tuple[Cubes, ...]
    stock: Cubes
    scarab: int | None = None
    dice: tuple[Die, ...] | None = None
    matches: tuple[HandMatch, ...] = ()
    best: tuple[str, ...] = ()
    round_open: bool = False
    shouts: tuple[ShoutRecord, ...] = ()
    rounds: tuple[RoundRecord, ...] = ()
    champion: int | None = None

    # -- protocol ------------------------------------------------------------------------

    @property
    def target(self) -> int:
        """Tokens of every colour needed to win: 4 with 2-3 players, else 3."""
        return 4 if len(self.players) <= 3 else 3

    def legal_actions(self) -> tuple[Shout | EndRound, ...]:
        if not self.round_open or self.champion is not None:
            return ()
        done = {s.player for s in self.shouts}
        actions: list[Shout | EndRound] = []
        for p in self.players:
            if p not in done:
                actions.extend(_shouts_for(p, self.best))
        actions.append(EndRound())
        return tuple(actions)

    def expects(self) -> str | None:
        return "roll" if self.champion is None and not self.round_open else None

    def is_terminal(self) -> bool:
        return self.champion is not None

    def winner(self) -> str | None:
        return None if self.champion is None else self.players[self.champion]

    def apply(self, event: Event) -> "State":
        if not isinstance(event, (Roll, Shout, EndRound)):
            raise MalformedEvent(f"not a Nine Dice event: {event!r}", "ナインダイスのイベントではありません")
        if self.champion is not None:
            raise GameOver(_EVENT_NAMES[type(event)])
        if isinstance(event, Roll):
            return self._roll(event)
        if isinstance(event, Shout):
            return self._shout(event)
        return self._end_round()

    # -- events --------------------------------------------------------------------------

    def _roll(self, event: Roll) -> "State":
        if self.round_open:
            raise OutOfOrder(
                "roll",
                "the round is still open: a correct shout or end_round must close it first",
                "ラウンドがまだ終わっていません（正しい宣言かend_roundが先です）",
            )
        check_roll(event.dice)
        matches = hands(event.dice)
        best = tuple(str(m.hand) for m in _top(matches))
        return replace(self, dice=event.dice, matches=matches, best=best, round_open=True, shouts=())

    def _shout(self, event: Shout) -> "State":
        if event.player not in self.players:
            raise UnknownPlayer(event.player)
        if not self.round_open:
            if self.dice is None:
                raise OutOfOrder("shout", "no dice have been rolled yet", "まだダイスが振られていません")
            raise OutOfOrder("shout", "the round is over; roll the dice first", "ラウンドは終わっています。先にダイスを振ってください")
        for s in self.shouts:
            if s.player == event.player:
                raise AlreadyShouted(event.player, str(s.hand))
        me = self.players.index(event.player)
        cubes = [list(c) for c in self.cubes]
        stock = list(self.stock)
        scarab = self.scarab
        hand = event.hand
        if str(hand) not in self.best:
            returned: str | None = None
            held = cubes[me]
            if event.colour is not None and held[_TOKEN_INDEX[event.colour]] > 0:
                k = _TOKEN_INDEX[event.colour]
            elif any(held):
                k = max(range(3), key=lambda i: (held[i], -i))
            else:
                k = -1
            if k >= 0:
                held[k] -= 1
                stock[k] += 1
                returned = TOKEN_COLOURS[k].value
            elif scarab == me:
                scarab = None
                returned = "scarab"
            record = ShoutRecord(event.player, hand, event.colour, False, returned)
            return replace(
                self,
                cubes=tuple((c[0], c[1], c[2]) for c in cubes),
                stock=(stock[0], stock[1], stock[2]),
                scarab=scarab,
                shouts=self.shouts + (record,),
            )

        if hand.chooses_colour and event.colour is None:
            raise ColourNeeded(event.player, str(hand))
        match = next(m for m in self.matches if m.hand == hand)
        awarded: list[Transfer] = []
        champion: int | None = None
        reward = hand.reward
        if reward is Reward.WIN:
            champion = me
        elif reward is Reward.SCARAB:
            if scarab != me:
                awarded.append(Transfer("scarab", None if scarab is None else self.players[scarab]))
                scarab = me
        else:
            if reward is Reward.CHOOSE:
                assert event.colour is not None
                wanted = [event.colour]
            elif reward is Reward.DOUBLE:
                wanted = [match.colours[0], match.colours[0]]
            else:
                wanted = list(match.colours)
            for colour in wanted:
                t = self._give(cubes, stock, me, _TOKEN_INDEX[colour])
                if t is not None:
                    awarded.append(t)
        final = tuple((c[0], c[1], c[2]) for c in cubes)
        if champion is None and _has_won(final[me], scarab == me, self.target):
            champion = me
        shouts = self.shouts + (ShoutRecord(event.player, hand, event.colour, True, None),)
        assert self.dice is not None
        record = RoundRecord(self.dice, self.best, event.player, hand, shouts, tuple(awarded))
        return replace(
            self,
            cubes=final,
            stock=(stock[0], stock[1], stock[2]),
            scarab=scarab,
            round_open=False,
            shouts=(),
            rounds=self.rounds + (record,),
            champion=champion,
        )

    def _give(self, cubes: list[list[int]], stock: list[int], me: int, k: int) -> Transfer | None:
        """One token of colour ``k`` to player ``me``: from the stock, else from the other
        player holding most of it (ties: the first clockwise from ``me``), else none."""
        colour = TOKEN_COLOURS[k].value
        if stock[k] > 0:
            stock[k] -= 1
            cubes[me][k] += 1
            return Transfer(colour, None)
        n = len(cubes)
        source: int | None = None
        for step in range(1, n):
            p = (me + step) % n
            if cubes[p][k] > (cubes[source][k] if source is not None else 0):
                source = p
        if source is None:
            return None
        cubes[source][k] -= 1
        cubes[me][k] += 1
        return Transfer(colour, self.players[source])

    def _end_round(self) -> "State":
        if not self.round_open:
            raise OutOfOrder("end_round", "no round is open (roll the dice first)", "進行中のラウンドがありません（先にダイスを振ってください）")
        assert self.dice is not None
        record = RoundRecord(self.dice, self.best, None, None, self.shouts, ())
        return replace(self, round_open=False, shouts=(), rounds=self.rounds + (record,))

    # -- JSON ----------------------------------------------------------------------------

    def to_json(self) -> JSON:
        return {
            "game": "nine-dice",
            "players": [
                {
                    "name": name,
                    "tokens": {c.value: n for c, n in zip(TOKEN_COLOURS, cubes)},
                    "scarab": self.scarab == i,
                }
                for i, (name, cubes) in enumerate(zip(self.players, self.cubes))
            ],
            "best": list(self.best),
            "winner": self.winner(),
            "rounds": [r.to_json() for r in self.rounds],
            "stock": {**{c.value: n for c, n in zip(TOKEN_COLOURS, self.stock)}, "scarab": self.scarab is None},
            "target": self.target,
            "round_open": self.round_open,
            "dice": None if self.dice is None else [d.to_json() for d in self.dice],
            "hands": [m.to_json() for m in self.matches],
            "shouts": [s.to_json() for s in self.shouts],
        }


def new_game(players: Sequence[str], options: Options | None = None) -> State:
    """The state before the first roll: no tokens held, 10 of each colour in stock."""
    players = tuple(players)
    if not RULES.min_players <= len(players) <= RULES.max_players:
        raise InvalidOption(
            "players",
            f"Nine Dice is for 2-5 players, got {len(players)}",
            f"ナインダイスは2〜5人で遊びます（{len(players)}人です）",
        )
    if len(set(players)) != len(players) or not all(isinstance(p, str) and p for p in players):
        raise InvalidOption("players", "player names must be unique and non-empty", "プレイヤー名は重複なく空でない必要があります")
    return State(
        players=players,
        cubes=tuple((0, 0, 0) for _ in players),
        stock=(STOCK_PER_COLOUR,) * 3,  # type: ignore[arg-type]
    )


RULES = Rules(
    name="nine-dice",
    min_players=2,
    max_players=5,
    parse_options=parse_options,
    new_game=new_game,
    parse_event=parse_event,
    die_faces=tuple((letter.value, letter.value) for letter in Letter),
    die_colours=tuple(c.value for c in Colour),
    dice=tuple((die.colour.value, tuple(f.value for f in die.faces)) for die in (*LAYOUT.basic, LAYOUT.expansion)),
)
