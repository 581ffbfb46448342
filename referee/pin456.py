"""Pin-456: a two-player sum-guessing dice game played for "underground currency".

Sources: the rulebook ``shared/rules/pin456.ja.md`` and the "Pin-456" section of
``shared/rules/DECISIONS.md``; events and state JSON follow the game-log
contract (``shared/docs/game-log.md``, section pin456).

How a game goes
---------------
``players[0]`` is the first parent and holds the six dice; the other player is
the child. Each player starts with 30 notes of 1000P (``cash`` is in points).

1. ``declare``: the parent secretly sets ``count`` (1 .. unused dice) of the
   unused dice to faces of their choice and announces only the count.
2. ``stake``: the child puts a stake on the table (at least 1000P, whole 1000P
   notes, at most their cash and at most the optional ``stake_cap``) and
   guesses the sum. The stake leaves the child's ``cash`` until it is settled.
3. ``reveal`` (a camera reading): the declared dice. A correct guess returns
   the stake and the parent pays ``m(count) x stake`` with
   m = 1, 2, 3, 4, 10, 10 for 1..6 dice (:data:`MULTIPLIERS`); a wrong guess
   gives the stake to the parent. Revealed dice are used; once all six are
   used the roles swap and the new parent takes all six dice.

The game ends when each player has been parent 5 times (more cash wins, equal
cash is a draw), or at once when a player goes bankrupt: a parent who cannot
pay in full pays what they have and loses, and a player left with 0P (so
unable to stake 1000P) loses. A player's parent turn counts from the moment
they take the dice, so the first parent starts with ``parent_turns`` 1.

Options (game-log ``options``; :class:`Options`): ``stake_cap`` (null or a
whole number of notes, at least 1000), ``to_hell`` (no parent limit: play until
someone is bankrupt) and ``counterfeit`` (accusations, below).

Counterfeit notes
-----------------
With ``counterfeit`` every payment between the players may be accused by its
receiver with an ``accuse`` event right after it, before the next
``declare``; ``fake`` is what the inspection found. The payments are the
stake a parent wins, the payout of a correct guess (never the returned stake,
which is the child's own notes) and every doubled payment.

- ``fake: true``: the receiver hands the batch back and the giver pays double.
  That doubled payment can be accused again. A giver who cannot pay double
  pays everything they have and is bankrupt, like a parent who cannot pay a
  payout.
- ``fake: false``: the accuser forfeits the batch: it goes back to the giver.
  Nothing is left to accuse (the notes that go back are the giver's own).
- The payment that ends the game cannot be accused.

Money is conserved: cash of both players plus the stake on the table is
always 60000P. The fakes counting -1000P each at the end are entered by the
players afterwards and are not part of the replay (DECISIONS.md).

Guesses
-------
The rulebook lets the child guess any total ("合計数を予想して宣言"); it sets
no rule against a guess the unused dice cannot show, which simply loses. So a
guess is legal when it is a total ``count`` dice can have at all
(``count`` .. ``6 x count``), and :meth:`State.legal_actions` lists all of them;
:func:`feasible_sums` and :meth:`State.feasible_guesses` tell a table aid
which of them can win.

The dice set (an ASSUMPTION; user-editable data)
------------------------------------------------
``referee/data/pin456.json`` holds the faces of the set, as in the Kaiji story
the game is themed on: three pin dice (every face 1) and three 4-5-6 dice
(faces 4, 5, 6, 4, 5, 6). Edit it to match your dice::

    {"about": "...free text...",
     "kinds": [{"name": "pin", "count": 3, "faces": ["1", "1", "1", "1", "1", "1"]},
               {"name": "456", "count": 3, "faces": ["4", "5", "6", "4", "5", "6"]}]}

``kinds`` is ordered; ``name`` (unique, non-empty) keys ``dice_left`` in the
state JSON; ``count`` >= 1 and the counts add up to 6 (the payout table covers
1..6 dice); ``faces`` are six strings "1".."6" (repeat a face to put it on
several sides). The file is read once, when this module is imported; an
invalid file stops the import with a :class:`ValueError` naming the problem.

A reveal must be exactly ``count`` faces that some choice of unused dice can
show; anything else (a pin die showing 5, a fourth "1" when two pin dice are
left, a face no die has) is a :class:`~referee.errors.Misread`: re-read, no
verdict. Which dice were used follows from the faces. If an edited set lets a
face come from more than one kind, the referee picks, among the choices that
fit, the one that uses as many dice as possible of the first kind in the file,
then of the second, and so on (:meth:`DiceSet.assign`).

>>> state = RULES.new_game(("A", "B"), Options())
>>> for raw in ({"type": "declare", "player": "A", "count": 2},
...             {"type": "stake", "player": "B", "amount": 3000, "guess": 9},
...             {"type": "reveal", "dice": ["4", "5"]}):
...     state = state.apply(parse_event(raw, ("A", "B")))
>>> [(p["name"], p["cash"]) for p in state.to_json()["players"]]
[('A', 24000), ('B', 36000)]
>>> state.to_json()["dice_left"]
{'pin': 3, '456': 1}
"""

