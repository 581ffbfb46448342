from __future__ import annotations

import numpy as np
import pytest

from vision.synth.camera_shifts import CameraShift


def photo() -> np.ndarray:
    """A 96x128 frame with smooth gradients, flat colours and a fine checkerboard."""
    rng = np.random.default_rng(0)
    img = np.zeros((96, 128, 3), np.uint8)
    img[..., 0] = np.linspace(20, 230, 128, dtype=np.uint8)[None, :]
    img[..., 1] = np.linspace(40, 200, 96, dtype=np.uint8)[:, None]
    img[..., 2] = 120
    img[10:40, 10:40] = (200, 60, 30)  # a blue die (BGR)
    img[50:80, 80:110] = (235, 235, 235)  # a white one
    checks = (np.indices((16, 16)).sum(axis=0) % 2 * 255).astype(np.uint8)
    img[60:76, 20:36] = checks[..., None]
    img[0:8, 100:128] = rng.integers(0, 255, (8, 28, 3), dtype=np.uint8)
    return img


@pytest.mark.parametrize("shift", list(CameraShift))
def test_every_shift_keeps_the_frame_and_changes_it_the_same_way_twice(shift):
    img = photo()
    out = shift.apply(img)
    assert out.shape == img.shape and out.dtype == np.uint8
    assert np.abs(out.astype(int) - img.astype(int)).mean() > 1.0
    assert np.array_equal(out, shift.apply(img.copy()))
    assert np.array_equal(img, photo())  # the input is left alone


def test_white_balance_moves_a_grey_toward_red_or_blue():
    grey = np.full((8, 8, 3), 128, np.uint8)
    b, g, r = CameraShift.WARM.apply(grey)[0, 0].astype(int)
    assert r > g > b
    b, g, r = CameraShift.COOL.apply(grey)[0, 0].astype(int)
    assert b > g > r


def test_exposure_darkens_or_clips():
    img = photo()
    assert CameraShift.DIM.apply(img).mean() < 0.7 * img.mean()
    bright = CameraShift.BRIGHT.apply(img)
    assert bright.mean() > img.mean()
    assert (bright[50:80, 80:110] == 255).all()  # the white die clips


def test_grainy_keeps_the_exposure_and_adds_the_gains_noise():
    img = photo()
    flat = np.full((64, 64, 3), 150, np.uint8)
    grainy = CameraShift.GRAINY.apply(flat).astype(float)
    assert abs(grainy.mean() - 150) < 6  # brought back up to about the same exposure
    assert grainy.std() > 3 * CameraShift.DIM.apply(flat).astype(float).std() / 2  # the gain lifts the noise too
    assert abs(CameraShift.GRAINY.apply(img).astype(float).mean() - img.mean()) < 0.1 * img.mean()


def test_lowres_and_soft_wash_out_a_one_pixel_checkerboard():
    img = photo()
    for shift in (CameraShift.LOWRES, CameraShift.SOFT):
        patch = shift.apply(img)[62:74, 22:34].astype(int)
        assert patch.std() < 40, shift  # 127 in the original


def test_phone_boosts_colour():
    img = photo()
    sat = lambda im: im[12:38, 12:38].max(axis=2).astype(int) - im[12:38, 12:38].min(axis=2)  # noqa: E731
    assert sat(CameraShift.PHONE.apply(img)).mean() > sat(img).mean() + 20


def test_a_random_camera_is_seeded_and_ranges_over_light_and_white_balance():
    from vision.synth.camera_shifts import random_camera

    img = photo()
    draws = [random_camera(img, np.random.default_rng(seed)) for seed in range(40)]
    assert np.array_equal(draws[0], random_camera(img, np.random.default_rng(0)))
    assert np.array_equal(img, photo())  # the input is left alone
    assert all(d.shape == img.shape and d.dtype == np.uint8 for d in draws)
    light = [d.mean() / img.mean() for d in draws]
    assert min(light) < 0.7 and max(light) > 1.1  # darker and brighter photos both
    grey = np.full((16, 16, 3), 128, np.uint8)
    tint = [(lambda p: p[..., 2].mean() - p[..., 0].mean())(random_camera(grey, np.random.default_rng(s)))
            for s in range(40)]
    assert min(tint) < -15 and max(tint) > 15  # red over blue, and blue over red
