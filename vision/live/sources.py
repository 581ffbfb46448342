"""Where frames come from: a webcam, a video file, a network stream, a folder of images, or the demo.

``open_source(spec)`` turns what a player types after ``tableref serve --source`` into a
:class:`FrameSource`:

=====================  ==============================================================
``"0"``, ``"1"``        webcam by index
``"clip.mp4"``          video file (loops at its own frame rate)
``"rtsp://..."``        network stream: anything OpenCV's FFmpeg backend opens
                        (``http``, ``https``, ``rtsp``, ``rtmp``, ``udp``, ``tcp``)
``"photos/"``           folder of images, cycled in name order, each held ``hold_s``
``"reveal.jpg"``        a single image, shown as a still
``"demo"``              the built-in synthetic table loop (:mod:`vision.demo.table`)
=====================  ==============================================================

Every failure is a :class:`SourceError` whose message says what to do, e.g.

>>> try:
...     open_source("no/such/place")
... except SourceNotFound as err:
...     print(err)
no such file, folder or camera: 'no/such/place' (give a camera index like 0, a video file, a folder of images, a stream URL, or 'demo')

Frames are BGR ``uint8`` arrays. Sources that replay stored pixels (folder, still image,
demo) hand out the same array more than once, so it is marked read-only: copy before drawing.
Sources that are not a live device pace themselves to their frame rate, so a reader sees
them exactly as it would see a camera.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar, Protocol, runtime_checkable

import cv2
import numpy as np

from vision.live.pacer import Pacer
from vision.read.image_io import IMAGE_SUFFIXES, UnreadableImage, photos_in, read_image

# What a webcam is asked for. Doubt's cards stand 60-120 px tall in a 640x480 webcam frame,
# their corner indices 10-18 px; at 1280x720 twice that. Live Doubt reveals read right went
# from 111 to 180 of 240 clips.
WEBCAM_SIZE = (1280, 720)
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv", ".gif")
STREAM_SCHEMES = ("http://", "https://", "rtsp://", "rtsps://", "rtmp://", "udp://", "tcp://")
LANGUAGES = ("en", "ja")


class SourceError(RuntimeError):
    """A frame source cannot be opened or stopped delivering. ``str(err)`` is for the player.

    Like the referee's errors, each kind has a stable ``code`` and a message in English
    and Japanese, filled from keyword parameters.

    >>> err = CameraNotFound(index=0)
    >>> err.code
    'camera_not_found'
    >>> err.message("ja")
    'カメラ0が見つかりません（接続と、他のアプリが使用していないかを確認してください）。'
    """

    code: ClassVar[str] = "source_error"
    templates: ClassVar[dict[str, str]] = {"en": "{reason}", "ja": "{reason}"}

    def __init__(self, **params: object) -> None:
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        template = self.templates.get(lang, self.templates["en"])
        try:
            return template.format(**self.params)
        except (KeyError, IndexError):
            return f"{self.code}: {self.params}"

    def to_json(self, lang: str = "en") -> dict[str, object]:
        return {"code": self.code, "message": self.message(lang)}


class SourceNotFound(SourceError):
    """The spec names nothing that exists."""

    code = "source_not_found"
    templates = {
        "en": "no such file, folder or camera: {spec!r} (give a camera index like 0, a video file, "
        "a folder of images, a stream URL, or 'demo')",
        "ja": "ファイル・フォルダ・カメラが見つかりません: {spec!r}（カメラ番号（例: 0）、動画ファイル、"
        "画像フォルダ、ストリームURL、または demo を指定してください）",
    }


class CameraNotFound(SourceNotFound):
    code = "camera_not_found"
    templates = {
        "en": "camera {index} not found (check it is plugged in and not in use by another program)",
        "ja": "カメラ{index}が見つかりません（接続と、他のアプリが使用していないかを確認してください）。",
    }


class StreamUnreachable(SourceError):
    code = "stream_unreachable"
    templates = {
        "en": "cannot open stream {url} (check the address, that the camera app is running, and the network)",
        "ja": "ストリーム {url} を開けません（アドレス、カメラアプリの起動、ネットワークを確認してください）。",
    }


class VideoUnreadable(SourceError):
    code = "video_unreadable"
    templates = {
        "en": "cannot read video {path} (not a video OpenCV can decode, or it has no frames)",
        "ja": "動画 {path} を読めません（OpenCVで再生できない形式か、フレームがありません）。",
    }


class FolderEmpty(SourceError):
    code = "folder_empty"
    templates = {
        "en": "folder {path} has no readable images (put .jpg or .png files in it)",
        "ja": "フォルダ {path} に画像がありません（.jpg か .png を入れてください）。",
    }


class ImageUnreadable(SourceError):
    code = "image_unreadable"
    templates = {
        "en": "cannot read image {path} (not an image file, or it is damaged)",
        "ja": "画像 {path} を読めません（画像ファイルではないか、壊れています）。",
    }


class SourceLost(SourceError):
    """An open source stopped delivering frames (camera unplugged, stream dropped, files removed)."""

    code = "source_lost"
    templates = {
        "en": "{name} stopped sending frames ({reason})",
        "ja": "{name} からの映像が途切れました（{reason}）。",
    }


@runtime_checkable
class FrameSource(Protocol):
    """Something that yields BGR frames. Not thread-safe: one reader thread at a time.

    ``read()`` blocks until the next frame is due and returns it, or raises
    :class:`SourceError` when the source is gone. ``live`` is true for devices and
    streams (they set the pace); false for sources replayed from storage.
    """

    name: str
    live: bool

    def read(self) -> np.ndarray: ...

    def close(self) -> None: ...


def _readonly(image: np.ndarray) -> np.ndarray:
    image.setflags(write=False)
    return image


@contextmanager
def _quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's own warnings while probing a device: the watchdog retries every few
    seconds and the player already gets one clear :class:`SourceError` instead."""
    try:
        import cv2.utils.logging as cvlog
    except ImportError:  # pragma: no cover - older OpenCV builds
        yield
        return
    before = cvlog.getLogLevel()
    cvlog.setLogLevel(cvlog.LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        cvlog.setLogLevel(before)


def _imread(path: Path) -> np.ndarray | None:
    """The photo at ``path`` decoded as ``tableref read`` decodes it (:func:`~vision.read.image_io.read_image`:
    EXIF orientation, 16-bit grey, a phone's HEIC, the size cap), or None when it cannot be
    read whole (a photo still being copied into the folder)."""
    try:
        return read_image(path)
    except UnreadableImage:
        return None


class CaptureSource:
    """A webcam (by index) or a network stream, read through ``cv2.VideoCapture``.

    ``size`` asks the device for a capture size; the driver may give the nearest it has,
    or its own default if it has nothing near. ``size`` is then what it delivers.
    """

    live = True

    def __init__(
        self,
        target: int | str,
        *,
        size: tuple[int, int] | None = None,
        open_timeout_s: float = 8.0,
    ) -> None:
        self.target = target
        self.name = f"camera {target}" if isinstance(target, int) else f"stream {_redact(target)}"
        cap = self._open(target, open_timeout_s)
        frame = self._first_frame(cap, size)
        if frame is None and size is not None:
            # A driver that takes the size (or MJPG) and then delivers nothing: open it as it is.
            cap.release()
            cap = self._open(target, open_timeout_s)
            frame = self._first_frame(cap, None)
        if frame is None:
            cap.release()
            raise self._not_found()
        self._cap = cap
        self._first: np.ndarray | None = frame
        self.size: tuple[int, int] = (int(frame.shape[1]), int(frame.shape[0]))

    def _open(self, target: int | str, open_timeout_s: float) -> cv2.VideoCapture:
        with _quiet_opencv():
            if isinstance(target, int):
                cap = cv2.VideoCapture(target)
            else:
                ms = int(open_timeout_s * 1000)
                params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
                cap = cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)
        if not cap.isOpened():
            cap.release()
            raise self._not_found()
        return cap

    @staticmethod
    def _first_frame(cap: cv2.VideoCapture, size: tuple[int, int] | None) -> np.ndarray | None:
        """The first frame after asking for ``size``, or ``None``: some drivers open a device
        that then never delivers, and that should fail now rather than later."""
        if size is not None:
            # Uncompressed 1280x720 fills USB 2 at about 10 frames a second; most webcams
            # send it at their full rate as MJPG.
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        ok, frame = cap.read()
        return frame if ok and frame is not None else None

    def _not_found(self) -> SourceError:
        if isinstance(self.target, int):
            return CameraNotFound(index=self.target)
        return StreamUnreachable(url=_redact(self.target))

    def read(self) -> np.ndarray:
        if self._first is not None:
            frame, self._first = self._first, None
            return frame
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise SourceLost(name=self.name, reason="the device returned no frame")
        return frame

    def close(self) -> None:
        self._cap.release()


