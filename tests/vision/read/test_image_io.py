"""vision.read.image_io: files decode to the BGR pixels a camera saw, whatever their format."""

from __future__ import annotations

import doctest
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.read.image_io
from vision.read.image_io import read_image


def test_doctests() -> None:
    result = doctest.testmod(vision.read.image_io)
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

    from vision.read.image_io import UnreadableImage, decode_image

    unwrapped = Image.open
    try:
        import ultralytics.utils.patches  # noqa: F401  (wraps Image.open on import)
        with pytest.raises(UnreadableImage, match="not a recognised image format"):
            decode_image(b"GIF89a not really")
    finally:
        Image.open = unwrapped


def test_a_phones_heic_photo_reads_as_its_picture(tmp_path: Path) -> None:
    """An iPhone takes HEIC photos by default; the reader decodes them as it does a JPEG."""
    from PIL import Image

    from vision.read.image_io import IMAGE_SUFFIXES

    y, x = np.mgrid[0:96, 0:128]
    picture = np.dstack([x * 2, y * 2, (x + y)]).astype(np.uint8)  # RGB gradients
    path = tmp_path / "IMG_0001.HEIC"
    Image.fromarray(picture).save(path, format="HEIF", quality=95)
    image = read_image(path)
    assert image.shape == (96, 128, 3)
    assert float(np.abs(image[:, :, ::-1].astype(int) - picture).mean()) < 4.0
    assert path.suffix.lower() in IMAGE_SUFFIXES and ".heif" in IMAGE_SUFFIXES


def _zero_png(width: int, height: int) -> bytes:
    """A PNG of ``width`` x ``height`` black pixels: a few hundred KB that decode to width*height*3 bytes."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (width, height)).save(out, format="PNG")
    return out.getvalue()


def test_a_decompression_bomb_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    """9400x9400 zeros, a small PNG that once decoded to 1.3 GB: refused from its header alone."""
    import resource
    import time

    from vision.read.image_io import MAX_PIXELS, UnreadableImage

    path = tmp_path / "bomb.png"
    path.write_bytes(_zero_png(9400, 9400))
    assert path.stat().st_size < 1_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    with pytest.raises(UnreadableImage, match=r"9400x9400 is 88\.4 Mpx, more than the 50 Mpx of a full-resolution phone"):
        read_image(path)
    assert time.monotonic() - start < 2.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024  # KB: nothing decoded
    assert MAX_PIXELS >= 8160 * 6120  # a 50 MP phone photo at full resolution is still read


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_only_regular_files_are_read(tmp_path: Path, kind: str) -> None:
    """A symlink to /dev/zero once read without end and a named pipe blocked forever: both refused unopened."""
    import os
    import threading

    from vision.read.image_io import UnreadableImage

    path = tmp_path / "photo.jpg"
    if kind == "dev-zero":
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero")
        path.symlink_to("/dev/zero")
        reason = "not a regular file but a character device"
    else:
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes")
        os.mkfifo(path)
        reason = "not a regular file but a named pipe"
    errors: list[str] = []

    def read() -> None:
        try:
            read_image(path)
        except UnreadableImage as exc:
            errors.append(str(exc))

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    assert errors and reason in errors[0], errors


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.read.image_io
    from vision.read.image_io import UnreadableImage

    path = tmp_path / "photo.png"
    assert cv2.imwrite(str(path), _gradient())
    monkeypatch.setattr(vision.read.image_io, "MAX_FILE_BYTES", 100)
    with pytest.raises(UnreadableImage, match=r"too large: \d+ bytes, more than 100 \(a 50 Mpx photo stored uncompressed"):
        read_image(path)
