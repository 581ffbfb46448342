"""vision.evaluate.datasets: the docstring examples hold (the layouts are exercised by the eval and training tests)."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
from PIL import Image

import vision.evaluate.datasets
from vision.evaluate.datasets import load_yolo, upright_size
from vision.read.image_io import read_image


def test_doctests() -> None:
    result = doctest.testmod(vision.evaluate.datasets)
    assert result.attempted >= 3 and result.failed == 0


def _sideways_photo(path: Path, upright: np.ndarray) -> None:
    """Store ``upright`` (RGB) turned a quarter left, tagged EXIF orientation 6 (turn right to view)."""
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(upright).transpose(Image.Transpose.ROTATE_90).save(path, quality=95, exif=exif)


def test_yolo_labels_of_a_sideways_phone_photo_are_scaled_to_the_upright_image(tmp_path: Path) -> None:
    upright = np.full((120, 80, 3), 40, np.uint8)  # portrait as viewed
    upright[30:50, 20:40] = 255  # a bright "die" in the upper left
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    _sideways_photo(tmp_path / "images" / "a.jpg", upright)
    (tmp_path / "labels" / "a.txt").write_text("2 0.375 0.3333 0.25 0.1667\n")
    (item,) = load_yolo(tmp_path)
    image = read_image(item.path)
    assert (item.width, item.height) == (80, 120) == (image.shape[1], image.shape[0])
    x0, y0, x1, y1 = (round(v) for v in item.objects[0].box)
    assert (x0, y0, x1, y1) == (20, 30, 40, 50)
    assert image[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2].mean() > 230  # the box lies on the die as read


def test_a_photo_without_an_orientation_tag_keeps_its_stored_size(tmp_path: Path) -> None:
    path = tmp_path / "b.png"
    Image.fromarray(np.zeros((30, 50, 3), np.uint8)).save(path)
    with Image.open(path) as im:
        assert upright_size(im) == (50, 30)