class VideoFileSource:
    """A video file played at its own frame rate, looping forever."""

    live = False

    def __init__(self, path: str | os.PathLike[str], *, fps: float | None = None) -> None:
        self.path = Path(path)
        self.name = f"video {self.path.name}"
        self._cap = self._open()
        native = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps if fps else (native if 0 < native < 241 else 25.0))
        self._pacer = Pacer(self.fps)
        self._frames_this_loop = 0

    def _open(self) -> cv2.VideoCapture:
        if not self.path.is_file():
            raise SourceNotFound(spec=str(self.path))
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise VideoUnreadable(path=str(self.path))
        return cap

    def read(self) -> np.ndarray:
        self._pacer.wait()
        ok, frame = self._cap.read()
        if not ok or frame is None:
            if self._frames_this_loop == 0:
                raise VideoUnreadable(path=str(self.path))
            # Reopen rather than seek: seeking to 0 is unreliable for some containers.
            self._cap.release()
            self._cap = self._open()
            self._frames_this_loop = 0
            ok, frame = self._cap.read()
            if not ok or frame is None:
                raise VideoUnreadable(path=str(self.path))
        self._frames_this_loop += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class FolderSource:
    """Still images shown in name order, each for ``hold_s`` seconds at ``fps``, cycling.

    The folder is listed again at the start of every cycle, so photos added while the
    dashboard runs are picked up; if the folder is emptied, ``read()`` raises
    :class:`FolderEmpty` and the camera watchdog keeps retrying until images return.
    A single image file works the same way (a folder of one).
    """

    live = False

    def __init__(self, path: str | os.PathLike[str], *, fps: float = 15.0, hold_s: float = 3.0) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise SourceNotFound(spec=str(self.path))
        self.single = self.path.is_file()
        self.name = f"image {self.path.name}" if self.single else f"folder {self.path.name}"
        self.fps = float(fps)
        self.hold_frames = max(1, round(hold_s * fps))
        self._pacer = Pacer(self.fps)
        self._queue: list[Path] = self._list()
        self._current: np.ndarray | None = None
        self._shown = 0

    def _list(self) -> list[Path]:
        if self.single:
            if not self.path.is_file():
                raise SourceLost(name=self.name, reason="the file was removed")
            return [self.path]
        try:
            names = photos_in(self.path)
        except OSError as err:  # folder removed or unreadable
            raise SourceLost(name=self.name, reason=str(err)) from err
        if not names:
            raise FolderEmpty(path=str(self.path))
        return names

    def _next_image(self) -> np.ndarray:
        # Files that fail to decode (half-copied, removed since listing) are skipped;
        # a whole pass with nothing readable is an error.
        for _ in range(2):
            while self._queue:
                image = _imread(self._queue.pop(0))
                if image is not None:
                    return _readonly(image)
            self._queue = self._list()
        if self.single:
            raise ImageUnreadable(path=str(self.path))
        raise FolderEmpty(path=str(self.path))

    def read(self) -> np.ndarray:
        self._pacer.wait()
        if self._current is None or self._shown >= self.hold_frames:
            self._current = self._next_image()
            self._shown = 0
        self._shown += 1
        return self._current

    def close(self) -> None:
        self._current = None


