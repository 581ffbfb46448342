"""What the dashboard shows: the verdict of a reveal and each game's running score.

Both read only the contract's state JSON (shared/docs/game-log.md), so they
never reach into a game's internals. Texts come in English and Japanese.

>>> before = {"players": [{"name": "A", "dice": 5}, {"name": "B", "dice": 5}],
...           "bid": {"player": "A", "quantity": 3, "face": "4"}, "rounds": []}
>>> after = {"players": [{"name": "A", "dice": 5}, {"name": "B", "dice": 4}], "bid": None,
...          "rounds": [{"bid": {"player": "A", "quantity": 3, "face": "4"}, "challenger": "B",
...                      "actual": 3, "loser": "B", "lost": 1}]}
>>> v = verdict("liars-dice", before, after, [{"face": "4"}, {"face": "wheel"}, {"face": "4"}, {"face": "2"}])
>>> v["summary"]["en"]
'Bid: A, three 4s. Counted 3. B loses 1 die.'
>>> v["highlight"]
[0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vision.read.detections import Card, InvalidCard

JSON = dict[str, Any]

_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _qty(n: int) -> str:
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def describe_bid(bid: Mapping[str, Any], lang: str = "en") -> str:
    """A bid in words.

    >>> describe_bid({"quantity": 2, "face": "wheel"}), describe_bid({"quantity": 5, "face": "3"}, "ja")
    ('two wheels', '3のダイスが5個')
    """
    q, face = int(bid["quantity"]), str(bid["face"])
    if lang == "ja":
        return f"{'舵' if face == 'wheel' else face}のダイスが{q}個"
    if face == "wheel":
        return f"{_qty(q)} wheel{'s' if q != 1 else ''}"
    return f"{_qty(q)} {face}{'s' if q != 1 else ''}"


def verdict(game: str, before: Mapping[str, Any], after: Mapping[str, Any], objects: Sequence[Mapping[str, Any]]) -> JSON:
    """The verdict a reveal (or a Nine Dice roll) produced: its facts, a summary and the
    indices of the read objects to highlight on the photo."""
    return _VERDICTS[game](before, after, objects)


def _liars_dice(before: Mapping[str, Any], after: Mapping[str, Any], objects: Sequence[Mapping[str, Any]]) -> JSON:
    rnd = after["rounds"][-1]
    bid = rnd["bid"]
    face = bid["face"]
    highlight = [i for i, o in enumerate(objects) if o.get("face") in ("wheel", face) and (face != "wheel" or o.get("face") == "wheel")]
    loser, lost = rnd["loser"], rnd["lost"]
    out_en = f" {loser} is out." if rnd.get("eliminated") else ""
    out_ja = f"{loser}は脱落です。" if rnd.get("eliminated") else ""
    win_en = f" {after['winner']} wins the game!" if after.get("winner") else ""
    win_ja = f"{after['winner']}の勝ちです！" if after.get("winner") else ""
    return {
        "game": "liars-dice",
        "round": rnd,
        "highlight": highlight,
        "summary": {
            "en": f"Bid: {bid['player']}, {describe_bid(bid)}. Counted {rnd['actual']}. "
                  f"{loser} loses {lost} di{'e' if lost == 1 else 'ce'}.{out_en}{win_en}",
            "ja": f"推測: {bid['player']}「{describe_bid(bid, 'ja')}」。実際は{rnd['actual']}個。"
                  f"{loser}がダイスを{lost}個失います。{out_ja}{win_ja}",
        },
    }


def _doubt(before: Mapping[str, Any], after: Mapping[str, Any], objects: Sequence[Mapping[str, Any]]) -> JSON:
    rnd = after["rounds"][-1]
    rank = rnd["rank"]
    highlight = [i for i, o in enumerate(objects) if _card_rank(str(o.get("face", ""))) != rank]
    player = rnd.get("player", "?")
    lie_en = "a lie" if rnd["liar"] else "the truth"
    lie_ja = "嘘" if rnd["liar"] else "本当"
    end_en = f" {after['loser']} loses the game." if after.get("loser") else ""
    end_ja = f"{after['loser']}の負けです。" if after.get("loser") else ""
    return {
        "game": "doubt",
        "round": rnd,
        "highlight": highlight,
        "summary": {
            "en": f"{player}'s play of {rank} was {lie_en}. {rnd['taker']} takes the pile ({rnd['pile']} cards).{end_en}",
            "ja": f"{player}の「{rank}」は{lie_ja}でした。{rnd['taker']}が場の{rnd['pile']}枚を引き取ります。{end_ja}",
        },
    }


def _card_rank(face: str) -> str | None:
    """The rank of a card's face ("10H" -> "10"); None for a face that is no card."""
    try:
        return Card.parse(face).rank
    except InvalidCard:
        return None


