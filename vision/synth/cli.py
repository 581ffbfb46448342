"""``tableref synth``: render a synthetic labelled dataset of table scenes.

    tableref synth --out data/synth --n 10000 --seed 1
    tableref synth --out data/synth-heldout --n 500 --seed 2 --heldout
    tableref synth --out data/cards --n 10000 --seed 3 --cards            # playing cards only
    tableref synth --out data/mixed --n 2000 --seed 4 --mixed             # dice and cards together
    tableref synth --out data/synth-nine --n 1200 --seed 31 --dice-sets nine  # Nine Dice only
    tableref synth --out data/cards-heldout --n 500 --seed 5 --cards --heldout
    tableref synth --out data/cards-wide --n 2400 --seed 61 --cards --wide-decks  # more fonts and court art
    tableref synth --out data/cards-pool --n 2000 --seed 181 --cards --wide-decks --font-pool  # and Debian's fonts
    tableref synth --out data/reveals-nine --n 3000 --seed 51 --reveals nine-dice --boxes-from models
                                                    # live reveal stills, labelled with the reader's boxes
    tableref synth --out data/reveals-doubt --n 3000 --seed 53 --reveals doubt --boxes-from models
                                                    # Doubt's cards, with the card detector's index boxes

See vision/synth/writer.py for the layout written and vision/synth/README.md
for what the scenes hold.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.synth import card_fonts
from vision.synth.card_layout import LAYOUTS, CardOptions
from vision.synth.card_scene import CardSceneConfig, check_config
from vision.synth.scene import MARBLED, SceneConfig
from vision.synth.sets import GAMES
from vision.synth.tables import HELDOUT_FAMILIES, TRAIN_FAMILIES
from vision.synth.writer import default_workers, write_dataset


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="output folder (created)")
    parser.add_argument("--n", type=int, required=True, help="number of images")
    parser.add_argument("--seed", type=int, default=0, help="dataset seed (image i depends only on seed and i)")
    parser.add_argument("--workers", type=int, default=default_workers(), help="worker processes (default: CPU count)")
    parser.add_argument("--heldout", action="store_true", help=f"render the held-out table families {', '.join(HELDOUT_FAMILIES)} (and, with cards, the held-out deck designs)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--cards", action="store_true", help="playing cards only (labels: one per visible corner index)")
    what.add_argument("--mixed", action="store_true", help="dice and playing cards in the same scenes")
    parser.add_argument("--layouts", help=f"with --cards or --mixed: comma-separated card layouts (default: {','.join(LAYOUTS)})")
    parser.add_argument("--wide-decks", action="store_true",
                        help="with --cards, --mixed or --reveals doubt: training decks also draw the extra index fonts and court styles "
                             "(with --cards or --mixed not with --heldout, whose decks are the held-out designs; "
                             "without it a seed renders as before they existed)")
    parser.add_argument("--font-pool", action="store_true",
                        help="with --wide-decks (--cards or --mixed): half the decks take a corner-index font from Debian's "
                             "installed fonts (vision/synth/card_fonts.py: POOL_INDEX_FONTS; their packages must be installed)")
    parser.add_argument("--families", help=f"comma-separated table families (default: {','.join(TRAIN_FAMILIES)})")
    parser.add_argument("--dice-sets", help=f"comma-separated dice sets to draw scenes from (default: all of {','.join(GAMES)})")
    parser.add_argument("--marbled", type=float, default=None, metavar="P",
                        help="share of marbled bodies among pips and Liar's dice that are not translucent "
                             f"(default {MARBLED}; more to train on the dice that read worst)")
    parser.add_argument("--wide-faces", action="store_true",
                        help="also draw dice with the training-only katakana fonts and ship's-wheel forms (vision/synth/fonts/README.md)")
    parser.add_argument("--reveals", metavar="GAMES",
                        help="comma-separated games: render reveal stills of these games (taken in turn) as the live "
                             "table's webcam sees them, a die's edge 20-46 px at 640 px wide; or doubt alone: Doubt's "
                             "1-3 revealed cards, 60-220 px tall (vision/train/reveal_stills.py)")
    parser.add_argument("--boxes-from", type=Path, metavar="MODELS",
                        help="with --reveals: after rendering, label each die (or card index) with the box this model "
                             "folder's reader draws on it (a set to train a classifier or specialist on; eval and "
                             "detector training refuse it)")
    parser.add_argument("--width", type=int, help="image width (with --height; default: random webcam sizes)")
    parser.add_argument("--height", type=int, help="image height")
    parser.add_argument("--quality", type=int, default=95, help="JPEG quality of the written images")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    if (args.width is None) != (args.height is None):
        print("tableref synth: give --width and --height together", file=sys.stderr)
        return 2
    if args.n < 1:
        print("tableref synth: --n must be at least 1", file=sys.stderr)
        return 2
    if args.heldout and args.families:
        print("tableref synth: --heldout and --families exclude each other", file=sys.stderr)
        return 2
    cards, mixed, layouts_arg = getattr(args, "cards", False), getattr(args, "mixed", False), getattr(args, "layouts", None)
    if layouts_arg and not (cards or mixed):
        print("tableref synth: --layouts needs --cards or --mixed", file=sys.stderr)
        return 2
    if getattr(args, "wide_faces", False) and (cards or getattr(args, "reveals", None)):
        print("tableref synth: --wide-faces needs dice rendered from their designs (not --cards or --reveals)", file=sys.stderr)
        return 2
    wide = getattr(args, "wide_decks", False)
    if wide and not (cards or mixed or getattr(args, "reveals", None)):
        print("tableref synth: --wide-decks needs --cards, --mixed or --reveals doubt", file=sys.stderr)
        return 2
    pool = getattr(args, "font_pool", False)
    if pool and not (wide and (cards or mixed)):
        print("tableref synth: --font-pool needs --wide-decks with --cards or --mixed", file=sys.stderr)
        return 2
    if pool and (missing := card_fonts.missing_pool_packages()):
        print("tableref synth: --font-pool needs Debian's fonts: apt-get install " + " ".join(missing), file=sys.stderr)
        return 2
    sets_arg = getattr(args, "dice_sets", None)
    if sets_arg and cards:
        print("tableref synth: --dice-sets needs dice in the scenes (not --cards)", file=sys.stderr)
        return 2
    dice_sets = tuple(s.strip() for s in sets_arg.split(",") if s.strip()) if sets_arg else None
    marbled = getattr(args, "marbled", None)
    if marbled is not None and cards:
        print("tableref synth: --marbled needs dice in the scenes (not --cards)", file=sys.stderr)
        return 2
    reveals_arg, boxes_from = getattr(args, "reveals", None), getattr(args, "boxes_from", None)
    if boxes_from is not None and not reveals_arg:
        print("tableref synth: --boxes-from needs --reveals", file=sys.stderr)
        return 2
    if reveals_arg:
        return _reveals(args, reveals_arg, boxes_from, wide)
    families = HELDOUT_FAMILIES if args.heldout else (tuple(f.strip() for f in args.families.split(",") if f.strip()) if args.families else None)
    layouts = tuple(s.strip() for s in layouts_arg.split(",") if s.strip()) if layouts_arg else None
    config: SceneConfig | CardSceneConfig
    if cards:
        config = CardSceneConfig(width=args.width, height=args.height, table_families=families, heldout=args.heldout, layouts=layouts,
                                 wide_decks=wide, font_pool=pool)
    else:
        card_options = CardOptions(layouts=layouts, heldout=args.heldout, wide_decks=wide, font_pool=pool) if mixed else None
        config = SceneConfig(width=args.width, height=args.height, table_families=families, cards=card_options, dice_sets=dice_sets,
                             marbled=MARBLED if marbled is None else marbled, wide_faces=bool(getattr(args, "wide_faces", False)))
    try:
        from vision.synth.scene import _check

        if isinstance(config, CardSceneConfig):
            check_config(config)
        else:
            _check(config)
    except ValueError as err:
        print(f"tableref synth: {err}", file=sys.stderr)
        return 2
    rate = write_dataset(args.out, args.n, args.seed, config, workers=max(1, args.workers), quality=args.quality, progress=not args.quiet)
    print(f"tableref synth: wrote {args.n} images to {args.out} ({rate:.2f} images/s)", file=sys.stderr)
    return 0


def _reveals(args: argparse.Namespace, reveals_arg: str, boxes_from: Path | None, wide_decks: bool) -> int:
    """``--reveals``: reveal stills (and with ``--boxes-from``, the reader's boxes on them)."""
    from vision.train.reveal_stills import RevealConfig

    given = {flag: getattr(args, flag[2:].replace("-", "_"), None) for flag in
             ("--cards", "--mixed", "--layouts", "--families", "--dice-sets", "--marbled")}
    clash = [flag for flag, value in given.items() if value is not None and value is not False]
    if clash:
        print(f"tableref synth: --reveals draws the games' own dice (or cards) on the demo's tables; leave out {', '.join(clash)}",
              file=sys.stderr)
        return 2
    games = tuple(g.strip() for g in reveals_arg.split(",") if g.strip())
    size = {} if args.width is None else {"width": args.width, "height": args.height}
    try:
        config = RevealConfig(games=games, heldout=args.heldout, wide_decks=wide_decks, **size)
    except ValueError as err:
        print(f"tableref synth: {err}", file=sys.stderr)
        return 2
    reader = None
    if boxes_from is not None:  # load it first: a bad model folder should fail before minutes of rendering
        from vision.read.backends import BackendUnavailable
        from vision.read.manifest import ManifestError
        from vision.read.reader import load_reader

        try:
            reader = load_reader(boxes_from, cards=config.kind == "card")
            if config.kind == "card" and reader.cards is None:
                raise ValueError("it has no card reader (card-reader.json), and Doubt's stills are labelled with corner indices")
        except (ManifestError, BackendUnavailable, ValueError) as err:
            print(f"tableref synth: --boxes-from {boxes_from}: {err}", file=sys.stderr)
            return 2
    rate = write_dataset(args.out, args.n, args.seed, config, workers=max(1, args.workers), quality=args.quality, progress=not args.quiet)
    print(f"tableref synth: wrote {args.n} reveal stills to {args.out} ({rate:.2f} images/s)", file=sys.stderr)
    if reader is not None:
        from vision.train.reader_boxes import use_reader_boxes

        use_reader_boxes(Path(args.out), reader, boxes_from, progress=not args.quiet)
    return 0
