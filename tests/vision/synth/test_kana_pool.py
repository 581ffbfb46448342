"""The katakana font pool: Debian's fonts, drawn only on wide-face training dice that ask for it,
and never a font of the yardstick's measured designs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from vision.synth import faces, kanafonts
from vision.synth.errors import BadSceneConfig
from vision.synth.scene import SceneConfig, _check, render_scene
from vision.yardstick import designs as yardstick_designs
from vision.yardstick import fonts as yardstick_fonts
from web.cli import main

KATAKANA = "プラスベガブレフカ"


def test_the_pool_shares_no_font_with_the_yardsticks_measured_designs() -> None:
    measured = [d for d in yardstick_designs.ALL_DESIGNS if d.split in ("val", "test")]
    keys = {k for d in measured for k in (getattr(d, "font", None), getattr(d, "index_font", None)) if k}
    assert keys >= {"sawarabi-gothic", "maruberi", "migu", "konatu", "sawarabi-mincho"}
    measured_files = {Path(yardstick_fonts.FONTS[k].path).name for k in keys}
    measured_packages = {yardstick_fonts.FONTS[k].package for k in keys} - {"fonts-horai-umefont"}
    for name, (path, package) in kanafonts.POOL_KANA_FONTS.items():
        assert Path(path).name not in measured_files, name
        assert package not in measured_packages, name
        # Migu's kana are M+'s, and VL Gothic's too: neither may stand in for a measured font.
        assert package not in ("fonts-mplus", "fonts-vlgothic", "fonts-komatuna"), name


def test_the_pool_is_apart_from_the_shipped_fonts() -> None:
    shipped = {p.name for p in kanafonts.WIDE_KANA_FONTS}
    assert not {p.name for p in kanafonts.POOL_KANA_PATHS} & shipped
    assert len(set(kanafonts.POOL_KANA_PATHS)) == len(kanafonts.POOL_KANA_FONTS)


def test_only_wide_faces_with_the_pool_draw_it_and_otherwise_the_seed_gives_the_same_die() -> None:
    pool = set(kanafonts.POOL_KANA_PATHS)
    wide = [faces._style(np.random.default_rng(s), "white", "nine-a", wide=True) for s in range(400)]
    pooled = [faces._style(np.random.default_rng(s), "white", "nine-a", wide=True, pool=True) for s in range(400)]
    assert not {st.font for st in wide} & pool
    share = np.mean([st.font in pool for st in pooled])
    assert abs(share - kanafonts.POOL_SHARE) < 0.08
    assert len({st.font for st in pooled} & pool) >= 0.8 * len(pool)  # the pool is drawn across
    for a, b in zip(wide, pooled):
        assert dataclasses.replace(a, font=b.font) == b  # only the font differs


def test_the_pool_needs_wide_faces() -> None:
    with pytest.raises(ValueError):
        faces._style(np.random.default_rng(0), "white", "nine-a", pool=True)
    with pytest.raises(BadSceneConfig):
        _check(SceneConfig(kana_pool=True))
    _check(SceneConfig(wide_faces=True, kana_pool=True))


def test_configs_record_the_pool_only_when_asked() -> None:
    assert "kana_pool" not in SceneConfig(wide_faces=True).to_json()
    assert SceneConfig(wide_faces=True, kana_pool=True).to_json()["kana_pool"] is True


@pytest.mark.parametrize("name", sorted(kanafonts.POOL_KANA_FONTS))
def test_each_pool_font_draws_every_katakana_and_its_marks(name: str) -> None:
    path, package = kanafonts.POOL_KANA_FONTS[name]
    if not Path(path).is_file():
        pytest.skip(f"{package} is not installed")
    for ch in KATAKANA:
        assert kanafonts.has_glyph(Path(path), ch), (name, ch)
    # ブ and プ differ from フ only by their marks: the font must draw those apart.
    glyphs = {ch: kanafonts.render_glyph(Path(path), ch) > 127 for ch in "フブプ"}
    assert not np.array_equal(glyphs["ブ"], glyphs["プ"]) and not np.array_equal(glyphs["ブ"], glyphs["フ"])


def test_a_pool_die_renders_and_is_labelled() -> None:
    installed = [p for p in kanafonts.POOL_KANA_PATHS if p.is_file()]
    if not installed:
        pytest.skip("no font of the katakana pool is installed")
    config = SceneConfig(width=320, height=240, wide_faces=True, kana_pool=True, dice_sets=("nine",))
    for seed in range(40):
        scene = render_scene(np.random.default_rng(seed), config)
        fonts = {d.get("font") for d in scene.meta.get("dice", [])}
        if fonts & {p.name for p in installed}:
            assert scene.objects and all(o.kind == "die" for o in scene.objects)
            return
    pytest.fail("no scene of 40 drew an installed pool font")


def test_cli_font_pool_with_wide_faces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["synth", "--n", "1", "--seed", "5", "--workers", "1", "--width", "320", "--height", "240", "--quiet", "--dice-sets", "nine"]
    assert main(base + ["--out", str(tmp_path / "a"), "--font-pool"]) == 2  # not without --wide-faces
    monkeypatch.setattr(kanafonts, "missing_pool_packages", lambda: ["fonts-example"])
    assert main(base + ["--out", str(tmp_path / "b"), "--wide-faces", "--font-pool"]) == 2
    assert not (tmp_path / "b").exists()  # nothing written on a refusal
    monkeypatch.setattr(kanafonts, "missing_pool_packages", lambda: [])
    monkeypatch.setattr(kanafonts, "POOL_KANA_PATHS", kanafonts.KANA_FONTS[:1])
    assert main(base + ["--out", str(tmp_path / "c"), "--wide-faces", "--font-pool"]) == 0
    assert json.loads((tmp_path / "c" / "meta.json").read_text())["config"]["kana_pool"] is True
