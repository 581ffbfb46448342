"""The shipped katakana subset fonts: glyphs present, and the look-alikes drawn apart."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth import kanafonts as fonts
from vision.synth.faces import KATAKANA, face_image

NEEDED = "プラスベガブレフカ"


def test_at_least_three_fonts_and_their_licences_ship() -> None:
    assert len(fonts.KANA_FONTS) >= 3
    for path in fonts.KANA_FONTS:
        assert path.is_file() and path.stat().st_size < 64_000
    assert (fonts.FONT_DIR / "OFL.txt").is_file()
    assert (fonts.FONT_DIR / "IPA_Font_License.txt").is_file()
    assert len(fonts.KANA_WEIGHTS) == len(fonts.KANA_FONTS) and abs(sum(fonts.KANA_WEIGHTS) - 1.0) < 1e-9


def test_cmap_has_every_katakana() -> None:
    ttlib = pytest.importorskip("fontTools.ttLib")
    for path in fonts.KANA_FONTS:
        cmap = ttlib.TTFont(str(path)).getBestCmap()
        assert all(ord(c) in cmap for c in NEEDED), path.name
    assert set(KATAKANA) == set(NEEDED)


@pytest.mark.parametrize("path", fonts.KANA_FONTS, ids=lambda p: p.name)
def test_glyphs_are_drawn_not_notdef(path) -> None:
    for ch in NEEDED:
        assert fonts.has_glyph(path, ch), ch
    assert not fonts.has_glyph(path, "あ")  # not in the subset: the check can fail


@pytest.mark.parametrize("path", fonts.KANA_FONTS, ids=lambda p: p.name)
def test_lookalikes_render_differently(path) -> None:
    glyphs = {ch: fonts.render_glyph(path, ch, 32).astype(np.int32) for ch in "ブプフガカ"}
    for a, b in (("ブ", "プ"), ("ブ", "フ"), ("プ", "フ"), ("ガ", "カ")):
        diff = np.abs(glyphs[a] - glyphs[b]).sum() / 255.0
        assert diff > 8.0, (a, b)  # the (han)dakuten alone is tens of pixels of ink at 32 px


def test_face_images_tell_the_lookalikes_apart() -> None:
    imgs = {}
    for ch in "ブプフ":
        imgs[ch] = face_image(np.random.default_rng(7), ch, "nine-a", "white", size=64).astype(np.int32)
    assert np.abs(imgs["ブ"] - imgs["プ"]).sum() > 0
    assert np.abs(imgs["ブ"] - imgs["フ"]).sum() > 0
