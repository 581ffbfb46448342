"""Liar's Dice (Playte / Gameology, 2024): the referee.

Sources: ``shared/rules/liars-dice.en.md``, ``liars-dice.ja.md`` and the
"Liar's Dice" section of ``shared/rules/DECISIONS.md``; the log events and the
state JSON follow ``shared/docs/game-log.md`` (section liars-dice).

Each player starts with 5 dice showing a ship's wheel (wild, in place of 1) or
2..6 pips. A bid "at least Q dice show F" sits on a space of the board track;
every later bid must move the prediction die forward, or keep its space and show
a higher face. A challenge is settled on the revealed dice of everyone still in
the game:

>>> state = RULES.new_game(("Wanjin", "Saewoon", "Mina"), Options())
>>> for raw in [{"type": "start", "opener": "Wanjin"},
...             {"type": "bid", "player": "Wanjin", "quantity": 5, "face": "3"},
...             {"type": "challenge", "player": "Saewoon"},
...             {"type": "reveal", "dice": ["3"] * 4 + ["wheel"] * 3 + ["2"] * 8}]:
...     state = state.apply(parse_event(raw, state.players))
>>> state.to_json()["rounds"][0]["actual"], state.to_json()["rounds"][0]["lost"]
(7, 2)
>>> state.turn_player, state.expects()
('Saewoon', None)

Board track (an assumption: edit it to match your board)
--------------------------------------------------------
The board's spaces are data, read once from ``referee/data/liars-dice.json``::

    {"about": "...", "track": [1, 2, "W1", 3, 4, "W2", 5, 6, "W3", ...]}

``track`` lists the spaces in board order, from the start of the track:

- a JSON integer ``N`` (N >= 1) is a numeric space: a bid of N dice of one face
  2..6 sits there, whatever the face;
- a string ``"W<n>"`` (n >= 1, e.g. ``"W3"``) is a red ship's-wheel space: a
  bid of n wheels sits there, wheel face up;
- the numbers strictly increase along the track, and so do the n of the wheel
  spaces; there is at least one numeric space and at most 200 spaces.

The default (numeric spaces 1..30 with a wheel space after every second one:
1, 2, W1, 3, 4, W2, ...) is the track of the ancestor game "Bluff". A game log
can carry its own board in the option ``"track"`` (the same list); the option
``"start_rule"`` (``"en"``, the default, or ``"ja"``) picks how the first opener
is rolled. A bid whose quantity has no space on the track cannot be made.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from importlib import resources
from typing import Any

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

__all__ = [
    "RULES",
    "Bid",
    "BidEvent",
    "Challenge",
    "DICE_PER_PLAYER",
    "Face",
    "IllegalBid",
    "Options",
    "Reveal",
    "RoundResult",
    "Space",
    "Start",
    "State",
    "Track",
    "WrongRollers",
    "bid_probability",
    "default_track",
    "legal_raises",
    "new_game",
    "parse_event",
    "parse_options",
]

DICE_PER_PLAYER = 5
START_RULES = ("en", "ja")
#: Dice each player rolls to pick the first opener, per start rule.
START_DICE = {"en": DICE_PER_PLAYER, "ja": 2}
MAX_TRACK_SPACES = 200


# --- Value types ------------------------------------------------------------------------


class Face(Enum):
    """A face of a Liar's Dice die: the wild ship's wheel (in place of 1) or 2..6 pips.

    >>> Face("wheel").rank, Face("4").rank
    (1, 4)
    >>> str(Face.SIX)
    '6'
    """

    WHEEL = "wheel"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"

    @property
    def rank(self) -> int:
        """Order of faces for "a higher face"; also the value a wheel counts under the ``ja`` start rule."""
        return _RANK[self]

    def __str__(self) -> str:
        return self.value


_RANK = {face: (1 if face is Face.WHEEL else int(face.value)) for face in Face}
_FACE_BY_TEXT = {face.value: face for face in Face}
_PIP_FACES = tuple(face for face in Face if face is not Face.WHEEL)


@dataclass(frozen=True, slots=True)
class Space:
    """One space of the board track: numeric (``3``) or a red wheel space (``W3``)."""

    quantity: int
    wheel: bool = False

    def __str__(self) -> str:
        return f"W{self.quantity}" if self.wheel else str(self.quantity)

    def to_json(self) -> int | str:
        return str(self) if self.wheel else self.quantity


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True, slots=True)
class Bid:
    """A prediction: at least ``quantity`` dice show ``face`` (wheels count for any face bid).

    >>> bid = Bid(5, Face.THREE)
    >>> str(bid), bid.describe("ja"), bid.space
    ('five 3s', '3のダイスが5個', Space(quantity=5, wheel=False))
    >>> Bid(4, Face.WHEEL).space
    Space(quantity=4, wheel=True)
    >>> bid.count([Face.THREE, Face.WHEEL, Face.TWO])
    2
    >>> Bid(1, Face.WHEEL).count([Face.THREE, Face.WHEEL, Face.TWO])
    1
    """

    quantity: int
    face: Face

    def __post_init__(self) -> None:
        if not isinstance(self.face, Face):
            raise TypeError(f"a bid's face must be a Face, got {self.face!r}")
        if isinstance(self.quantity, bool) or not isinstance(self.quantity, int) or self.quantity < 1:
            raise ValueError(f"a bid's quantity must be a whole number >= 1, got {self.quantity!r}")

    @property
    def space(self) -> Space:
        """Where the prediction die goes: wheel bids on a wheel space, face bids on a numeric one."""
        return Space(self.quantity, self.face is Face.WHEEL)

    def count(self, dice: Sequence[Face]) -> int:
        """How many of ``dice`` the bid counts: the face plus wheels, or wheels only for a wheel bid."""
        wheels = dice.count(Face.WHEEL)
        return wheels if self.face is Face.WHEEL else wheels + dice.count(self.face)

    def describe(self, lang: str = "en") -> str:
        if lang == "ja":
            return f"{'舵' if self.face is Face.WHEEL else self.face.value}のダイスが{self.quantity}個"
        count = _NUMBER_WORDS[self.quantity] if self.quantity < len(_NUMBER_WORDS) else str(self.quantity)
        if self.face is Face.WHEEL:
            return f"{count} wheel{'s' if self.quantity != 1 else ''}"
        return f"{count} {self.face.value}{'s' if self.quantity != 1 else ''}"

    def __str__(self) -> str:
        return self.describe("en")

    def to_json(self) -> JSON:
        return {"quantity": self.quantity, "face": self.face.value}


_WHEEL_SPACE = re.compile(r"W([1-9][0-9]{0,8})")


@dataclass(frozen=True)
class Track:
    """The board's spaces in order; bids are ordered by their space, then by face.

    >>> track = Track.from_json([1, 2, "W1", 3])
    >>> [str(bid) for bid in track.bids][:6]
    ['one 2', 'one 3', 'one 4', 'one 5', 'one 6', 'two 2s']
    >>> track.position(Bid(1, Face.WHEEL)), track.position(Bid(3, Face.SIX)), track.position(Bid(4, Face.TWO))
    (2, 3, None)
    >>> Track.from_json([1, 3, 2])
    Traceback (most recent call last):
    ...
    referee.errors.InvalidOption: Option 'track' is invalid: numeric spaces must strictly increase, but 2 comes after 3.
    """

    spaces: tuple[Space, ...]
    # Derived once per track, so that apply() and legal_actions() are dictionary look-ups and slices.
    _bids: tuple[Bid, ...] = field(init=False, repr=False, compare=False)
    _order: dict[Bid, int] = field(init=False, repr=False, compare=False)
    _positions: dict[Space, int] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spaces = self.spaces
        if not isinstance(spaces, tuple) or not all(isinstance(space, Space) for space in spaces):
            raise TypeError("Track.spaces must be a tuple of Space values (use Track.from_json for JSON)")
        if not spaces:
            raise InvalidOption("track", "the track needs at least one space", "トラックにはスペースが1つ以上必要です")
        if len(spaces) > MAX_TRACK_SPACES:
            raise InvalidOption(
                "track",
                f"a track has at most {MAX_TRACK_SPACES} spaces, got {len(spaces)}",
                f"トラックのスペースは最大{MAX_TRACK_SPACES}個です（{len(spaces)}個あります）",
            )
        last: dict[bool, Space] = {}
        for space in spaces:
            if isinstance(space.quantity, bool) or not isinstance(space.quantity, int) or space.quantity < 1:
                raise InvalidOption(
                    "track",
                    f"space quantities are whole numbers >= 1, got {space.quantity!r}",
                    "スペースの個数は1以上の整数です",
                )
            previous = last.get(space.wheel)
            if previous is not None and space.quantity <= previous.quantity:
                kind, kind_ja = (
                    ("wheel spaces", "舵のスペース") if space.wheel else ("numeric spaces", "数字のスペース")
                )
                raise InvalidOption(
                    "track",
                    f"{kind} must strictly increase, but {space} comes after {previous}",
                    f"{kind_ja}は増えていく順に並べます（{previous}の後に{space}があります）",
                )
            last[space.wheel] = space
        if False not in last:
            raise InvalidOption(
                "track", "the track needs at least one numeric space", "トラックには数字のスペースが1つ以上必要です"
            )
        bids: list[Bid] = []
        for space in spaces:
            faces = (Face.WHEEL,) if space.wheel else _PIP_FACES
            bids.extend(Bid(space.quantity, face) for face in faces)
        object.__setattr__(self, "_bids", tuple(bids))
        object.__setattr__(self, "_order", {bid: index for index, bid in enumerate(bids)})
        object.__setattr__(self, "_positions", {space: index for index, space in enumerate(spaces)})
        object.__setattr__(self, "_hash", hash(spaces))

    def __hash__(self) -> int:
        return self._hash

    @classmethod
    def from_json(cls, raw: Any) -> "Track":
        """Read a track from its JSON list; a bad list raises :class:`InvalidOption` naming the problem."""
        if not isinstance(raw, list):
            raise InvalidOption(
                "track",
                'the track must be a list of spaces such as [1, 2, "W1", 3]',
                'トラックは [1, 2, "W1", 3] のようなリストです',
            )
        if len(raw) > MAX_TRACK_SPACES:
            raise InvalidOption(
                "track",
                f"a track has at most {MAX_TRACK_SPACES} spaces, got {len(raw)}",
                f"トラックのスペースは最大{MAX_TRACK_SPACES}個です（{len(raw)}個あります）",
            )
        spaces = []
        for item in raw:
            if isinstance(item, int) and not isinstance(item, bool) and item >= 1:
                spaces.append(Space(item))
            elif isinstance(item, str) and (match := _WHEEL_SPACE.fullmatch(item)):
                spaces.append(Space(int(match.group(1)), wheel=True))
            else:
                raise InvalidOption(
                    "track",
                    f'{_shown(item)} is not a space: use a whole number >= 1 or "W<n>" for a wheel space',
                    f'{_shown(item)}はスペースではありません（1以上の整数、または舵のスペースは"W<n>"）',
                )
        return cls(tuple(spaces))

    def to_json(self) -> list[int | str]:
        return [space.to_json() for space in self.spaces]

    def __len__(self) -> int:
        return len(self.spaces)

    def __iter__(self) -> Iterator[Space]:
        return iter(self.spaces)

    @property
    def bids(self) -> tuple[Bid, ...]:
        """Every bid the board allows, lowest first (board order, then face)."""
        return self._bids

    def position(self, bid: Bid) -> int | None:
        """Index of the bid's space on the track, or None when the board has no such space."""
        return self._positions.get(bid.space)

    def order(self, bid: Bid) -> int | None:
        """Index of ``bid`` in :attr:`bids` (a raise must have a higher one), or None when off the board."""
        return self._order.get(bid)


