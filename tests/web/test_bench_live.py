"""pytest-benchmark wrappers of :mod:`web.live_bench` (the live dashboard's frame rates and
reveal latency).

With the default ``--benchmark-disable`` the frame-rate benchmark runs only as a short
check of the measuring code (an image folder and a fixed reader, about 3 s) and the
latency benchmark is skipped (it drives Chromium for about a minute). Run them for real
with the trained model in ``models/``::

    pytest tests/web/test_bench_live.py --benchmark-enable -s
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.read.detections import Detection, Reading
from web.live_bench import (
    CHROMIUM,
    FPS_TARGET,
    LATENCY_TARGET_MS,
    MODEL_FILES,
    bench_pipeline_fps,
    bench_reveal_latency,
    models_present,
)


class FixedReader:
    """Three dice, always in the same places (a test double for the dice reader)."""

    info = {"name": "fixed-reader", "backend": "none"}

    def read(self, image: np.ndarray) -> Reading:
        dice = tuple(Detection("die", face, "white", (20.0 + 60 * i, 40.0, 70.0 + 60 * i, 90.0), 0.95)
                     for i, face in enumerate(["4", "wheel", "2"]))
        return Reading(dice, int(image.shape[1]), int(image.shape[0]), 1.0)


def _need_model() -> None:
    if not models_present():
        pytest.skip(f"no reader model in models/ (needs {', '.join(MODEL_FILES)})")


def test_bench_pipeline_fps(benchmark: Any, tmp_path: Path) -> None:
    if benchmark.disabled:
        still = tmp_path / "table.png"
        cv2.imwrite(str(still), np.full((480, 640, 3), 90, np.uint8))
        result = benchmark.pedantic(bench_pipeline_fps, args=(1.5,), kwargs={"source": str(still), "reader": FixedReader(),
                                    "warmup_s": 0.5}, rounds=1, iterations=1)
        assert result["frames_captured"] > 0 and result["frames_detected"] > 0 and result["frames_streamed"] > 0
        # A still image at 15 fps and a reader that takes no time: the pipeline keeps up,
        # and the one consumer gets a part per detected frame (the view changes each time).
        assert 5 < result["capture_fps"] <= FPS_TARGET * 1.2
        assert 5 < result["detect_fps"] <= FPS_TARGET * 1.2
        assert 2 < result["stream_fps"] <= FPS_TARGET * 1.2
        assert result["reader_ms_median"] is not None and result["reader"]["name"] == "fixed-reader"
        return
    _need_model()
    result = benchmark.pedantic(bench_pipeline_fps, args=(10.0,), rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    print(f"\nlive pipeline on the demo: capture {result['capture_fps']} fps, detection {result['detect_fps']} fps, "
          f"streamed {result['stream_fps']} fps (target {FPS_TARGET:g}); reader median {result['reader_ms_median']} ms, "
          f"overlay {result['overlay_ms']} ms, CPU {result['cpu_percent']}%, load {result['loadavg']}")
    assert result["frames_detected"] > 0 and result["reader_errors"] == 0


def test_bench_reveal_latency(benchmark: Any) -> None:
    if benchmark.disabled:
        pytest.skip("benchmark: drives Chromium for about a minute; run with --benchmark-enable")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    _need_model()
    result = benchmark.pedantic(bench_reveal_latency, args=(7,), rounds=1, iterations=1)
    benchmark.extra_info.update({k: v for k, v in result.items() if k != "samples"})
    print(f"\nsettled reveal -> verdict in the DOM over {result['n']} reveals: median {result['median_ms']} ms, "
          f"p90 {result['p90_ms']} ms (target {LATENCY_TARGET_MS:g} ms); next frame median {result['frame_median_ms']} ms; "
          f"from the settling frame's capture {result['from_capture_median_ms']} ms; discarded {result['discarded']}; "
          f"{result['agree']}/{result['n']} verdicts match the rendered dice")
    assert result["n"] >= 5


class DemoOracle:
    """Reads what the demo source says it shows (a test double: the truth, with its boxes)."""

    info = {"name": "demo-oracle"}

    def __init__(self) -> None:
        self.source: Any = None

    def read(self, image: np.ndarray) -> Reading:
        truth = self.source.last_truth if self.source is not None else ()
        dice = tuple(Detection("die", d.face, d.colour, tuple(d.box), 0.95) for d in truth or ())
        return Reading(dice, int(image.shape[1]), int(image.shape[0]), 1.0)


def test_demo_status_reports_what_the_demo_rendered() -> None:
    """The latency benchmark and the browser test check verdicts against ``status()["demo"]``."""
    from vision.demo.table import DemoSource
    from vision.live.pipeline import LivePipeline
    from web.live import PipelineCamera, demo_specs

    oracle = DemoOracle()

    def opener() -> DemoSource:
        oracle.source = DemoSource(fps=30, hold_s=1.5, bank=1, games=("pin456",), seed=7)
        return oracle.source

    camera = PipelineCamera(LivePipeline(opener, oracle, detect_fps=30))
    camera.start()
    try:
        first = camera.settled_after(0.0, timeout=60)
        assert first is not None
        camera.expect("liars-dice", {"dice_in_play": 6})  # the table's hint: six liars dice next
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            demo = camera.status()["demo"]
            six = [e for e in demo["settled"] if e["truth"] is not None and len(e["truth"]) == 6]
            if six:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"no settled reveal of the six hinted dice: {camera.status()['demo']}")
        entry = six[-1]
        assert sorted(entry["faces"]) == sorted(entry["truth"])  # the oracle read exactly what was rendered
        assert set(entry["truth"]) <= {"wheel", "2", "3", "4", "5", "6"}
        assert entry["frame_at"] <= entry["at"] <= time.time()
        assert [e["seq"] for e in demo["settled"]] == sorted(e["seq"] for e in demo["settled"])
        assert demo["clip_dice"] > 0 and (demo["truth"] is None or isinstance(demo["truth"], list))
        assert len(demo_specs("liars-dice", {"dice_in_play": 6}) or []) == 6
    finally:
        camera.stop()


def test_live_bench_doctests() -> None:
    import doctest

    import web.live_bench

    result = doctest.testmod(web.live_bench, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0
