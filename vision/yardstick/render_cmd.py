"""``tableref yardstick render``: render the yardstick's scenes and their labels, resumably.

Writes OUT/<split>/images/<scene>.png and OUT/<split>/labels.jsonl (each line a labels line of
docs/teach.md, with the visibility, readability and corner-index fields :mod:`vision.yardstick.scene`
adds). Each scene's label is
first written alone (OUT/<split>/labels/<scene>.json, atomically) and labels.jsonl is re-assembled
from those after every scene, so an interrupted run loses at most the scene in progress and a rerun
skips every scene whose image and label both exist.

Needs the ``render`` extra (bpy, Python 3.11) and Debian's Japanese fonts; without them it exits 2
with a one-line reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .designs import ALL_DESIGNS, TRAIN_DESIGNS, DeckDesign
from .fonts import CARD_GLYPHS, KATAKANA, FontMissing, font_path
from .splits import SceneSpec, all_splits, split_scenes, teach_splits

DEFAULT_SAMPLES = 6  # with OpenImageDenoise: about 3 s a 640x480 scene on 2 cores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="yardstick_command", metavar="ACTION", required=True)
    render = sub.add_parser("render", help="render the yardstick scenes (Blender/Cycles on the CPU)")
    render.add_argument("--out", type=Path, default=Path("runs/yardstick"), help="output folder")
    render.add_argument("--split", default="val",
                        help="val, test, teach (every teach-<design> split), all (those three), train (the "
                             "training designs' scenes), or one teach-<design>")
    render.add_argument("--limit", type=int, default=None, help="render at most N new scenes per split")
    render.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="Cycles samples per pixel")
    render.add_argument("--threads", type=int, default=2, help="CPU threads for Cycles")


def _splits(name: str) -> list[str]:
    if name == "all":
        return all_splits()
    if name == "teach":
        return teach_splits()
    if name in all_splits() or name == "train":
        return [name]
    raise ValueError(f"unknown split {name!r} (val, test, teach, all, train or one of teach-<design>)")


def _check_fonts(split_names: list[str]) -> None:
    wanted = {s.design for n in split_names for s in split_scenes(n)}
    for d in ALL_DESIGNS + TRAIN_DESIGNS:
        if d.id not in wanted:
            continue
        if isinstance(d, DeckDesign):
            font_path(d.index_font, CARD_GLYPHS)
        elif d.font:
            font_path(d.font, KATAKANA)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def assemble(split_dir: Path, scenes: list[SceneSpec]) -> int:
    """Rewrite labels.jsonl from the per-scene labels present, in scene order; returns the line count."""
    lines = []
    for spec in scenes:
        one = split_dir / "labels" / f"{spec.scene_id}.json"
        if one.is_file() and (split_dir / "images" / f"{spec.scene_id}.png").is_file():
            lines.append(json.dumps(json.loads(one.read_text(encoding="utf-8")), ensure_ascii=False))
    _atomic_write(split_dir / "labels.jsonl", "".join(line + "\n" for line in lines))
    return len(lines)


def run(args: argparse.Namespace) -> int:
    try:
        names = _splits(args.split)
        _check_fonts(names)
        from . import scene  # imports bpy
    except (ValueError, FontMissing) as exc:
        print(f"yardstick: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"yardstick: bpy is not importable ({exc}); install the render extra on Python 3.11: "
              "pip install -e '.[render]'", file=sys.stderr)
        return 2
    for name in names:
        scenes = split_scenes(name)
        split_dir = args.out / name
        (split_dir / "labels").mkdir(parents=True, exist_ok=True)
        todo = [s for s in scenes if not ((split_dir / "images" / f"{s.scene_id}.png").is_file()
                                          and (split_dir / "labels" / f"{s.scene_id}.json").is_file())]
        done = len(scenes) - len(todo)
        if args.limit is not None:
            todo = todo[: args.limit]
        print(f"{name}: {done} of {len(scenes)} scenes already rendered, {len(todo)} to render", flush=True)
        spent = 0.0
        for k, spec in enumerate(todo, 1):
            t0 = time.monotonic()
            label = scene.render_scene(spec, split_dir / "images" / f"{spec.scene_id}.png", args.samples, args.threads)
            _atomic_write(split_dir / "labels" / f"{spec.scene_id}.json", json.dumps(label, ensure_ascii=False))
            total = assemble(split_dir, scenes)
            dt = time.monotonic() - t0
            spent += dt
            print(f"{name} [{k}/{len(todo)}] {spec.scene_id} {spec.width}x{spec.height} {dt:.1f} s "
                  f"(mean {spent / k:.1f} s/scene, {total} in labels.jsonl)", flush=True)
        assemble(split_dir, scenes)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.yardstick.render_cmd")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