def _shown(value: Any) -> str:
    """A short JSON-ish rendering of a bad value for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@functools.cache
def default_track() -> Track:
    """The track in ``referee/data/liars-dice.json`` (read once)."""
    text = resources.files("referee").joinpath("data/liars-dice.json").read_text(encoding="utf-8")
    return Track.from_json(json.loads(text)["track"])


@dataclass(frozen=True)
class Options:
    """Game options (log ``options``): ``start_rule`` "en" (default) or "ja", and the board ``track``."""

    start_rule: str = "en"
    track: Track = field(default_factory=default_track)

    def __post_init__(self) -> None:
        if not isinstance(self.start_rule, str) or self.start_rule not in START_RULES:
            shown = _shown(self.start_rule)
            raise InvalidOption(
                "start_rule", f'must be "en" or "ja", got {shown}', f'"en"か"ja"を指定します（{shown}）'
            )
        if not isinstance(self.track, Track):
            raise TypeError("Options.track must be a Track")

    def to_json(self) -> JSON:
        return {"start_rule": self.start_rule, "track": self.track.to_json()}


def parse_options(raw: Mapping[str, Any]) -> Options:
    """The log's ``options``; missing keys take the defaults of DECISIONS.md.

    >>> parse_options({}).start_rule, len(parse_options({}).track)
    ('en', 45)
    >>> parse_options({"start_rule": "ja", "track": [1, 2, "W1"]}).track.to_json()
    [1, 2, 'W1']
    >>> parse_options({"dice": 6})
    Traceback (most recent call last):
    ...
    referee.errors.InvalidOption: Option 'dice' is invalid: unknown option for liars-dice (its options are start_rule, track).
    """
    if not isinstance(raw, Mapping):
        raise InvalidOption("options", "options must be a JSON object", "optionsはJSONオブジェクトです")
    for name in raw:
        if name not in ("start_rule", "track"):
            raise InvalidOption(
                str(name),
                "unknown option for liars-dice (its options are start_rule, track)",
                "liars-diceにはないオプションです（使えるのは start_rule, track）",
            )
    track = Track.from_json(raw["track"]) if "track" in raw else default_track()
    return Options(start_rule=raw.get("start_rule", "en"), track=track)


# --- Errors -----------------------------------------------------------------------------


class IllegalBid(RefereeError):
    """A bid that the board or the raise rule does not allow; the message names the lowest legal bid."""

    code = "liars_dice_illegal_bid"
    templates = {
        "en": "A bid of {bid} is not legal: {reason}. {hint}",
        "ja": "「{bid_ja}」とは推測できません: {reason_ja}。{hint_ja}",
    }

    def __init__(self, bid: Bid, reason: str, reason_ja: str, minimum: Bid | None, player: str | None = None) -> None:
        if minimum is None:
            hint = "No higher bid is left on the board: challenge instead."
            hint_ja = "ボード上にこれより上の推測はありません。チャレンジしてください。"
        else:
            hint = f"The lowest legal bid now is {minimum}."
            hint_ja = f"今できる最小の推測は「{minimum.describe('ja')}」です。"
        super().__init__(
            bid=str(bid),
            bid_ja=bid.describe("ja"),
            reason=reason,
            reason_ja=reason_ja,
            hint=hint,
            hint_ja=hint_ja,
            minimum=None if minimum is None else minimum.to_json(),
            player=player,
        )


class WrongRollers(RefereeError):
    """A start ``rolls`` event that does not list exactly the players who must roll."""

    code = "liars_dice_wrong_rollers"
    templates = {
        "en": "The start roll must list exactly {expected}, but it lists {got}.",
        "ja": "スタートプレイヤーを決めるロールには{expected}のダイスだけが必要ですが、記録されているのは{got_ja}です。",
    }

    def __init__(self, expected: Sequence[str], got: Sequence[str]) -> None:
        super().__init__(
            expected=", ".join(expected),
            got=", ".join(got) or "nobody",
            got_ja="、".join(got) or "なし",
        )


# --- Events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Start:
    """Who opens the game: named (``opener``) or picked by the start rule from ``rolls``.

    >>> Start.roll({"A": ["wheel", "2"], "B": ["6", "6"]}).to_json()
    {'type': 'start', 'rolls': {'A': ['wheel', '2'], 'B': ['6', '6']}}
    """

    opener: str | None = None
    rolls: tuple[tuple[str, tuple[Face, ...]], ...] | None = None

    def __post_init__(self) -> None:
        if (self.opener is None) == (self.rolls is None):
            raise ValueError("a start event has either an opener or rolls")

    @classmethod
    def roll(cls, rolls: Mapping[str, Sequence[Face | str]]) -> "Start":
        return cls(
            rolls=tuple(
                (name, tuple(f if isinstance(f, Face) else Face(f) for f in faces)) for name, faces in rolls.items()
            )
        )

    def to_json(self) -> JSON:
        if self.rolls is None:
            return {"type": "start", "opener": self.opener}
        return {"type": "start", "rolls": {name: [face.value for face in faces] for name, faces in self.rolls}}


@dataclass(frozen=True, slots=True)
class BidEvent:
    player: str
    bid: Bid

    def to_json(self) -> JSON:
        return {"type": "bid", "player": self.player, **self.bid.to_json()}


@dataclass(frozen=True, slots=True)
class Challenge:
    player: str

    def to_json(self) -> JSON:
        return {"type": "challenge", "player": self.player}


@dataclass(frozen=True, slots=True)
class Reveal:
    """Every die in play, as read after a challenge (order does not matter)."""

    dice: tuple[Face, ...]

    def to_json(self) -> JSON:
        return {"type": "reveal", "dice": [face.value for face in self.dice]}


Event = Start | BidEvent | Challenge | Reveal
_EVENT_TYPES = {Start: "start", BidEvent: "bid", Challenge: "challenge", Reveal: "reveal"}


def _field(raw: Mapping[str, Any], kind: str, name: str) -> Any:
    if name not in raw:
        raise MalformedEvent(f"a {kind} event needs a {name!r} field", f"{kind}イベントには「{name}」が必要です")
    return raw[name]


def _player(raw: Mapping[str, Any], kind: str, players: Sequence[str], name: str = "player") -> str:
    value = _field(raw, kind, name)
    if not isinstance(value, str):
        raise MalformedEvent(f"{name!r} must be a player's name, got {_shown(value)}", f"「{name}」はプレイヤー名です")
    if value not in players:
        raise UnknownPlayer(value)
    return value


def _read_dice(value: Any, what: str, what_ja: str) -> tuple[Face, ...]:
    """Faces read by the camera: a face a Liar's die cannot show is a misread, not a malformed event."""
    if not isinstance(value, list):
        raise MalformedEvent(f"{what} must be a list of faces, got {_shown(value)}", f"{what_ja}は目のリストです")
    faces = []
    for item in value:
        if not isinstance(item, str):
            raise MalformedEvent(
                f'{what} must hold face names such as "3" or "wheel", got {_shown(item)}',
                f'{what_ja}には"3"や"wheel"のような目を書きます',
            )
        face = _FACE_BY_TEXT.get(item)
        if face is None:
            if item == "1":
                raise Misread(
                    'a die read as "1", but Liar\'s Dice dice show a wheel instead of 1',
                    "「1」と読み取られましたが、ライアーズダイスのダイスに1の目はありません（舵の目です）",
                )
            raise Misread(
                f"{_shown(item)} is not a face of a Liar's Dice die (wheel, 2-6)",
                f"{_shown(item)}はライアーズダイスのダイスの目ではありません（舵、2〜6）",
            )
        faces.append(face)
    return tuple(faces)


