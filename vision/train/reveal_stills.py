"""Reveal stills: a game's dice as the live table's webcam sees them, as a training set.

``tableref synth --reveals nine-dice`` renders, for image ``i``, one reveal of the game the
demo source and ``tableref eval-live`` show (the 9 Nine Dice dice, 2-15 liars dice, ...),
laid out as :func:`vision.demo.table.demo_scene_config` lays them: a clear table, the camera at
most 25 degrees from straight down. Dice are webcam-sized: a die's edge is 20-36, 26-42 or
30-46 px at 640 px wide (``eval-live --die-px``), the three bands taken in turn (image
``i`` gets band ``i % 3``), and the still carries the sensor noise of a held webcam frame.
The plain renders of ``tableref synth`` draw dice of every size (ブ and プ boxes 21-95 px
across at 640 px in ``synth-nine``, 5th to 95th percentile); a reveal still's are 30-68 px.

``tableref synth --reveals doubt`` renders Doubt reveals instead: the 1-3 cards of a
challenged play face up in a row, as the demo and ``eval-live --games doubt`` lay them, a card
60-120, 90-150 or 160-220 px tall at 640 px wide (``eval-live --card-px``; the demo's are
160-220), taken in turn. Their labels are the cards' corner indices, as in every card set.
Doubt's stills are a card set, so Doubt is not mixed with the dice games in one set. With
``wide_decks`` (``--wide-decks``) their decks also draw the extra index fonts and court styles
of ``tableref synth --cards --wide-decks``, as the demo's own decks never do.

A still's labels are the truth, as for any rendered set, until
:func:`vision.train.reader_boxes.use_reader_boxes` puts the reader's own boxes on them.

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

from vision.demo.table import DEMO_TABLES, REVEALS, demo_card_config, demo_scene_config
from vision.synth.card_scene import CardSceneConfig, render_card_scene
from vision.synth.errors import BadSceneConfig
from vision.synth.scene import RenderedScene, SceneConfig, render_scene
from vision.synth.tables import HELDOUT_FAMILIES

CARD_GAME = "doubt"  # the one game whose reveals are cards
# A die's edge in px at 640 px wide (its box is wider: the sides show); see vision.demo.table.
DIE_PX_BANDS: tuple[tuple[float, float], ...] = ((20.0, 36.0), (26.0, 42.0), (30.0, 46.0))
# A card's height in px at 640 px wide: eval-live's test clips (--card-px 60 120), a closer
# webcam, and the demo's cards (vision.demo.table.CARD_PX).
CARD_PX_BANDS: tuple[tuple[float, float], ...] = ((60.0, 120.0), (90.0, 150.0), (160.0, 220.0))
NOISE_SIGMA = 2.5  # as tableref eval-live's held frames


@dataclass(frozen=True)
class RevealConfig:
    """What :meth:`render` draws: reveals of ``games`` (taken in turn), at ``width`` x
    ``height``, on the demo's tables (or the held-out families), dice in ``die_px_bands``
    (Doubt's cards in ``card_px_bands``)."""

    games: tuple[str, ...] = ("nine-dice",)
    width: int = 640
    height: int = 480
    heldout: bool = False
    die_px_bands: tuple[tuple[float, float], ...] = DIE_PX_BANDS
    noise_sigma: float = NOISE_SIGMA
    card_px_bands: tuple[tuple[float, float], ...] = CARD_PX_BANDS
    wide_decks: bool = False  # Doubt only: decks also draw the extra index fonts and court styles

    def __post_init__(self) -> None:
        if not self.games:
            raise BadSceneConfig("--reveals needs at least one game")
        for game in self.games:
            if game not in REVEALS:
                raise BadSceneConfig(f"no reveal for {game!r}: choose from {', '.join(REVEALS)}")
        if CARD_GAME in self.games and len(set(self.games)) > 1:
            raise BadSceneConfig("Doubt's stills are a card set and the dice games' a dice set: render them apart")
        if not self.die_px_bands or any(not 8 <= lo <= hi for lo, hi in self.die_px_bands):
            raise BadSceneConfig("die sizes must be bands of 8 px or more, low end first")
        if not self.card_px_bands or any(not 20 <= lo <= hi for lo, hi in self.card_px_bands):
            raise BadSceneConfig("card sizes must be bands of 20 px or more, low end first")
        if self.wide_decks and CARD_GAME not in self.games:
            raise BadSceneConfig("wide decks are a card option: they need --reveals doubt")
        if not (160 <= self.width <= 3840 and 120 <= self.height <= 2160):
            raise BadSceneConfig("a reveal still is within 160x120 and 3840x2160")

    @property
    def families(self) -> tuple[str, ...]:
        return HELDOUT_FAMILIES if self.heldout else DEMO_TABLES

    @property
    def kind(self) -> str:
        """What the stills' labels are: ``"card"`` (corner indices) for Doubt, else ``"die"``."""
        return "card" if CARD_GAME in self.games else "die"  # never mixed with dice games (__post_init__)

    @property
    def min_visible(self) -> float:
        """The label rule's share in view, as the scenes' own configs have it (every die or
        card of a reveal is asked for, so all are labelled unless out of frame)."""
        return CardSceneConfig.min_visible if self.kind == "card" else SceneConfig.min_visible

    def game(self, index: int) -> str:
        return self.games[index % len(self.games)]

    def render(self, rng: np.random.Generator, index: int) -> RenderedScene:
        """Image ``index``: its game's reveal, its size band, the still with sensor noise."""
        game = self.game(index)
        bands = self.card_px_bands if game == CARD_GAME else self.die_px_bands
        band = bands[index % len(bands)]
        scale = self.width / 640  # the bands are sizes at 640 px across, as the demo's
        px = (band[0] * scale, band[1] * scale)
        specs = REVEALS[game](rng)
        size = (self.width, self.height)
        if game == CARD_GAME:
            config = dataclasses.replace(demo_card_config(specs, size, self.families, px), wide_decks=self.wide_decks)  # type: ignore[arg-type]
            scene = render_card_scene(rng, config)
        else:
            scene = render_scene(rng, demo_scene_config(specs, size, self.families, px))  # type: ignore[arg-type]
        noise = rng.normal(0.0, self.noise_sigma, scene.image.shape)
        image = np.clip(scene.image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        size_key = "card_px" if game == CARD_GAME else "die_px"
        return RenderedScene(image, scene.objects, {**scene.meta, "game": game, size_key: list(band)})

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["games"] = list(self.games)
        out["die_px_bands"] = [list(b) for b in self.die_px_bands]
        out["card_px_bands"] = [list(b) for b in self.card_px_bands]
        out["min_visible"] = self.min_visible
        if not self.wide_decks:
            del out["wide_decks"]  # as sets written before wide-deck stills record it
        out["layout"] = "reveal stills (vision.train.reveal_stills)"
        return out
