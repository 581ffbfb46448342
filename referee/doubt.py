"""Doubt (ネ・ベリシ): count the cards, check the reveals, name the loser.

The referee never sees a hand. It knows the deck in use, the deal (so every
player's card count), every play (count and the round's declared rank), every
face-up discard of four of a kind and every card shown at a reveal. From those
it keeps only what is certain: how many cards each player holds, how many lie
in the pile, which ranks are gone, and for every card the places it may be in
(a hand, the pile, the card set aside, the discards). That is enough to refuse
a reading the camera cannot have seen (a card that was discarded, or that is
known to sit in someone else's hand) and a discard nobody can lay.

>>> state = RULES.new_game(("Wanjin", "Saewoon", "Mina"), Options())
>>> state = state.apply(Deal("Mina"))
>>> state.cards_in_play()
{'Wanjin': 17, 'Saewoon': 17, 'Mina': 17}
>>> state.turn
'Wanjin'
>>> state = state.apply(Play("Wanjin", 1, Rank.ACE))
>>> state = state.apply(Challenge("Saewoon"))
>>> state.expects()
'reveal'
>>> state = state.apply(Reveal((Card.parse("8H"),)))
>>> state.rounds[-1].liar, state.rounds[-1].taker, state.turn
(True, 'Wanjin', 'Saewoon')

Rules as refereed (rules/doubt.ja.md and rules/DECISIONS.md, "Doubt"):

- 2-3 players use 36 cards (A, 6-K), 3-5 players use 52; with 3 players the
  ``deck`` option chooses (default 52). One card is set aside unseen, the
  rest are dealt one by one clockwise from the dealer's left.
- The dealer's left opens. The opener plays 1-3 cards and declares a rank of
  the deck in use; later plays of the round repeat it. The player whose turn
  it is plays 1-3 cards or challenges the immediately previous play.
- Any revealed card off the round's rank is a lie: the liar takes the pile and
  the challenger opens. Otherwise the challenger takes the pile and the next
  player after the challenger opens.
- A hand emptied by a play is finished once that play can no longer be
  challenged; a hand emptied by a discard is finished at once. The last player
  not finished loses (so of the last two to empty together, the later loses).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
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

__all__ = [
    "RULES",
    "Card",
    "Challenge",
    "ChallengeOwnPlay",
    "Deal",
    "Discard",
    "DiscardImpossible",
    "DiscardNeedsFourCards",
    "IllegalChallenge",
    "IllegalDiscard",
    "IllegalPlay",
    "InvalidCard",
    "InvalidRank",
    "NotEnoughCards",
    "NothingToChallenge",
    "Options",
    "Play",
    "PlayCountOutOfRange",
    "Rank",
    "RankAlreadyDiscarded",
    "RankAlreadySet",
    "RankMissing",
    "RankNotInDeck",
    "Reveal",
    "RevealSpec",
    "RoundResult",
    "State",
    "Suit",
    "deal_counts",
    "deck_cards",
    "deck_for",
    "deck_ranks",
    "new_game",
    "parse_event",
    "parse_options",
]

DECKS = (36, 52)
SET_ASIDE = 1
MAX_PLAY = 3


# --- Errors --------------------------------------------------------------------------


class InvalidRank(MalformedEvent):
    """A rank that is not written ``A``, ``2``..``10``, ``J``, ``Q`` or ``K``."""

    code = "doubt_invalid_rank"
    templates = {
        "en": "{text!r} is not a card rank (ranks are A, 2-10, J, Q and K).",
        "ja": "「{text}」はカードの数字として読めません（A、2〜10、J、Q、Kのどれかです）。",
    }

    def __init__(self, text: object) -> None:
        RefereeError.__init__(self, text=text)


class InvalidCard(MalformedEvent):
    """A card that is not written rank then suit, such as ``10H`` or ``QS``."""

    code = "doubt_invalid_card"
    templates = {
        "en": "{text!r} is not a card (write the rank A, 2-10, J, Q or K, then the suit S, H, D or C, e.g. 10H or QS).",
        "ja": "「{text}」はカードとして読めません（数字A・2〜10・J・Q・Kのあとにスート S・H・D・C。例: 10H、QS）。",
    }

    def __init__(self, text: object) -> None:
        RefereeError.__init__(self, text=text)


class RankNotInDeck(RefereeError):
    """A declared or discarded rank the deck in use does not have (a 5 in the 36-card deck)."""

    code = "doubt_rank_not_in_deck"
    templates = {
        "en": "There is no {rank} in the {deck}-card deck (its ranks are {ranks}).",
        "ja": "{deck}枚のデッキに{rank}はありません（使う数字: {ranks}）。",
    }

    def __init__(self, rank: "Rank", deck: int) -> None:
        super().__init__(rank=str(rank), deck=deck, ranks=" ".join(str(r) for r in deck_ranks(deck)))


class IllegalPlay(RefereeError):
    """Base of every refused play; each reason is its own subclass."""

    code = "doubt_illegal_play"
    templates = {"en": "That play is not allowed.", "ja": "そのカードの出し方はできません。"}


class PlayCountOutOfRange(IllegalPlay):
    code = "doubt_play_count"
    templates = {
        "en": "{player} must play 1 to 3 cards, not {count}.",
        "ja": "{player}が出せるのは1〜3枚です（{count}枚は出せません）。",
    }

    def __init__(self, player: str, count: int) -> None:
        RefereeError.__init__(self, player=player, count=count)


class NotEnoughCards(IllegalPlay):
    code = "doubt_not_enough_cards"
    templates = {
        "en": "{player} holds only {held} card(s) and cannot play {count}.",
        "ja": "{player}の手札は{held}枚なので、{count}枚は出せません。",
    }

    def __init__(self, player: str, held: int, count: int) -> None:
        RefereeError.__init__(self, player=player, held=held, count=count)


class RankMissing(IllegalPlay):
    code = "doubt_rank_missing"
    templates = {
        "en": "{player} opens the round and must declare a rank.",
        "ja": "{player}はラウンドの最初に出す人なので、数字を宣言してください。",
    }

    def __init__(self, player: str) -> None:
        RefereeError.__init__(self, player=player)


class RankAlreadySet(IllegalPlay):
    code = "doubt_rank_already_set"
    templates = {
        "en": "This round's rank is already {round_rank}; only the opening play declares a rank "
        "({player} named {rank}).",
        "ja": "このラウンドの数字はすでに{round_rank}です。数字を宣言するのは最初に出す人だけです（{player}が{rank}と宣言しました）。",
    }

    def __init__(self, player: str, rank: "Rank", round_rank: "Rank") -> None:
        RefereeError.__init__(self, player=player, rank=str(rank), round_rank=str(round_rank))


class IllegalChallenge(RefereeError):
    """Base of every refused challenge (ネ・ベリシ)."""

    code = "doubt_illegal_challenge"
    templates = {"en": "That challenge is not allowed.", "ja": "その指摘はできません。"}


class NothingToChallenge(IllegalChallenge):
    code = "doubt_nothing_to_challenge"
    templates = {
        "en": "{player} cannot challenge: {reason}.",
        "ja": "{player}は指摘できません: {reason_ja}。",
    }

    def __init__(self, player: str, reason: str, reason_ja: str) -> None:
        RefereeError.__init__(self, player=player, reason=reason, reason_ja=reason_ja)


class ChallengeOwnPlay(IllegalChallenge):
    code = "doubt_challenge_own_play"
    templates = {
        "en": "{player} cannot challenge their own play.",
        "ja": "{player}は自分が出したカードを指摘できません。",
    }

    def __init__(self, player: str) -> None:
        RefereeError.__init__(self, player=player)


class IllegalDiscard(RefereeError):
    """Base of every refused discard of four of a kind."""

    code = "doubt_illegal_discard"
    templates = {"en": "That discard is not allowed.", "ja": "その捨て札はできません。"}


class DiscardNeedsFourCards(IllegalDiscard):
    code = "doubt_discard_too_few"
    templates = {
        "en": "{player} holds {held} card(s); a discard is four cards of one rank.",
        "ja": "{player}の手札は{held}枚です。捨てられるのは同じ数字の4枚です。",
    }

    def __init__(self, player: str, held: int) -> None:
        RefereeError.__init__(self, player=player, held=held)


class RankAlreadyDiscarded(IllegalDiscard):
    code = "doubt_rank_discarded"
    templates = {
        "en": "The four {rank}s have already been discarded.",
        "ja": "{rank}の4枚はすでに捨てられています。",
    }

    def __init__(self, rank: "Rank") -> None:
        RefereeError.__init__(self, rank=str(rank))


class DiscardImpossible(IllegalDiscard):
    code = "doubt_discard_impossible"
    templates = {
        "en": "{player} cannot hold all four {rank}s: {card} can only be {where}.",
        "ja": "{player}が{rank}を4枚持っているはずがありません: {card}は{where_ja}にしかありえません。",
    }

    def __init__(self, player: str, rank: "Rank", card: "Card", where: str, where_ja: str) -> None:
        RefereeError.__init__(self, player=player, rank=str(rank), card=str(card), where=where, where_ja=where_ja)


# --- Cards ---------------------------------------------------------------------------


class Rank(enum.Enum):
    """A card rank; its value is how the log writes it.

    >>> Rank.parse("10"), str(Rank.QUEEN)
    (<Rank.TEN: '10'>, 'Q')
    """

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @classmethod
    def parse(cls, text: object) -> "Rank":
        """The rank written ``text``; :class:`InvalidRank` otherwise."""
        if isinstance(text, str):
            for rank in cls:
                if rank.value == text:
                    return rank
        raise InvalidRank(text)

    def __str__(self) -> str:
        return self.value


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Card:
    """One playing card.

    >>> Card.parse("10H")
    Card(rank=<Rank.TEN: '10'>, suit=<Suit.HEARTS: 'H'>)
    >>> str(Card(Rank.QUEEN, Suit.SPADES))
    'QS'
    >>> Card.parse("1H")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.doubt.InvalidCard: '1H' is not a card (write the rank A, 2-10, J, Q or K, then the suit ...).
    """

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: object) -> "Card":
        if isinstance(text, str) and len(text) in (2, 3):
            suit = next((s for s in Suit if s.value == text[-1]), None)
            rank = next((r for r in Rank if r.value == text[:-1]), None)
            if suit is not None and rank is not None:
                return cls(rank, suit)
        raise InvalidCard(text)

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"


_SHORT_RANKS = (Rank.ACE, Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING)
_RANKS = {36: _SHORT_RANKS, 52: tuple(Rank)}
_CARDS = {deck: tuple(Card(r, s) for r in ranks for s in Suit) for deck, ranks in _RANKS.items()}
_INDEX = {deck: {card: i for i, card in enumerate(cards)} for deck, cards in _CARDS.items()}


def deck_ranks(deck: int) -> tuple[Rank, ...]:
    """The ranks of a deck in use.

    >>> " ".join(str(r) for r in deck_ranks(36))
    'A 6 7 8 9 10 J Q K'
    """
    if deck not in _RANKS:
        raise InvalidOption("deck", f"the deck has 36 or 52 cards, not {deck!r}", f"デッキは36枚か52枚です（{deck}ではありません）")
    return _RANKS[deck]


def deck_cards(deck: int) -> tuple[Card, ...]:
    """Every card of a deck in use, rank by rank (the referee's card order)."""
    deck_ranks(deck)
    return _CARDS[deck]


def deck_for(players: int, deck: int | None = None) -> int:
    """The deck a table of ``players`` uses; ``deck`` is the option (None: default).

    >>> deck_for(2), deck_for(3), deck_for(3, 36), deck_for(5)
    (36, 52, 36, 52)
    >>> deck_for(4, 36)
    Traceback (most recent call last):
    ...
    referee.errors.InvalidOption: Option 'deck' is invalid: 4 players use the 52-card deck, not 36.
    """
    if not RULES.min_players <= players <= RULES.max_players:
        raise InvalidOption(
            "players", f"Doubt is for 2-5 players, not {players}", f"ダウトは2〜5人で遊びます（{players}人ではありません）"
        )
    if deck is not None and deck not in DECKS:
        raise InvalidOption("deck", f"the deck has 36 or 52 cards, not {deck!r}", f"デッキは36枚か52枚です（{deck}ではありません）")
    fixed = 36 if players == 2 else 52 if players >= 4 else None
    if fixed is None:
        return 52 if deck is None else deck
    if deck is not None and deck != fixed:
        raise InvalidOption(
            "deck",
            f"{players} players use the {fixed}-card deck, not {deck}",
            f"{players}人では{fixed}枚のデッキを使います（{deck}枚ではありません）",
        )
    return fixed


def deal_counts(players: int, deck: int, dealer: int) -> tuple[int, ...]:
    """Cards dealt to each seat: all but the set-aside card, one by one from the dealer's left.

    >>> deal_counts(4, 52, dealer=3)
    (13, 13, 13, 12)
    >>> deal_counts(2, 36, dealer=0)
    (17, 18)
    """
    dealt = deck - SET_ASIDE
    base, extra = divmod(dealt, players)
    return tuple(base + (1 if (seat - dealer - 1) % players < extra else 0) for seat in range(players))


# --- Options and events ----------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """``deck``: 36 or 52, or None for the player count's default (52 for 3 players)."""

    deck: int | None = None


def parse_options(raw: Mapping[str, Any]) -> Options:
    """Read the log's ``options``; the deck is checked against the seats by :func:`new_game`.

    >>> parse_options({"deck": 36})
    Options(deck=36)
    """
    if not isinstance(raw, Mapping):
        raise InvalidOption("options", "options must be an object", "optionsはオブジェクトである必要があります")
    for key in raw:
        if key != "deck":
            raise InvalidOption(str(key), "Doubt has only the option 'deck'", "ダウトのオプションは「deck」だけです")
    deck = raw.get("deck")
    if deck is None:
        return Options()
    if isinstance(deck, bool) or deck not in DECKS:
        raise InvalidOption("deck", f"the deck has 36 or 52 cards, not {deck!r}", f"デッキは36枚か52枚です（{deck}ではありません）")
    return Options(deck=int(deck))


@dataclass(frozen=True)
class Deal:
    """The cards were shuffled, one set aside, and ``dealer`` dealt the rest."""

    dealer: str
    type: ClassVar[str] = "deal"

    def to_json(self) -> JSON:
        return {"type": "deal", "dealer": self.dealer}


@dataclass(frozen=True)
class Discard:
    """``player`` laid four cards of ``rank`` face up."""

    player: str
    rank: Rank
    type: ClassVar[str] = "discard"

    def to_json(self) -> JSON:
        return {"type": "discard", "player": self.player, "rank": str(self.rank)}


@dataclass(frozen=True)
class Play:
    """``player`` played ``count`` cards face down; ``rank`` only on the round's opening play."""

    player: str
    count: int
    rank: Rank | None = None
    type: ClassVar[str] = "play"

    def to_json(self) -> JSON:
        out: JSON = {"type": "play", "player": self.player, "count": self.count}
        if self.rank is not None:
            out["rank"] = str(self.rank)
        return out


@dataclass(frozen=True)
class Challenge:
    """``player`` said ネ・ベリシ to the previous play."""

    player: str
    type: ClassVar[str] = "challenge"

    def to_json(self) -> JSON:
        return {"type": "challenge", "player": self.player}


@dataclass(frozen=True)
class Reveal:
    """The challenged play, face up, as read."""

    cards: tuple[Card, ...]
    type: ClassVar[str] = "reveal"

    def to_json(self) -> JSON:
        return {"type": "reveal", "cards": [str(c) for c in self.cards]}


Event = Deal | Discard | Play | Challenge | Reveal


def _field(raw: Mapping[str, Any], kind: str, key: str) -> Any:
    if key not in raw:
        raise MalformedEvent(f"a {kind} event needs {key!r}", f"{kind}イベントには「{key}」が必要です")
    return raw[key]


def _player(raw: Mapping[str, Any], kind: str, key: str, players: Sequence[str]) -> str:
    name = _field(raw, kind, key)
    if not isinstance(name, str):
        raise MalformedEvent(f"{key!r} must be a player's name", f"「{key}」はプレイヤー名である必要があります")
    if name not in players:
        raise UnknownPlayer(name)
    return name


def _parse_deal(raw: Mapping[str, Any], players: Sequence[str]) -> Deal:
    return Deal(_player(raw, "deal", "dealer", players))


def _parse_discard(raw: Mapping[str, Any], players: Sequence[str]) -> Discard:
    return Discard(_player(raw, "discard", "player", players), Rank.parse(_field(raw, "discard", "rank")))


def _parse_play(raw: Mapping[str, Any], players: Sequence[str]) -> Play:
    player = _player(raw, "play", "player", players)
    count = _field(raw, "play", "count")
    if isinstance(count, bool) or not isinstance(count, int):
        raise MalformedEvent("'count' must be a whole number of cards", "「count」は枚数（整数）である必要があります")
    rank = raw.get("rank")
    return Play(player, count, None if rank is None else Rank.parse(rank))


def _parse_challenge(raw: Mapping[str, Any], players: Sequence[str]) -> Challenge:
    return Challenge(_player(raw, "challenge", "player", players))


def _parse_reveal(raw: Mapping[str, Any], players: Sequence[str]) -> Reveal:
    cards = _field(raw, "reveal", "cards")
    if not isinstance(cards, list):
        raise MalformedEvent("'cards' must be a list of cards such as \"10H\"", "「cards」は\"10H\"のようなカードのリストである必要があります")
    return Reveal(tuple(Card.parse(c) for c in cards))


_PARSERS = {
    "deal": _parse_deal,
    "discard": _parse_discard,
    "play": _parse_play,
    "challenge": _parse_challenge,
    "reveal": _parse_reveal,
}


def parse_event(raw: Mapping[str, Any], players: Sequence[str]) -> Event:
    """A game-log event as a typed value; :class:`MalformedEvent` or :class:`UnknownPlayer` otherwise.

    >>> parse_event({"type": "play", "player": "Mina", "count": 2, "rank": "A"}, ["Mina", "Jun"])
    Play(player='Mina', count=2, rank=<Rank.ACE: 'A'>)
    """
    if not isinstance(raw, Mapping):
        raise MalformedEvent("an event must be a JSON object", "イベントはJSONオブジェクトである必要があります")
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _PARSERS:
        raise MalformedEvent(
            f"unknown event type {kind!r} (Doubt has deal, discard, play, challenge and reveal)",
            f"不明なイベント「{kind}」です（ダウトのイベントは deal・discard・play・challenge・reveal）",
        )
    return _PARSERS[kind](raw, players)


# --- Where each card can be ------------------------------------------------------------
# One bit mask per card of the deck in use: bit ``seat`` for each hand, then the pile
# (earlier plays of the round), the last play, the set-aside card and the discards.
# A bit is cleared only when the card certainly is not there, so the true place of
# every card is always among its bits.

_PILE = 1 << 8
_LAST = 1 << 9
_ASIDE = 1 << 10
_DISCARDED = 1 << 11


def _describe(mask: int, players: Sequence[str]) -> tuple[str, str]:
    en: list[str] = []
    ja: list[str] = []
    for seat, name in enumerate(players):
        if mask & (1 << seat):
            en.append(f"in {name}'s hand")
            ja.append(f"{name}の手札")
    for bit, place_en, place_ja in (
        (_PILE | _LAST, "in the pile", "場"),
        (_ASIDE, "the card set aside", "わきに置いた1枚"),
        (_DISCARDED, "among the discards", "捨て札"),
    ):
        if mask & bit:
            en.append(place_en)
            ja.append(place_ja)
    return " or ".join(en), "か".join(ja)


# --- State ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PendingPlay:
    """The play that can still be challenged: who played and how many cards."""

    seat: int
    count: int


@dataclass(frozen=True)
class RoundResult:
    """A settled challenge: ``player`` played, ``challenger`` doubted, ``taker`` took ``pile`` cards."""

    rank: Rank
    player: str
    challenger: str
    cards: tuple[Card, ...]
    liar: bool
    taker: str
    pile: int

    def to_json(self) -> JSON:
        return {
            "rank": str(self.rank),
            "challenger": self.challenger,
            "liar": self.liar,
            "taker": self.taker,
            "pile": self.pile,
            "player": self.player,
            "cards": [str(c) for c in self.cards],
        }


@dataclass(frozen=True)
class RevealSpec:
    """What a reveal must show: ``count`` cards from ``player``'s play, truthful if all ``rank``.

    ``possible`` is every card that can be in that play, to check a camera reading.
    """

    player: str
    count: int
    rank: Rank
    possible: frozenset[Card]


@dataclass(frozen=True)
class State:
    """A Doubt game after some events; build it with :func:`new_game`, advance it with :meth:`apply`.

    Seats are indices into ``players`` (clockwise). ``finish_order`` lists the
    finished seats in the order they finished; ``places`` holds one bit mask per
    card of the deck (see :meth:`possible_places`).
    """

    players: tuple[str, ...]
    deck: int
    places: tuple[int, ...] = field(repr=False)
    dealer_seat: int | None = None
    cards: tuple[int, ...] = ()
    finish_order: tuple[int, ...] = ()
    pile: int = 0
    rank: Rank | None = None
    turn_seat: int | None = None
    last_play: PendingPlay | None = None
    challenger_seat: int | None = None
    discarded: tuple[Rank, ...] = ()
    rounds: tuple[RoundResult, ...] = ()
    loser_seat: int | None = None

    # -- Names for seats ------------------------------------------------------------

    @property
    def turn(self) -> str | None:
        """Who must act next; None before the deal, while a reveal is awaited and after the end."""
        return None if self.turn_seat is None else self.players[self.turn_seat]

    @property
    def loser(self) -> str | None:
        return None if self.loser_seat is None else self.players[self.loser_seat]

    @property
    def dealer(self) -> str | None:
        return None if self.dealer_seat is None else self.players[self.dealer_seat]

    @property
    def finished(self) -> tuple[str, ...]:
        """Finished players, first to finish first."""
        return tuple(self.players[s] for s in self.finish_order)

    def _seat(self, name: str) -> int:
        if not isinstance(name, str) or name not in self.players:
            raise UnknownPlayer(name)
        return self.players.index(name)

    def _active(self) -> list[int]:
        return [s for s in range(len(self.players)) if s not in self.finish_order]

    def _next_active(self, seat: int) -> int:
        return _next_active(seat, len(self.players), self.finish_order)

    # -- Protocol -------------------------------------------------------------------

    def expects(self) -> str | None:
        """``"deal"`` before the deal, ``"reveal"`` after a challenge, else None."""
        if self.loser_seat is not None:
            return None
        if self.dealer_seat is None:
            return "deal"
        if self.challenger_seat is not None:
            return "reveal"
        return None

    def is_terminal(self) -> bool:
        return self.loser_seat is not None

    def winner(self) -> str | None:
        """Always None: Doubt names only a loser (:attr:`loser`); everyone else finished."""
        return None

    def legal_actions(self) -> tuple[Event, ...]:
        """Plays and the challenge open to the player whose turn it is, and every possible discard.

        Empty before the deal, while a reveal is awaited and after the end (see :meth:`expects`).
        """
        if self.expects() is not None or self.is_terminal() or self.turn_seat is None:
            return ()
        seat = self.turn_seat
        name = self.players[seat]
        actions: list[Event] = []
        most = min(MAX_PLAY, self.cards[seat])
        for count in range(1, most + 1):
            if self.rank is None:
                actions.extend(Play(name, count, rank) for rank in deck_ranks(self.deck))
            else:
                actions.append(Play(name, count))
        if self.last_play is not None:
            actions.append(Challenge(name))
        for other in self._active():
            if self.cards[other] >= 4:
                actions.extend(
                    Discard(self.players[other], rank)
                    for rank in deck_ranks(self.deck)
                    if rank not in self.discarded and self._impossible_in_hand(other, rank) is None
                )
        return tuple(actions)

    def apply(self, event: Event) -> "State":
        """The state after ``event``; a :class:`~referee.errors.RefereeError` if it cannot happen."""
        if isinstance(event, Deal):
            return self._deal(event)
        if isinstance(event, Discard):
            return self._discard(event)
        if isinstance(event, Play):
            return self._play(event)
        if isinstance(event, Challenge):
            return self._challenge(event)
        if isinstance(event, Reveal):
            return self._reveal(event)
        raise MalformedEvent(f"{event!r} is not a Doubt event", "ダウトのイベントではありません")

    def to_json(self) -> JSON:
        """The contract's state JSON, plus ``deck``, ``dealer``, ``discarded``, ``play``,
        ``challenger``, ``finish_order`` and ``expects``."""
        n = len(self.players)
        cards = self.cards or (0,) * n
        return {
            "game": "doubt",
            "players": [
                {"name": name, "cards": cards[seat], "finished": seat in self.finish_order}
                for seat, name in enumerate(self.players)
            ],
            "pile": self.pile,
            "rank": None if self.rank is None else str(self.rank),
            "turn": self.turn,
            "loser": self.loser,
            "rounds": [r.to_json() for r in self.rounds],
            "deck": self.deck,
            "dealer": self.dealer,
            "discarded": [str(r) for r in self.discarded],
            "play": None
            if self.last_play is None
            else {"player": self.players[self.last_play.seat], "count": self.last_play.count},
            "challenger": None if self.challenger_seat is None else self.players[self.challenger_seat],
            "finish_order": list(self.finished),
            "expects": self.expects(),
        }

    # -- Table aids -----------------------------------------------------------------

    def cards_in_play(self) -> dict[str, int]:
        """Cards in each hand (0 for everyone before the deal)."""
        cards = self.cards or (0,) * len(self.players)
        return {name: cards[seat] for seat, name in enumerate(self.players)}

    def expected_reveal(self) -> RevealSpec | None:
        """While a reveal is awaited: how many cards it must show and which cards can be among them."""
        if self.challenger_seat is None or self.last_play is None or self.rank is None:
            return None
        cards = deck_cards(self.deck)
        possible = frozenset(c for c, mask in zip(cards, self.places) if mask & _LAST)
        return RevealSpec(self.players[self.last_play.seat], self.last_play.count, self.rank, possible)

    def possible_places(self, card: Card | str) -> frozenset[str]:
        """Where ``card`` may be: player names, ``"pile"``, ``"aside"``, ``"discarded"``.

        Nothing is ever ruled out unless it is certain, so the card's true place is always listed.
        """
        if isinstance(card, str):
            card = Card.parse(card)
        index = _INDEX[self.deck].get(card)
        if index is None:
            return frozenset()
        mask = self.places[index]
        out = {name for seat, name in enumerate(self.players) if mask & (1 << seat)}
        for bit, place in ((_PILE | _LAST, "pile"), (_ASIDE, "aside"), (_DISCARDED, "discarded")):
            if mask & bit:
                out.add(place)
        return frozenset(out)

    def known_hand(self, player: str) -> frozenset[Card]:
        """Cards certainly in ``player``'s hand (revealed into a pile they took and not played since)."""
        bit = 1 << self._seat(player)
        return frozenset(c for c, mask in zip(deck_cards(self.deck), self.places) if mask == bit)

    # -- Transitions ----------------------------------------------------------------

    def _check_live(self, kind: str) -> None:
        if self.loser_seat is not None:
            raise GameOver(kind)
        if self.dealer_seat is None:
            raise OutOfOrder(kind, "the cards have not been dealt yet", "まだカードが配られていません")
        if self.challenger_seat is not None:
            raise OutOfOrder(
                kind, "a challenge is waiting for the challenged cards to be revealed", "指摘されたカードの公開を待っています"
            )

    def _deal(self, event: Deal) -> "State":
        if self.loser_seat is not None:
            raise GameOver("deal")
        if self.dealer_seat is not None:
            raise OutOfOrder("deal", "the cards have already been dealt", "カードはすでに配られています")
        dealer = self._seat(event.dealer)
        n = len(self.players)
        return replace(
            self,
            dealer_seat=dealer,
            cards=deal_counts(n, self.deck, dealer),
            turn_seat=(dealer + 1) % n,
        )

    def _impossible_in_hand(self, seat: int, rank: Rank) -> tuple[Card, int] | None:
        """A card of ``rank`` that cannot be in the hand at ``seat``, with its mask, or None."""
        bit = 1 << seat
        index = _INDEX[self.deck]
        for suit in Suit:
            card = Card(rank, suit)
            mask = self.places[index[card]]
            if not mask & bit:
                return card, mask
        return None

    def _discard(self, event: Discard) -> "State":
        self._check_live("discard")
        seat = self._seat(event.player)
        if event.rank not in deck_ranks(self.deck):
            raise RankNotInDeck(event.rank, self.deck)
        if self.cards[seat] < 4:
            raise DiscardNeedsFourCards(event.player, self.cards[seat])
        if event.rank in self.discarded:
            raise RankAlreadyDiscarded(event.rank)
        blocked = self._impossible_in_hand(seat, event.rank)
        if blocked is not None:
            card, mask = blocked
            where, where_ja = _describe(mask, self.players)
            raise DiscardImpossible(event.player, event.rank, card, where, where_ja)
        index = _INDEX[self.deck]
        places = list(self.places)
        for suit in Suit:
            places[index[Card(event.rank, suit)]] = _DISCARDED
        cards = _with(self.cards, seat, self.cards[seat] - 4)
        state = replace(
            self, cards=cards, places=_forget_if_empty(places, seat, cards), discarded=self.discarded + (event.rank,)
        )
        if cards[seat] > 0:
            return state
        # Emptied by a discard: finished at once. If it was their play that could still be
        # challenged, it no longer can (a finished player takes nothing back).
        last_play = None if self.last_play is not None and self.last_play.seat == seat else self.last_play
        state = replace(state, finish_order=self.finish_order + (seat,), last_play=last_play)
        if state.turn_seat == seat:
            state = replace(state, turn_seat=state._next_active(seat))
        return state._end_if_over()

    def _play(self, event: Play) -> "State":
        self._check_live("play")
        seat = self._seat(event.player)
        if seat != self.turn_seat:
            raise NotYourTurn(event.player, self.turn)
        if not 1 <= event.count <= MAX_PLAY:
            raise PlayCountOutOfRange(event.player, event.count)
        if event.count > self.cards[seat]:
            raise NotEnoughCards(event.player, self.cards[seat], event.count)
        if self.rank is None:
            if event.rank is None:
                raise RankMissing(event.player)
            if event.rank not in deck_ranks(self.deck):
                raise RankNotInDeck(event.rank, self.deck)
            rank = event.rank
        else:
            if event.rank is not None:
                raise RankAlreadySet(event.player, event.rank, self.rank)
            rank = self.rank
        finish_order = self.finish_order
        previous = self.last_play
        # Playing on settles the previous play: an empty hand behind it is now finished.
        if previous is not None and self.cards[previous.seat] == 0:
            finish_order += (previous.seat,)
        cards = _with(self.cards, seat, self.cards[seat] - event.count)
        hand = 1 << seat
        places = [((m & ~_LAST) | _PILE if m & _LAST else m) | (_LAST if m & hand else 0) for m in self.places]
        state = replace(
            self,
            cards=cards,
            places=_forget_if_empty(places, seat, cards),
            pile=self.pile + event.count,
            rank=rank,
            finish_order=finish_order,
        )
        if len(self.players) - len(finish_order) == 1:  # only the player who just played is left
            return replace(state, last_play=None, turn_seat=None, loser_seat=seat)
        return replace(
            state,
            last_play=PendingPlay(seat, event.count),
            turn_seat=_next_active(seat, len(self.players), finish_order),
        )

    def _challenge(self, event: Challenge) -> "State":
        self._check_live("challenge")
        seat = self._seat(event.player)
        if self.last_play is None:
            if self.pile == 0:
                reason = ("nothing has been played in this round yet", "このラウンドではまだ誰もカードを出していません")
            else:
                reason = ("the last play can no longer be challenged", "直前のカードはもう指摘できません")
            raise NothingToChallenge(event.player, *reason)
        if seat == self.last_play.seat:
            raise ChallengeOwnPlay(event.player)
        if seat != self.turn_seat:
            raise NotYourTurn(event.player, self.turn)
        return replace(self, challenger_seat=seat, turn_seat=None)

    def _reveal(self, event: Reveal) -> "State":
        if self.loser_seat is not None:
            raise GameOver("reveal")
        if self.challenger_seat is None or self.last_play is None or self.rank is None:
            raise OutOfOrder("reveal", "nobody has challenged a play", "誰も指摘していません")
        played, challenger = self.last_play.seat, self.challenger_seat
        self._check_reading(event.cards)
        liar = any(card.rank != self.rank for card in event.cards)
        taker = played if liar else challenger
        index = _INDEX[self.deck]
        shown = {index[c] for c in event.cards}
        taken = 1 << taker
        places = []
        for i, mask in enumerate(self.places):
            mask = _LAST if i in shown else mask & ~_LAST
            places.append((mask & ~(_PILE | _LAST)) | taken if mask & (_PILE | _LAST) else mask)
        cards = _with(self.cards, taker, self.cards[taker] + self.pile)
        finish_order = self.finish_order
        if not liar and cards[played] == 0:
            finish_order += (played,)
        result = RoundResult(
            rank=self.rank,
            player=self.players[played],
            challenger=self.players[challenger],
            cards=event.cards,
            liar=liar,
            taker=self.players[taker],
            pile=self.pile,
        )
        state = replace(
            self,
            cards=cards,
            places=tuple(places),
            pile=0,
            rank=None,
            last_play=None,
            challenger_seat=None,
            finish_order=finish_order,
            rounds=self.rounds + (result,),
        )
        state = state._end_if_over()
        if state.is_terminal():
            return state
        opener = challenger if liar else state._next_active(challenger)
        return replace(state, turn_seat=opener)

    def _check_reading(self, shown: Sequence[Card]) -> None:
        assert self.last_play is not None
        count = self.last_play.count
        who = self.players[self.last_play.seat]
        if len(shown) != count:
            raise Misread(
                f"the challenged play was {count} card(s) but {len(shown)} were read",
                f"指摘されたのは{count}枚ですが、{len(shown)}枚読み取られました",
            )
        index = _INDEX[self.deck]
        seen: set[Card] = set()
        for card in shown:
            if card in seen:
                raise Misread(f"{card} was read twice", f"{card}が2回読み取られました")
            seen.add(card)
            if card not in index:
                raise Misread(f"{card} is not in the {self.deck}-card deck", f"{card}は{self.deck}枚のデッキにありません")
            mask = self.places[index[card]]
            if mask & _DISCARDED:
                raise Misread(
                    f"{card} was discarded with the four {card.rank}s",
                    f"{card}は捨てられた{card.rank}の4枚のうちの1枚です",
                )
            if not mask & _LAST:
                where, where_ja = _describe(mask, self.players)
                raise Misread(
                    f"{card} cannot be in {who}'s play: it can only be {where}",
                    f"{card}は{who}が出したカードではありえません（{where_ja}にしかありえません）",
                )

    def _end_if_over(self) -> "State":
        active = self._active()
        if len(active) > 1:
            return self
        return replace(self, loser_seat=active[0], turn_seat=None, last_play=None, challenger_seat=None)


def _next_active(seat: int, n: int, finished: tuple[int, ...]) -> int:
    """The first seat clockwise after ``seat`` that has not finished (``seat`` itself last)."""
    for step in range(1, n + 1):
        nxt = (seat + step) % n
        if nxt not in finished:
            return nxt
    raise AssertionError("everyone has finished")  # the game ends before this can happen


def _with(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _forget_if_empty(places: Iterable[int], seat: int, cards: tuple[int, ...]) -> tuple[int, ...]:
    """An empty hand holds nothing: clear its bit from every card.

    Hands only empty by a play or a discard, so only the actor's hand needs a look.
    """
    if cards[seat]:
        return tuple(places)
    keep = ~(1 << seat)
    return tuple(m & keep for m in places)


def new_game(players: tuple[str, ...], options: Options) -> State:
    """The table before the deal (:class:`InvalidOption` for a deck the seats cannot use)."""
    players = tuple(players)
    deck = deck_for(len(players), options.deck)
    every_hand = (1 << len(players)) - 1
    return State(
        players=players,
        deck=deck,
        places=(every_hand | _ASIDE,) * deck,
        cards=(0,) * len(players),
    )


RULES = Rules(
    name="doubt",
    min_players=2,
    max_players=5,
    parse_options=parse_options,
    new_game=new_game,
    parse_event=parse_event,
)