from __future__ import annotations

import enum
import json
import reprlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, ClassVar

from referee.errors import (
    GameOver,
    InvalidOption,
    MalformedEvent,
    Misread,
    NotYourTurn,
    OutOfOrder,
    RefereeError,
    UnknownPlayer,
)
from referee.game import JSON, Rules

NOTE = 1000
"""Points per note of underground currency."""
START_NOTES = 30
PARENT_TURNS = 5
"""Parent turns per player in a game without ``to_hell``."""
MULTIPLIERS: Mapping[int, int] = {1: 1, 2: 2, 3: 3, 4: 4, 5: 10, 6: 10}
"""Payout per staked point for a correct guess, by the number of dice revealed."""
SET_SIZE = 6
FACES = ("1", "2", "3", "4", "5", "6")
DATA_FILE = "data/pin456.json"


# --- Money -----------------------------------------------------------------------------


@dataclass(frozen=True, order=True, slots=True)
class Money:
    """An amount of underground currency: whole 1000P notes, never negative.

    >>> Money.notes(3) + Money(2000)
    Money(points=5000)
    >>> str(Money(24000)), Money(24000).note_count
    ('24000P', 24)
    >>> Money(1500)
    Traceback (most recent call last):
    ...
    ValueError: money comes in whole 1000P notes, not 1500P
    """

    points: int

    def __post_init__(self) -> None:
        if type(self.points) is not int:
            raise ValueError(f"money is a whole number of points, not {self.points!r}")
        if self.points < 0:
            raise ValueError(f"money cannot be negative ({self.points}P)")
        if self.points % NOTE:
            raise ValueError(f"money comes in whole {NOTE}P notes, not {self.points}P")

    @classmethod
    def notes(cls, count: int) -> "Money":
        return cls(count * NOTE)

    @property
    def note_count(self) -> int:
        return self.points // NOTE

    def __add__(self, other: "Money") -> "Money":
        return Money(self.points + other.points)

    def __sub__(self, other: "Money") -> "Money":
        return Money(self.points - other.points)

    def times(self, factor: int) -> "Money":
        return Money(self.points * factor)

    def __bool__(self) -> bool:
        return self.points > 0

    def __str__(self) -> str:
        return f"{self.points}P"


ZERO = Money(0)
START_CASH = Money.notes(START_NOTES)
TOTAL_MONEY = START_CASH.times(2)


# --- Dice ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DieKind:
    """One kind of die of the set: its name, how many the set has, its six faces.

    >>> DieKind("456", 3, ("4", "5", "6", "4", "5", "6")).values
    (4, 5, 6)
    """

    name: str
    count: int
    faces: tuple[str, ...]

    @property
    def values(self) -> tuple[int, ...]:
        """The distinct numbers this die can show, ascending."""
        return tuple(sorted({int(face) for face in self.faces}))

    def shows(self, face: str) -> bool:
        return face in self.faces


