"""Reveal stills: a game's dice as the live table's webcam sees them, as a training set.

``tableref synth --reveals nine-dice`` renders, for image ``i``, one reveal of the game the
demo source and ``tableref eval-live`` show (the 9 Nine Dice dice, 2-15 liars dice, ...),
laid out as :func:`vision.demo.demo_scene_config` lays them: a clear table, the camera at
most 25 degrees from straight down. Dice are webcam-sized: a die's edge is 20-36, 26-42 or
30-46 px at 640 px wide (``eval-live --die-px``), the three bands taken in turn (image
``i`` gets band ``i % 3``), and the still carries the sensor noise of a held webcam frame.
The plain renders of ``tableref synth`` draw dice of every size (ブ and プ boxes 21-95 px
across at 640 px in ``synth-nine``, 5th to 95th percentile); a reveal still's are 30-68 px.

A still's labels are the truth, as for any rendered set, until
:func:`vision.reader_boxes.use_reader_boxes` puts the reader's own boxes on them.

>>> config = RevealConfig(games=("nine-dice",))
>>> scene = config.render(np.random.default_rng(0), 4)
>>> scene.image.shape, len(scene.objects), scene.meta["game"], scene.meta["die_px"]
((480, 640, 3), 9, 'nine-dice', [26.0, 42.0])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.demo import DEMO_TABLES, REVEALS, demo_scene_config
from vision.synth.errors import BadSceneConfig
from vision.synth.scene import RenderedScene, render_scene
from vision.synth.tables import HELDOUT_FAMILIES

DICE_GAMES = tuple(g for g in REVEALS if g != "doubt")
# A die's edge in px at 640 px wide (its box is wider: the sides show); see vision.demo.
DIE_PX_BANDS: tuple[tuple[float, float], ...] = ((20.0, 36.0), (26.0, 42.0), (30.0, 46.0))
NOISE_SIGMA = 2.5  # as tableref eval-live's held frames


@dataclass(frozen=True)
class RevealConfig:
    """What :meth:`render` draws: reveals of ``games`` (taken in turn), at ``width`` x
    ``height``, on the demo's tables (or the held-out families), dice in ``die_px_bands``."""

    games: tuple[str, ...] = ("nine-dice",)
    width: int = 640
    height: int = 480
    heldout: bool = False
    die_px_bands: tuple[tuple[float, float], ...] = DIE_PX_BANDS
    noise_sigma: float = NOISE_SIGMA
    min_visible: float = 0.6  # as SceneConfig: every die of a reveal is asked for, so all are labelled

    def __post_init__(self) -> None:
        if not self.games:
            raise BadSceneConfig("--reveals needs at least one game")
        for game in self.games:
            if game not in DICE_GAMES:
                raise BadSceneConfig(f"no dice reveal for {game!r}: choose from {', '.join(DICE_GAMES)}")
        if not self.die_px_bands or any(not 8 <= lo <= hi for lo, hi in self.die_px_bands):
            raise BadSceneConfig("die sizes must be bands of 8 px or more, low end first")
        if not (160 <= self.width <= 3840 and 120 <= self.height <= 2160):
            raise BadSceneConfig("a reveal still is within 160x120 and 3840x2160")

    @property
    def families(self) -> tuple[str, ...]:
        return HELDOUT_FAMILIES if self.heldout else DEMO_TABLES

    def game(self, index: int) -> str:
        return self.games[index % len(self.games)]

    def render(self, rng: np.random.Generator, index: int) -> RenderedScene:
        """Image ``index``: its game's reveal, its size band, the still with sensor noise."""
        game = self.game(index)
        band = self.die_px_bands[index % len(self.die_px_bands)]
        scale = self.width / 640  # the bands are widths at 640 px across, as demo_scene_config's
        die_px = (band[0] * scale, band[1] * scale)
        specs = REVEALS[game](rng)
        scene = render_scene(rng, demo_scene_config(specs, (self.width, self.height), self.families, die_px))  # type: ignore[arg-type]
        noise = rng.normal(0.0, self.noise_sigma, scene.image.shape)
        image = np.clip(scene.image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        return RenderedScene(image, scene.objects, {**scene.meta, "game": game, "die_px": list(band)})

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["games"] = list(self.games)
        out["die_px_bands"] = [list(b) for b in self.die_px_bands]
        out["layout"] = "reveal stills (vision.reveal_stills)"
        return out
