"""Synthetic table scenes of dice for training and testing the reader.

>>> from vision.synth import DieSpec, SceneConfig, render_scene, TRAIN_FAMILIES, HELDOUT_FAMILIES
>>> "stone" in HELDOUT_FAMILIES and "stone" not in TRAIN_FAMILIES
True
"""

from vision.synth.scene import (
    HELDOUT_FAMILIES,
    RENDERER,
    RESOLUTIONS,
    SYNTH_VERSION,
    TRAIN_FAMILIES,
    DieSpec,
    RenderedScene,
    SceneConfig,
    render_scene,
)

__all__ = [
    "DieSpec",
    "SceneConfig",
    "RenderedScene",
    "render_scene",
    "TRAIN_FAMILIES",
    "HELDOUT_FAMILIES",
    "RESOLUTIONS",
    "SYNTH_VERSION",
    "RENDERER",
]