@dataclass(frozen=True, slots=True)
class DiceSet:
    """The dice of the game, in data-file order. Counts per kind travel as tuples
    aligned with :attr:`kinds` (``dice_left`` is such a tuple)."""

    kinds: tuple[DieKind, ...]

    @classmethod
    def from_json(cls, doc: Any) -> "DiceSet":
        """Read the data-file format (module docstring); ValueError if it is not valid.

        >>> DiceSet.from_json({"kinds": [{"name": "pin", "count": 6, "faces": ["1"] * 6}]}).full
        (6,)
        """
        if not isinstance(doc, dict) or not isinstance(doc.get("kinds"), list) or not doc["kinds"]:
            raise ValueError('the dice set must be an object with a non-empty "kinds" list')
        kinds = []
        for index, raw in enumerate(doc["kinds"]):
            where = f"kinds[{index}]"
            if not isinstance(raw, dict):
                raise ValueError(f"{where} must be an object")
            name, count, faces = raw.get("name"), raw.get("count"), raw.get("faces")
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"{where}: name must be a non-empty string")
            if type(count) is not int or count < 1:
                raise ValueError(f"{where}: count must be a whole number >= 1")
            if not isinstance(faces, list) or len(faces) != 6 or not all(f in FACES for f in faces):
                raise ValueError(f'{where}: faces must be six of "1".."6"')
            kinds.append(DieKind(name, count, tuple(faces)))
        names = [kind.name for kind in kinds]
        if len(set(names)) != len(names):
            raise ValueError("kind names must be unique")
        if sum(kind.count for kind in kinds) != SET_SIZE:
            raise ValueError(f"the counts must add up to {SET_SIZE} dice (the payout table covers 1..6 dice)")
        return cls(tuple(kinds))

    @property
    def full(self) -> tuple[int, ...]:
        """Counts of a full set: what a new parent takes."""
        return tuple(kind.count for kind in self.kinds)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(kind.name for kind in self.kinds)

    def shows(self, face: str) -> bool:
        """Whether any die of the set has this face."""
        return any(kind.shows(face) for kind in self.kinds)

    def counts(self, dice_left: Mapping[str, int]) -> tuple[int, ...]:
        """A name -> count mapping as a tuple aligned with :attr:`kinds` (ValueError if impossible)."""
        unknown = set(dice_left) - set(self.names)
        if unknown:
            raise ValueError(f"unknown kinds of dice: {sorted(map(str, unknown))}")
        counts = tuple(dice_left.get(kind.name, 0) for kind in self.kinds)
        for kind, count in zip(self.kinds, counts):
            if type(count) is not int or not 0 <= count <= kind.count:
                raise ValueError(f"{kind.name}: between 0 and {kind.count} dice can be left, not {count!r}")
        return counts

    def sums(self, count: int, left: Sequence[int]) -> tuple[int, ...]:
        """Every total ``count`` of the ``left`` dice can show, ascending."""
        if count < 0:
            raise ValueError("a number of dice cannot be negative")
        reach: dict[int, set[int]] = {0: {0}}  # dice taken so far -> possible totals
        for kind, available in zip(self.kinds, left):
            of_kind = [{0}]  # of_kind[j]: the totals j dice of this kind can show
            for _ in range(min(available, count)):
                of_kind.append({total + value for total in of_kind[-1] for value in kind.values})
            grown: dict[int, set[int]] = {}
            for taken, totals in reach.items():
                for extra in range(min(len(of_kind) - 1, count - taken) + 1):
                    grown.setdefault(taken + extra, set()).update(a + b for a in totals for b in of_kind[extra])
            reach = grown
        return tuple(sorted(reach.get(count, ())))

    def assign(self, faces: Sequence[str], left: Sequence[int]) -> tuple[int, ...] | None:
        """How many dice of each kind showed ``faces``, or None if the ``left`` dice cannot.

        Among the choices that fit, the one using the most dice of the first kind,
        then of the second, ... (lexicographically greatest) is taken.

        >>> DICE_SET.assign(["1", "5", "4"], (3, 3))
        (1, 2)
        >>> DICE_SET.assign(["5"], (3, 0)) is None
        True
        """
        wanted = tuple(sorted(Counter(faces).items()))
        for used in self._usages(len(faces), tuple(left), 0):
            if self._fits(wanted, used):
                return used
        return None

    def _usages(self, count: int, left: tuple[int, ...], start: int) -> Iterator[tuple[int, ...]]:
        """Count vectors <= ``left[start:]`` adding up to ``count``, lexicographically descending."""
        if start == len(left):
            if count == 0:
                yield ()
            return
        for here in range(min(left[start], count), -1, -1):
            for rest in self._usages(count - here, left, start + 1):
                yield (here,) + rest

    def _fits(self, wanted: tuple[tuple[str, int], ...], slots: tuple[int, ...]) -> bool:
        """Whether the faces in ``wanted`` can fill exactly ``slots`` dice of each kind."""
        if not wanted:
            return not any(slots)
        (face, copies), rest = wanted[0], wanted[1:]
        holders = [i for i, kind in enumerate(self.kinds) if slots[i] and kind.shows(face)]
        for split in _splits(copies, [slots[i] for i in holders]):
            remaining = list(slots)
            for i, taken in zip(holders, split):
                remaining[i] -= taken
            if self._fits(rest, tuple(remaining)):
                return True
        return False

    def describe(self, counts: Sequence[int]) -> str:
        return ", ".join(f"{kind.name}×{n}" for kind, n in zip(self.kinds, counts) if n) or "none"


