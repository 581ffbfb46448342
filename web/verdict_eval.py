"""``tableref eval-verdicts``: the verdicts a table gives on rendered live reveals.

``tableref eval-live`` scores each settled reveal die by die. This command plays the same
clips (same options) and hands each settled reveal, after the closer look, to the table's
judging, as ``tableref serve`` does: :func:`~web.readings.from_reading`, then the
referee through :func:`~web.unsure.judge_unsure`. The verdict is compared with the one the
true dice give. Each reveal counts as:

- ``sure``: a verdict with every die read surely; ``sure wrong`` when it differs from the
  truth's;
- ``unsure``: a verdict although some dice (or cards) were unsure, because whatever they
  show gives the same outcome (:mod:`web.unsure`); ``unsure wrong`` when it differs from
  the truth's;
- ``re-read``: no verdict (a piece unsure in a way that matters, another count of pieces,
  anything the referee refuses);
- ``unsettled``: the still scene never settled.

It also prints what ``tableref eval-live`` says of the same clips, reveal outcomes and
pieces, so one run of the clips gives both.

The tables:

- **Nine Dice:** a fresh game, and the roll judged.
- **Pin-456:** the parent declares as many dice as the clip shows, the child stakes on the
  first sum the referee allows, and the reveal is judged.
- **Liar's Dice:** a bid on each face (2-6 and the wheel), each counted as one verdict. A
  verdict on the count does not depend on the bid's quantity, so each bid is the lowest
  the board allows. The players hold the clip's dice between them, at most five each.

- **Doubt:** the first player plays as many cards as the clip shows, declared as the rank
  most of them have (so about half the plays are honest), and the next one challenges.

    tableref eval-verdicts --n 60 --seed 1000
    tableref eval-verdicts --n 60 --games doubt --card-px 60 120 --size 1280 720

``tableref eval`` judges the labelled scenes of a set that names each scene's ``game`` (the
foreign yardstick) the same way, one table per scene (:func:`scene_table`; its bid drawn
from the scene's seed), and counts the share of scenes given a verdict untouched, right or
wrong (:func:`scene_verdicts`).
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.errors import RefereeError
from referee.game import State
from referee.log import GameLog
from referee.replay import rules_for, start
from vision.read.detections import Card, Detection, Reading
from vision.teach.labels import LabelledImage
from vision.evaluate.live import ClipResult, add_clip_arguments as add_live_arguments, play_all, run_config, summarise
from vision.evaluate.live import report as live_report

from web.readings import from_reading, judge_reading
from web.unsure import canonical, judge_unsure, outcome

OUTCOMES = ("sure", "sure wrong", "unsure", "unsure wrong", "re-read", "unsettled")
GAMES = ("liars-dice", "nine-dice", "pin456", "doubt")
LIARS_FACES = ("2", "3", "4", "5", "6", "wheel")
PLAYERS = ("A", "B", "C")
JSON = dict[str, Any]


@dataclass(frozen=True)
class Table:
    """A game waiting for a reveal: its state, and how a reading becomes its event."""

    game: str
    players: tuple[str, ...]
    state: State

    def judge(self, objects: Sequence[Mapping[str, Any]]) -> tuple[JSON, State]:
        """The reading's event and the state after it, as a table judges a sure reading."""
        return judge_reading(rules_for(self.game), self.players, self.state, str(self.state.expects()), objects)


def tables_for(game: str, truth: Sequence[Mapping[str, Any]]) -> list[Table]:
    """The tables a reveal of the pieces ``truth`` of ``game`` is judged at (see the module doc)."""
    rules = rules_for(game)
    dice = len(truth)
    if game == "doubt":
        rank = Counter(Card.parse(str(o["face"])).rank for o in truth).most_common(1)[0][0]  # ties: the first seen
        state = start(GameLog(game, PLAYERS)).apply(rules.parse_event({"type": "deal", "dealer": "C"}, PLAYERS))
        play = next(a for a in state.legal_actions()
                    if a.to_json() == {"type": "play", "player": "A", "count": dice, "rank": rank})
        state = state.apply(play).apply(rules.parse_event({"type": "challenge", "player": "B"}, PLAYERS))
        return [Table(game, PLAYERS, state)]
    if game == "nine-dice":
        return [Table(game, PLAYERS[:2], start(GameLog(game, PLAYERS[:2])))]
    if game == "pin456":
        state = start(GameLog(game, PLAYERS[:2]))
        state = state.apply(rules.parse_event({"type": "declare", "player": "A", "count": dice}, PLAYERS[:2]))
        stake = next(a for a in state.legal_actions() if a.to_json()["type"] == "stake")
        return [Table(game, PLAYERS[:2], state.apply(stake))]
    if game == "liars-dice":
        # The clip shows some number of dice; a table with that many in play is a game some rounds in.
        players, base = _liars_base(dice)
        return [Table(game, players, _lowest_bid(base, face, players)) for face in LIARS_FACES]
    raise ValueError(f"eval-verdicts plays {', '.join(GAMES)}, not {game}")


