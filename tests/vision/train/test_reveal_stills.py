"""Reveal stills: a game's dice as the live webcam sees them, for training sets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.demo.table import DEMO_TABLES
from vision.train.reveal_stills import CARD_PX_BANDS, DIE_PX_BANDS, RevealConfig
from vision.synth import card_art, card_fonts
from vision.synth.errors import BadSceneConfig
from vision.synth.tables import HELDOUT_FAMILIES
from vision.synth.writer import dataset_classes
from web.cli import main


def test_games_and_size_bands_are_taken_in_turn() -> None:
    config = RevealConfig(games=("nine-dice", "pin456"))
    scenes = [config.render(np.random.default_rng(k), k) for k in range(4)]
    assert [s.meta["game"] for s in scenes] == ["nine-dice", "pin456", "nine-dice", "pin456"]
    assert [s.meta["die_px"] for s in scenes] == [list(DIE_PX_BANDS[k % 3]) for k in range(4)]
    assert len(scenes[0].objects) in (9, 10) and {o.colour for o in scenes[0].objects} <= {"white", "black", "blue", "green"}
    assert {o.face for o in scenes[1].objects} <= {"1", "4", "5", "6"}
    for s in scenes:
        assert s.image.shape == (480, 640, 3) and s.meta["table"]["family"] in DEMO_TABLES
        assert all(o.kind == "die" and o.score == 1.0 for o in s.objects)


def test_a_still_is_drawn_from_its_generator_alone_and_carries_sensor_noise() -> None:
    config = RevealConfig()
    a, b = (config.render(np.random.default_rng(7), 2) for _ in range(2))
    assert np.array_equal(a.image, b.image) and a.objects == b.objects
    quiet = RevealConfig(noise_sigma=0.0).render(np.random.default_rng(7), 2)
    assert a.objects == quiet.objects
    diff = a.image.astype(np.int16) - quiet.image.astype(np.int16)
    assert 1.5 < float(diff.std()) < 3.5


def test_dice_are_smaller_in_the_smaller_band() -> None:
    config = RevealConfig()
    widths = {k: np.median([np.median([o.box[2] - o.box[0] for o in config.render(np.random.default_rng(s), k).objects])
                            for s in range(3)]) for k in (0, 2)}
    assert widths[0] < widths[2]


def test_heldout_stills_use_the_heldout_tables() -> None:
    scene = RevealConfig(heldout=True).render(np.random.default_rng(1), 0)
    assert scene.meta["table"]["family"] in HELDOUT_FAMILIES
    assert RevealConfig(heldout=True).families == HELDOUT_FAMILIES


@pytest.mark.parametrize("kwargs, match", [
    ({"games": ()}, "at least one game"),
    ({"games": ("doubt", "nine-dice")}, "render them apart"),
    ({"games": ("yahtzee",)}, "no reveal for 'yahtzee': choose from liars-dice, nine-dice, pin456, doubt"),
    ({"die_px_bands": ((30.0, 20.0),)}, "low end first"),
    ({"card_px_bands": ((10.0, 20.0),)}, "card sizes must be bands of 20 px or more"),
    ({"width": 100}, "160x120"),
    ({"games": ("nine-dice",), "wide_decks": True}, "need --reveals doubt"),
])
def test_bad_configs_say_what_is_wrong(kwargs, match) -> None:
    with pytest.raises(BadSceneConfig, match=match):
        RevealConfig(**kwargs)


def test_a_reveal_set_has_dice_only_and_records_its_config() -> None:
    config = RevealConfig(games=("liars-dice",), width=1280, height=720)
    assert dataset_classes(config) == ("die",)
    out = config.to_json()
    assert out["games"] == ["liars-dice"] and out["width"] == 1280 and out["die_px_bands"][0] == [20.0, 36.0]
    scene = config.render(np.random.default_rng(3), 0)
    assert scene.image.shape == (720, 1280, 3)


def test_doubt_stills_are_a_card_set_of_its_revealed_cards_in_the_card_bands() -> None:
    config = RevealConfig(games=("doubt",))
    assert config.kind == "card" and dataset_classes(config) == ("card",) and config.min_visible == 0.85
    assert RevealConfig().kind == "die" and RevealConfig().min_visible == 0.6
    scenes = [config.render(np.random.default_rng(k), k) for k in range(3)]
    heights = []
    for k, s in enumerate(scenes):
        assert s.meta["game"] == "doubt" and s.meta["card_px"] == list(CARD_PX_BANDS[k]) and "die_px" not in s.meta
        assert s.image.shape == (480, 640, 3) and s.meta["table"]["family"] in DEMO_TABLES
        faces = {o.face for o in s.objects}
        assert s.objects and all(o.kind == "card" for o in s.objects) and 1 <= len(faces) <= 3
        # each revealed card shows its index at two corners, each labelled
        assert len(s.objects) == 2 * len(faces)
        heights.append(float(np.median([max(o.box[2] - o.box[0], o.box[3] - o.box[1]) for o in s.objects])))
    assert heights[0] < heights[2]  # indices grow with the card band
    assert config.to_json()["card_px_bands"][0] == [60.0, 120.0] and config.to_json()["min_visible"] == 0.85


def test_wide_deck_stills_draw_the_extra_designs_and_say_so() -> None:
    plain, wide = RevealConfig(games=("doubt",)), RevealConfig(games=("doubt",), wide_decks=True)
    assert "wide_decks" not in plain.to_json() and wide.to_json()["wide_decks"] is True
    designs = {name: [c.render(np.random.default_rng(s), s).meta["card_deck"]["design"] for s in range(16)]
               for name, c in (("plain", plain), ("wide", wide))}
    assert all(d["court_style"] in card_art.TRAIN_COURT_STYLES and d["index_font"] in card_fonts.TRAIN_INDEX_FONTS
               for d in designs["plain"])
    extras = set(card_art.EXTRA_COURT_STYLES) | set(card_fonts.EXTRA_INDEX_FONTS)
    assert any({d["court_style"], d["index_font"]} & extras for d in designs["wide"])
    assert not any({d["court_style"], d["index_font"]} & (set(card_art.HELDOUT_COURT_STYLES) | set(card_fonts.HELDOUT_INDEX_FONTS))
                   for d in designs["wide"])


def test_cli_wide_deck_stills(tmp_path: Path) -> None:
    out = tmp_path / "wide"
    assert main(["synth", "--out", str(out), "--n", "2", "--seed", "5", "--workers", "1", "--reveals", "doubt",
                 "--wide-decks", "--quiet"]) == 0
    config = json.loads((out / "meta.json").read_text())["config"]
    assert config["wide_decks"] is True and config["games"] == ["doubt"]
    assert main(["synth", "--out", str(tmp_path / "x"), "--n", "1", "--reveals", "nine-dice", "--wide-decks", "--quiet"]) == 2


def test_doctests() -> None:
    import doctest

    import vision.train.reveal_stills

    assert doctest.testmod(vision.train.reveal_stills).failed == 0
