"""``tableref yardstick render`` without Blender: resuming, label assembly and its one-line errors."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from PIL import Image

from vision.yardstick import fonts, render_cmd
from vision.yardstick.splits import SceneSpec, split_scenes


def _fake_scene(calls: list[str]) -> types.ModuleType:
    mod = types.ModuleType("vision.yardstick.scene")

    def render_scene(spec: SceneSpec, image_path: Path, samples: int, threads: int = 2) -> dict:
        calls.append(spec.scene_id)
        image_path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (spec.width, spec.height)).save(image_path)
        return {"image": f"images/{image_path.name}", "scene": spec.scene_id, "objects": []}

    mod.render_scene = render_scene  # type: ignore[attr-defined]
    return mod


def test_render_resumes_and_keeps_labels_in_scene_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setitem(sys.modules, "vision.yardstick.scene", _fake_scene(calls))
    import vision.yardstick as pkg

    monkeypatch.setattr(pkg, "scene", sys.modules["vision.yardstick.scene"], raising=False)
    argv = ["render", "--out", str(tmp_path), "--split", "val", "--limit", "2"]
    assert render_cmd.main(argv) == 0
    assert render_cmd.main(argv) == 0
    ids = [s.scene_id for s in split_scenes("val")]
    assert calls == ids[:4]  # the second run skipped the two already there
    (tmp_path / "val" / "images" / f"{ids[1]}.png").unlink()  # a lost image is rendered again
    assert render_cmd.main(argv) == 0
    assert calls[4:] == [ids[1], ids[4]]
    lines = (tmp_path / "val" / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["scene"] for line in lines] == ids[:5]


def test_missing_bpy_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "bpy", None)
    monkeypatch.delitem(sys.modules, "vision.yardstick.scene", raising=False)
    import vision.yardstick as pkg

    monkeypatch.delattr(pkg, "scene", raising=False)
    assert render_cmd.main(["render", "--out", str(tmp_path), "--split", "test", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bpy" in err


def test_missing_font_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    key = "konatu"
    monkeypatch.setitem(fonts.FONTS, key, fonts.FontSpec(key, str(tmp_path / "none.ttf"), "fonts-konatu"))
    fonts.font_path.cache_clear()
    try:
        assert render_cmd.main(["render", "--out", str(tmp_path), "--split", "test"]) == 2
    finally:
        fonts.font_path.cache_clear()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fonts-konatu" in err


def test_unknown_split_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert render_cmd.main(["render", "--out", str(tmp_path), "--split", "nope"]) == 2
    assert "unknown split" in capsys.readouterr().err
