"""The yardstick's fixed, seeded scene list.

``val`` and ``test`` hold 30 scenes per game (liars-dice, nine-dice, pin456, doubt), each scene
drawn from that split's own designs in turn; ``teach-<design>`` holds 10 scenes of one design.
``train`` holds scenes of the training designs only, for training a reader on this renderer's
pictures without learning any design it is measured on.
Everything a scene looks like follows from its seed, so the list (committed) fixes the images
(rendered on demand).
"""

from __future__ import annotations

from dataclasses import dataclass

from .designs import GAMES, SPLITS, ALL_DESIGNS, designs_for

SCENES_PER_GAME = 30
TEACH_SCENES = 10
WIDE_EVERY = 12  # every 12th scene is a 1280x720 frame, the rest 640x480

GAME_PREFIX: dict[str, str] = {"liars-dice": "ld", "nine-dice": "nd", "pin456": "pn", "doubt": "dc"}
_SPLIT_BASE: dict[str, int] = {"val": 80_000_000, "test": 81_000_000, "teach": 82_000_000, "train": 83_000_000}
TRAIN_SCENES_PER_GAME = 150


@dataclass(frozen=True)
class SceneSpec:
    scene_id: str
    split: str
    game: str
    design: str
    seed: int
    width: int
    height: int


def _size(index: int) -> tuple[int, int]:
    return (1280, 720) if index % WIDE_EVERY == WIDE_EVERY - 1 else (640, 480)


def split_scenes(split: str) -> list[SceneSpec]:
    """The scenes of ``val``, ``test``, ``train`` or one ``teach-<design>`` split, in render order."""
    if split in SPLITS:
        out: list[SceneSpec] = []
        for g, game in enumerate(GAMES):
            designs = designs_for(game, split)
            for i in range(SCENES_PER_GAME):
                w, h = _size(i)
                sid = f"{GAME_PREFIX[game]}-{split}-{i:04d}"
                seed = _SPLIT_BASE[split] + g * 10_000 + i
                out.append(SceneSpec(sid, split, game, designs[i % len(designs)].id, seed, w, h))
        return out
    if split == "train":
        return train_scenes()
    if split.startswith("teach-"):
        design_id = split[len("teach-"):]
        index = [d.id for d in ALL_DESIGNS].index(design_id)
        d = ALL_DESIGNS[index]
        return [
            SceneSpec(f"{design_id}-t{i:02d}", split, d.game, design_id, _SPLIT_BASE["teach"] + index * 1_000 + i,
                      640, 480)
            for i in range(TEACH_SCENES)
        ]
    raise KeyError(f"unknown split {split!r}")


def train_scenes(per_game: int = TRAIN_SCENES_PER_GAME) -> list[SceneSpec]:
    """The ``train`` split: ``per_game`` scenes of each game's training designs
    (designs.TRAIN_DESIGNS), the games taken in turn so that any first part of the list (a
    render cut short) holds each game."""
    out: list[SceneSpec] = []
    count = dict.fromkeys(GAMES, 0)
    for turn in range(per_game * len(GAMES)):
        game = GAMES[turn % len(GAMES)]
        i = count[game]
        count[game] += 1
        designs = designs_for(game, "train")
        w, h = _size(i)
        g = GAMES.index(game)
        out.append(SceneSpec(f"{GAME_PREFIX[game]}-train-{i:04d}", "train", game, designs[i % len(designs)].id,
                             _SPLIT_BASE["train"] + g * 10_000 + i, w, h))
    return out


def teach_splits() -> list[str]:
    return [f"teach-{d.id}" for d in ALL_DESIGNS]


def all_splits() -> list[str]:
    return list(SPLITS) + teach_splits()
