"""A table's reader profile: the base reader's probabilities recalibrated for one set of dice.

A set the classifier never saw (another ship's wheel, a rounder pip, a new lamp) is mostly
read right but seldom surely: its best guess is right, its confidence is low or skewed
between look-alike faces. A :class:`Recalibration` is a small multinomial logistic layer on
the classifier's log-probabilities, ``p' = softmax(W log p + b)``, fitted on that set's
taught dice and pulled towards the identity (``W = I, b = 0``, which changes nothing), so
a face the teaching never showed keeps the base reading. It adapts in milliseconds from a
few photos and leaves the base models untouched; a :class:`Profile` names the base models
it was made for by their sha256 and is refused with any others.

>>> p = np.array([[0.7, 0.2, 0.1]], np.float32)
>>> np.allclose(Recalibration.identity(("1", "2", "3")).apply(p), p, atol=1e-5)
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

PROFILE_FORMAT = 1
PROFILE_FILE = "profile.json"
# Probabilities are floored here before the log, so that one face the base reader all but
# ruled out stays within reach of a few taught dice, and the features stay bounded.
LOG_FLOOR = 1e-4
# The pull towards the identity, worth this many taught dice: chosen by the teaching curve
# on the real tray's train photos under a warm cast (MODEL_CARD.md, "Teaching a table's set").
L2_PULL = 2.0
FIT_STEPS = 300
FIT_RATE = 0.05


def _names(data: Any) -> dict[str, str] | None:
    if data is None:
        return None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ProfileError("a profile must name its base models by file and sha256")
    return dict(data)


class ProfileError(ValueError):
    """A profile folder is missing, malformed, or made for other base models; the message says which."""


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _features(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, np.float64)
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
    return np.log(np.clip(p, LOG_FLOOR, 1.0))


@dataclass(frozen=True)
class Recalibration:
    """``softmax(W log p + b)`` over the classes ``classes`` of one classifier head."""

    classes: tuple[str, ...]
    weight: np.ndarray = field(repr=False)
    bias: np.ndarray = field(repr=False)

    @classmethod
    def identity(cls, classes: Sequence[str]) -> Recalibration:
        k = len(classes)
        return cls(tuple(classes), np.eye(k), np.zeros(k))

    @property
    def is_identity(self) -> bool:
        """Whether this changes nothing (a profile that chose no change)."""
        return bool(np.array_equal(self.weight, np.eye(len(self.classes))) and not self.bias.any())

    def apply(self, p: np.ndarray) -> np.ndarray:
        """Recalibrated probabilities for rows of ``p`` (same classes, same order); each row
        keeps the sum it had (a head whose rows do not sum to one keeps that scale)."""
        p = np.asarray(p, np.float32)
        if p.ndim != 2 or p.shape[1] != len(self.classes):
            raise ValueError(f"expected probabilities over {len(self.classes)} classes, got shape {p.shape}")
        if not len(p) or self.is_identity:
            return p
        mass = p.sum(axis=1, keepdims=True)
        out = _softmax(_features(p) @ self.weight.T + self.bias)
        return (out * mass).astype(np.float32)

    @classmethod
    def fit(
        cls, classes: Sequence[str], p: np.ndarray, targets: np.ndarray, pull: float | None = None,
        steps: int = FIT_STEPS, rate: float = FIT_RATE,
    ) -> Recalibration:
        """Fit on probabilities ``p`` (N x K) whose true classes are ``targets`` (N indices):
        the summed cross-entropy plus ``pull`` times the squared distance from the identity
        (so the identity weighs as much as ``pull`` dice, whatever N), by Adam. Only the
        weights among the taught classes move (measured: with every weight free, one photo
        that misses some faces read those faces worse).
        Deterministic: the same data gives the same layer.

        >>> p = np.array([[0.4, 0.6], [0.45, 0.55], [0.1, 0.9]] * 4)
        >>> r = Recalibration.fit(("a", "b"), p, np.array([0, 0, 1] * 4))
        >>> r.apply(np.array([[0.42, 0.58]])).argmax(axis=1).tolist(), r.apply(np.array([[0.1, 0.9]])).argmax(axis=1).tolist()
        ([0], [1])
        """
        pull = L2_PULL if pull is None else pull
        k = len(classes)
        x = _features(np.asarray(p))
        t = np.asarray(targets, np.int64)
        if x.shape != (len(t), k):
            raise ValueError(f"expected {len(t)} x {k} probabilities, got {x.shape}")
        eye = np.eye(k)
        w, b = eye.copy(), np.zeros(k)
        if not len(t):
            return cls(tuple(classes), w, b)
        onehot = np.eye(k)[t]
        n = float(len(t))
        # Only the taught faces' weights move: a face the teaching never showed keeps the base
        # reader's reading of it, and is weighed by the others as before.
        seen = np.zeros(k, bool)
        seen[t] = True
        mask = np.outer(seen, seen)
        m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        for step in range(1, steps + 1):
            q = _softmax(x @ w.T + b)
            g = (q - onehot) / n
            g_w = (g.T @ x + 2.0 * (pull / n) * (w - eye)) * mask
            g_b = (g.sum(axis=0) + 2.0 * (pull / n) * b) * seen
            m_w = beta1 * m_w + (1 - beta1) * g_w
            v_w = beta2 * v_w + (1 - beta2) * g_w**2
            m_b = beta1 * m_b + (1 - beta1) * g_b
            v_b = beta2 * v_b + (1 - beta2) * g_b**2
            corr1, corr2 = 1 - beta1**step, 1 - beta2**step
            w -= rate * (m_w / corr1) / (np.sqrt(v_w / corr2) + eps)
            b -= rate * (m_b / corr1) / (np.sqrt(v_b / corr2) + eps)
        return cls(tuple(classes), w, b)

    def to_json(self) -> dict[str, Any]:
        return {"classes": list(self.classes), "weight": np.round(self.weight, 6).tolist(),
                "bias": np.round(self.bias, 6).tolist()}

    @classmethod
    def from_json(cls, data: Any) -> Recalibration:
        try:
            classes = tuple(str(c) for c in data["classes"])
            weight = np.asarray(data["weight"], np.float64)
            bias = np.asarray(data["bias"], np.float64)
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(f"malformed recalibration: {exc}") from None
        k = len(classes)
        if weight.shape != (k, k) or bias.shape != (k,) or not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            raise ProfileError(f"malformed recalibration: expected {k}x{k} weights and {k} biases")
        return cls(classes, weight, bias)


@dataclass(frozen=True)
class Profile:
    """What a table's teaching changed: the face (and body colour) recalibration, the base
    models it was fitted for (file -> sha256), and how much it was taught."""

    base: Mapping[str, str]
    faces: Recalibration
    colours: Recalibration | None
    photos: int
    objects: int
    counts: Mapping[str, int]
    # The deck: corner-index rank (and suit) recalibrations, and the card models they were
    # fitted for (file -> sha256); None where no card was taught.
    ranks: Recalibration | None = None
    suits: Recalibration | None = None
    card_base: Mapping[str, str] | None = None

    def check_base(self, base: Mapping[str, str]) -> None:
        """Raise :class:`ProfileError` unless ``base`` (the loaded reader's models) is the set
        this profile was made for."""
        if dict(base) != dict(self.base):
            theirs = ", ".join(f"{f} {h[:12]}" for f, h in sorted(self.base.items()))
            raise ProfileError("this profile was made for other base models (" + theirs + "); "
                               "re-teach it with `tableref teach --profile DIR`")

    def check_cards(self, base: Mapping[str, str]) -> None:
        """Raise :class:`ProfileError` when the profile was taught a deck for other card models."""
        if self.ranks is not None and dict(base) != dict(self.card_base or {}):
            raise ProfileError("this profile's deck was taught for other card models; "
                               "re-teach it with `tableref teach --profile DIR`")

    def to_json(self) -> dict[str, Any]:
        return {"format": PROFILE_FORMAT, "base": dict(self.base), "photos": self.photos, "objects": self.objects,
                "counts": dict(self.counts), "faces": self.faces.to_json(),
                "colours": None if self.colours is None else self.colours.to_json(),
                "ranks": None if self.ranks is None else self.ranks.to_json(),
                "suits": None if self.suits is None else self.suits.to_json(),
                "card_base": None if self.card_base is None else dict(self.card_base)}

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
            raise ProfileError(f"not a tableref profile of format {PROFILE_FORMAT}")
        base = data.get("base")
        if not isinstance(base, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in base.items()):
            raise ProfileError("a profile must name its base models")
        counts = data.get("counts") or {}
        return cls(base=dict(base), faces=Recalibration.from_json(data.get("faces")),
                   colours=None if data.get("colours") is None else Recalibration.from_json(data["colours"]),
                   ranks=None if data.get("ranks") is None else Recalibration.from_json(data["ranks"]),
                   suits=None if data.get("suits") is None else Recalibration.from_json(data["suits"]),
                   card_base=_names(data.get("card_base")),
                   photos=int(data.get("photos", 0)), objects=int(data.get("objects", 0)),
                   counts={str(k): int(v) for k, v in counts.items()})

    @classmethod
    def load(cls, folder: Path) -> Profile:
        path = Path(folder) / PROFILE_FILE
        if not path.is_file():
            raise ProfileError(f"{folder} holds no profile ({PROFILE_FILE} is missing); make one with `tableref teach`")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ProfileError(f"{path} cannot be read: {exc}") from None
        return cls.from_json(data)
