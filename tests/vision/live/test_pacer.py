"""vision.live.pacer: a paced source delivers ``fps`` frames a second and never bursts to catch up."""

from __future__ import annotations

import doctest

import pytest

import vision.live.pacer
from vision.live.pacer import Pacer


def test_doctests() -> None:
    result = doctest.testmod(vision.live.pacer)
    assert result.attempted >= 2 and result.failed == 0


def test_waits_a_period_between_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(vision.live.pacer.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(vision.live.pacer.time, "sleep", sleep)
    pacer = Pacer(10)
    for _ in range(3):
        pacer.wait()
    assert slept == pytest.approx([0.1, 0.1])
    assert clock[0] == pytest.approx(100.2)


def test_a_late_caller_restarts_the_schedule_rather_than_bursting(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    slept: list[float] = []
    monkeypatch.setattr(vision.live.pacer.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(vision.live.pacer.time, "sleep", slept.append)
    pacer = Pacer(10)
    pacer.wait()
    clock[0] = 1.0  # ten frames late
    pacer.wait()
    clock[0] = 1.05
    pacer.wait()
    assert slept == pytest.approx([0.05])