def _splits(total: int, limits: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Ways to share ``total`` among places holding at most ``limits`` each."""
    if not limits:
        if total == 0:
            yield ()
        return
    for here in range(min(limits[0], total), -1, -1):
        for rest in _splits(total - here, limits[1:]):
            yield (here,) + rest


def _load_dice_set() -> DiceSet:
    text = (resources.files("referee") / DATA_FILE).read_text(encoding="utf-8")
    try:
        return DiceSet.from_json(json.loads(text))
    except ValueError as err:  # json.JSONDecodeError is a ValueError too
        raise ValueError(f"referee/{DATA_FILE} is not a valid Pin-456 dice set: {err}") from err


DICE_SET: DiceSet = _load_dice_set()
"""The dice set read from ``referee/data/pin456.json``."""


def feasible_sums(count: int, dice_left: Mapping[str, int], dice: DiceSet | None = None) -> tuple[int, ...]:
    """The totals ``count`` of the unused dice can show, ascending (a table aid).

    >>> feasible_sums(3, {"pin": 3, "456": 3})
    (3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)
    >>> feasible_sums(2, {"pin": 1, "456": 1})
    (5, 6, 7)
    >>> feasible_sums(1, {"pin": 0, "456": 2})
    (4, 5, 6)
    >>> feasible_sums(4, {"pin": 3, "456": 0})
    ()
    """
    dice = dice or DICE_SET
    return dice.sums(count, dice.counts(dice_left))


# --- Options ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    """The select rules agreed before the game (DECISIONS.md "Option names").

    >>> Options.from_json({"stake_cap": 5000})
    Options(stake_cap=5000, to_hell=False, counterfeit=False)
    >>> Options.from_json({"to_hel": True})
    Traceback (most recent call last):
    ...
    referee.errors.InvalidOption: Option 'to_hel' is invalid: unknown option (Pin-456 has stake_cap, to_hell, counterfeit).
    """

    stake_cap: int | None = None
    to_hell: bool = False
    counterfeit: bool = False

    NAMES: ClassVar[tuple[str, ...]] = ("stake_cap", "to_hell", "counterfeit")

    def __post_init__(self) -> None:
        cap = self.stake_cap
        if cap is not None and (type(cap) is not int or cap < NOTE or cap % NOTE):
            raise InvalidOption(
                "stake_cap",
                f"it must be null or a whole number of {NOTE}P notes, at least {NOTE}, not {cap!r}",
                f"nullか{NOTE}以上の{NOTE}の倍数にしてください（{cap!r}は使えません）",
            )
        for name in ("to_hell", "counterfeit"):
            if type(getattr(self, name)) is not bool:
                raise InvalidOption(name, "it must be true or false", "trueかfalseにしてください")

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "Options":
        if not isinstance(raw, Mapping):
            raise InvalidOption("options", "options must be a JSON object", "optionsはJSONオブジェクトにしてください")
        for name in raw:
            if name not in cls.NAMES:
                raise InvalidOption(
                    str(name),
                    "unknown option (Pin-456 has stake_cap, to_hell, counterfeit)",
                    "不明なオプションです（Pin-456はstake_cap・to_hell・counterfeit）",
                )
        return cls(**{name: raw[name] for name in cls.NAMES if name in raw})

    def to_json(self) -> JSON:
        return {"stake_cap": self.stake_cap, "to_hell": self.to_hell, "counterfeit": self.counterfeit}


def parse_options(raw: Mapping[str, Any]) -> Options:
    return Options.from_json(raw)


# --- Errors ----------------------------------------------------------------------------


class IllegalDeclare(RefereeError):
    """The parent declared no dice, or more dice than are unused."""

    code = "pin456_illegal_declare"
    templates = {
        "en": "{player} cannot declare {count} dice: {reason}.",
        "ja": "{player}は{count}個を宣言できません: {reason_ja}。",
    }

    def __init__(self, player: str, count: int, left: int) -> None:
        if count < 1:
            problem, reason, reason_ja = "too_few", "declare at least 1 die", "1個以上を宣言してください"
        else:
            problem = "too_many"
            reason = f"only {left} unused {'die is' if left == 1 else 'dice are'} left"
            reason_ja = f"未使用のサイコロは残り{left}個です"
        super().__init__(player=player, count=count, left=left, problem=problem, reason=reason, reason_ja=reason_ja)


class IllegalStake(RefereeError):
    """A stake below 1000P, not in whole notes, above the child's cash or above the cap.

    ``params["problem"]`` is ``below_minimum``, ``not_multiple``, ``above_cash`` or ``above_cap``.
    """

    code = "pin456_illegal_stake"
    templates = {
        "en": "{player} cannot stake {amount}P: {reason}.",
        "ja": "{player}は{amount}Pを場代にできません: {reason_ja}。",
    }
    REASONS: ClassVar[dict[str, tuple[str, str]]] = {
        "below_minimum": (f"the stake is at least {NOTE}P", f"場代は{NOTE}P以上です"),
        "not_multiple": (
            f"stakes are paid in {NOTE}P notes, so it must be a multiple of {NOTE}",
            f"場代は{NOTE}P札で払うので{NOTE}の倍数にしてください",
        ),
        "above_cash": ("they only have {cash}P", "所持金は{cash}Pしかありません"),
        "above_cap": ("the agreed stake cap is {cap}P", "取り決めた場代の上限は{cap}Pです"),
    }

    def __init__(self, player: str, amount: int, problem: str, cash: Money, cap: int | None) -> None:
        reason, reason_ja = (text.format(cash=cash.points, cap=cap) for text in self.REASONS[problem])
        super().__init__(
            player=player, amount=amount, problem=problem, cash=cash.points, cap=cap, reason=reason, reason_ja=reason_ja
        )


class IllegalGuess(RefereeError):
    """A guess that is no total the declared number of dice could have."""

    code = "pin456_illegal_guess"
    templates = {
        "en": "{player} cannot guess {guess}: {count} dice add up to between {low} and {high}.",
        "ja": "{player}の予想「{guess}」は無効です: {count}個のサイコロの合計は{low}〜{high}です。",
    }

    def __init__(self, player: str, guess: int, count: int) -> None:
        super().__init__(player=player, guess=guess, count=count, low=count, high=6 * count)


class IllegalAccusation(RefereeError):
    """An accusation the counterfeit rule does not allow now.

    ``params["problem"]``: ``counterfeit_off`` (the option is not in play),
    ``nothing_to_accuse`` (no payment is open to accusation) or ``not_receiver``.
    """

    code = "pin456_illegal_accusation"
    templates = {
        "en": "{player} cannot accuse: {reason}.",
        "ja": "{player}は告発できません: {reason_ja}。",
    }
    REASONS: ClassVar[dict[str, tuple[str, str]]] = {
        "counterfeit_off": (
            "accusations are only played with the counterfeit rule",
            "告発は偽札ルール（これは…悪魔的イカサマだっ!!）を採用したときだけです",
        ),
        "nothing_to_accuse": (
            "no payment is open to accusation now (accuse right after a payment, before the next declaration;"
            " a returned stake and the game's final payment cannot be accused)",
            "今告発できる支払いはありません（告発は支払いの直後、次の宣言の前に行います。"
            "戻ってきた場代とゲーム最後の支払いは告発できません）",
        ),
        "not_receiver": (
            "only {receiver}, who received the latest payment, can accuse",
            "告発できるのは直前の支払いを受け取った{receiver}だけです",
        ),
    }

    def __init__(self, player: str, problem: str, receiver: str | None = None) -> None:
        reason, reason_ja = (text.format(receiver=receiver) for text in self.REASONS[problem])
        super().__init__(player=player, problem=problem, receiver=receiver, reason=reason, reason_ja=reason_ja)


# --- Events ----------------------------------------------------------------------------


def _malformed(event: str, field: str, expected: str, expected_ja: str, value: Any) -> MalformedEvent:
    shown = reprlib.repr(value)
    return MalformedEvent(
        f"{event}.{field} must be {expected}, got {shown}",
        f"{event}の{field}は{expected_ja}である必要があります（{shown}）",
    )


def _check_player(event: str, player: Any) -> None:
    if not isinstance(player, str):
        raise _malformed(event, "player", "a player's name", "プレイヤー名", player)


def _check_int(event: str, field: str, value: Any) -> None:
    if type(value) is not int:
        raise _malformed(event, field, "a whole number", "整数", value)


@dataclass(frozen=True, slots=True)
class Declare:
    """The parent announces how many dice they set: ``{"type": "declare", "player": "A", "count": 2}``."""

    player: str
    count: int
    type: ClassVar[str] = "declare"

    def __post_init__(self) -> None:
        _check_player(self.type, self.player)
        _check_int(self.type, "count", self.count)

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "count": self.count}


@dataclass(frozen=True, slots=True)
class Stake:
    """The child's stake (points) and guess of the sum."""

    player: str
    amount: int
    guess: int
    type: ClassVar[str] = "stake"

    def __post_init__(self) -> None:
        _check_player(self.type, self.player)
        _check_int(self.type, "amount", self.amount)
        _check_int(self.type, "guess", self.guess)

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "amount": self.amount, "guess": self.guess}


