"""The corner-index font pool: Debian's fonts, drawn only on wide training decks that ask for it,
and never a font of the yardstick's measured designs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from vision.synth import card_faces, card_fonts
from vision.synth.card_faces import sample_design
from vision.synth.card_layout import CardOptions, check_options
from vision.synth.card_scene import CardSceneConfig, render_card_scene
from vision.synth.errors import BadSceneConfig
from vision.synth.scene import SceneConfig
from vision.yardstick import designs as yardstick_designs
from vision.yardstick import fonts as yardstick_fonts
from web.cli import main

RANK_GLYPHS = "0123456789AJQK"


def test_the_pool_shares_no_font_with_the_yardsticks_measured_designs() -> None:
    measured = [d for d in yardstick_designs.ALL_DESIGNS if d.split in ("val", "test")]
    keys = {k for d in measured for k in (getattr(d, "font", None), getattr(d, "index_font", None)) if k}
    assert keys >= {"sawarabi-gothic", "ume-mincho"}  # the two measured decks' index fonts among them
    measured_files = {Path(yardstick_fonts.FONTS[k].path).name for k in keys}
    measured_packages = {yardstick_fonts.FONTS[k].package for k in keys}
    for name, (path, package) in card_fonts.POOL_INDEX_FONTS.items():
        assert Path(path).name not in measured_files, name
        assert package not in measured_packages, name
        assert "mono" not in name and "slab" not in name  # the held-out synth font is a slab


def test_the_pool_is_apart_from_the_shipped_fonts() -> None:
    assert not set(card_fonts.POOL_INDEX_FONTS) & set(card_fonts.INDEX_FONTS)
    assert all(card_fonts.font_path(n) == Path(p) for n, (p, _) in card_fonts.POOL_INDEX_FONTS.items())


def test_only_wide_decks_with_the_pool_draw_it_and_otherwise_the_seed_gives_the_same_deck() -> None:
    pool = set(card_fonts.POOL_INDEX_FONTS)
    wide = [sample_design(np.random.default_rng(s), wide=True) for s in range(400)]
    pooled = [sample_design(np.random.default_rng(s), wide=True, pool=True) for s in range(400)]
    assert not {d.index_font for d in wide} & pool
    share = np.mean([d.index_font in pool for d in pooled])
    assert abs(share - card_faces.POOL_SHARE) < 0.08
    assert len({d.index_font for d in pooled} & pool) >= 0.8 * len(pool)  # the pool is drawn across
    for a, b in zip(wide, pooled):
        if b.index_font not in pool:
            assert a == b
        else:
            assert dataclasses.replace(a, index_font=b.index_font) == b


def test_the_pool_needs_wide_decks() -> None:
    with pytest.raises(ValueError):
        sample_design(np.random.default_rng(0), pool=True)
    with pytest.raises(BadSceneConfig):
        check_options(CardOptions(font_pool=True))
    check_options(CardOptions(wide_decks=True, font_pool=True))


def test_configs_record_the_pool_only_when_asked() -> None:
    assert "font_pool" not in CardSceneConfig(wide_decks=True).to_json()
    assert CardSceneConfig(wide_decks=True, font_pool=True).to_json()["font_pool"] is True
    assert "font_pool" not in SceneConfig(cards=CardOptions(wide_decks=True)).to_json()["cards"]
    assert SceneConfig(cards=CardOptions(wide_decks=True, font_pool=True)).to_json()["cards"]["font_pool"] is True


def _ink(font: object, text: str) -> np.ndarray:
    im = Image.new("L", (160, 160), 0)
    ImageDraw.Draw(im).text((20, 20), text, font=font, fill=255)  # type: ignore[arg-type]
    return np.asarray(im) > 127


@pytest.mark.parametrize("name", sorted(card_fonts.POOL_INDEX_FONTS))
def test_each_pool_font_draws_every_rank_glyph(name: str) -> None:
    path, package = card_fonts.POOL_INDEX_FONTS[name]
    if not Path(path).is_file():
        pytest.skip(f"{package} is not installed")
    font = card_fonts.load(name, 100)
    missing = _ink(font, "\ue000")  # a private-use code point: the font's missing-glyph box, or nothing
    for glyph in RANK_GLYPHS:
        ink = _ink(font, glyph)
        assert ink.sum() > 50 and not np.array_equal(ink, missing), (name, glyph)
    assert 0.5 < card_fonts.cap_ratio(name) < 0.85


def test_a_pool_deck_renders_and_labels_its_indices() -> None:
    if card_fonts.missing_pool_packages():
        pytest.skip("the font pool's packages are not installed: " + " ".join(card_fonts.missing_pool_packages()))
    config = CardSceneConfig(width=480, height=360, wide_decks=True, font_pool=True, layouts=("row",))
    for seed in range(40):
        scene = render_card_scene(np.random.default_rng(seed), config)
        if scene is not None and scene.meta["card_deck"]["design"]["index_font"] in card_fonts.POOL_INDEX_FONTS:
            assert scene.objects and all(o.kind == "card" for o in scene.objects)
            return
    pytest.fail("no scene of 40 drew a pool font")


def test_cli_font_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["synth", "--n", "1", "--seed", "5", "--workers", "1", "--width", "320", "--height", "240", "--quiet"]
    assert main(base + ["--out", str(tmp_path / "a"), "--cards", "--font-pool"]) == 2  # not without --wide-decks
    monkeypatch.setattr(card_fonts, "missing_pool_packages", lambda: ["fonts-example"])
    assert main(base + ["--out", str(tmp_path / "b"), "--cards", "--wide-decks", "--font-pool"]) == 2
    assert not (tmp_path / "b").exists()  # nothing written on a refusal
    monkeypatch.setattr(card_fonts, "missing_pool_packages", lambda: [])
    monkeypatch.setattr(card_fonts, "POOL_INDEX_FONTS", {"pool-shipped": (str(card_fonts.font_path("serif")), "none")})
    assert main(base + ["--out", str(tmp_path / "c"), "--cards", "--wide-decks", "--font-pool"]) == 0
    assert json.loads((tmp_path / "c" / "meta.json").read_text())["config"]["font_pool"] is True
