"""``tableref eval-live``: how often a settled live reveal is read right, on rendered clips.

Per-image scores (``tableref eval``) say how often one die is read right; a table cares
about the whole reveal, read over the frames a webcam sends while dice land and lie
still. This plays rendered reveals through exactly what ``tableref serve`` runs: each
clip (:func:`vision.demo.table.make_clip`: the empty table, dice rolling in, then the still
scene with fresh sensor noise on every frame) is read frame by frame with the game's
vocabulary, the :class:`~vision.live.settle.Settler` decides the reveal, and the closer look
(:func:`vision.live.pipeline.look_closer`) re-decides it. Each settled reveal then counts as:

- ``right``: every die in play found, read right and sure - the referee can rule;
- ``re-read``: the count is right and nothing sure is wrong, but some die is uncertain;
- ``count``: the reader settled on another number of dice than are in play (the
  referee asks for a re-read, whatever the faces);
- ``wrong``: the count is right and a die is read wrongly while sure (on Nine Dice a
  wrong colour counts: words depend on it) - the failure that matters most;
- ``unsettled``: the still scene never settled.

Scenes are the demo's (:func:`vision.demo.table.demo_scene_config`); ``--tables heldout`` puts
them on table families never trained on and ``--die-px`` sets the dice size. Both the
frames' vote alone and the vote after the closer look are scored, on the same frames.

``--games doubt`` plays Doubt reveals instead: 1-3 cards turned face up in a row
(:func:`vision.demo.table.demo_card_config`; ``--card-px`` sets their height), read as a Doubt
table reads them (cards only, the card detector at its live input, or ``--card-imgsz``).
Cards are scored by face, as the referee uses them (one deck: the set of cards is the
reveal). Their closer look reads the settled frame again with the card detector at the
frame's own size (:func:`vision.live.pipeline.look_closer_at_cards`).

    tableref eval-live --n 60 --seed 1000
    tableref eval-live --n 60 --seed 2000 --tables heldout --die-px 22 34 --out runs/live
    tableref eval-live --n 60 --games doubt --card-px 90 130 --card-imgsz 512
    tableref eval-live --n 60 --seed 1000 --camera warm
    tableref eval-live --n 60 --seed 1000 --models runs/X-models --against runs/live/live-metrics.json

The report ends with the pieces handed to the table unsure, counted by the face in play
(:func:`unsure_by_face`). ``--out`` writes each reveal's outcome and, per piece in play,
what the table was handed for it (:func:`piece_records`).

``--against`` compares the run with an earlier one on the same clips, reveal by reveal
(:mod:`vision.evaluate.live_compare`): two training seeds of one recipe can play 120 clips 5 apart,
so the totals alone do not tell two readers apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.read.backends import BACKENDS, PRECISIONS, BackendUnavailable
from vision.synth.camera_shifts import NAMES as CAMERA_NAMES, CameraShift
from vision.demo.table import DEMO_TABLES, GAMES, REVEALS, card_pieces, demo_card_config, demo_scene_config, make_clip
from vision.read.detections import Detection, Reading
from vision.evaluate.live_compare import LiveCompareError, compare_reveals, load_earlier, report_comparison
from vision.read.manifest import ManifestError
from vision.live.pipeline import closer_reader, doubt_foreign, look_closer, look_closer_at_cards
from vision.read.reader import DiceReader, load_reader
from vision.evaluate.scoring import match_detections
from vision.live.settle import SettleConfig, SettledReading, Settler
from vision.synth.card_scene import render_card_scene
from vision.synth.scene import render_scene
from vision.synth.tables import HELDOUT_FAMILIES
from vision.read.vocabulary import game_vocabulary, plain_colour

OUTCOMES = ("right", "re-read", "count", "wrong", "unsettled")
LIVE_GAMES = (*GAMES, "doubt")
TABLES = {"demo": DEMO_TABLES, "heldout": HELDOUT_FAMILIES}


@dataclass(frozen=True)
class ClipSpec:
    """How the clips are made: frame rate, frames of each phase, sensor noise, and the
    camera the frames come through (a :class:`~vision.synth.camera_shifts.CameraShift` name;
    None: as rendered)."""

    fps: float = 15.0
    size: tuple[int, int] = (640, 480)
    empty: int = 6
    rolling: int = 8
    hold: int = 24
    noise_sigma: float = 2.5
    camera: str | None = None


@dataclass(frozen=True)
class DiceScore:
    """One settled reveal against the truth (dice, or a Doubt reveal's cards)."""

    outcome: str
    dice: int  # in play (cards, for Doubt)
    found: int  # matched to a die in play
    right: int  # matched, face (and colour where it counts) right
    uncertain: int  # flagged uncertain
    sure_wrong: int  # sure and wrong, or sure and no die in play at all

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _outcome(read: int, in_play: int, found: int, uncertain: int, sure_wrong: int) -> str:
    """The count goes first (no verdict on another number of pieces), then a sure mistake,
    then anything uncertain or not found."""
    if read != in_play:
        return "count"
    if sure_wrong:
        return "wrong"
    if uncertain or found < in_play:
        return "re-read"
    return "right"


def score_reveal(settled: SettledReading | None, truth: Sequence[Detection], colour_counts: bool) -> DiceScore:
    """How a settled reveal compares with the dice in play (see the module doc).

    >>> from vision.read.detections import Reading
    >>> die = Detection("die", "5", "white", (0, 0, 10, 10), 0.9)
    >>> s = SettledReading(Reading((die,)), (), frame_index=0, t=0.0, frames=5, seq=1)
    >>> score_reveal(s, [die], colour_counts=True).outcome
    'right'
    >>> score_reveal(s, [Detection("die", "6", "white", (0, 0, 10, 10), 1.0)], colour_counts=True).outcome
    'wrong'
    """
    if settled is None:
        return DiceScore("unsettled", len(truth), 0, 0, 0, 0)
    dice = settled.reading.dice()
    pairs = match_detections(truth, dice)
    right = uncertain = sure_wrong = 0
    for ti, di in pairs:
        t, d = truth[ti], dice[di]
        ok = d.face == t.face and (not colour_counts or d.colour == plain_colour(t.colour))
        right += ok
        uncertain += d.uncertain
        sure_wrong += (not ok) and not d.uncertain
    matched = {di for _, di in pairs}
    strays = [d for k, d in enumerate(dice) if k not in matched]
    sure_wrong += sum(not d.uncertain for d in strays)  # a sure reading of no die in play is wrong too
    uncertain += sum(d.uncertain for d in strays)
    outcome = _outcome(len(dice), len(truth), len(pairs), uncertain, sure_wrong)
    return DiceScore(outcome, len(truth), len(pairs), right, uncertain, sure_wrong)


def score_cards(settled: SettledReading | None, truth: Sequence[Detection]) -> DiceScore:
    """How a settled Doubt reveal compares with the cards turned up, by face: Doubt is
    played with one deck, so the referee needs the set of cards, not where each lies (a
    card read from one corner, or two corners of neighbouring cards merged, has a box
    unlike the card's). The outcomes are :func:`score_reveal`'s: ``count`` when another
    number of cards is read, ``wrong`` when a sure card is not among those turned up,
    ``re-read`` when one is uncertain, else ``right``. ``found`` and ``right`` count the
    cards turned up whose face was read (sure or not).

    >>> from vision.read.detections import Reading
    >>> card = Detection("card", "QS", None, (0, 0, 50, 80), 1.0)
    >>> corner = Detection("card", "QS", None, (2, 2, 12, 20), 0.9)
    >>> s = SettledReading(Reading((corner,)), (), frame_index=0, t=0.0, frames=5, seq=1)
    >>> score_cards(s, [card]).outcome
    'right'
    >>> score_cards(s, [Detection("card", "QC", None, (0, 0, 50, 80), 1.0)]).outcome
    'wrong'
    """
    if settled is None:
        return DiceScore("unsettled", len(truth), 0, 0, 0, 0)
    cards = settled.reading.cards()
    faces = {t.face for t in truth}
    found = len(faces & {c.face for c in cards})
    uncertain = sum(c.uncertain for c in cards)
    sure_wrong = sum(not c.uncertain and c.face not in faces for c in cards)
    outcome = _outcome(len(cards), len(truth), found, uncertain, sure_wrong)
    return DiceScore(outcome, len(truth), found, found, uncertain, sure_wrong)


@dataclass(frozen=True, eq=False)
class ClipResult:
    game: str
    seed: int
    vote: DiceScore
    closer: DiceScore
    frames_to_settle: int | None
    closer_ms: float
    # What the table is handed (the settled reading after the closer look; None: unsettled)
    # and the pieces in play, for judging the reveal as a table would (web.verdict_eval).
    reading: Reading | None = None
    truth: tuple[Detection, ...] = ()


def clip_frames(rng: np.random.Generator, clip: Any, spec: ClipSpec) -> Iterator[np.ndarray]:
    """The frames a webcam would send: empty table, dice rolling in, the still scene held
    (every frame with fresh noise), through ``spec.camera``."""
    frames = [clip.empty] * spec.empty + list(clip.rolling) + [clip.still] * spec.hold
    camera = None if spec.camera is None else CameraShift(spec.camera)
    for frame in frames:
        noise = rng.normal(0.0, spec.noise_sigma, frame.shape)
        noisy = np.clip(frame.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        yield noisy if camera is None else camera.apply(noisy)


def play_clip(
    reader: DiceReader, game: str, seed: int, spec: ClipSpec, tables: Sequence[str],
    die_px: tuple[float, float] | None, settle: SettleConfig, card_px: tuple[float, float] | None = None,
) -> ClipResult:
    """Render one reveal of ``game`` from ``seed`` and read it as the live table does: the
    dice with the game's vocabulary and no card stages, or for Doubt the cards alone."""
    rng = np.random.default_rng(seed)
    specs = REVEALS[game](rng)
    if game == "doubt":
        scene = render_card_scene(rng, demo_card_config(specs, spec.size, tables, card_px))  # type: ignore[arg-type]
        clip = make_clip(rng, game, specs, scene, spec.rolling, card_pieces(scene))
        live, closer, kind = reader, None, "card"  # as serve reads a Doubt table
        vocabulary = None
    else:
        scene = render_scene(rng, demo_scene_config(specs, spec.size, tables, die_px))  # type: ignore[arg-type]
        clip = make_clip(rng, game, specs, scene, spec.rolling)
        vocabulary = game_vocabulary(game)
        live = reader.without_cards().with_vocabulary(vocabulary)
        closer, kind = closer_reader(live), "die"
    settler = Settler(settle)
    settled = None
    settled_at = None
    for k, frame in enumerate(clip_frames(rng, clip, spec)):
        reading = live.read(frame)
        if any(o.kind != kind for o in reading.objects):  # the table takes only its own game's objects
            reading = replace(reading, objects=tuple(o for o in reading.objects if o.kind == kind))
        got = settler.update(doubt_foreign(reading, vocabulary), index=k, t=k / spec.fps, image=frame)
        if got is not None and k >= spec.empty + spec.rolling:
            settled, settled_at = got, k - spec.empty - spec.rolling + 1
            break
    t0 = time.perf_counter()
    if settled is None:
        looked = None
    elif game == "doubt":
        looked = look_closer_at_cards(live, settled)
    else:
        looked = look_closer(closer, settled, settle)
    ms = (time.perf_counter() - t0) * 1000
    if game == "doubt":
        vote, after = score_cards(settled, clip.objects), score_cards(looked, clip.objects)
    else:
        colour_counts = game == "nine-dice"
        vote, after = score_reveal(settled, clip.objects, colour_counts), score_reveal(looked, clip.objects, colour_counts)
    return ClipResult(game, seed, vote, after, settled_at, ms, None if looked is None else looked.reading,
                      tuple(clip.objects))


def _read(d: Detection) -> dict[str, Any]:
    return {"face": d.face, "colour": d.colour, "score": round(d.score, 3), "uncertain": d.uncertain}


def piece_records(result: ClipResult) -> dict[str, Any]:
    """What the table was handed for each piece in play (after the closer look), and what it
    was handed that is no piece in play: dice paired by box as :func:`score_reveal` pairs
    them, cards by face as :func:`score_cards` does. ``px`` is a die's width in the frame.
    Written to ``live-metrics.json`` so that why a reveal was re-read can be looked up.

    >>> truth = (Detection("die", "ブ", "blue", (0, 0, 30, 30), 1.0), Detection("die", "2", "white", (50, 0, 80, 30), 1.0))
    >>> read = Reading((Detection("die", "プ", "blue", (1, 0, 31, 30), 0.61, uncertain=True),))
    >>> rec = piece_records(ClipResult("nine-dice", 1, None, None, 5, 0.0, read, truth))  # type: ignore[arg-type]
    >>> rec["in_play"][0]["read"]["face"], rec["in_play"][1]["read"], rec["strays"]
    ('プ', None, [])
    """
    def piece(t: Detection, read: Detection | None) -> dict[str, Any]:
        where = {} if t.kind == "card" else {"colour": t.colour, "px": round(t.box[2] - t.box[0], 1)}
        return {"face": t.face, **where, "read": None if read is None else _read(read)}

    if result.reading is None:
        return {"in_play": [piece(t, None) for t in result.truth], "strays": []}
    if result.game == "doubt":
        cards = result.reading.cards()
        first: dict[str, int] = {}
        for k, c in enumerate(cards):
            first.setdefault(c.face, k)  # one deck: a face read twice is one card and a stray
        faces = {t.face for t in result.truth}
        return {
            "in_play": [piece(t, cards[first[t.face]] if t.face in first else None) for t in result.truth],
            "strays": [_read(c) for k, c in enumerate(cards) if c.face not in faces or first[c.face] != k],
        }
    dice = result.reading.dice()
    pairs = dict(match_detections(result.truth, dice))
    paired = set(pairs.values())
    return {
        "in_play": [piece(t, dice[pairs[k]] if k in pairs else None) for k, t in enumerate(result.truth)],
        "strays": [{**_read(d), "px": round(d.box[2] - d.box[0], 1)} for k, d in enumerate(dice) if k not in paired],
    }


def unsure_by_face(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """For each face in play, how many of its pieces were handed to the table unsure, and
    how many of those were read right all the same (``records``: :func:`piece_records`
    of each reveal), most unsure first.

    >>> rec = {"in_play": [{"face": "ブ", "read": {"face": "ブ", "uncertain": True}},
    ...                    {"face": "ブ", "read": {"face": "プ", "uncertain": True}},
    ...                    {"face": "2", "read": {"face": "2", "uncertain": False}}], "strays": []}
    >>> unsure_by_face([rec])
    {'ブ': {'unsure': 2, 'read_right': 1}}
    """
    out: dict[str, dict[str, int]] = {}
    for rec in records:
        for piece in rec["in_play"]:
            read = piece["read"]
            if read is not None and read["uncertain"]:
                n = out.setdefault(piece["face"], {"unsure": 0, "read_right": 0})
                n["unsure"] += 1
                n["read_right"] += read["face"] == piece["face"]
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["unsure"], kv[0])))