def parse_event(raw: Mapping[str, Any], players: Sequence[str]) -> Event:
    """One log event, checked for shape; whether it may happen now is :meth:`State.apply`'s job.

    >>> parse_event({"type": "bid", "player": "A", "quantity": 4, "face": "wheel"}, ("A", "B"))
    BidEvent(player='A', bid=Bid(quantity=4, face=<Face.WHEEL: 'wheel'>))
    >>> parse_event({"type": "bid", "player": "C", "quantity": 4, "face": "2"}, ("A", "B"))
    Traceback (most recent call last):
    ...
    referee.errors.UnknownPlayer: 'C' is not a player at this table.
    """
    if not isinstance(raw, Mapping):
        raise MalformedEvent(f"an event must be a JSON object, got {_shown(raw)}", "イベントはJSONオブジェクトです")
    kind = raw.get("type")
    if kind == "bid":
        player = _player(raw, kind, players)
        quantity = _field(raw, kind, "quantity")
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            raise MalformedEvent(
                f"a bid's quantity must be a whole number >= 1, got {_shown(quantity)}", "推測の個数は1以上の整数です"
            )
        face_text = _field(raw, kind, "face")
        face = _FACE_BY_TEXT.get(face_text) if isinstance(face_text, str) else None
        if face is None:
            raise MalformedEvent(
                f'a bid\'s face must be "2".."6" or "wheel", got {_shown(face_text)}', '推測の目は"2"〜"6"か"wheel"です'
            )
        return BidEvent(player, Bid(quantity, face))
    if kind == "challenge":
        return Challenge(_player(raw, kind, players))
    if kind == "reveal":
        return Reveal(_read_dice(_field(raw, kind, "dice"), "the revealed dice", "公開されたダイス"))
    if kind == "start":
        if ("opener" in raw) == ("rolls" in raw):
            raise MalformedEvent(
                'a start event needs either "opener" or "rolls" (not both)',
                "startイベントには「opener」か「rolls」のどちらか一方が必要です",
            )
        if "opener" in raw:
            return Start(opener=_player(raw, kind, players, "opener"))
        rolls = raw["rolls"]
        if not isinstance(rolls, Mapping):
            raise MalformedEvent(
                f"start rolls must map each player to the faces rolled, got {_shown(rolls)}",
                "rollsはプレイヤーごとの目の対応表です",
            )
        parsed = []
        for name, faces in rolls.items():
            if not isinstance(name, str):
                raise MalformedEvent(
                    f"start rolls are keyed by player name, got {_shown(name)}", "rollsのキーはプレイヤー名です"
                )
            if name not in players:
                raise UnknownPlayer(name)
            parsed.append((name, _read_dice(faces, f"{name}'s start roll", f"{name}のロール")))
        return Start(rolls=tuple(parsed))
    raise MalformedEvent(
        f"unknown event type {_shown(kind)} (liars-dice events are start, bid, challenge, reveal)",
        f"不明なイベント種別 {_shown(kind)} です（start, bid, challenge, reveal のいずれか）",
    )


