"""The webcam look applied to Cycles' linear frames: exposure, highlight metering, noise."""

from __future__ import annotations

import numpy as np

from vision.yardstick import post

CLEAN = post.Sensor(exposure_bias=1.0, full_well=1e9, read_noise=0.0, softness=0.0, vignette=0.0, shake_px=0.0,
                    shake_angle=0.0)


def _frame() -> np.ndarray:
    img = np.full((120, 160, 3), 0.03)  # a dark cloth
    img[50:60, 70:80] = 0.9  # a white die, under 1 % of the frame
    img[54:56, 72:78] = 0.05  # its ink
    return img


def test_a_white_die_on_a_dark_cloth_keeps_its_ink_under_the_clip() -> None:
    out = post.develop(_frame(), CLEAN, np.random.default_rng(0)).astype(int)
    assert out[52, 71].max() < 250  # the white body is not clipped
    assert out[52, 71].min() - out[55, 74].max() > 80  # the ink still stands out
    assert 10 < out[5, 5].mean() < out[52, 71].mean()


def test_a_plain_frame_is_exposed_to_mid_grey() -> None:
    out = post.develop(np.full((60, 80, 3), 0.004), CLEAN, np.random.default_rng(0))
    assert 90 < out.mean() < 130  # exposure does not depend on how much light the room has


def test_dim_rooms_are_noisier_and_development_is_seeded() -> None:
    bright = post.Sensor(1.0, 1500.0, 3.0, 0.0, 0.0, 0.0, 0.0)
    dim = post.Sensor(1.0, 300.0, 3.0, 0.0, 0.0, 0.0, 0.0)
    flat = np.full((60, 80, 3), 0.2)
    a = post.develop(flat, bright, np.random.default_rng(1)).astype(float)
    b = post.develop(flat, dim, np.random.default_rng(1)).astype(float)
    assert b.std() > 1.5 * a.std() > 0
    assert np.array_equal(post.develop(flat, dim, np.random.default_rng(1)), b.astype(np.uint8))


def test_shake_smears_along_its_direction_only() -> None:
    img = np.zeros((21, 21, 3))
    img[10, 10] = 1.0
    out = post.shake(img, 6.0, 0.0)  # horizontal
    assert (out[10, :, 0] > 0).sum() >= 5
    assert (out[:, 10, 0] > 0).sum() == 1