@dataclass(frozen=True, slots=True)
class Reveal:
    """The declared dice as read: faces ``"1"``..``"6"``."""

    dice: tuple[str, ...]
    type: ClassVar[str] = "reveal"

    def __post_init__(self) -> None:
        if not isinstance(self.dice, tuple) or not all(isinstance(face, str) for face in self.dice):
            raise _malformed(self.type, "dice", "a list of faces", "目のリスト", self.dice)

    def to_json(self) -> JSON:
        return {"type": self.type, "dice": list(self.dice)}


@dataclass(frozen=True, slots=True)
class Accuse:
    """The receiver of the latest payment accuses the giver; ``fake``: a fake note was found."""

    player: str
    fake: bool
    type: ClassVar[str] = "accuse"

    def __post_init__(self) -> None:
        _check_player(self.type, self.player)
        if type(self.fake) is not bool:
            raise _malformed(self.type, "fake", "true or false", "trueかfalse", self.fake)

    def to_json(self) -> JSON:
        return {"type": self.type, "player": self.player, "fake": self.fake}


Event = Declare | Stake | Reveal | Accuse
_EVENT_FIELDS: dict[str, tuple[type, tuple[str, ...]]] = {
    "declare": (Declare, ("player", "count")),
    "stake": (Stake, ("player", "amount", "guess")),
    "reveal": (Reveal, ("dice",)),
    "accuse": (Accuse, ("player", "fake")),
}


