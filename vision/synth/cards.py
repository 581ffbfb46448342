"""Synthetic playing cards for training a corner-index card reader: the public entry points.

The reader is meant to read a card from its corner index (rank and small suit
in the corner), so fanned and partly covered cards still read; every label is
one visible corner index.

- a flat card face: :func:`draw_face` / :func:`draw_back` of a deck :class:`CardDesign`
  (:func:`sample_design` draws one) -- :mod:`vision.synth.card_faces`;
- a table scene of cards: :func:`render_card_scene` with :class:`CardSceneConfig`
  -- :mod:`vision.synth.card_scene`;
- cards among dice: ``render_scene(rng, SceneConfig(cards=CardOptions()))``
  -- :mod:`vision.synth.scene` with :mod:`vision.synth.card_layout`;
- a dataset: ``tableref synth --cards`` or ``--mixed`` (:mod:`vision.synth.cli`).

>>> import numpy as np
>>> scene = render_card_scene(np.random.default_rng(0), CardSceneConfig(width=320, height=240, layouts=("fan",), occluders=False))
>>> all(o.kind == "card" and o.face in ALL_CARDS for o in scene.objects)
True
>>> mixed = render_scene(np.random.default_rng(0), SceneConfig(width=320, height=240, cards=CardOptions(layouts=("single",))))
>>> {o.kind for o in mixed.objects} <= {"die", "card"}
True
"""

from __future__ import annotations

from vision.synth.card_faces import ALL_CARDS, CardDesign, CardFace, IndexMark, draw_back, draw_face, parse_card, sample_design
from vision.synth.card_fonts import EXTRA_INDEX_FONTS, HELDOUT_INDEX_FONTS, TRAIN_INDEX_FONTS
from vision.synth.card_layout import LAYOUTS, CardOptions
from vision.synth.card_scene import CardSceneConfig, render_card_scene
from vision.synth.scene import RenderedScene, SceneConfig, render_scene

__all__ = [
    "ALL_CARDS",
    "CardDesign",
    "CardFace",
    "CardOptions",
    "CardSceneConfig",
    "EXTRA_INDEX_FONTS",
    "HELDOUT_INDEX_FONTS",
    "IndexMark",
    "LAYOUTS",
    "RenderedScene",
    "SceneConfig",
    "TRAIN_INDEX_FONTS",
    "draw_back",
    "draw_face",
    "parse_card",
    "render_card_scene",
    "render_scene",
    "sample_design",
]
