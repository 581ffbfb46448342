"""Nine Dice at the table: each shout scored in one line, and the shouts' running order.

Players shout aloud; the laptop, or each player's own phone, enters the shouts in the
order heard. Each is scored the moment it is entered, and the page shows it in one
line, in English and Japanese (templates in :mod:`web.i18n`)::

    Ben: ラスベガス — not on the table; Ben returns a black token.

Lines are read from the state JSON (``rounds[].shouts`` and ``dice``, the open
round's ``shouts``, ``hands`` of the latest roll); a wrong shout of an earlier roll
is told "not on the table" or "not the best" from that roll's dice
(:func:`referee.nine_dice.hands`). A phone's taps carry the time they were made (:func:`tap_time`): shouts
that reach the server within :data:`BUZZER_WINDOW_S` of each other are scored in the
order they were tapped, not the order the network delivered them, and a phone's
"Shout!" tap (a buzz, the hand still to come) holds its player's place from the moment
it was made until the hand follows (at most :data:`BUZZ_HOLD_S`).

>>> state = {"players": [{"name": "Ben"}], "hands": [{"hand": "黒プラス"}], "round_open": True,
...          "shouts": [{"player": "Ben", "hand": "ラスベガス", "correct": False, "returned": "black"}], "rounds": []}
>>> [line["text"]["en"] for line in shout_lines(state)]
['Ben: ラスベガス — not on the table; Ben returns a black token.']
>>> shout_lines(state)[0]["text"]["ja"]
'Ben: ラスベガス — 場にありません。Benは黒のトークンを1つ返します。'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from web.errors import WebError
from web.i18n import LANGUAGES, TOKEN_NAMES, text

JSON = dict[str, Any]

#: How long a phone's shout waits for other phones' earlier taps still on the way (seconds).
BUZZER_WINDOW_S = 0.35
#: A tap older than this when it reaches the server is taken as tapped on arrival (a
#: phone whose clock jumped, or a request stuck in a queue, must not jump the order).
MAX_TAP_AGE_S = 5.0
#: How long a phone's buzz ("Shout!" tapped, the hand still to come) holds its player's
#: place: later shouts wait for its hand this long at most (seconds).
BUZZ_HOLD_S = 15.0


class RoundClaimed(WebError):
    """A shout while a correct colour-choosing shout waits for its winner's colour: the
    round is won, and nothing else is scored until the winner picks (or it is undone)."""

    code = "round_claimed"
    status = 409
    templates = {
        "en": "{player}'s {hand} already won this round; {player} is choosing a token colour.",
        "ja": "このラウンドは{player}の{hand}で決まりました。{player}がトークンの色を選んでいます。",
    }


def tap_time(received: float, tapped_at: Any, sent_at: Any) -> float:
    """When a phone's tap was made, on the server's clock: the arrival time less the time
    the phone held the tap before sending (both times are the phone's own, so the clocks
    of phone and server never need to agree).

    >>> tap_time(100.0, 5_000, 5_250)
    99.75
    >>> tap_time(100.0, None, None), tap_time(100.0, 9_000, 1_000), tap_time(100.0, 0, 60_000)
    (100.0, 100.0, 100.0)
    """
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (tapped_at, sent_at))
    if not numbers:
        return received
    age = (float(sent_at) - float(tapped_at)) / 1000.0
    return received - age if 0.0 <= age <= MAX_TAP_AGE_S else received


def _token(colour: str | None, lang: str) -> str:
    return TOKEN_NAMES.get(str(colour), {}).get(lang, str(colour))


def _tokens(awarded: Sequence[Mapping[str, Any]], lang: str) -> str:
    """What a winner took, in words: "two white tokens", "a white, a black and a blue token",
    "白2個", "白・黒・青 各1個"; a token taken from a player says whose it was.

    >>> _tokens([{"token": "white", "from": None}] * 2, "en"), _tokens([{"token": "white", "from": None}] * 2, "ja")
    ('two white tokens', '白のトークン2個')
    >>> _tokens([{"token": c, "from": None} for c in ("white", "black")] + [{"token": "blue", "from": "Mina"}], "en")
    'a white token, a black token and a blue token (from Mina)'
    """
    groups: dict[tuple[str, str | None], int] = {}
    for t in awarded:
        key = (str(t.get("token")), t.get("from"))
        groups[key] = groups.get(key, 0) + 1
    parts = []
    for (colour, source), n in groups.items():
        name = _token(colour, lang)
        if lang == "ja":
            part = f"{name}のトークン{n}個"
        else:
            part = f"{'two' if n == 2 else 'a' if n == 1 else n} {name} token{'s' if n > 1 else ''}"
        if source:
            part = text("shout_token_from", lang).format(tokens=part, player=source)
        parts.append(part)
    if lang == "ja":
        return "と".join(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def line(shout: Mapping[str, Any], present: set[str], awarded: Sequence[Mapping[str, Any]] = (),
         won_game: bool = False) -> JSON:
    """One shout's result in both languages: right (and what it took), or wrong (why, and
    the token it cost)."""
    player, hand = str(shout["player"]), str(shout["hand"])
    out: JSON = {}
    for lang in LANGUAGES:
        if shout.get("correct"):
            if won_game and not awarded:
                what = text("shout_wins_game", lang)
            elif awarded:
                what = text("shout_takes", lang).format(player=player, tokens=_tokens(awarded, lang))
            else:
                what = text("shout_takes_nothing", lang).format(player=player)
            body = text("shout_right", lang).format(rest=what)
        else:
            why = text("shout_weaker" if hand in present else "shout_absent", lang)
            returned = shout.get("returned")
            cost = (text("shout_returns", lang).format(player=player, token=_token(returned, lang)) if returned
                    else text("shout_returns_nothing", lang).format(player=player))
            body = f"{why}{text('shout_sep', lang)}{cost}"
        out[lang] = f"{player}: {hand} — {body}"
    return {"player": player, "hand": hand, "correct": bool(shout.get("correct")), "returned": shout.get("returned"),
            "text": out}


def shout_lines(state: Mapping[str, Any]) -> list[JSON]:
    """The latest roll's shouts, each scored in one line (the open round's so far, or
    the round just closed, with what its winner took); ``[]`` before any shout."""
    present = {str(m.get("hand")) for m in state.get("hands") or ()}
    if state.get("round_open"):
        return [line(s, present) for s in state.get("shouts") or ()]
    rounds = state.get("rounds") or ()
    if not rounds:
        return []
    last = rounds[-1]
    out = []
    for s in last.get("shouts") or ():
        won = s.get("correct") and s.get("player") == last.get("winner")
        out.append(line(s, present, last.get("awarded") or () if won else (),
                        won_game=bool(won and state.get("winner") == s.get("player"))))
    return out


def _present(dice: Sequence[Mapping[str, Any]] | None) -> set[str]:
    """Every hand a roll (as the state JSON gives it) makes."""
    from referee.nine_dice import Colour, Die, Letter, hands

    if not dice:
        return set()
    return {str(m.hand) for m in hands([Die(Letter(d["face"]), Colour(d["colour"])) for d in dice])}


def shout_notes(state: Mapping[str, Any]) -> list[JSON]:
    """Every shout of the game in log order, each as its line (for the history)."""
    out: list[JSON] = []
    rounds = list(state.get("rounds") or ())
    for k, rnd in enumerate(rounds):
        present = _present(rnd.get("dice"))
        last = k == len(rounds) - 1
        for s in rnd.get("shouts") or ():
            won = s.get("correct") and s.get("player") == rnd.get("winner")
            out.append(line(s, present, rnd.get("awarded") or () if won else (),
                            won_game=bool(won and last and state.get("winner") == s.get("player"))))
    if state.get("round_open"):
        present = {str(m.get("hand")) for m in state.get("hands") or ()}
        out.extend(line(s, present) for s in state.get("shouts") or ())
    return out