# --- Table aids -------------------------------------------------------------------------


def legal_raises(bid: Bid | None, track: Track) -> tuple[Bid, ...]:
    """Every bid that may follow ``bid`` (every bid on the board when None), lowest first.

    A raise moves the prediction die forward at least one space (any face on a
    numeric space, a wheel on a wheel space), or keeps the space and shows a
    higher face; from a wheel space it can only advance.

    >>> track = Track.from_json([1, 2, "W1", 3])
    >>> [str(b) for b in legal_raises(Bid(2, Face.FIVE), track)]
    ['two 6s', 'one wheel', 'three 2s', 'three 3s', 'three 4s', 'three 5s', 'three 6s']
    >>> [str(b) for b in legal_raises(Bid(1, Face.WHEEL), track)][:2]
    ['three 2s', 'three 3s']
    >>> legal_raises(Bid(3, Face.SIX), track)
    ()
    """
    if bid is None:
        return track.bids
    order = track.order(bid)
    if order is None:
        raise _off_board(bid, track, None)
    return track.bids[order + 1 :]


def _off_board(bid: Bid, track: Track, standing: Bid | None, player: str | None = None) -> IllegalBid:
    kind, kind_ja = ("wheel space", "舵のスペース") if bid.face is Face.WHEEL else ("space", "スペース")
    minimum = track.bids[0] if standing is None else _minimum_raise(standing, track)
    return IllegalBid(
        bid, f"the board has no {kind} {bid.space}", f"ボードに{kind_ja}{bid.space}がありません", minimum, player
    )