def parse_event(raw: Any, players: Sequence[str]) -> Event:
    """A game-log event as a typed event; MalformedEvent or UnknownPlayer, never anything else.

    >>> parse_event({"type": "stake", "player": "B", "amount": 3000, "guess": 9}, ("A", "B"))
    Stake(player='B', amount=3000, guess=9)
    >>> parse_event({"type": "declare", "player": "A", "count": "2"}, ("A", "B"))
    Traceback (most recent call last):
    ...
    referee.errors.MalformedEvent: The event cannot be read: declare.count must be a whole number, got '2'.
    """
    if not isinstance(raw, Mapping):
        raise MalformedEvent("an event must be a JSON object", "イベントはJSONオブジェクトである必要があります")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _EVENT_FIELDS:
        raise MalformedEvent(
            f"unknown event type {reprlib.repr(kind)} (Pin-456 has declare, stake, reveal, accuse)",
            f"不明なイベント種別{reprlib.repr(kind)}です（Pin-456はdeclare・stake・reveal・accuse）",
        )
    cls, fields = _EVENT_FIELDS[kind]
    values: dict[str, Any] = {}
    for name in fields:
        if name not in raw:
            raise MalformedEvent(f"a {kind} needs {name!r}", f"{kind}には{name}が必要です")
        values[name] = raw[name]
    if kind == "reveal":
        if not isinstance(values["dice"], list):
            raise _malformed(kind, "dice", "a list of faces", "目のリスト", values["dice"])
        values["dice"] = tuple(values["dice"])
    event = cls(**values)
    if "player" in values and values["player"] not in players:
        raise UnknownPlayer(values["player"])
    return event


# --- State -----------------------------------------------------------------------------


class Phase(enum.Enum):
    DECLARE = "declare"  # the parent declares (and the latest payment may be accused)
    STAKE = "stake"  # the child stakes and guesses
    REVEAL = "reveal"  # waiting for the camera
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Transfer:
    """A payment between the players, by seat index."""

    giver: int
    receiver: int
    amount: Money


@dataclass(frozen=True, slots=True)
class Accusation:
    """``batch`` went back to ``giver``; with a fake found, ``paid`` is what the giver paid instead."""

    player: int
    giver: int
    fake: bool
    batch: Money
    paid: Money


@dataclass(frozen=True, slots=True)
class Round:
    """One declaration settled: ``used`` counts the dice per kind, ``payout`` is what the
    parent paid on top of the returned stake (less than owed when they went bankrupt)."""

    parent: int
    count: int
    stake: Money
    guess: int
    dice: tuple[str, ...]
    used: tuple[int, ...]
    total: int
    correct: bool
    payout: Money
    accusations: tuple[Accusation, ...] = ()


