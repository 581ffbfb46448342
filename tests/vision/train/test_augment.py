"""The classifier's training views (numpy and cv2 only): a far webcam's small dice degraded
at their own size and sharpened as the reader sharpens them."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.read.policy import DiceKnobs
from vision.train.augment import AugmentConfig, augment, context_size, small_camera


def _context(size: int = 56) -> np.ndarray:
    rng = np.random.default_rng(3)
    ctx = np.full((context_size(size), context_size(size), 3), 90, np.uint8)
    c = context_size(size) // 2
    cv2.rectangle(ctx, (c - 20, c - 20), (c + 20, c + 20), (230, 230, 230), -1)
    cv2.putText(ctx, "5", (c - 8, c + 9), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
    return ctx + rng.integers(0, 3, ctx.shape, dtype=np.uint8)


def test_off_it_draws_the_views_it_drew_before() -> None:
    ctx = _context()
    before = [augment(ctx, np.random.default_rng(s), 56) for s in range(30)]
    off = [augment(ctx, np.random.default_rng(s), 56, AugmentConfig(p_small_camera=0.0)) for s in range(30)]
    assert all(np.array_equal(a, b) for a, b in zip(before, off))


def test_on_it_changes_only_the_views_that_lose_resolution() -> None:
    ctx = _context()
    sharp = AugmentConfig(p_lowres=0.0, p_small_camera=1.0)
    assert all(np.array_equal(augment(ctx, np.random.default_rng(s), 56, AugmentConfig(p_lowres=0.0)),
                              augment(ctx, np.random.default_rng(s), 56, sharp)) for s in range(10))
    small = AugmentConfig(p_lowres=1.0, lowres_side=(18, 22))
    changed = [not np.array_equal(augment(ctx, np.random.default_rng(s), 56, small),
                                  augment(ctx, np.random.default_rng(s), 56, dataclasses.replace(small, p_small_camera=1.0)))
               for s in range(10)]
    assert all(changed)


def test_the_small_image_is_sharpened_as_the_reader_sharpens_a_small_crop() -> None:
    quiet = AugmentConfig(p_noise=0.0, p_jpeg=0.0)
    small = cv2.resize(_context(), (20, 20), interpolation=cv2.INTER_AREA)
    sharpen = DiceKnobs().sharpen
    assert sharpen is not None and sharpen.applies(small)
    assert np.array_equal(small_camera(small, np.random.default_rng(0), quiet), sharpen.apply(small))
    flat = np.full((20, 20, 3), 128, np.uint8)
    assert np.array_equal(small_camera(flat, np.random.default_rng(0), quiet), flat)


def test_its_noise_falls_at_the_small_size() -> None:
    noisy = AugmentConfig(p_noise=1.0, noise_sigma=(6.0, 6.0), p_jpeg=0.0)
    flat = np.full((20, 20, 3), 128, np.uint8)
    out = small_camera(flat, np.random.default_rng(0), noisy)
    assert out.shape == flat.shape and out.std() > 6.0  # noise at the small size, then sharpened
    big = cv2.resize(out, (56, 56), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    # enlarged, neighbouring pixels move together: the grain is the small image's, not the input's
    assert np.corrcoef(big[:, :-1].ravel(), big[:, 1:].ravel())[0, 1] > 0.5
