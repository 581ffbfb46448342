"""The dataset writer and `tableref synth`: layout, YOLO labels, reproducibility."""

from __future__ import annotations

import json
from pathlib import Path

from vision.evaluate.datasets import renderer_of
from vision.synth.scene import RENDERER, SceneConfig
from vision.synth.writer import Progress, write_dataset
from web.cli import main


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_cli_writes_the_layout(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    rc = main(["synth", "--out", str(out), "--n", "3", "--seed", "4", "--workers", "1", "--width", "320", "--height", "240", "--quiet"])
    assert rc == 0
    for i in range(3):
        assert (out / "images" / f"{i:06d}.jpg").is_file()
        assert (out / "labels" / f"{i:06d}.txt").is_file()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["seed"] == 4 and meta["n"] == 3 and meta["version"] and meta["config"]["width"] == 320
    assert meta["renderer"] == RENDERER and renderer_of(out) == RENDERER
    anns = [json.loads(line) for line in (out / "annotations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [a["image"] for a in anns] == [f"images/{i:06d}.jpg" for i in range(3)]
    for i, a in enumerate(anns):
        assert (a["width"], a["height"]) == (320, 240)
        lines = (out / "labels" / f"{i:06d}.txt").read_text().splitlines()
        assert len(lines) == len(a["objects"])
        for line, obj in zip(lines, a["objects"]):
            cls, cx, cy, w, h = line.split()
            assert cls == "0"
            x1, y1, x2, y2 = obj["box"]
            assert abs(float(cx) * 320 - (x1 + x2) / 2) < 0.6 and abs(float(w) * 320 - (x2 - x1)) < 0.6
            assert abs(float(cy) * 240 - (y1 + y2) / 2) < 0.6 and abs(float(h) * 240 - (y2 - y1)) < 0.6
            assert obj["kind"] == "die" and obj["score"] == 1.0 and obj["face"] and obj["colour"]
    scenes = [json.loads(line) for line in (out / "scenes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(scenes) == 3 and all("camera" in s and "dice" in s for s in scenes)


def test_heldout_flag_uses_the_heldout_families(tmp_path: Path) -> None:
    out = tmp_path / "held"
    assert main(["synth", "--out", str(out), "--n", "2", "--seed", "1", "--workers", "1", "--width", "256", "--height", "192", "--heldout", "--quiet"]) == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["heldout"] and set(meta["table_families"]) == {"stone", "leather", "tiles"}
    for line in (out / "scenes.jsonl").read_text(encoding="utf-8").splitlines():
        assert json.loads(line)["heldout"]


def test_dice_sets_flag(tmp_path: Path) -> None:
    out = tmp_path / "nine"
    assert main(["synth", "--out", str(out), "--n", "2", "--seed", "5", "--workers", "1", "--width", "320", "--height", "240", "--dice-sets", "nine", "--quiet"]) == 0
    assert json.loads((out / "meta.json").read_text())["config"]["dice_sets"] == ["nine"]
    for line in (out / "scenes.jsonl").read_text(encoding="utf-8").splitlines():
        assert {d["design"] for d in json.loads(line)["dice"]} <= {"nine-a", "nine-c", "nine-x"}


def test_bad_arguments_exit_2(tmp_path: Path, capsys) -> None:
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--width", "320", "--quiet"]) == 2
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--families", "lava", "--quiet"]) == 2
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--dice-sets", "poker", "--quiet"]) == 2
    assert "unknown dice set 'poker'" in capsys.readouterr().err
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--cards", "--dice-sets", "nine", "--quiet"]) == 2
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--cards", "--marbled", "0.5", "--quiet"]) == 2
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--marbled", "2", "--quiet"]) == 2
    assert "marbled share 2.0 out of range" in capsys.readouterr().err


def test_workers_do_not_change_a_byte(tmp_path: Path) -> None:
    cfg = SceneConfig(width=256, height=192)
    write_dataset(tmp_path / "one", 4, 9, cfg, workers=1, progress=False)
    write_dataset(tmp_path / "two", 4, 9, cfg, workers=2, progress=False)
    assert _files(tmp_path / "one") == _files(tmp_path / "two")


def test_progress_line() -> None:
    import io

    buf = io.StringIO()
    bar = Progress(4, stream=buf, width=8)
    for _ in range(4):
        bar.update()
    text = buf.getvalue()
    assert "4/4 [########]" in text and text.endswith("\n") and "img/s" in text


def test_sets_written_before_the_renderer_stamp_read_as_renderer_1(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    (old / "meta.json").write_text(json.dumps({"version": "1.0", "seed": 1, "rng": "image i uses ..."}))
    assert renderer_of(old) == 1
    photos = tmp_path / "photos"  # a YOLO set of photos has no renderer
    photos.mkdir()
    assert renderer_of(photos) is None
    (photos / "meta.json").write_text("not json")
    assert renderer_of(photos) is None