def summarise(results: Sequence[ClipResult], which: str) -> dict[str, Any]:
    """Outcome counts and per-die totals of ``which`` ("vote" or "closer") over ``results``."""
    scores = [getattr(r, which) for r in results]
    outcomes = Counter(s.outcome for s in scores)
    dice = sum(s.dice for s in scores)
    found = sum(s.found for s in scores)
    return {
        "reveals": len(scores),
        **{k: outcomes.get(k, 0) for k in OUTCOMES},
        "dice": dice,
        "found": found,
        "dice_right": sum(s.right for s in scores),
        "uncertain": sum(s.uncertain for s in scores),
        "sure_wrong": sum(s.sure_wrong for s in scores),
        "right_pct": round(100 * sum(s.right for s in scores) / found, 2) if found else None,
    }


def report(results: Sequence[ClipResult]) -> str:
    games = sorted({r.game for r in results}, key=lambda g: LIVE_GAMES.index(g) if g in LIVE_GAMES else 9)
    head = f"{'':24s}{'reveals':>8s}" + "".join(f"{k:>10s}" for k in OUTCOMES) + f"{'dice':>7s}{'unsure':>8s}{'wrong':>7s}"
    lines = [head]
    for group in [*games, "all"]:
        rs = [r for r in results if group in ("all", r.game)]
        for which, label in (("vote", "frames' vote"), ("closer", "+ closer look")):
            s = summarise(rs, which)
            lines.append(
                f"{group + ' ' + label:24s}{s['reveals']:8d}" + "".join(f"{s[k]:10d}" for k in OUTCOMES)
                + f"{s['dice']:7d}{s['uncertain']:8d}{s['sure_wrong']:7d}"
            )
    ms = sorted(r.closer_ms for r in results if r.vote.outcome != "unsettled")
    if ms:
        lines.append(f"closer look: median {ms[len(ms) // 2]:.1f} ms, max {ms[-1]:.1f} ms per settled reveal")
    unsure = unsure_by_face([piece_records(r) for r in results])
    if unsure:
        lines.append("unsure after the closer look, by the face in play (read right all the same): "
                     + ", ".join(f"{face} {n['unsure']} ({n['read_right']})" for face, n in unsure.items()))
    return "\n".join(lines)