def _lowest_bid(base: State, face: str, players: tuple[str, ...], quantity: int | None = None) -> State:
    """``base`` after a bid on ``face`` (the lowest the board allows, or the legal one nearest
    ``quantity``) and a challenge."""
    rules = rules_for("liars-dice")
    bids = [a for a in base.legal_actions() if a.to_json()["type"] == "bid" and a.to_json()["face"] == face]
    q = (lambda a: a.to_json()["quantity"])
    bid = min(bids, key=q) if quantity is None else min(bids, key=lambda a: (abs(q(a) - quantity), q(a)))
    return base.apply(bid).apply(rules.parse_event({"type": "challenge", "player": "B"}, players))


def scene_table(game: str, truth: Sequence[Mapping[str, Any]], seed: int) -> Table:
    """The one table a labelled scene of ``game`` (its pieces ``truth``, in the stored shape)
    is judged at, drawn from the scene's ``seed``:

    - Liar's Dice: the tables of :func:`tables_for`, a bid on one face drawn from the seed,
      its quantity the true count of that face, one more or one less (as drawn), the legal
      bid nearest it: a bid on the edge, where one die misread changes the outcome;
    - Doubt: as many cards played as the scene shows face up, declared as the rank most of
      them have or, drawn one time in two, another rank of the deck: a lie;
    - Nine Dice and Pin-456: the tables of :func:`tables_for` (the roll's best words; the
      reveal's sum against the stake).

    Raises :class:`~referee.errors.RefereeError` (or StopIteration for Doubt) when the game
    cannot be played with these pieces, e.g. more cards than a play may hold.
    """
    rng = random.Random(seed)
    if game == "liars-dice":
        players, base = _liars_base(len(truth))
        face = rng.choice(LIARS_FACES)
        after = Table(game, players, _lowest_bid(base, face, players)).judge(truth)[1]
        actual = int(after.to_json()["rounds"][-1]["actual"])
        return Table(game, players, _lowest_bid(base, face, players, actual + rng.choice((-1, 1))))
    if game == "doubt":
        rules = rules_for(game)
        state = start(GameLog(game, PLAYERS)).apply(rules.parse_event({"type": "deal", "dealer": "C"}, PLAYERS))
        true_rank = Counter(Card.parse(str(o["face"])).rank for o in truth).most_common(1)[0][0]
        ranks = sorted({a.to_json()["rank"] for a in state.legal_actions() if a.to_json()["type"] == "play"})
        others = [r for r in ranks if r != true_rank]
        rank = true_rank if rng.random() < 0.5 or not others else rng.choice(others)
        play = next(a for a in state.legal_actions()
                    if a.to_json() == {"type": "play", "player": "A", "count": len(truth), "rank": rank})
        return Table(game, PLAYERS, state.apply(play).apply(rules.parse_event({"type": "challenge", "player": "B"}, PLAYERS)))
    return tables_for(game, truth)[0]


