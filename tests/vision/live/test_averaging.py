"""The mean of a still picture's frames on a noisy sensor (vision/live/averaging.py)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import vision.live.averaging as averaging
from vision.live.averaging import still_mean, temporal_noise


def frames_of(sigma: float, n: int = 5, shape: tuple[int, ...] = (60, 80, 3)) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    base = np.full(shape, 128.0)
    return [np.clip(base + rng.normal(0, sigma, shape), 0, 255).astype(np.uint8) for _ in range(n)]


@pytest.mark.parametrize("sigma", [1.0, 3.0, 6.0, 12.0])
def test_the_noise_is_measured_in_grey_levels(sigma: float) -> None:
    assert 0.8 * sigma < temporal_noise(frames_of(sigma)) < 1.1 * sigma


def test_a_die_flickering_in_a_corner_does_not_move_the_measure() -> None:
    frames = frames_of(1.0)
    frames[2][:10, :10] = 255  # a tenth of the picture changed in one frame
    assert temporal_noise(frames) < 1.5


def test_the_mean_comes_only_on_a_noisy_sensor() -> None:
    noisy, clean = frames_of(8.0), frames_of(1.0)
    assert still_mean(clean, 3.5) is None
    mean = still_mean(noisy, 3.5)
    assert mean is not None and mean.dtype == np.uint8 and mean.shape == noisy[0].shape
    assert float(mean.std()) < float(noisy[-1].std()) / 2
    assert still_mean(noisy, None) is None


def test_bad_frames_are_refused_or_left_as_they_are() -> None:
    with pytest.raises(ValueError, match="at least two"):
        temporal_noise(frames_of(5.0, n=1))
    mixed = frames_of(5.0, n=2) + frames_of(5.0, n=1, shape=(30, 40, 3))
    with pytest.raises(ValueError, match="one size"):
        temporal_noise(mixed)
    assert still_mean(mixed, 3.5) is None
    grey = [f[..., 0] for f in frames_of(8.0)]
    mean = still_mean(grey, 3.5)
    assert mean is not None and mean.shape == grey[0].shape


def test_doctests() -> None:
    assert doctest.testmod(averaging).failed == 0