def _minimum_raise(bid: Bid, track: Track) -> Bid | None:
    order = track.order(bid)
    if order is None or order + 1 >= len(track.bids):
        return None
    return track.bids[order + 1]


def bid_probability(bid: Bid, own_dice: Sequence[Face], unseen: int) -> Fraction:
    """Exact chance that ``bid`` is true, knowing one's own dice and with ``unseen`` dice hidden.

    Each hidden die shows a wheel or 2..6 with probability 1/6 each; a face bid is
    met by that face or a wheel (1/3 a die), a wheel bid by wheels only (1/6).

    >>> bid_probability(Bid(2, Face.THREE), [Face.THREE], 1)
    Fraction(1, 3)
    >>> bid_probability(Bid(1, Face.WHEEL), [], 2)
    Fraction(11, 36)
    >>> bid_probability(Bid(3, Face.FIVE), [Face.FIVE, Face.WHEEL, Face.FIVE], 10)
    Fraction(1, 1)
    >>> bid_probability(Bid(4, Face.SIX), [Face.TWO], 2)
    Fraction(0, 1)
    """
    if not isinstance(bid, Bid):
        raise TypeError(f"bid must be a Bid, got {bid!r}")
    if any(not isinstance(face, Face) for face in own_dice):
        raise TypeError("own_dice must hold Face values")
    if isinstance(unseen, bool) or not isinstance(unseen, int) or unseen < 0:
        raise ValueError(f"unseen must be a whole number >= 0, got {unseen!r}")
    need = bid.quantity - bid.count(list(own_dice))
    if need <= 0:
        return Fraction(1)
    if need > unseen:
        return Fraction(0)
    hits = 1 if bid.face is Face.WHEEL else 2  # faces out of 6 that meet the bid
    favourable = sum(math.comb(unseen, k) * hits**k * (6 - hits) ** (unseen - k) for k in range(need, unseen + 1))
    return Fraction(favourable, 6**unseen)