@dataclass(frozen=True, slots=True)
class State:
    """A position of Pin-456; build it with :func:`new_game` and :meth:`apply`."""

    players: tuple[str, str]
    options: Options
    dice: DiceSet
    cash: tuple[Money, Money]
    parent_turns: tuple[int, int]
    parent: int
    dice_left: tuple[int, ...]
    phase: Phase = Phase.DECLARE
    declared: int | None = None
    stake: Money | None = None
    guess: int | None = None
    accusable: Transfer | None = None
    rounds: tuple[Round, ...] = ()
    winner_index: int | None = None
    bankrupt: int | None = None

    # -- questions ----------------------------------------------------------------------

    @property
    def child(self) -> int:
        return 1 - self.parent

    def turn(self) -> str | None:
        """Who must act next (the parent declares, the child stakes); None otherwise."""
        if self.phase is Phase.DECLARE:
            return self.players[self.parent]
        if self.phase is Phase.STAKE:
            return self.players[self.child]
        return None

    def expects(self) -> str | None:
        return "reveal" if self.phase is Phase.REVEAL else None

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def winner(self) -> str | None:
        return None if self.winner_index is None else self.players[self.winner_index]

    def is_draw(self) -> bool:
        return self.phase is Phase.OVER and self.winner_index is None

    def money_in_play(self) -> Money:
        """Cash of both players plus the stake on the table (always 60000P)."""
        return self.cash[0] + self.cash[1] + (self.stake or ZERO)

    def stake_amounts(self) -> range:
        """The stakes (points) the child may put down now."""
        if self.phase is not Phase.STAKE:
            return range(0)
        top = self.cash[self.child].points
        if self.options.stake_cap is not None:
            top = min(top, self.options.stake_cap)
        return range(NOTE, top + 1, NOTE)

    def guesses(self) -> range:
        """The legal guesses for the declared dice: any total they could have."""
        if self.declared is None:
            return range(0)
        return range(self.declared, 6 * self.declared + 1)

    def feasible_guesses(self) -> tuple[int, ...]:
        """The guesses that can win: totals the unused dice can show."""
        if self.declared is None:
            return ()
        return self.dice.sums(self.declared, self.dice_left)

    def legal_actions(self) -> tuple[Event, ...]:
        """Every decision open now. Accusations come as ``fake`` true and false: the
        decision is to accuse, the flag records what the inspection found."""
        if self.phase is Phase.DECLARE:
            parent = self.players[self.parent]
            actions: list[Event] = [Declare(parent, count) for count in range(1, sum(self.dice_left) + 1)]
            if self.accusable is not None:
                receiver = self.players[self.accusable.receiver]
                actions += [Accuse(receiver, True), Accuse(receiver, False)]
            return tuple(actions)
        if self.phase is Phase.STAKE:
            child = self.players[self.child]
            return tuple(Stake(child, amount, guess) for amount in self.stake_amounts() for guess in self.guesses())
        return ()

    # -- moves --------------------------------------------------------------------------

    def apply(self, event: Event) -> "State":
        """The state after ``event``; a RefereeError (and no change) if it is not allowed."""
        if isinstance(event, Declare):
            return self._declare(event)
        if isinstance(event, Stake):
            return self._stake(event)
        if isinstance(event, Reveal):
            return self._reveal(event)
        if isinstance(event, Accuse):
            return self._accuse(event)
        raise MalformedEvent(
            f"{reprlib.repr(event)} is not a Pin-456 event", f"{reprlib.repr(event)}はPin-456のイベントではありません"
        )

    def _seat(self, player: str) -> int:
        if player not in self.players:
            raise UnknownPlayer(player)
        return self.players.index(player)

    def _declare(self, event: Declare) -> "State":
        if self.phase is Phase.OVER:
            raise GameOver("declare")
        seat = self._seat(event.player)
        if self.phase is Phase.STAKE:
            child = self.players[self.child]
            raise OutOfOrder("declare", f"{child} must stake and guess first", f"先に{child}が場代を出して予想します")
        if self.phase is Phase.REVEAL:
            raise OutOfOrder("declare", "the declared dice must be revealed first", "先に宣言したサイコロを公開します")
        if seat != self.parent:
            raise NotYourTurn(event.player, self.players[self.parent])
        left = sum(self.dice_left)
        if not 1 <= event.count <= left:
            raise IllegalDeclare(event.player, event.count, left)
        return replace(self, phase=Phase.STAKE, declared=event.count, accusable=None)

    def _stake(self, event: Stake) -> "State":
        if self.phase is Phase.OVER:
            raise GameOver("stake")
        seat = self._seat(event.player)
        if self.phase is Phase.DECLARE:
            parent = self.players[self.parent]
            raise OutOfOrder("stake", f"{parent} has not declared any dice yet", f"{parent}がまだ個数を宣言していません")
        if self.phase is Phase.REVEAL:
            raise OutOfOrder(
                "stake", "a stake is already on the table; reveal the dice first", "場代はもう出ています。先にサイコロを公開します"
            )
        if seat != self.child:
            raise NotYourTurn(event.player, self.players[self.child])
        cash, cap, amount = self.cash[seat], self.options.stake_cap, event.amount
        problem = (
            "below_minimum" if amount < NOTE
            else "not_multiple" if amount % NOTE
            else "above_cash" if amount > cash.points
            else "above_cap" if cap is not None and amount > cap
            else None
        )  # fmt: skip
        if problem is not None:
            raise IllegalStake(event.player, amount, problem, cash, cap)
        if event.guess not in self.guesses():
            raise IllegalGuess(event.player, event.guess, self.declared or 0)
        stake = Money(amount)
        return replace(self, phase=Phase.REVEAL, stake=stake, guess=event.guess, cash=_with(self.cash, seat, cash - stake))

    def _reveal(self, event: Reveal) -> "State":
        if self.phase is Phase.OVER:
            raise GameOver("reveal")
        if self.phase is not Phase.REVEAL:
            raise OutOfOrder("reveal", "no stake is waiting for the dice", "サイコロを待っている場代がありません")
        assert self.declared is not None and self.stake is not None and self.guess is not None
        faces, count = event.dice, self.declared
        if len(faces) != count:
            raise Misread(
                f"{count} dice were declared but {len(faces)} were read",
                f"宣言は{count}個ですが{len(faces)}個読み取りました",
                declared=count,
                read=len(faces),
            )
        for face in faces:
            if not self.dice.shows(face):
                shown = reprlib.repr(face)
                raise Misread(f"no die of the set shows {shown}", f"{shown}の目のサイコロはありません", face=face)
        used = self.dice.assign(faces, self.dice_left)
        if used is None:
            left = self.dice.describe(self.dice_left)
            raise Misread(
                f"the unused dice ({left}) cannot show {' '.join(faces)}",
                f"未使用のサイコロ（{left}）では{' '.join(faces)}は出せません",
                faces=list(faces),
            )
        total = sum(int(face) for face in faces)
        correct = total == self.guess
        parent, child, stake = self.parent, self.child, self.stake
        cash = list(self.cash)
        short = False
        if correct:
            cash[child] += stake
            owed = stake.times(MULTIPLIERS[count])
            paid = min(owed, cash[parent])
            short = paid < owed
            cash[parent] -= paid
            cash[child] += paid
            payment = Transfer(parent, child, paid)
        else:
            cash[parent] += stake
            paid = ZERO
            payment = Transfer(child, parent, stake)
        played = Round(parent, count, stake, self.guess, faces, used, total, correct, paid)
        state = replace(
            self,
            phase=Phase.DECLARE,
            cash=(cash[0], cash[1]),
            dice_left=tuple(left - n for left, n in zip(self.dice_left, used)),
            declared=None,
            stake=None,
            guess=None,
            accusable=payment if self.options.counterfeit else None,
            rounds=self.rounds + (played,),
        )
        if short:
            return state._bankrupt(parent)
        if not all(state.cash):
            return state._bankrupt(state.cash.index(ZERO))
        if not any(state.dice_left):
            return state._next_parent()
        return state

    def _accuse(self, event: Accuse) -> "State":
        if self.phase is Phase.OVER:
            raise GameOver("accuse")
        seat = self._seat(event.player)
        if not self.options.counterfeit:
            raise IllegalAccusation(event.player, "counterfeit_off")
        payment = self.accusable
        if payment is None:
            raise IllegalAccusation(event.player, "nothing_to_accuse")
        if seat != payment.receiver:
            raise IllegalAccusation(event.player, "not_receiver", receiver=self.players[payment.receiver])
        giver, receiver, batch = payment.giver, payment.receiver, payment.amount
        cash = list(self.cash)
        cash[receiver] -= batch
        cash[giver] += batch
        short = False
        if event.fake:
            owed = batch.times(2)
            paid = min(owed, cash[giver])
            short = paid < owed
            cash[giver] -= paid
            cash[receiver] += paid
            accusable: Transfer | None = Transfer(giver, receiver, paid)
        else:
            paid = ZERO
            accusable = None
        record = Accusation(seat, giver, event.fake, batch, paid)
        last = self.rounds[-1]
        state = replace(
            self,
            cash=(cash[0], cash[1]),
            accusable=accusable,
            rounds=self.rounds[:-1] + (replace(last, accusations=last.accusations + (record,)),),
        )
        if short:
            return state._bankrupt(giver)
        if not all(state.cash):
            return state._bankrupt(state.cash.index(ZERO))
        return state

    def _next_parent(self) -> "State":
        """All dice are used: roles swap, or the game ends after 5 parent turns each."""
        if not self.options.to_hell and min(self.parent_turns) >= PARENT_TURNS:
            richer = None if self.cash[0] == self.cash[1] else int(self.cash[1] > self.cash[0])
            return replace(self, phase=Phase.OVER, accusable=None, winner_index=richer)
        new = self.child
        return replace(
            self,
            parent=new,
            parent_turns=_with(self.parent_turns, new, self.parent_turns[new] + 1),
            dice_left=self.dice.full,
        )

    def _bankrupt(self, seat: int) -> "State":
        return replace(self, phase=Phase.OVER, accusable=None, winner_index=1 - seat, bankrupt=seat)

    # -- JSON ---------------------------------------------------------------------------

    def to_json(self) -> JSON:
        name = self.players
        return {
            "game": "pin456",
            "players": [
                {"name": name[i], "cash": self.cash[i].points, "parent_turns": self.parent_turns[i]} for i in (0, 1)
            ],
            "parent": name[self.parent],
            "dice_left": dict(zip(self.dice.names, self.dice_left)),
            "winner": self.winner(),
            "draw": self.is_draw(),
            "rounds": [_round_json(r, name, self.dice) for r in self.rounds],
            "phase": self.phase.value,
            "turn": self.turn(),
            "declared": self.declared,
            "stake": None
            if self.stake is None
            else {"player": name[self.child], "amount": self.stake.points, "guess": self.guess},
            "accusable": None
            if self.accusable is None
            else {
                "giver": name[self.accusable.giver],
                "receiver": name[self.accusable.receiver],
                "amount": self.accusable.amount.points,
            },
            "bankrupt": None if self.bankrupt is None else name[self.bankrupt],
            "options": self.options.to_json(),
        }