def add_clip_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say which clips are played and by which reader (shared with eval-verdicts)."""
    parser.add_argument("--n", type=int, default=60, help="reveals to play (default 60, cycling over the games)")
    parser.add_argument("--seed", type=int, default=1000, help="seed of the first reveal; reveal k uses seed + k")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=LIVE_GAMES, metavar="GAME",
                        help=f"games to cycle over: {', '.join(LIVE_GAMES)} (default: {' '.join(GAMES)}; "
                             "doubt plays card reveals and needs the card model)")
    parser.add_argument("--tables", choices=sorted(TABLES), default="demo",
                        help="table families: the demo's, or ones never trained on (default demo)")
    parser.add_argument("--die-px", type=float, nargs=2, default=None, metavar=("MIN", "MAX"),
                        help="die size in px at 640 wide (default: the demo's, 30-44)")
    parser.add_argument("--card-px", type=float, nargs=2, default=None, metavar=("MIN", "MAX"),
                        help="Doubt: card height in px at 640 wide (default: the demo's, 160-220)")
    parser.add_argument("--size", type=int, nargs=2, default=None, metavar=("W", "H"),
                        help="frame size of the clips (default 640 480); dice and cards keep their size "
                             "relative to the frame's width, as one camera at a higher resolution sees them")
    parser.add_argument("--card-imgsz", type=int, default=None, metavar="N",
                        help="Doubt: card detector input size (default: the card model's live size)")
    parser.add_argument("--camera", choices=CAMERA_NAMES, default=None,
                        help="play the clips as another camera would send them (see vision/synth/camera_shifts.py)")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="model folder (default: models/)")
    parser.add_argument("--backend", choices=("auto", *BACKENDS), default="auto")
    parser.add_argument("--precision", choices=PRECISIONS, default="auto")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR", help="write live-metrics.json here")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_clip_arguments(parser)
    parser.add_argument("--against", type=Path, default=None, metavar="JSON",
                        help="an earlier run's live-metrics.json on the same clips (the same --n, --seed, games, "
                             "tables and sizes): list the reveals whose outcome changed, and how many are right "
                             "with one reader only")


@dataclass(frozen=True, eq=False)
class Played:
    """The clips of one ``eval-live`` run, and how they were made."""

    results: tuple[ClipResult, ...]
    reader: DiceReader
    spec: ClipSpec
    settle: SettleConfig
    seconds: float


def clip_spec(args: argparse.Namespace) -> ClipSpec:
    """How the clips' frames are made: the demo's, at ``--size`` and through ``--camera``."""
    spec = ClipSpec()
    if args.size is not None:
        spec = replace(spec, size=(int(args.size[0]), int(args.size[1])))
    if args.camera is not None:
        spec = replace(spec, camera=args.camera)
    return spec


def play_all(args: argparse.Namespace, command: str = "eval-live") -> Played | None:
    """Play the clips :func:`add_clip_arguments` describes; None (the reason printed) for bad options
    or a model folder that cannot be loaded."""
    if args.n < 1:
        print(f"tableref {command}: --n must be at least 1", file=sys.stderr)
        return None
    if args.die_px is not None and not 8 <= args.die_px[0] <= args.die_px[1] <= 200:
        print(f"tableref {command}: --die-px MIN MAX must satisfy 8 <= MIN <= MAX <= 200", file=sys.stderr)
        return None
    if args.card_px is not None and not 20 <= args.card_px[0] <= args.card_px[1] <= 400:
        print(f"tableref {command}: --card-px MIN MAX must satisfy 20 <= MIN <= MAX <= 400", file=sys.stderr)
        return None
    if args.size is not None and not (160 <= args.size[0] <= 3840 and 120 <= args.size[1] <= 2160):
        print(f"tableref {command}: --size W H must be within 160x120 and 3840x2160", file=sys.stderr)
        return None
    doubt = "doubt" in args.games
    try:
        reader = load_reader(args.models, backend=args.backend, precision=args.precision, cards=doubt)
        if doubt and reader.cards is None:
            raise ManifestError("--games doubt reads cards, and the model folder has no card model (card-reader.json)")
        if args.card_imgsz is not None and reader.cards is not None:
            reader = reader.with_card_imgsz(args.card_imgsz)
    except (ManifestError, BackendUnavailable, ValueError) as exc:
        print(f"tableref {command}: {exc}", file=sys.stderr)
        return None
    spec, settle = clip_spec(args), SettleConfig()
    die_px = None if args.die_px is None else (float(args.die_px[0]), float(args.die_px[1]))
    card_px = None if args.card_px is None else (float(args.card_px[0]), float(args.card_px[1]))
    results = []
    t0 = time.perf_counter()
    for k in range(args.n):
        game = args.games[k % len(args.games)]
        results.append(play_clip(reader, game, args.seed + k, spec, TABLES[args.tables], die_px, settle, card_px))
        print(f"\r{k + 1}/{args.n} reveals", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return Played(tuple(results), reader, spec, settle, round(time.perf_counter() - t0, 1))


def run_config(args: argparse.Namespace, played: Played) -> dict[str, Any]:
    """The options and reader of a run, as its JSON output records them."""
    return {**_clips(args), "card_imgsz": args.card_imgsz, "clip": played.spec.__dict__,
            "settle": played.settle.__dict__}


def _clips(args: argparse.Namespace) -> dict[str, Any]:
    """The options that decide which clips are played (what ``--against`` checks)."""
    return {"n": args.n, "seed": args.seed, "games": args.games, "tables": args.tables, "die_px": args.die_px,
            "card_px": args.card_px, "camera": args.camera}


def run(args: argparse.Namespace) -> int:
    against = getattr(args, "against", None)
    earlier = None
    if against is not None:
        try:  # before the clips are played: a wrong file should not cost the minutes they take
            earlier = load_earlier(against, {**_clips(args), "clip": clip_spec(args).__dict__})
        except LiveCompareError as exc:
            print(f"tableref eval-live: {exc}", file=sys.stderr)
            return 2
    played = play_all(args)
    if played is None:
        return 2
    results = played.results
    print(report(results))
    reveals = [{"game": r.game, "seed": r.seed, "vote": r.vote.to_json(), "closer": r.closer.to_json(),
                "frames_to_settle": r.frames_to_settle, "closer_ms": round(r.closer_ms, 2), "pieces": piece_records(r)}
               for r in results]
    comparison, status = None, 0
    if earlier is not None:
        try:
            comparison = compare_reveals(earlier, reveals)
            print(report_comparison(comparison, str(against)))
        except LiveCompareError as exc:  # an edited file; this run's own numbers are still written
            print(f"tableref eval-live: {exc}", file=sys.stderr)
            status = 2
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        out = {
            "config": run_config(args, played),
            "reader": played.reader.info,
            "seconds": played.seconds,
            "summary": {w: {g: summarise([r for r in results if g in ("all", r.game)], w) for g in [*args.games, "all"]}
                        for w in ("vote", "closer")},
            "unsure_by_face": unsure_by_face([r["pieces"] for r in reveals]),
            "reveals": reveals,
        }
        if comparison is not None:
            out["against"] = {"file": str(against), **comparison.to_json()}
        (args.out / "live-metrics.json").write_text(json.dumps(out, indent=2, ensure_ascii=False))
        print(f"wrote {args.out / 'live-metrics.json'}")
    return status