# --- State ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A settled challenge."""

    bid: Bid
    bidder: str
    challenger: str
    actual: int
    loser: str
    lost: int
    eliminated: bool

    def to_json(self) -> JSON:
        return {
            "bid": {"player": self.bidder, **self.bid.to_json()},
            "challenger": self.challenger,
            "actual": self.actual,
            "loser": self.loser,
            "lost": self.lost,
            "eliminated": self.eliminated,
        }


@functools.lru_cache(maxsize=256)
def _bid_events(track: Track, player: str) -> tuple[BidEvent, ...]:
    return tuple(BidEvent(player, bid) for bid in track.bids)


@dataclass(frozen=True, slots=True)
class State:
    """A Liar's Dice position. Immutable: :meth:`apply` returns the next state.

    Seats are indices into ``players`` (clockwise). ``turn`` is the seat to act,
    None before the start, between a challenge and its reveal, and at the end.
    ``start_tie`` holds the seats that must reroll for the first opener.
    """

    players: tuple[str, ...]
    options: Options
    dice: tuple[int, ...]
    opened: bool = False
    start_tie: tuple[int, ...] = ()
    turn: int | None = None
    bid: Bid | None = None
    bidder: int | None = None
    challenger: int | None = None
    rounds: tuple[RoundResult, ...] = ()

    # -- queries --

    @property
    def turn_player(self) -> str | None:
        return None if self.turn is None else self.players[self.turn]

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice)

    def is_terminal(self) -> bool:
        return self.opened and self.dice.count(0) >= len(self.dice) - 1

    def winner(self) -> str | None:
        if not self.is_terminal():
            return None
        return next(name for name, held in zip(self.players, self.dice) if held)

    def expects(self) -> str | None:
        if self.is_terminal():
            return None
        if not self.opened:
            return "start"
        return "reveal" if self.challenger is not None else None

    def legal_actions(self) -> tuple[BidEvent | Challenge, ...]:
        """Every bid the player to act may make, then the challenge when a bid stands."""
        if self.turn is None:
            return ()
        player = self.players[self.turn]
        events = _bid_events(self.options.track, player)
        if self.bid is None:
            return events
        order = self.options.track.order(self.bid)
        assert order is not None  # apply() only lets on-board bids stand
        return events[order + 1 :] + (Challenge(player),)

    def to_json(self) -> JSON:
        return {
            "game": "liars-dice",
            "players": [
                {"name": name, "dice": held, "eliminated": held == 0} for name, held in zip(self.players, self.dice)
            ],
            "turn": self.turn_player,
            "bid": None if self.bid is None else {"player": self.players[self.bidder], **self.bid.to_json()},  # type: ignore[index]
            "winner": self.winner(),
            "rounds": [result.to_json() for result in self.rounds],
            "expects": self.expects(),
            "challenger": None if self.challenger is None else self.players[self.challenger],
            "start_tie": [self.players[seat] for seat in self.start_tie] or None,
            "dice_in_play": self.dice_in_play,
            "start_rule": self.options.start_rule,
        }

    # -- transitions --

    def apply(self, event: Event) -> "State":
        kind = _EVENT_TYPES.get(type(event))
        if kind is None:
            raise MalformedEvent(f"{_shown(event)} is not a liars-dice event", "liars-diceのイベントではありません")
        if self.is_terminal():
            raise GameOver(kind)
        if isinstance(event, BidEvent):
            return self._bid(event)
        if isinstance(event, Challenge):
            return self._challenge(event)
        if isinstance(event, Reveal):
            return self._reveal(event)
        return self._start(event)  # type: ignore[arg-type]

    def _seat(self, name: str) -> int:
        try:
            return self.players.index(name)
        except ValueError:
            raise UnknownPlayer(name) from None

    def _next_live(self, seat: int, dice: tuple[int, ...]) -> int:
        n = len(dice)
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if dice[candidate]:
                return candidate
        raise AssertionError("no player has dice left")

    def _names(self, seats: Sequence[int]) -> list[str]:
        return [self.players[seat] for seat in seats]

    def _not_open(self, kind: str) -> OutOfOrder:
        if self.start_tie:
            names = ", ".join(self._names(self.start_tie))
            return OutOfOrder(
                kind,
                f"the start roll is tied between {names}; they reroll first (another start event with their rolls)",
                f"スタートプレイヤーを決めるロールが{names}で同点です。先に振り直してください（振り直しのstartイベント）",
            )
        return OutOfOrder(
            kind,
            "the game has not started; a start event must name or roll for the first opener",
            "ゲームが始まっていません。先にstartイベントでスタートプレイヤーを決めてください",
        )

    def _waiting_for_reveal(self, kind: str) -> OutOfOrder:
        return OutOfOrder(
            kind,
            "a challenge is waiting for the dice to be revealed",
            "チャレンジの後、ダイスの公開を待っています",
        )

    def _start(self, event: Start) -> "State":
        if self.opened:
            raise OutOfOrder("start", "the game has already started", "ゲームはすでに始まっています")
        if event.opener is not None:
            seat = self._seat(event.opener)
            if self.start_tie and seat not in self.start_tie:
                names = ", ".join(self._names(self.start_tie))
                raise OutOfOrder(
                    "start",
                    f"the start roll is tied between {names}, so the opener must be one of them",
                    f"スタートプレイヤーのロールは{names}で同点なので、その中から選びます",
                )
            return replace(self, opened=True, start_tie=(), turn=seat)
        assert event.rolls is not None
        rollers = self.start_tie or tuple(range(len(self.players)))
        expected = self._names(rollers)
        got = [name for name, _ in event.rolls]
        if sorted(got) != sorted(expected):
            raise WrongRollers(expected, got)
        count = START_DICE[self.options.start_rule]
        scores: dict[int, tuple[int, int]] = {}
        for name, faces in event.rolls:
            if len(faces) != count:
                raise Misread(
                    f"{name}'s start roll has {len(faces)} dice, but the {self.options.start_rule} start rule rolls {count} each",
                    f"{name}のロールのダイスは{len(faces)}個ですが、{self.options.start_rule}ルールでは各自{count}個振ります",
                )
            scores[self._seat(name)] = _start_score(faces, self.options.start_rule)
        best = max(scores.values())
        leaders = tuple(seat for seat in rollers if scores[seat] == best)
        if len(leaders) > 1:
            return replace(self, start_tie=leaders)
        return replace(self, opened=True, start_tie=(), turn=leaders[0])

    def _bid(self, event: BidEvent) -> "State":
        if not self.opened:
            raise self._not_open("bid")
        if self.challenger is not None:
            raise self._waiting_for_reveal("bid")
        seat = self._seat(event.player)
        if seat != self.turn:
            raise NotYourTurn(event.player, self.turn_player)
        track = self.options.track
        bid = event.bid
        order = track.order(bid)
        if order is None:
            raise _off_board(bid, track, self.bid, event.player)
        if self.bid is not None:
            standing = self.bid
            if order <= track.order(standing):  # type: ignore[operator]
                raise IllegalBid(
                    bid, *_why_not_higher(bid, standing, track), _minimum_raise(standing, track), event.player
                )
        return replace(self, bid=bid, bidder=seat, turn=self._next_live(seat, self.dice))

    def _challenge(self, event: Challenge) -> "State":
        if not self.opened:
            raise self._not_open("challenge")
        if self.challenger is not None:
            raise self._waiting_for_reveal("challenge")
        seat = self._seat(event.player)
        if self.bid is None:
            raise OutOfOrder(
                "challenge",
                f"there is no bid to challenge yet; {self.turn_player} opens the round with a bid",
                f"チャレンジする推測がまだありません。{self.turn_player}が最初に推測します",
            )
        if seat != self.turn:
            raise NotYourTurn(event.player, self.turn_player)
        return replace(self, challenger=seat, turn=None)

    def _reveal(self, event: Reveal) -> "State":
        if self.challenger is None:
            if not self.opened:
                raise self._not_open("reveal")
            raise OutOfOrder(
                "reveal", "dice are revealed only after a challenge", "ダイスを公開するのはチャレンジの後だけです"
            )
        in_play = self.dice_in_play
        if len(event.dice) != in_play:
            raise Misread(
                f"{len(event.dice)} dice were read but {in_play} are in play",
                f"{len(event.dice)}個のダイスが読み取られましたが、場には{in_play}個あります",
                read=len(event.dice),
                in_play=in_play,
            )
        bid, bidder, challenger = self.bid, self.bidder, self.challenger
        assert bid is not None and bidder is not None
        actual = bid.count(event.dice)
        if actual < bid.quantity:
            loser, penalty = bidder, bid.quantity - actual
        elif actual > bid.quantity:
            loser, penalty = challenger, actual - bid.quantity
        else:
            loser, penalty = challenger, 1
        lost = min(penalty, self.dice[loser])
        dice = self.dice[:loser] + (self.dice[loser] - lost,) + self.dice[loser + 1 :]
        result = RoundResult(
            bid=bid,
            bidder=self.players[bidder],
            challenger=self.players[challenger],
            actual=actual,
            loser=self.players[loser],
            lost=lost,
            eliminated=dice[loser] == 0,
        )
        if dice.count(0) >= len(dice) - 1:
            opener = None
        else:
            opener = challenger if dice[challenger] else self._next_live(challenger, dice)
        return replace(
            self, dice=dice, turn=opener, bid=None, bidder=None, challenger=None, rounds=self.rounds + (result,)
        )


