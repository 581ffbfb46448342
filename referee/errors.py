"""Errors a player can act on.

Every mistake the referee refuses has its own :class:`RefereeError` subclass
(a :class:`ValueError`), a stable ``code`` and a message template in English
and Japanese. Templates use ``str.format`` fields filled from ``params``.

>>> err = NotYourTurn(player="Mina", turn="Saewoon")
>>> str(err)
"It is Saewoon's turn, not Mina's."
>>> err.code
'not_your_turn'
>>> err.message("ja")
'今はSaewoonの番です（Minaの番ではありません）。'

Subclasses register themselves, so :func:`catalogue` lists every code the
referee can raise, with both languages (the dashboard ships it to the page).
"""

from __future__ import annotations

from typing import Any, ClassVar

LANGUAGES = ("en", "ja")

_REGISTRY: dict[str, type["RefereeError"]] = {}


class RefereeError(ValueError):
    """Base of every refusal. ``code`` names the kind of mistake."""

    code: ClassVar[str] = "referee_error"
    templates: ClassVar[dict[str, str]] = {
        "en": "{reason}",
        "ja": "{reason}",
    }

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for lang in LANGUAGES:
            if lang not in cls.templates:
                raise TypeError(f"{cls.__name__} lacks a {lang!r} message template")
        if cls.code in _REGISTRY and _REGISTRY[cls.code] is not cls:
            raise TypeError(f"error code {cls.code!r} is used twice")
        _REGISTRY[cls.code] = cls

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The message in ``lang`` ("en" or "ja"); English for unknown languages."""
        template = self.templates.get(lang, self.templates["en"])
        try:
            return template.format(**self.params)
        except (KeyError, IndexError):  # a template/param mismatch must never hide the error
            return f"{self.code}: {self.params}"

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        return {"code": self.code, "message": self.message(lang), "params": _jsonable(self.params)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def catalogue() -> dict[str, dict[str, str]]:
    """Every error code with its message templates, for translation and the UI."""
    return {code: dict(cls.templates) for code, cls in sorted(_REGISTRY.items())}


# --- Kinds of mistake shared by every game -------------------------------------------


class MalformedLog(RefereeError):
    """The document is not a game log: not an object, unknown format or game, bad players."""

    code = "malformed_log"
    templates = {
        "en": "This is not a valid game log: {reason}.",
        "ja": "ゲーム記録として読めません: {reason_ja}。",
    }

    def __init__(self, reason: str, reason_ja: str | None = None, **params: Any) -> None:
        super().__init__(reason=reason, reason_ja=reason_ja or reason, **params)


class InvalidOption(RefereeError):
    """A game option has an unknown name or a value outside what the rules allow."""

    code = "invalid_option"
    templates = {
        "en": "Option {option!r} is invalid: {reason}.",
        "ja": "オプション「{option}」が正しくありません: {reason_ja}。",
    }

    def __init__(self, option: str, reason: str, reason_ja: str | None = None) -> None:
        super().__init__(option=option, reason=reason, reason_ja=reason_ja or reason)


class MalformedEvent(RefereeError):
    """An event is not an object, has an unknown type, or a field is missing or mistyped."""

    code = "malformed_event"
    templates = {
        "en": "The event cannot be read: {reason}.",
        "ja": "イベントを読み取れません: {reason_ja}。",
    }

    def __init__(self, reason: str, reason_ja: str | None = None, **params: Any) -> None:
        super().__init__(reason=reason, reason_ja=reason_ja or reason, **params)


class UnknownPlayer(RefereeError):
    code = "unknown_player"
    templates = {
        "en": "{player!r} is not a player at this table.",
        "ja": "「{player}」はこのテーブルのプレイヤーではありません。",
    }

    def __init__(self, player: object) -> None:
        super().__init__(player=player)


class NotYourTurn(RefereeError):
    code = "not_your_turn"
    templates = {
        "en": "It is {turn}'s turn, not {player}'s.",
        "ja": "今は{turn}の番です（{player}の番ではありません）。",
    }

    def __init__(self, player: str, turn: str | None) -> None:
        super().__init__(player=player, turn=turn if turn is not None else "nobody")


class OutOfOrder(RefereeError):
    """The event is well formed but not expected now (a reveal with no challenge, ...)."""

    code = "out_of_order"
    templates = {
        "en": "A {event} cannot happen now: {reason}.",
        "ja": "今は「{event}」はできません: {reason_ja}。",
    }

    def __init__(self, event: str, reason: str, reason_ja: str | None = None) -> None:
        super().__init__(event=event, reason=reason, reason_ja=reason_ja or reason)


class GameOver(RefereeError):
    code = "game_over"
    templates = {
        "en": "The game is over; no more {event} events are accepted.",
        "ja": "ゲームは終了しています（{event}は受け付けません）。",
    }

    def __init__(self, event: str) -> None:
        super().__init__(event=event)


class Misread(RefereeError):
    """What the camera (or a person) reported cannot be right: re-read, never a verdict."""

    code = "misread"
    templates = {
        "en": "The reading does not add up ({reason}); please re-read.",
        "ja": "読み取り結果が合いません（{reason_ja}）。もう一度読み取ってください。",
    }

    def __init__(self, reason: str, reason_ja: str | None = None, **params: Any) -> None:
        super().__init__(reason=reason, reason_ja=reason_ja or reason, **params)
