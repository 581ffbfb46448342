"""Decode image files into BGR arrays, refusing anything that is not a whole image.

OpenCV happily returns the top half of a truncated JPEG (and a warning on stderr);
Pillow notices, so it does the decoding. EXIF orientation is applied, as
``cv2.imread`` does, so photos come out the way they were shot and trained on.
A phone's HEIC/HEIF photo (an iPhone's default) is decoded through ``pillow-heif``.

>>> for data in (b"", b"GIF89a not really"):
...     try:
...         decode_image(data)
...     except UnreadableImage as exc:
...         print(exc)
empty file
not a recognised image format
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.read.regular_file import FileRefused, read_regular_file

try:
    from pillow_heif import register_heif_opener
except ImportError:  # pragma: no cover - a runtime dependency; without it HEIC is "not a recognised image format"
    pass
else:
    register_heif_opener()

#: The file suffixes of the photos :func:`decode_image` reads: a folder of photos is listed
#: by them (``tableref eval``), and a profile's taught photos keep theirs.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".heic", ".heif")


def photos_in(folder: Path) -> list[Path]:
    """The photos in ``folder``, by name: its files with one of :data:`IMAGE_SUFFIXES` (any
    case), not those of its subfolders."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())

#: The most pixels a photo may have. A 4K webcam frame is 8.3 Mpx and a phone photo 12 Mpx, or
#: 48-50 Mpx (8160x6120) in a phone's full-resolution mode; decoding peaks at about 12 bytes a
#: pixel (measured: 600 MB at this cap), so a larger image, a panorama, a scan or a
#: decompression bomb (a 257 KB PNG of 9400x9400 zeros, 1 GB decoded), is refused unread.
MAX_PIXELS = 50_000_000

#: The largest image file read: a photo at :data:`MAX_PIXELS` stored without any compression,
#: 4 bytes (RGBA) a pixel. A JPEG of a phone photo is a few MB.
MAX_FILE_BYTES = 4 * MAX_PIXELS


class UnreadableImage(ValueError):
    """The file is missing, empty, truncated, corrupt or not an image; the message says which."""


def decode_image(data: bytes) -> np.ndarray:
    """Bytes of a JPEG/PNG/... file -> ``H x W x 3`` uint8 BGR array."""
    if not data:
        raise UnreadableImage("empty file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                if im.width * im.height > MAX_PIXELS:
                    raise UnreadableImage(
                        f"image too large: {im.width}x{im.height} is {im.width * im.height / 1e6:.1f} Mpx, more than "
                        f"the {MAX_PIXELS / 1e6:.0f} Mpx of a full-resolution phone photo (resize it)")
                im.load()
                im = ImageOps.exif_transpose(im)
                rgb = _eight_bit(im).convert("RGB")
    except UnidentifiedImageError:
        raise UnreadableImage("not a recognised image format") from None
    except ImportError:
        # Ultralytics (imported by `tableref train` and `bench`) wraps Image.open so that a file
        # Pillow cannot identify is tried again with a HEIF plugin it installs on the fly; offline,
        # that raises ModuleNotFoundError instead of Pillow's own error.
        raise UnreadableImage("not a recognised image format") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise UnreadableImage(f"image too large: {exc}") from None
    except OSError as exc:
        reason = str(exc) or type(exc).__name__
        if "truncated" in reason.lower():
            raise UnreadableImage("truncated image data") from None
        raise UnreadableImage(f"corrupt image: {reason}") from None
    except (ValueError, SyntaxError) as exc:  # Pillow raises these for some malformed headers
        raise UnreadableImage(f"corrupt image: {exc}") from None
    arr = np.asarray(rgb)
    if arr.ndim != 3 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise UnreadableImage("image has no pixels")
    return np.ascontiguousarray(arr[:, :, ::-1])


def _eight_bit(im: Image.Image) -> Image.Image:
    """``im`` with 16-bit grey levels scaled to 8 bits. Pillow's own conversion clips them
    at 255, which turns a 16-bit grey PNG (a machine-vision camera's, a scanner's) white."""
    if im.mode not in _SIXTEEN_BIT_GREY:
        return im
    grey = np.asarray(im, dtype=np.float32) * (255.0 / 65535.0)
    return Image.fromarray(np.clip(grey + 0.5, 0, 255).astype(np.uint8), mode="L")


_SIXTEEN_BIT_GREY = frozenset({"I;16", "I;16L", "I;16B", "I;16N", "I"})


def read_image(path: Path | str) -> np.ndarray:
    """Read and decode ``path``; every failure is an :class:`UnreadableImage` with a reason. Only
    a regular file of at most :data:`MAX_FILE_BYTES` is read (see :mod:`vision.read.regular_file`)."""
    try:
        data = read_regular_file(path, MAX_FILE_BYTES,
                                 f"a {MAX_PIXELS // 1_000_000} Mpx photo stored uncompressed is no larger")
    except FileRefused as exc:
        raise UnreadableImage(str(exc)) from None
    return decode_image(data)
