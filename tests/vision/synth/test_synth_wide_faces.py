"""Wide training faces: the extra katakana fonts and ship's-wheel forms, drawn only when asked."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from vision.synth import kanafonts
from vision.synth.faces import WHEEL_FORMS, _style, face_image
from vision.synth.scene import SceneConfig, render_scene
from web.cli import main


def test_default_dice_never_draw_the_extras_and_wide_ones_do() -> None:
    default = [_style(np.random.default_rng(s), "white", "nine") for s in range(400)]
    wide = [_style(np.random.default_rng(s), "white", "nine", wide=True) for s in range(400)]
    assert {st.font for st in default} <= set(kanafonts.KANA_FONTS)
    assert {st.wheel_form for st in default} == {"classic"}
    assert {st.font for st in wide} == set(kanafonts.KANA_FONTS + kanafonts.EXTRA_KANA_FONTS)
    assert {st.wheel_form for st in wide} == set(WHEEL_FORMS)
    extra = sum(st.font in kanafonts.EXTRA_KANA_FONTS for st in wide) / len(wide)
    assert 0.4 < extra < 0.6  # half the wide draws go to the extra fonts


def test_a_seed_draws_the_same_die_wide_or_not_but_for_font_and_wheel() -> None:
    for s in range(60):
        a = dataclasses.asdict(_style(np.random.default_rng(s), "red", "liars"))
        b = dataclasses.asdict(_style(np.random.default_rng(s), "red", "liars", wide=True))
        for key in ("font", "wheel_form"):
            del a[key], b[key]
        assert a == b


def _wheel_with(form: str, seed: int = 5) -> np.ndarray:
    import vision.synth.faces as faces

    original = faces._style

    def forced(rng: np.random.Generator, body: str, design: str, wide: bool = False) -> faces._Style:
        return dataclasses.replace(original(rng, body, design, wide), wheel_form=form)

    faces._style = forced  # type: ignore[assignment]
    try:
        return face_image(np.random.default_rng(seed), "wheel", "liars", "white", 96)
    finally:
        faces._style = original  # type: ignore[assignment]


@pytest.mark.parametrize("form", [f for f in WHEEL_FORMS if f != "classic"])
def test_each_wheel_form_draws_its_own_wheel_and_is_seeded(form: str) -> None:
    one, two = _wheel_with(form), _wheel_with(form)
    assert np.array_equal(one, two)
    classic = _wheel_with("classic")
    assert np.abs(one.astype(int) - classic.astype(int)).mean() > 0.1  # same draws, another shape
    ink = (np.abs(one.astype(int) - one[0, 0].astype(int)).sum(axis=2) > 60).mean()
    assert 0.05 < ink < 0.6  # a wheel, not an empty face or a blot


@pytest.mark.parametrize("path", kanafonts.EXTRA_KANA_FONTS, ids=lambda p: p.name)
def test_extra_fonts_tell_the_lookalikes_apart(path: Path) -> None:
    for a, b in (("ブ", "プ"), ("ガ", "カ"), ("ベ", "ヘ" if kanafonts.has_glyph(path, "ヘ") else "ス")):
        if not kanafonts.has_glyph(path, b):
            continue
        assert not np.array_equal(kanafonts.render_glyph(path, a), kanafonts.render_glyph(path, b))


def test_extra_fonts_are_licensed_in_the_fonts_readme() -> None:
    readme = (kanafonts.FONT_DIR / "README.md").read_text(encoding="utf-8")
    for path in kanafonts.EXTRA_KANA_FONTS:
        assert path.is_file() and path.name in readme


def test_the_scene_config_writes_wide_faces_only_when_set_and_renders_them() -> None:
    assert "wide_faces" not in SceneConfig().to_json()
    config = SceneConfig(width=320, height=240, dice_sets=("nine",), wide_faces=True)
    assert config.to_json()["wide_faces"] is True
    fonts_drawn = set()
    for seed in range(6):
        scene = render_scene(np.random.default_rng(seed), config)
        assert scene.objects
        fonts_drawn |= {die.get("font") for die in scene.meta["dice"]}
    assert fonts_drawn & {p.name for p in kanafonts.EXTRA_KANA_FONTS}


def test_the_cli_refuses_wide_faces_on_card_renders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--cards", "--wide-faces"]) == 2
    assert "--wide-faces" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