def _redact(url: str) -> str:
    """Hide a password in ``scheme://user:pass@host`` so it never reaches a log or the page.

    >>> _redact("rtsp://admin:secret@cam.local/live")
    'rtsp://admin:***@cam.local/live'
    """
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return url
    cred, _, host = rest.partition("@")
    user = cred.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in cred else url


def open_source(
    spec: str,
    *,
    fps: float | None = None,
    hold_s: float = 3.0,
    size: tuple[int, int] | None = WEBCAM_SIZE,
) -> FrameSource:
    """Open what ``spec`` names (see the module docstring). Raises :class:`SourceError`.

    ``fps`` paces folder/image/video sources (videos default to their own rate, folders
    to 15); ``hold_s`` is how long each folder image is shown; ``size`` asks a webcam for
    a capture size (default :data:`WEBCAM_SIZE`; the driver may pick the nearest it
    supports; ``None`` keeps the driver's own default).
    """
    spec = spec.strip()
    if not spec:
        raise SourceNotFound(spec=spec)
    if spec.lower() == "demo":
        from vision.demo.table import DemoSource  # imported lazily: it pulls in the renderer

        return DemoSource(fps=fps or 15.0)
    if spec.isdigit():
        return CaptureSource(int(spec), size=size)
    if spec.lower().startswith(STREAM_SCHEMES):
        return CaptureSource(spec)
    path = Path(spec).expanduser()
    if path.is_dir():
        return FolderSource(path, fps=fps or 15.0, hold_s=hold_s)
    if path.is_file():
        if path.suffix.lower() in IMAGE_SUFFIXES:
            if _imread(path) is None:
                raise ImageUnreadable(path=str(path))
            return FolderSource(path, fps=fps or 15.0, hold_s=hold_s)
        return VideoFileSource(path, fps=fps)
    raise SourceNotFound(spec=spec)


