"""Close-up and wide photos made from a large synthetic render: dice far larger or smaller in the frame.

The renderer's camera stands 35-80 cm above the table, so its dice are 3-8 % of the
frame. A phone held over a few dice sees them far larger. Rendering at 2560×1920 and
keeping a window of a quarter of the frame gives such a close-up, with the detail a
sensor of that size records, not an enlargement::

    tableref synth --out data/hires-val --n 120 --seed 11 --width 2560 --height 1920
    python -m vision.synth.closeups data/hires-val --out data/closeups-val --zoom 4
    python -m vision.synth.closeups data/hires-val --out data/wide-val --mosaic   # the other way

``--mosaic`` sets four scenes side by side instead: a wide photo, 5120×3840, whose dice
are half as large in the frame (2-3.5 % of its width).

Each scene's window is centred on the first labelled object it can hold whole without
cutting another one at its edge; a scene without such a window is left out, so every
labelled object in a close-up is whole and every whole one is labelled. Unlabelled dice
(hidden up faces) stay unlabelled, as in the render.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.evaluate.datasets import ANNOTATIONS

Box = Sequence[float]


def window_for(boxes: Sequence[Box], width: int, height: int, zoom: float) -> tuple[int, int, int, int] | None:
    """``(x0, y0, w, h)``: a ``1/zoom`` window of the frame centred (as far as the frame
    allows) on the first box it holds whole while cutting none; None if there is none.

    >>> window_for([(10, 10, 20, 20), (45, 45, 60, 60)], 100, 100, 2.0)  # the first one's would cut the second
    (27, 27, 50, 50)
    >>> window_for([(30, 30, 60, 60)], 100, 100, 4.0) is None  # too large for a quarter
    True
    """
    if zoom < 1.0:
        raise ValueError(f"zoom must be at least 1, got {zoom}")
    w, h = int(width / zoom), int(height / zoom)
    for b in boxes:
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        x0 = int(np.clip(cx - w / 2, 0, width - w))
        y0 = int(np.clip(cy - h / 2, 0, height - h))
        inside = [_inside(o, x0, y0, w, h) for o in boxes]
        clear = all(i or _outside(o, x0, y0, w, h) for i, o in zip(inside, boxes))
        if any(inside) and clear:
            return x0, y0, w, h
    return None


def _inside(b: Box, x0: int, y0: int, w: int, h: int) -> bool:
    return b[0] >= x0 and b[1] >= y0 and b[2] <= x0 + w and b[3] <= y0 + h


def _outside(b: Box, x0: int, y0: int, w: int, h: int) -> bool:
    return b[2] <= x0 or b[0] >= x0 + w or b[3] <= y0 or b[1] >= y0 + h


def write_close_ups(src: Path, out: Path, zoom: float, quality: int = 92) -> tuple[int, int]:
    """Cut a close-up from each scene of the synthetic set ``src`` into ``out`` (images and
    ``annotations.jsonl``); returns (scenes written, scenes left out)."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    scenes = _scenes(src)
    rows = []
    for scene in scenes:
        win = window_for([o["box"] for o in scene["objects"]], int(scene["width"]), int(scene["height"]), zoom)
        if win is None:
            continue
        x0, y0, w, h = win
        name = "images/" + Path(scene["image"]).name
        jpeg = name.lower().endswith((".jpg", ".jpeg"))
        crop = _image(src, scene)[y0:y0 + h, x0:x0 + w]
        cv2.imwrite(str(out / name), crop, [cv2.IMWRITE_JPEG_QUALITY, quality] if jpeg else [])
        objects = [_moved(o, -x0, -y0) for o in scene["objects"] if _inside(o["box"], x0, y0, w, h)]
        rows.append(dict(scene, image=name, width=w, height=h, objects=objects))
    _write_annotations(out, rows)
    return len(rows), len(scenes) - len(rows)


def write_mosaics(src: Path, out: Path, quality: int = 92) -> int:
    """Set four scenes of ``src`` side by side (2 × 2) into one photo, four at a time, into
    ``out``: a wide photo whose dice are half as large in the frame. Returns the photos
    written (a last group of fewer than four scenes is left out)."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    scenes = _scenes(src)
    rows = []
    for k in range(len(scenes) // 4):
        group = scenes[4 * k: 4 * k + 4]
        w, h = int(group[0]["width"]), int(group[0]["height"])
        if any((int(g["width"]), int(g["height"])) != (w, h) for g in group):
            raise ValueError(f"{src}: a mosaic needs scenes of one size (render with --width and --height)")
        canvas = np.zeros((2 * h, 2 * w, 3), np.uint8)
        objects = []
        for q, scene in enumerate(group):
            ox, oy = (q % 2) * w, (q // 2) * h
            canvas[oy:oy + h, ox:ox + w] = _image(src, scene)
            objects += [_moved(o, ox, oy) for o in scene["objects"]]
        name = f"images/m{k:04d}.jpg"
        cv2.imwrite(str(out / name), canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])
        rows.append({"image": name, "width": 2 * w, "height": 2 * h, "objects": objects})
    _write_annotations(out, rows)
    return len(rows)


def _scenes(src: Path) -> list[dict]:
    lines = (src / ANNOTATIONS).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _image(src: Path, scene: dict) -> np.ndarray:
    image = cv2.imread(str(src / scene["image"]), cv2.IMREAD_COLOR)
    if image is None:
        raise OSError(f"cannot read {src / scene['image']}")
    return image


def _moved(obj: dict, dx: float, dy: float) -> dict:
    x0, y0, x1, y1 = obj["box"]
    return dict(obj, box=[x0 + dx, y0 + dy, x1 + dx, y1 + dy])


def _write_annotations(out: Path, rows: list[dict]) -> None:
    with open(out / ANNOTATIONS, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.synth.closeups", description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="a tableref synth set, best rendered large (--width 2560 --height 1920)")
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--zoom", type=float, default=4.0, help="the window is 1/zoom of the frame each way (default 4)")
    parser.add_argument("--mosaic", action="store_true",
                        help="instead, set four scenes side by side in each photo (a wide photo: dice half as large)")
    args = parser.parse_args(argv)
    if not (args.src / ANNOTATIONS).is_file():
        parser.error(f"{args.src} is not a tableref synth set (no {ANNOTATIONS})")
    if args.mosaic:
        print(f"wrote {write_mosaics(args.src, args.out)} wide photos to {args.out}")
        return 0
    written, skipped = write_close_ups(args.src, args.out, args.zoom)
    print(f"wrote {written} close-ups to {args.out} ({skipped} scenes had no window that cuts no die)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
