"""Wide training decks: the extra court styles, index fonts and suit styles, drawn only when asked."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from vision.synth import card_art, card_fonts
from vision.synth.card_suits import EXTRA_SUIT_STYLES, SUIT_STYLES, draw_suit
from vision.synth.card_faces import draw_face, sample_design
from vision.synth.card_layout import CardOptions
from vision.synth.card_scene import CardSceneConfig, render_card_scene
from vision.synth.errors import BadSceneConfig
from vision.synth.scene import SceneConfig
from web.cli import main


def test_extra_styles_are_neither_default_nor_held_out() -> None:
    assert set(card_art.EXTRA_COURT_STYLES) <= set(card_art.COURT_STYLES)
    assert not set(card_art.EXTRA_COURT_STYLES) & set(card_art.HELDOUT_COURT_STYLES)
    assert card_art.TRAIN_COURT_STYLES == ("classic", "geometric", "silhouette", "minimal")


def test_default_decks_never_draw_the_extras_and_wide_ones_do() -> None:
    default = [sample_design(np.random.default_rng(s)) for s in range(300)]
    wide = [sample_design(np.random.default_rng(s), wide=True) for s in range(300)]
    assert all(d.court_style in card_art.TRAIN_COURT_STYLES for d in default)
    assert all(d.index_font in card_fonts.TRAIN_INDEX_FONTS for d in default)
    assert {d.court_style for d in wide} == set(card_art.TRAIN_COURT_STYLES + card_art.EXTRA_COURT_STYLES)
    assert {d.index_font for d in wide} == set(card_fonts.TRAIN_INDEX_FONTS + card_fonts.EXTRA_INDEX_FONTS)
    assert not {d.index_font for d in wide} & set(card_fonts.HELDOUT_INDEX_FONTS)


def test_a_seed_draws_the_same_deck_wide_or_not_but_for_font_court_and_suit_style() -> None:
    for s in range(50):
        a = dataclasses.asdict(sample_design(np.random.default_rng(s)))
        b = dataclasses.asdict(sample_design(np.random.default_rng(s), wide=True))
        for key in ("index_font", "court_style", "suit_style"):
            del a[key], b[key]
        assert a == b


def test_only_wide_decks_draw_the_extra_suit_styles_and_they_draw_all_of_them() -> None:
    default = {sample_design(np.random.default_rng(s)).suit_style for s in range(200)}
    wide = [sample_design(np.random.default_rng(s), wide=True).suit_style for s in range(200)]
    assert default == set(SUIT_STYLES)
    assert set(wide) == set(SUIT_STYLES) | set(EXTRA_SUIT_STYLES)
    assert 0.3 < np.mean([w in EXTRA_SUIT_STYLES for w in wide]) < 0.7


def _mask(suit: str, style: str) -> np.ndarray:
    m = np.zeros((64, 64), np.uint8)
    draw_suit(m, suit, {**SUIT_STYLES, **EXTRA_SUIT_STYLES}[style], 32.0, 32.0, 56.0, 255)
    return m > 127


@pytest.mark.parametrize("style", EXTRA_SUIT_STYLES)
def test_extra_suit_styles_draw_a_shorter_foot_and_bunched_leaves(style: str) -> None:
    def foot(m: np.ndarray) -> int:  # rows at the bottom narrower than a third of the symbol
        widths = m.sum(axis=1)
        rows = np.nonzero(widths)[0]
        return int(sum(widths[r] < widths.max() / 3 for r in rows[len(rows) // 2 :]))

    assert foot(_mask("S", style)) < foot(_mask("S", "classic"))
    spread = dataclasses.replace(EXTRA_SUIT_STYLES[style], club_spread=1.0)
    m = np.zeros((64, 64), np.uint8)
    draw_suit(m, "C", spread, 32.0, 32.0, 56.0, 255)
    assert _mask("C", style).any(axis=0).sum() < (m > 127).any(axis=0).sum()
    # still a spade and a club: a point on top against a round leaf
    spade, club = _mask("S", style), _mask("C", style)
    top = lambda m: m[np.nonzero(m.any(axis=1))[0][0] + 3].sum()  # noqa: E731
    assert top(spade) < top(club)


def test_held_out_and_wide_exclude_each_other() -> None:
    with pytest.raises(ValueError):
        sample_design(np.random.default_rng(0), heldout=True, wide=True)
    with pytest.raises(BadSceneConfig):
        render_card_scene(np.random.default_rng(0), CardSceneConfig(width=320, height=240, heldout=True, wide_decks=True))


@pytest.mark.parametrize("style", card_art.EXTRA_COURT_STYLES)
def test_each_extra_style_paints_the_court_cards_and_is_seeded(style: str) -> None:
    design = dataclasses.replace(sample_design(np.random.default_rng(3)), court_style=style)
    for card in ("JH", "QS", "KD"):
        one = draw_face(card, design, 4.0, np.random.default_rng(1))
        two = draw_face(card, design, 4.0, np.random.default_rng(1))
        assert np.array_equal(one.rgb, two.rgb)
        h, w = one.rgb.shape[:2]
        art = one.rgb[int(h * 0.3) : int(h * 0.7), int(w * 0.35) : int(w * 0.65)].reshape(-1, 3)
        # artwork, not a blank card: several colours, and ink over a good part of the middle
        assert len(np.unique(art, axis=0)) >= 3
        assert (np.abs(art.astype(int) - one.rgb[2, one.rgb.shape[1] // 2]).sum(1) > 60).mean() > 0.3


def test_wide_scenes_record_it_and_old_configs_read_the_same() -> None:
    assert "wide_decks" not in CardSceneConfig().to_json()
    assert CardSceneConfig(wide_decks=True).to_json()["wide_decks"] is True
    assert "wide_decks" not in SceneConfig(cards=CardOptions()).to_json()["cards"]
    assert SceneConfig(cards=CardOptions(wide_decks=True)).to_json()["cards"]["wide_decks"] is True
    styles = set()
    for s in range(12):
        scene = render_card_scene(np.random.default_rng(s), CardSceneConfig(width=320, height=240, wide_decks=True))
        styles.add(scene.meta["card_deck"]["design"]["court_style"])
    assert styles & set(card_art.EXTRA_COURT_STYLES)


def test_cli_wide_decks(tmp_path: Path) -> None:
    out = tmp_path / "wide"
    assert main(["synth", "--out", str(out), "--n", "2", "--seed", "5", "--workers", "1", "--width", "320", "--height", "240",
                 "--cards", "--wide-decks", "--quiet"]) == 0
    assert json.loads((out / "meta.json").read_text())["config"]["wide_decks"] is True
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--wide-decks", "--quiet"]) == 2
    assert main(["synth", "--out", str(tmp_path / "y"), "--n", "1", "--cards", "--heldout", "--wide-decks", "--quiet"]) == 2