def _with(pair: tuple[Any, Any], index: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


def _round_json(played: Round, name: tuple[str, str], dice: DiceSet) -> JSON:
    return {
        "parent": name[played.parent],
        "child": name[1 - played.parent],
        "count": played.count,
        "stake": played.stake.points,
        "guess": played.guess,
        "dice": list(played.dice),
        "used": dict(zip(dice.names, played.used)),
        "sum": played.total,
        "correct": played.correct,
        "payout": played.payout.points,
        "accusations": [
            {
                "player": name[a.player],
                "giver": name[a.giver],
                "fake": a.fake,
                "batch": a.batch.points,
                "paid": a.paid.points,
            }
            for a in played.accusations
        ],
    }


def new_game(players: tuple[str, ...], options: Options | None = None, dice: DiceSet | None = None) -> State:
    """The first position: ``players[0]`` is parent with all dice, 30000P each.

    ``dice`` replaces the data-file set (for tests and table aids).
    """
    if len(players) != 2:
        raise InvalidOption("players", f"Pin-456 is for exactly 2 players, not {len(players)}", f"Pin-456は2人用です（{len(players)}人です）")
    dice = dice or DICE_SET
    return State(
        players=(players[0], players[1]),
        options=options or Options(),
        dice=dice,
        cash=(START_CASH, START_CASH),
        parent_turns=(1, 0),
        parent=0,
        dice_left=dice.full,
    )


RULES = Rules(
    name="pin456",
    min_players=2,
    max_players=2,
    parse_options=parse_options,
    new_game=new_game,
    parse_event=parse_event,
    die_faces=tuple((f, f) for f in sorted({f for kind in DICE_SET.kinds for f in kind.faces})),
)
