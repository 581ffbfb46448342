"""The picture's own stillness: sensor noise and exposure are still, a die or a hand is not."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import vision.live.stillness as stillness_mod
from vision.synth.camera_shifts import CameraShift
from vision.live.stillness import moved, thumbnail

TOL = 8.0  # SettleConfig's image_still_tol


def felt(seed: int, size: tuple[int, int] = (640, 480), sigma: float = 2.5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w, h = size
    base = np.full((h, w, 3), (40, 110, 60), np.float32)
    base[:, : w // 2] += 30  # the light falls off across the table
    return np.clip(base + rng.normal(0, sigma, base.shape), 0, 255).astype(np.uint8)


def test_doctests() -> None:
    assert doctest.testmod(stillness_mod).failed == 0


@pytest.mark.parametrize("size", [(640, 480), (1280, 720), (320, 240)])
@pytest.mark.parametrize("camera", [None, "dim", "jpeg", "phone"])
def test_sensor_noise_is_not_motion(size: tuple[int, int], camera: str | None) -> None:
    shift = None if camera is None else CameraShift(camera)
    frames = [felt(k, size) for k in range(6)]
    if shift is not None:
        frames = [shift.apply(f) for f in frames]
    thumbs = [thumbnail(f) for f in frames]
    assert not any(moved(thumbs[0], t, TOL) for t in thumbs[1:])


def test_exposure_change_is_not_motion() -> None:
    a, b = felt(0), felt(1)
    brighter = np.clip(b.astype(np.int16) + 12, 0, 255).astype(np.uint8)
    assert not moved(thumbnail(a), thumbnail(brighter), TOL)


@pytest.mark.parametrize("size", [(640, 480), (1280, 720)])
def test_a_small_die_laid_down_is_motion(size: tuple[int, int]) -> None:
    a, b = felt(0, size), felt(1, size)
    side = size[0] * 20 // 640  # the smallest die eval-live plays: 20 px at 640 wide
    b[200:200 + side, 300:300 + side] = 230
    assert moved(thumbnail(a), thumbnail(b), TOL)


def test_a_hand_at_the_edge_is_motion() -> None:
    a, b = felt(0), felt(1)
    b[400:, :120] = (120, 150, 200)
    assert moved(thumbnail(a), thumbnail(b), TOL)


def test_another_frame_size_has_moved() -> None:
    assert moved(thumbnail(felt(0)), thumbnail(felt(0, (1280, 720))), TOL)


def test_grey_and_tiny_images() -> None:
    grey = felt(0)[..., 1]
    assert np.array_equal(thumbnail(grey), thumbnail(felt(0)))
    assert thumbnail(np.full((3, 5, 3), 7, np.uint8)).shape == (1, 1)
    with pytest.raises(ValueError, match="H x W"):
        thumbnail(np.zeros((4,), np.uint8))
