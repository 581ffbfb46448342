"""pytest-benchmark timings of the reader (skipped by the default ``--benchmark-disable``).

Run with ``pytest tests/vision/evaluate/test_bench_reader.py --benchmark-enable``. The committed
models are used when present; the tiny hand-built ONNX models otherwise measure only
the reader's own overhead (letterbox, crops, NMS, backend calls).
"""

from __future__ import annotations


import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.evaluate.bench import DEFAULT_IMAGES, fit_frame
from vision.read.image_io import photos_in
from vision.read.image_io import read_image
from vision.read.reader import DEFAULT_MODEL_DIR, load_reader


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    if (DEFAULT_MODEL_DIR / "dice-reader.json").is_file():
        return load_reader(threads=2)
    pytest.importorskip("onnx")
    return load_reader(tiny.build_onnx(tmp_path_factory.mktemp("tiny")), threads=2)


def frame(width: int, height: int) -> np.ndarray:
    photos = photos_in(DEFAULT_IMAGES)[:1] if DEFAULT_IMAGES.is_dir() else []
    source = read_image(photos[0]) if photos else tiny.scene()
    return fit_frame(source, width, height)


@pytest.mark.parametrize(("width", "height"), [(640, 480), (1280, 720)])
def test_bench_read_frame(benchmark, reader, width, height):
    image = frame(width, height)
    reading = benchmark(reader.without_cards().read, image)
    assert (reading.width, reading.height) == (width, height) and not reading.cards()


def test_bench_read_15_dice_live(benchmark, reader):
    """The live target's frame: 640x480 with 15 dice in view, read as a live frame."""
    from vision.evaluate.bench import card_table_frames

    (image,) = card_table_frames(1, 640, 480, dice=15, cards=0)
    reading = benchmark(reader.without_cards().read, image)
    assert (reading.width, reading.height) == (640, 480) and not reading.cards()


def test_bench_read_20_dice_3_cards(benchmark, reader):
    """The card brief's target frame: 1280x720, 20 dice and 3 face-up cards, read in one pass."""
    from vision.evaluate.bench import card_table_frames

    (image,) = card_table_frames(1)
    reading = benchmark(reader.read, image)
    assert (reading.width, reading.height) == (1280, 720)
    if reader.cards is not None:
        assert reading.cards()