def _pin456(before: Mapping[str, Any], after: Mapping[str, Any], objects: Sequence[Mapping[str, Any]]) -> JSON:
    rnd = after["rounds"][-1]
    if rnd["correct"]:
        en = f"Sum {rnd['sum']}: {rnd['child']} guessed right. {rnd['parent']} pays {rnd['payout']}P."
        ja = f"合計{rnd['sum']}: {rnd['child']}の予想が的中。{rnd['parent']}が{rnd['payout']}Pを支払います。"
    else:
        en = f"Sum {rnd['sum']} (guess {rnd['guess']}): {rnd['parent']} takes the {rnd['stake']}P stake."
        ja = f"合計{rnd['sum']}（予想{rnd['guess']}）: {rnd['parent']}が賭け金{rnd['stake']}Pを受け取ります。"
    if after.get("winner"):
        en += f" {after['winner']} wins the game!"
        ja += f"{after['winner']}の勝ちです！"
    elif after.get("draw"):
        en += " The game is a draw."
        ja += "引き分けです。"
    return {"game": "pin456", "round": rnd, "highlight": list(range(len(objects))), "summary": {"en": en, "ja": ja}}


def _nine_dice(before: Mapping[str, Any], after: Mapping[str, Any], objects: Sequence[Mapping[str, Any]]) -> JSON:
    best = list(after.get("best") or [])
    formations = [m for m in after.get("hands") or [] if m.get("hand") in best]
    highlight = sorted({i for m in formations for i in m.get("dice", [])})
    names = " / ".join(best) or "—"
    return {
        "game": "nine-dice",
        "round": {"best": best, "formations": formations},
        "highlight": highlight,
        "summary": {"en": f"Best hand on the table: {names}.", "ja": f"最強の役: {names}"},
    }


_VERDICTS = {"liars-dice": _liars_dice, "doubt": _doubt, "pin456": _pin456, "nine-dice": _nine_dice}


# --- running score -------------------------------------------------------------------------

_COLUMNS: dict[str, list[JSON]] = {
    "liars-dice": [{"key": "dice", "en": "Dice", "ja": "ダイス"}],
    "nine-dice": [{"key": "white", "en": "White", "ja": "白"}, {"key": "black", "en": "Black", "ja": "黒"},
                  {"key": "blue", "en": "Blue", "ja": "青"}, {"key": "scarab", "en": "Scarab", "ja": "スカラベ"}],
    "doubt": [{"key": "cards", "en": "Cards", "ja": "枚数"}],
    "pin456": [{"key": "cash", "en": "Money (P)", "ja": "所持金(P)"},
               {"key": "parent_turns", "en": "Parent turns", "ja": "親の回数"}],
}


def score(game: str, state: Mapping[str, Any]) -> JSON:
    """One row per player (seat order) with the game's running count; ``out`` marks
    a player no longer in play (no dice left, finished in Doubt).

    >>> score("liars-dice", {"players": [{"name": "A", "dice": 3, "eliminated": False}]})["rows"]
    [{'player': 'A', 'values': [3], 'out': False, 'turn': False}]
    """
    rows = []
    turn = state.get("turn")
    for p in state.get("players", []):
        if game == "nine-dice":
            tokens = p.get("tokens", {})
            values = [tokens.get("white", 0), tokens.get("black", 0), tokens.get("blue", 0), bool(p.get("scarab"))]
            out = False
        elif game == "doubt":
            values, out = [p.get("cards", 0)], bool(p.get("finished"))
        elif game == "pin456":
            values, out = [p.get("cash", 0), p.get("parent_turns", 0)], False
        else:
            values, out = [p.get("dice", 0)], bool(p.get("eliminated"))
        rows.append({"player": p["name"], "values": values, "out": out, "turn": p["name"] == turn})
    return {"columns": _COLUMNS[game], "rows": rows}