def _liars_base(dice: int) -> tuple[tuple[str, ...], State]:
    """The players of a Liar's Dice game some rounds in with ``dice`` dice in play, at most
    five each, and its state as a round starts."""
    seats = max(2, math.ceil(dice / 5))
    held = tuple(dice // seats + (k < dice % seats) for k in range(seats))
    players = PLAYERS[:seats]
    # The referee's own state type holds the dice each player has left.
    base = replace(start(GameLog("liars-dice", players)), dice=held)  # type: ignore[type-var]
    return players, base.apply(rules_for("liars-dice").parse_event({"type": "start", "opener": "A"}, players))


def scene_verdict(game: str, seed: int, truth: Sequence[Mapping[str, Any]], read: Sequence[Mapping[str, Any]]) -> str | None:
    """How the table of :func:`scene_table` judges the reading ``read`` of a scene whose pieces
    are ``truth``: "sure" or "unsure" (a verdict untouched, every piece sure or the unsure ones
    not mattering: :mod:`web.unsure`), each "... wrong" when it is not the truth's verdict, or
    "re-read"; None when the truth itself cannot be judged at such a table."""
    try:
        table = scene_table(game, truth, seed)
    except (RefereeError, StopIteration, ValueError):
        return None
    kind, want = verdict_of(table, truth)
    if want is None:
        return None
    kind, got = verdict_of(table, read)
    if got is None:
        return kind
    return kind if got == want else f"{kind} wrong"


def truth_in_play(item: LabelledImage) -> tuple[Detection, ...]:
    """The pieces a scene's verdict is about: every die in it, readable or not (a die under a
    hand is still in play), or the cards face up (a face-down card has no face)."""
    kind = "card" if item.game == "doubt" else "die"
    return tuple(o for o in item.objects if o.kind == kind and o.face)


def scene_verdicts(items: Sequence[LabelledImage], readings: Sequence[Sequence[Detection]]) -> dict[str, Any] | None:
    """The verdicts a table gives on each scene of ``items`` that names a game this referee
    plays, read as ``readings`` (one per item): the share of scenes given a verdict untouched
    (no re-read), right, and wrong, in all and by game; None when no scene names a game."""
    counts: dict[str, Counter[str]] = {}
    for item, objects in zip(items, readings, strict=True):
        if item.game not in GAMES:
            continue
        truth = from_reading(Reading(truth_in_play(item)), item.game).objects
        read = from_reading(Reading(tuple(objects)), item.game).objects
        outcome = scene_verdict(item.game, item.seed or 0, truth, read) if truth else None
        counts.setdefault(item.game, Counter())[outcome or "not judged"] += 1
    if not counts:
        return None
    by_game = {game: _shares(c) for game, c in sorted(counts.items())}
    return {**_shares(sum(counts.values(), Counter())), "by_game": by_game}


def _shares(c: Counter[str]) -> dict[str, Any]:
    """Counts of :func:`scene_verdict` outcomes as the summary :func:`scene_verdicts` gives."""
    scenes = sum(v for k, v in c.items() if k != "not judged")
    right, wrong = c["sure"] + c["unsure"], c["sure wrong"] + c["unsure wrong"]
    ratio = (lambda n: None if not scenes else n / scenes)
    return {"scenes": scenes, "untouched": right + wrong, "right": right, "wrong": wrong, "re_read": c["re-read"],
            "right_unsure": c["unsure"], "not_judged": c["not judged"], "share_untouched": ratio(right + wrong),
            "share_right": ratio(right), "share_wrong": ratio(wrong)}


def verdict_of(table: Table, objects: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    """("sure" | "unsure", the canonical outcome) or ("re-read", None) for one reading."""
    try:
        _, after, _, unsure = judge_unsure(objects, table.judge, lambda s: outcome(s.to_json()))
    except RefereeError:
        return "re-read", None
    return ("unsure" if unsure else "sure"), canonical(outcome(after.to_json()))


def score_clip(result: ClipResult) -> list[str]:
    """The outcome of each verdict one clip asks for (one per table of :func:`tables_for`)."""
    truth = from_reading(Reading(result.truth), result.game).objects
    tables = tables_for(result.game, truth)
    if result.reading is None:
        return ["unsettled"] * len(tables)
    read = from_reading(result.reading, result.game).objects
    out = []
    for table in tables:
        kind, got = verdict_of(table, read)
        if got is None:
            out.append(kind)
            continue
        _, want = verdict_of(table, truth)
        out.append(kind if got == want else f"{kind} wrong")
    return out


def report(per_game: Mapping[str, Counter[str]]) -> str:
    head = f"{'':12s}{'verdicts':>9s}" + "".join(f"{k:>14s}" for k in OUTCOMES)
    lines = [head]
    for game, counts in per_game.items():
        lines.append(f"{game:12s}{sum(counts.values()):9d}" + "".join(f"{counts.get(k, 0):14d}" for k in OUTCOMES))
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_live_arguments(parser)


def run(args: argparse.Namespace) -> int:
    played = play_all(args, "eval-verdicts")
    if played is None:
        return 2
    per_game: dict[str, Counter[str]] = {g: Counter() for g in args.games}
    reveals = []
    for result in played.results:
        outcomes = score_clip(result)
        per_game[result.game].update(outcomes)
        reveals.append({"game": result.game, "seed": result.seed, "verdicts": outcomes})
    all_games: Counter[str] = Counter()
    for counts in per_game.values():
        all_games.update(counts)
    per_game["all"] = all_games
    print(live_report(played.results))  # what tableref eval-live says of the same clips
    print(report(per_game))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        doc = {"config": run_config(args, played), "reader": played.reader.info, "seconds": played.seconds,
               "summary": {g: {k: c.get(k, 0) for k in OUTCOMES} for g, c in per_game.items()},
               "live_summary": summarise(played.results, "closer"), "reveals": reveals}
        (args.out / "verdicts.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False))
        print(f"wrote {args.out / 'verdicts.json'}")
    return 0

