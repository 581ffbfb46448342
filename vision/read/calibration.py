"""One abstention rule: temperature-scaled classifier probabilities and one threshold.

A classifier trained on some renders is overconfident on dice it never saw: its top
probability says 0.95 where it is right four times in five. Temperature scaling (Guo et
al., 2017) divides the logits by one number ``T`` fitted on held-out labelled crops, which
keeps every reading's order and fixes how sure it claims to be. The exported networks end
in a softmax, so the runtime tempers their probabilities instead, which is the same:
``softmax(log p / T) == softmax(logits / T)``.

A die is then sure when its tempered probability clears the manifest's one ``threshold``,
the lowest of :data:`THRESHOLDS` that keeps the calibration photos' confidently wrong
readings at or under :data:`MAX_WRONG` (chosen on the whole read path:
:mod:`vision.commands.calibrate`).

>>> p = np.array([[0.9, 0.1], [0.6, 0.4]])
>>> tempered(p, 1.0) is p, tempered(p, 2.0).round(3).tolist()
(True, [[0.75, 0.25], [0.551, 0.449]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TEMPERATURES = np.exp(np.linspace(np.log(0.25), np.log(8.0), 121))  # the grid searched, 3 % apart
MAX_WRONG = 0.005  # the share of confidently wrong readings the threshold allows on the calibration set
THRESHOLDS = (*np.round(np.arange(0.50, 0.996, 0.01), 2).tolist(), 0.995, 0.999)  # what a calibration chooses from


def tempered(p: np.ndarray, temperature: float) -> np.ndarray:
    """``p`` (rows of probabilities) as the network would give them with its logits divided
    by ``temperature``; ``p`` itself at 1."""
    if temperature == 1.0:
        return p
    if not temperature > 0:
        raise ValueError(f"a temperature is above 0, got {temperature}")
    logp = np.log(np.clip(p, 1e-12, None)) / temperature
    logp -= logp.max(axis=1, keepdims=True)
    out = np.exp(logp)
    return (out / out.sum(axis=1, keepdims=True)).astype(p.dtype, copy=False)


def nll(p: np.ndarray, truth: np.ndarray) -> float:
    """Mean negative log-likelihood of the true classes (indices ``truth``) under ``p``."""
    return float(-np.log(np.clip(p[np.arange(len(truth)), truth], 1e-12, None)).mean())


def fit_temperature(p: np.ndarray, truth: np.ndarray) -> float:
    """The temperature of :data:`TEMPERATURES` that makes ``p`` the likeliest for ``truth``.

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 4, 2000)
    >>> logits = rng.normal(0, 1, (2000, 4)); logits[np.arange(2000), truth] += 1.0  # true odds: softmax(logits)
    >>> sharp = np.exp(logits * 3); sharp /= sharp.sum(1, keepdims=True)  # three times too sure
    >>> 2.7 < fit_temperature(sharp, truth) < 3.3
    True
    """
    if len(truth) == 0:
        raise ValueError("no labelled readings to fit a temperature on")
    losses = [nll(tempered(p, float(t)), truth) for t in TEMPERATURES]
    return float(TEMPERATURES[int(np.argmin(losses))])


@dataclass(frozen=True)
class HeadCalibration:
    """What calibrating one head measured on its labelled readings."""

    n: int
    temperature: float
    nll_before: float
    nll_after: float
    accuracy: float  # best guess right, whatever its probability

    def as_json(self) -> dict[str, float | int]:
        return {"n": self.n, "temperature": round(self.temperature, 4), "nll_before": round(self.nll_before, 4),
                "nll_after": round(self.nll_after, 4), "accuracy": round(self.accuracy, 4)}


def calibrate_head(p: np.ndarray, truth: np.ndarray) -> HeadCalibration:
    """Fit one head's temperature on its probabilities ``p`` for readings whose true class
    indices are ``truth``."""
    t = fit_temperature(p, truth)
    return HeadCalibration(len(truth), t, nll(p, truth), nll(tempered(p, t), truth),
                           float((p.argmax(axis=1) == truth).mean()))


def indices(labels: Sequence[str], classes: Sequence[str]) -> np.ndarray:
    """The class index of each label (every label must be one of ``classes``)."""
    where = {c: i for i, c in enumerate(classes)}
    return np.array([where[x] for x in labels], np.int64)
