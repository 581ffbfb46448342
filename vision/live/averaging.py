"""A settled reveal's picture with the camera sensor's noise averaged out.

A reveal settles once its dice have held still for a few frames (:class:`~vision.live.settle.Settler`),
and those frames show the same table with fresh sensor noise each. In a dim room a webcam
turns its gain up and that noise hides a small die's pips and marks; the mean of the still
frames shows them again. On a noisy sensor the dice's closer look
(:func:`vision.live.pipeline.look_closer`) reads that mean. On a clean one it reads the
frame itself: the classifiers learnt on noisy crops, and a mean of frames with little noise
read small dice worse; so did small cards' indices under a dim camera, so the cards' closer
look and the snapshot keep the frame (model card).

The noise is measured where it is: the spread of each pixel over the still frames (every
fourth pixel each way, the green channel), whose median over the picture is the sensor's
noise in grey levels; the few pixels that changed (a die's shadow flickering) do not move a
median.

>>> rng = np.random.default_rng(0)
>>> table = np.full((48, 64, 3), 100.0)
>>> frames = [np.clip(table + rng.normal(0, 8, table.shape), 0, 255).astype(np.uint8) for _ in range(5)]
>>> 6.5 < temporal_noise(frames) < 8.5  # noise of sigma 8 (a median of five-frame spreads reads a little under)
True
>>> mean = still_mean(frames, 3.5)
>>> float(np.abs(mean.astype(float) - 100).mean()) < float(np.abs(frames[-1].astype(float) - 100).mean()) / 2
True
>>> still_mean(frames, 10.0), still_mean(frames[:1], 3.5)
(None, None)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["still_mean", "temporal_noise"]

#: Every how many pixels (each way) the noise is sampled.
_STEP = 4


def temporal_noise(frames: Sequence[np.ndarray]) -> float:
    """The sensor's noise over ``frames`` of one still picture (two or more, one size): the
    median over sampled pixels of each pixel's standard deviation across the frames, in grey
    levels of the green channel. Raises ValueError for fewer than two frames or mixed sizes."""
    if len(frames) < 2:
        raise ValueError("the noise over frames needs at least two of them")
    if len({f.shape for f in frames}) != 1:
        raise ValueError("frames of one still picture share one size")
    planes = np.stack([f[::_STEP, ::_STEP, 1] if f.ndim == 3 else f[::_STEP, ::_STEP] for f in frames]).astype(np.float32)
    return float(np.median(planes.std(axis=0, ddof=1)))


def still_mean(frames: Sequence[np.ndarray], noisier_than: float | None) -> np.ndarray | None:
    """The mean of ``frames`` (the latest frames of one still picture) when their
    :func:`temporal_noise` is ``noisier_than`` or more; None when it is less, or with one
    frame, frames of mixed sizes, or ``noisier_than`` None."""
    if noisier_than is None or len(frames) < 2 or len({f.shape for f in frames}) != 1:
        return None
    if temporal_noise(frames) < noisier_than:
        return None
    mean = np.mean(np.stack(frames).astype(np.float32), axis=0)
    return np.clip(mean + 0.5, 0, 255).astype(np.uint8)