def _start_score(faces: Sequence[Face], rule: str) -> tuple[int, int]:
    """Higher is better. en: most wheels, then the total of the other dice; ja: sum, a wheel counting 1."""
    if rule == "en":
        wheels = faces.count(Face.WHEEL)
        return (wheels, sum(face.rank for face in faces if face is not Face.WHEEL))
    return (sum(face.rank for face in faces), 0)


def _why_not_higher(bid: Bid, standing: Bid, track: Track) -> tuple[str, str]:
    here, there = track.position(bid), track.position(standing)
    assert here is not None and there is not None
    if here < there:
        return (
            f"it moves the prediction die back from space {standing.space} to space {bid.space}",
            f"推測ダイスをスペース{standing.space}からスペース{bid.space}へ戻すことになります",
        )
    if standing.face is Face.WHEEL:
        return (
            f"the standing bid ({standing}) is on a wheel space, from which the die can only advance",
            f"現在の推測（{standing.describe('ja')}）は舵のスペースにあるので、前に進めることしかできません",
        )
    return (
        f"on the same space the face must be higher than the standing bid's {standing.face}",
        f"同じスペースでは現在の推測の目（{standing.face}）より大きい目にする必要があります",
    )


def new_game(players: Sequence[str], options: Options) -> State:
    """The state before the start event: everyone holds 5 dice."""
    players = tuple(players)
    if not RULES.min_players <= len(players) <= RULES.max_players:
        raise InvalidOption(
            "players",
            f"liars-dice needs {RULES.min_players}-{RULES.max_players} players, got {len(players)}",
            f"liars-diceは{RULES.min_players}〜{RULES.max_players}人で遊びます（{len(players)}人です）",
        )
    return State(players=players, options=options, dice=(DICE_PER_PLAYER,) * len(players))


RULES = Rules(
    name="liars-dice",
    min_players=2,
    max_players=6,
    parse_options=parse_options,
    new_game=new_game,  # type: ignore[arg-type]
    parse_event=parse_event,
    # Tables that play with ordinary dice: the plain 1 is the wild face the wheel replaces.
    die_faces=(("1", Face.WHEEL.value), *((f.value, f.value) for f in Face)),
)
