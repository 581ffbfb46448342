"""vision.image_io: files decode to the BGR pixels a camera saw, whatever their format."""

from __future__ import annotations

import doctest
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.image_io
from vision.image_io import read_image


def test_doctests() -> None:
    result = doctest.testmod(vision.image_io)
    assert result.attempted >= 1 and result.failed == 0


def _gradient() -> np.ndarray:
    ramp = np.tile(np.linspace(0, 255, 64, dtype=np.float32), (32, 1))
    return np.dstack([ramp, ramp[:, ::-1], np.full_like(ramp, 128)]).astype(np.uint8)  # BGR


def test_a_16_bit_grey_png_keeps_its_grey_levels(tmp_path: Path) -> None:
    grey = cv2.cvtColor(_gradient(), cv2.COLOR_BGR2GRAY)
    cv2.imwrite(str(tmp_path / "g.png"), grey.astype(np.uint16) * 257)
    image = read_image(tmp_path / "g.png")
    assert image.shape == (32, 64, 3) and image.dtype == np.uint8
    assert np.abs(image[:, :, 0].astype(int) - grey).max() <= 1  # not clipped to white


def test_a_16_bit_colour_png_reads_as_its_8_bit_colours(tmp_path: Path) -> None:
    bgr = _gradient()
    cv2.imwrite(str(tmp_path / "c.png"), bgr.astype(np.uint16) * 257)
    assert np.abs(read_image(tmp_path / "c.png").astype(int) - bgr).max() <= 1


def test_a_file_no_decoder_knows_is_refused_after_ultralytics_wrapped_pillow() -> None:
    """Importing Ultralytics (``tableref train`` and ``bench`` do) wraps ``PIL.Image.open``: a
    file Pillow cannot identify is retried with a HEIF plugin, which offline is a
    ModuleNotFoundError. The reader still says the format is not recognised."""
    pytest.importorskip("ultralytics")
    from PIL import Image

    from vision.image_io import UnreadableImage, decode_image

    unwrapped = Image.open
    try:
        import ultralytics.utils.patches  # noqa: F401  (wraps Image.open on import)
        with pytest.raises(UnreadableImage, match="not a recognised image format"):
            decode_image(b"GIF89a not really")
    finally:
        Image.open = unwrapped
