"""The yardstick's scene list: fixed, complete, and val/test designs kept apart."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from vision.yardstick import designs, splits

ROOT = Path(__file__).resolve().parents[3]
# Die faces of docs/read-json.md.
DIE_FACES = ("1", "2", "3", "4", "5", "6", "wheel", *"プラスベガブレフカ")


def test_scene_list_is_deterministic_and_complete() -> None:
    for split in ("val", "test"):
        a, b = splits.split_scenes(split), splits.split_scenes(split)
        assert a == b
        assert len(a) == 120
        assert Counter(s.game for s in a) == {g: 30 for g in designs.GAMES}
        assert all(s.split == split for s in a)
    every = [s for name in splits.all_splits() for s in splits.split_scenes(name)]
    assert len({s.scene_id for s in every}) == len(every)
    assert len({s.seed for s in every}) == len(every)
    assert len(every) >= 240 + 10 * len(designs.ALL_DESIGNS)


def test_val_and_test_designs_are_disjoint_and_each_game_has_both() -> None:
    val = {s.design for s in splits.split_scenes("val")}
    test = {s.design for s in splits.split_scenes("test")}
    assert not val & test
    for game in designs.GAMES:
        assert designs.designs_for(game, "val") and designs.designs_for(game, "test")


def test_each_design_has_a_teach_split_of_ten_scenes() -> None:
    for d in designs.ALL_DESIGNS:
        scenes = splits.split_scenes(f"teach-{d.id}")
        assert len(scenes) == 10
        assert {s.design for s in scenes} == {d.id}


def test_dice_faces_use_the_read_vocabulary_and_the_referee_sets() -> None:
    nine = json.loads((ROOT / "referee" / "data" / "nine-dice.json").read_text(encoding="utf-8"))
    for d in designs.DICE_DESIGNS:
        for kind in d.kinds:
            assert len(kind.faces) == 6
            assert set(kind.faces) <= set(DIE_FACES)
            assert all(c.name in ("white", "black", "blue", "green", "red") for c in kind.colours)
        if d.game == "nine-dice":
            faces = Counter(k.faces for k in d.kinds)
            assert faces[tuple(nine["dice"]["A"])] == 6 and faces[tuple(nine["dice"]["C"])] == 3
            assert [k.colours[0].name for k in d.kinds if k.name == "expansion"] == ["green"]
            assert d.font is not None
        if d.game == "pin456":
            assert Counter(k.faces for k in d.kinds)[("1",) * 6] == 3
    wheel_styles = {d.wheel for d in designs.DICE_DESIGNS if d.wheel}
    fonts = {d.font for d in designs.DICE_DESIGNS if d.font}
    assert len(wheel_styles) >= 2 and len(fonts) >= 3


def test_train_split_shares_no_design_wheel_or_font_with_the_measured_splits() -> None:
    from vision.yardstick import faces

    train = splits.split_scenes("train")
    assert train == splits.split_scenes("train")
    assert {s.split for s in train} == {"train"}
    assert {s.design for s in train} == {d.id for d in designs.TRAIN_DESIGNS}
    measured = {d.id for d in designs.ALL_DESIGNS}
    assert not {s.design for s in train} & measured
    assert "train" not in splits.all_splits()  # `--split all` renders only what is measured
    every = [s for name in splits.all_splits() for s in splits.split_scenes(name)] + train
    assert len({s.seed for s in every}) == len(every)
    assert len({s.scene_id for s in every}) == len(every)
    measured_dice = [d for d in designs.DICE_DESIGNS]
    train_dice = list(designs.TRAIN_DICE_DESIGNS)
    assert {d.wheel for d in train_dice if d.wheel} <= set(faces.TRAIN_WHEEL_STYLES)
    assert not set(faces.TRAIN_WHEEL_STYLES) & {d.wheel for d in measured_dice}
    assert not {d.font for d in train_dice if d.font} & {d.font for d in measured_dice}
    measured_deck_fonts = {d.index_font for d in designs.DECK_DESIGNS}
    assert not {d.index_font for d in designs.TRAIN_DECK_DESIGNS} & (measured_deck_fonts | {d.font for d in measured_dice})
    assert {d.pip_shape for d in train_dice} == {"round"}
    for game in designs.GAMES:
        assert designs.designs_for(game, "train")


def test_train_split_takes_the_games_in_turn() -> None:
    train = splits.split_scenes("train")
    first = [s.game for s in train[:7]]
    assert first[:4] == list(designs.GAMES)  # a render cut short early still holds every game
    counts = Counter(s.game for s in train)
    assert set(counts.values()) == {splits.TRAIN_SCENES_PER_GAME}
    assert {s.design for s in train} == {d.id for d in designs.TRAIN_DESIGNS}  # every training design drawn
    half = Counter(s.game for s in train[: len(train) // 2])
    assert abs(half["nine-dice"] - counts["nine-dice"] / 2) <= 1
