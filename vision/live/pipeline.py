"""The live pipeline behind ``tableref serve``: camera -> reader -> settled reveals -> MJPEG.

:class:`LivePipeline` runs two threads: the camera's capture thread (plus its
watchdog), which only ever holds the newest frame, and a detection thread, which takes
the newest frame, runs the reader on it (never on the capture thread), feeds the
:class:`~vision.live.settle.Settler` and publishes:

- :meth:`LivePipeline.latest` - the newest per-frame reading;
- :meth:`LivePipeline.settled` - the newest settled reveal (see :mod:`vision.live.settle`);
- :meth:`LivePipeline.jpeg` / :meth:`LivePipeline.mjpeg` - the annotated view: each
  detected frame with its own boxes (so boxes always match the picture, and the stream
  runs at the detection rate, ``detect_fps`` at most), encoded lazily (only when someone
  watches, once per detected frame, at most ``stream_fps`` times a second per stream);
  while settled it shows the voted faces and the highlight set by the dashboard;
- events to subscribers: ``settled`` on every settled reveal, ``online`` / ``offline``
  when the camera link changes.

Usage (Flask)::

    pipe = LivePipeline("demo", load_reader()).start()
    pipe.subscribe(lambda ev: print(ev.kind, ev.settled and ev.settled.reading.faces()))
    Response(pipe.mjpeg(), mimetype=MJPEG_MIMETYPE)

The reader is any object with ``read(image_bgr) -> Reading`` and ``info`` (a dict);
it is called from one thread at a time (a lock also covers :meth:`LivePipeline.read_once`).
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from vision.live.camera import Camera, CameraStatus, Frame, Opener
from vision.read.detections import Detection, Reading
from vision.live.overlay import DEFAULT_STYLE, OverlayStyle, draw_overlay, draw_placard, encode_jpeg, find_cjk_font
from vision.read.policy import CardKnobs, DiceKnobs, Mode, ReadPolicy
from vision.live.settle import SettleConfig, SettledReading, Settler, SettleState, fold_card_closer, fold_closer

log = logging.getLogger(__name__)

MJPEG_BOUNDARY = "frame"
MJPEG_MIMETYPE = f"multipart/x-mixed-replace; boundary={MJPEG_BOUNDARY}"


@runtime_checkable
class Reader(Protocol):
    """What the pipeline needs from a dice reader (``vision.read.reader.load_reader()`` returns one)."""

    @property
    def info(self) -> Mapping[str, Any]: ...

    def read(self, image_bgr: np.ndarray) -> Reading: ...


class EventKind(enum.Enum):
    SETTLED = "settled"
    ONLINE = "online"
    OFFLINE = "offline"


@dataclass(frozen=True, eq=False)
class PipelineEvent:
    """Sent to subscribers. ``settled`` is set for ``SETTLED``; ``OFFLINE`` repeats when the error changes."""

    kind: EventKind
    camera: CameraStatus
    settled: SettledReading | None = None


@dataclass(frozen=True, eq=False)
class LiveReading:
    """The reading of one detected frame and what the settler made of it."""

    reading: Reading
    frame_index: int
    t: float
    state: SettleState
    progress: float
    image: np.ndarray = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "frame_index": self.frame_index,
            "t": round(self.t, 3),
            "state": self.state.value,
            "progress": round(self.progress, 3),
            "reading": self.reading.to_json(),
        }


@dataclass(frozen=True)
class PipelineStats:
    """Throughput, measured over the last ``window`` frames.

    ``frames_skipped`` counts captured frames the detector never saw (it always takes the
    newest, so a slow reader skips rather than lags).
    """

    capture_fps: float
    detect_fps: float
    reader_ms: float
    reader_ms_max: float
    overlay_ms: float
    stream_fps: float
    frames_detected: int
    frames_skipped: int
    reader_errors: int
    settled: int

    def to_json(self) -> dict[str, Any]:
        return {k: (round(v, 2) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class PipelineStatus:
    running: bool
    camera: CameraStatus
    state: SettleState
    progress: float
    reader_error: str | None
    reader: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "camera": self.camera.to_json(),
            "state": self.state.value,
            "progress": round(self.progress, 3),
            "reader_error": self.reader_error,
            "reader": dict(self.reader),
        }


Listener = Callable[[PipelineEvent], None]


def _rate(times: Sequence[float], now: float) -> float:
    if len(times) < 2:
        return 0.0
    span = times[-1] - times[0]
    span = max(span, now - times[0] - span / (len(times) - 1))
    return (len(times) - 1) / span if span > 0 else 0.0


def _dice_only(reader: Reader) -> Reader:
    """The reader's dice-only view when it has card stages (they cost time on dice tables)."""
    return reader.without_cards() if getattr(reader, "cards", None) is not None else reader  # type: ignore[attr-defined]


def _foreign(obj: Detection, below: float) -> bool:
    return obj.kind == "die" and obj.score < below


def own_dice(reading: Reading, vocabulary: Any, below: float = DiceKnobs().foreign_below) -> Reading:
    """``reading`` without the dice that are none of the game's dice (face score under
    ``below``, the policy's ``foreign_below``, with the game's ``vocabulary``; without one,
    nothing is dropped): what a table shows of a frame.

    Such a die cannot count in the reveal: a stray die would make every reveal a re-read.
    Dropping a real die by mistake makes the count short, which asks for a re-read too,
    never a verdict. The settler gets them marked instead (:func:`doubt_foreign`).

    >>> from vision.read.detections import Detection
    >>> speck = Detection("die", "プ", "white", (0, 0, 9, 9), 0.03, uncertain=True)
    >>> die = Detection("die", "ブ", "blue", (20, 0, 29, 9), 0.62, uncertain=True)
    >>> own_dice(Reading((speck, die)), vocabulary="nine-dice").faces()
    ('ブ',)
    """
    if vocabulary is None or not any(_foreign(o, below) for o in reading.objects):
        return reading
    return replace(reading, objects=tuple(o for o in reading.objects if not _foreign(o, below)))


def doubt_foreign(reading: Reading, vocabulary: Any, below: float = DiceKnobs().foreign_below) -> Reading:
    """``reading`` with the dice that are none of the game's dice (as :func:`own_dice`)
    kept as faint objects (``box_score`` 0; :func:`~vision.live.settle.is_faint`): what a table
    gives its :class:`~vision.live.settle.Settler`.

    A real die the classifier reads near ``below`` is dropped in some frames and not in
    others. Dropped outright, it changed the count from frame to frame, which is motion, and
    the reveal never settled (4 of the 7 unsettled live validation reveals, model card). As a
    faint object it may blink without counting as motion, and it is left out of a reveal
    when it is none of the game's dice in most frames, as before.

    >>> from vision.read.detections import Detection
    >>> speck = Detection("die", "プ", "white", (0, 0, 9, 9), 0.03, uncertain=True, box_score=0.7)
    >>> die = Detection("die", "ブ", "blue", (20, 0, 29, 9), 0.62, uncertain=True, box_score=0.7)
    >>> [o.box_score for o in doubt_foreign(Reading((speck, die)), vocabulary="nine-dice").objects]
    [0.0, 0.7]
    """
    if vocabulary is None or not any(_foreign(o, below) for o in reading.objects):
        return reading
    marked = (replace(o, box_score=0.0) if _foreign(o, below) else o for o in reading.objects)
    return replace(reading, objects=tuple(marked))


def closer_reader(dice_reader: Reader) -> Reader | None:
    """The dice reader that takes the closer look (:attr:`~vision.read.policy.Mode.CLOSER`), or
    None for a reader that cannot (a test double)."""
    in_mode = getattr(dice_reader, "in_mode", None)
    if in_mode is None:
        return None
    return in_mode(Mode.CLOSER)


def look_closer(reader: Reader | None, settled: SettledReading, config: SettleConfig) -> SettledReading:
    """``settled`` after a closer look at its frame: the dice are read again from
    ``settled.image`` (on a noisy sensor from ``settled.mean_image``, the still frames' mean)
    with more crops, and each die re-decided by :func:`~vision.live.settle.fold_closer`. Once
    per reveal, so the extra crops cost nothing per frame. Without a reader, an image or
    dice, ``settled`` is returned as it is."""
    image = settled.mean_image if settled.mean_image is not None else settled.image
    if reader is None or image is None or not settled.reading.dice():
        return settled
    return fold_closer(settled, reader.read(image).dice(), config)


def card_closer_imgsz(
    photo_imgsz: int, stride: int, height: int, width: int, most: int = CardKnobs().closer_max,
) -> int:
    """The card detector's input for the closer look at a ``height`` x ``width`` frame: the
    frame's long side rounded up to ``stride``, at least ``photo_imgsz`` (a still photo's
    input) and at most ``most`` (the policy's ``closer_max``).

    >>> card_closer_imgsz(704, 32, 480, 640), card_closer_imgsz(704, 32, 720, 1280), card_closer_imgsz(704, 32, 1080, 1920)
    (704, 1280, 1280)
    """
    side = -(-max(height, width) // stride) * stride
    return max(photo_imgsz, min(side, most))


def card_closer_reader(
    reader: Reader, height: int, width: int, most: int = CardKnobs().closer_max,
) -> Reader | None:
    """``reader`` with the card detector at :func:`card_closer_imgsz` (at most ``most``) for
    ``height`` x ``width`` frames, or None for a reader without card stages."""
    cards = getattr(reader, "cards", None)
    with_card_imgsz = getattr(reader, "with_card_imgsz", None)
    if cards is None or with_card_imgsz is None:
        return None
    return with_card_imgsz(card_closer_imgsz(cards.photo_imgsz, cards.manifest.detector.stride, height, width, most))


def look_closer_at_cards(
    reader: Reader, settled: SettledReading, most: int = CardKnobs().closer_max,
) -> SettledReading:
    """``settled`` after a closer look at its cards: its frame read once more with the card
    detector at :func:`card_closer_imgsz` (640 for a 640x480 frame, 1280 for 1280x720), whose
    reading replaces the vote's cards where it settles what the vote left open
    (:func:`~vision.live.settle.fold_card_closer`). Once per reveal, like the dice's closer look.
    Without card stages, an image or cards, ``settled`` is returned as it is."""
    if settled.image is None or not settled.reading.cards():
        return settled
    closer = card_closer_reader(reader, *settled.image.shape[:2], most)
    return settled if closer is None else fold_card_closer(settled, closer.read(settled.image).cards())


class LivePipeline:
    """Camera + detection thread + settler + annotated stream. Thread-safe; see the module doc."""

    def __init__(
        self,
        source: str | Opener,
        reader: Reader,
        *,
        settle: SettleConfig | None = None,
        policy: ReadPolicy | None = None,
        detect_fps: float = 15.0,
        stream_fps: float = 15.0,
        closer_look: bool = True,
        jpeg_quality: int = 80,
        style: OverlayStyle = DEFAULT_STYLE,
        banner: bool = True,
        camera_options: Mapping[str, Any] | None = None,
        source_options: Mapping[str, Any] | None = None,
        window: int = 30,
    ) -> None:
        self.reader = reader
        self.camera = Camera(source, source_options=dict(source_options or {}), **dict(camera_options or {}))
        self.detect_fps = detect_fps
        self.stream_fps = stream_fps
        self.jpeg_quality = jpeg_quality
        self.style = style
        self.banner = banner

        # Its decisions: ``policy``, else the reader's (a test double may have none: the
        # defaults); ``settle`` overrides its settling.
        if policy is None:
            policy = getattr(reader, "policy", None)
            policy = policy if isinstance(policy, ReadPolicy) else ReadPolicy()
        self.policy = policy if settle is None else replace(policy, settle=settle)
        self._settler = Settler(self.policy.settle)
        # What the table waits for: dice by default, cards for Doubt (see watch()). A reader
        # with a card model also has a dice-only view, which saves the card stages' time.
        self._kinds: frozenset[str] = frozenset({"die"})
        self._vocabulary: Any = None
        self._profile: Any = None  # a table's reader profile on top of the reader (see use_profile())
        self._full_reader: Reader = reader
        self._dice_reader = _dice_only(reader)
        self._cards_reader = reader
        self.closer_look = closer_look
        self._closer_reader = closer_reader(self._dice_reader) if closer_look else None
        self._card_closer_ready: tuple[int, int] | None = None  # the frame size it was compiled for
        self._reader_lock = threading.Lock()
        self._cond = threading.Condition()  # guards everything below
        self._listeners: list[Listener] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._running = False
        self._latest: LiveReading | None = None
        self._settled: SettledReading | None = None
        self._view_seq = 0
        self._highlight: tuple[int, frozenset[int]] | None = None  # (settled seq, indices)
        self._pending_show: tuple[Any, ...] | None = None  # a demo reveal asked for while no source was open
        self._reader_error: str | None = None
        self._reader_errors = 0
        self._detect_times: deque[float] = deque(maxlen=window)
        self._reader_ms: deque[float] = deque(maxlen=window)
        self._overlay_ms: deque[float] = deque(maxlen=window)
        self._jpeg_times: deque[float] = deque(maxlen=window)
        self._frames_detected = 0
        self._frames_skipped = 0
        self._settled_count = 0
        self._jpeg_lock = threading.Lock()
        self._jpeg_key: tuple[Any, ...] | None = None
        self._jpeg: bytes | None = None
        self._last_online: bool | None = None
        self._unlisten = self.camera.add_listener(self._on_camera)

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> "LivePipeline":
        with self._cond:
            if self._running:
                return self
            self._running = True
            self._stop.clear()
        self.camera.start()
        self._thread = threading.Thread(target=self._detect_loop, name="pipeline-detect", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        with self._cond:
            if not self._running:
                return
            self._running = False
            self._stop.set()
            self._cond.notify_all()
        self.camera.stop()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> "LivePipeline":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- results ------------------------------------------------------------------------

    def latest(self) -> LiveReading | None:
        """The newest per-frame reading (dice may still be moving: see ``state``)."""
        with self._cond:
            return self._latest

    def settled(self) -> SettledReading | None:
        """The newest settled reveal, or ``None`` before the first."""
        with self._cond:
            return self._settled

    def wait_settled(self, after_seq: int = 0, timeout: float | None = None) -> SettledReading | None:
        """Block until a settled reveal with ``seq > after_seq`` exists (``None`` on timeout/stop)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._running and (self._settled is None or self._settled.seq <= after_seq):
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self._cond.wait(remaining)
            s = self._settled
            return s if s is not None and s.seq > after_seq else None

    def status(self) -> PipelineStatus:
        cam = self.camera.status()
        with self._cond:
            return PipelineStatus(
                running=self._running,
                camera=cam,
                state=self._latest.state if self._latest else SettleState.EMPTY,
                progress=self._latest.progress if self._latest else 0.0,
                reader_error=self._reader_error,
                reader=dict(getattr(self._full_reader, "info", {}) or {}),
            )

    def stats(self) -> PipelineStats:
        cam = self.camera.status()
        now = time.monotonic()
        with self._cond:
            ms = list(self._reader_ms)
            ov = list(self._overlay_ms)
            return PipelineStats(
                capture_fps=cam.fps,
                detect_fps=_rate(self._detect_times, now),
                reader_ms=sum(ms) / len(ms) if ms else 0.0,
                reader_ms_max=max(ms) if ms else 0.0,
                overlay_ms=sum(ov) / len(ov) if ov else 0.0,
                stream_fps=_rate(self._jpeg_times, now),
                frames_detected=self._frames_detected,
                frames_skipped=self._frames_skipped,
                reader_errors=self._reader_errors,
                settled=self._settled_count,
            )

    # -- control ------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` on settled reveals and camera online/offline changes.

        Runs on pipeline threads: keep it short (queue the work). Returns an unsubscribe function.
        """
        with self._cond:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._cond:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def set_highlight(self, indices: Collection[int], seq: int | None = None) -> None:
        """Emphasise objects ``indices`` of settled reveal ``seq`` (default: the newest).

        The highlight is shown while that reveal is on screen and dropped with the next one.
        """
        with self._cond:
            if seq is None:
                seq = self._settled.seq if self._settled else 0
            self._highlight = (seq, frozenset(indices))
            self._view_seq += 1
            self._cond.notify_all()

    def watch(self, kinds: Collection[str], vocabulary: Any = None) -> None:
        """Read and settle only objects of these kinds ("die", "card") from now on, and
        with a :class:`~vision.read.vocabulary.Vocabulary`, read dice as that game's dice (its
        faces and colours only; None reads every face the model knows).

        The live reading follows the game a table waits for: a deck beside a dice game, or a
        die beside a Doubt game, must not keep the scene from settling (a flickering stray
        object changes the count) nor enter the reveal. A reader without
        ``with_vocabulary`` (a test double) reads as before.
        """
        wanted = frozenset(kinds)
        if not wanted or not wanted <= {"die", "card"}:
            raise ValueError(f"kinds must be a non-empty subset of die, card; got {sorted(wanted)}")
        with self._cond:
            self._kinds = wanted
            if vocabulary == self._vocabulary:
                return
        self._use(vocabulary, self._profile)

    def use_profile(self, profile: Any) -> None:
        """Read dice with a table's reader profile (:mod:`vision.read.profile`) from now on, with
        the vocabulary :meth:`watch` set; None reads with the reader as it was given. Raises
        :class:`~vision.read.profile.ProfileError` for a profile made for other base models,
        before anything changes. A reader without ``with_profile`` (a test double) reads as before."""
        with self._cond:
            if profile is self._profile:
                return
        self._use(self._vocabulary, profile)

    def _use(self, vocabulary: Any, profile: Any) -> None:
        reader = self.reader
        with_profile = getattr(reader, "with_profile", None)
        if profile is not None and with_profile is not None:
            reader = with_profile(profile)  # ProfileError before anything changes
        restrict = getattr(reader, "with_vocabulary", None)
        full = reader if restrict is None else restrict(vocabulary)  # VocabularyError before anything changes
        dice = _dice_only(full)
        closer = closer_reader(dice) if self.closer_look else None
        with self._reader_lock, self._cond:
            self._vocabulary, self._profile = vocabulary, profile
            self._full_reader, self._dice_reader, self._closer_reader = full, dice, closer
            self._cards_reader = full

    @property
    def vocabulary(self) -> Any:
        """The vocabulary dice are read with now (see :meth:`watch`)."""
        return self._vocabulary

    @property
    def kinds(self) -> frozenset[str]:
        return self._kinds

    def request_reread(self) -> None:
        """Emit the scene on the table again once it is still (e.g. the count did not match)."""
        with self._cond:
            self._settler.rearm()

    def show(self, specs: Sequence[Any]) -> bool:
        """Ask the demo source for a reveal of these dice (or cards) next; ``False`` if no
        demo source is open now. Asked while none is open (the camera still starting, or
        offline), the reveal goes to the next source that opens, if it is the demo."""
        with self._cond:
            self._pending_show = tuple(specs)
        return self._deliver_pending_show()

    def _deliver_pending_show(self) -> bool:
        src = self.camera.current_source()
        if src is None:
            return False  # kept for the next source that opens (see _on_camera)
        with self._cond:
            specs, self._pending_show = self._pending_show, None
        show = getattr(src, "show", None)
        if specs is None or show is None:
            return False
        show(specs)
        return True

    def read_once(self, image: np.ndarray) -> Reading:
        """Run the reader on one image now (a snapshot or an upload), sharing the reader safely;
        dice are read with the vocabulary set by :meth:`watch`."""
        with self._reader_lock:
            return self._full_reader.read(image)

    # -- the annotated view -------------------------------------------------------------

    def jpeg(self) -> bytes:
        """The current annotated view as JPEG: the newest detected frame with its boxes, or a
        placard saying why there is no video. Cached until something changes."""
        cam = self.camera.status()
        with self._cond:
            live, settled, hl, seq = self._latest, self._settled, self._highlight, self._view_seq
        lines: list[str] = []
        size = (640, 480)
        if not cam.online or live is None:
            retry = f"retrying in {cam.retry_in:.0f} s" if cam.retry_in is not None else ""
            head = {
                "connecting": f"connecting to {cam.source} ...",
                "online": "reading the first frame ...",
                "stopped": "stopped",
            }.get(cam.state, "camera offline")
            key: tuple[Any, ...] = ("placard", head, cam.last_error, retry)
            if live is not None:
                size = (live.image.shape[1], live.image.shape[0])
            lines = [head, cam.last_error or "", retry]
        else:
            key = ("view", seq)
        with self._jpeg_lock:
            if key != self._jpeg_key or self._jpeg is None:
                t0 = time.perf_counter()
                if key[0] == "view" and live is not None:
                    image = self._render_view(live, settled, hl)
                else:
                    image = draw_placard(lines, size)
                self._jpeg = encode_jpeg(image, self.jpeg_quality)
                self._jpeg_key = key
                with self._cond:
                    self._overlay_ms.append((time.perf_counter() - t0) * 1000)
            with self._cond:
                self._jpeg_times.append(time.monotonic())
            return self._jpeg

    def _render_view(
        self, live: LiveReading, settled: SettledReading | None, hl: tuple[int, frozenset[int]] | None
    ) -> np.ndarray:
        if live.state is SettleState.SETTLED and settled is not None:
            # Still the settled scene: show the voted faces (steady, no flicker) and the highlight.
            objects = settled.reading.objects
            highlight = hl[1] if hl is not None and hl[0] == settled.seq else frozenset()
            banner = f"settled #{settled.seq}"
        else:
            objects = live.reading.objects
            highlight = frozenset()
            banner = {
                SettleState.EMPTY: "no dice",
                SettleState.MOVING: "moving",
                SettleState.STEADY: f"steady {live.progress:.0%}",
            }.get(live.state, live.state.value)
        return draw_overlay(
            live.image, objects, highlight=highlight, banner=banner if self.banner else None, style=self.style
        )

    def mjpeg(self, max_frames: int | None = None) -> Iterator[bytes]:
        """Multipart chunks for an MJPEG HTTP response (``MJPEG_MIMETYPE``), at most
        ``stream_fps`` a second, a new chunk only when the view changed (or once a second
        while offline, so the page sees the retry countdown). Ends when the pipeline stops."""
        period = 1.0 / self.stream_fps
        sent = 0
        last_key: object = None
        last_sent = 0.0
        while max_frames is None or sent < max_frames:
            with self._cond:
                if not self._running:
                    return
                self._cond.wait_for(lambda: self._view_seq != last_key or not self._running, timeout=1.0)
                if not self._running:
                    return
                key = self._view_seq
            wait = last_sent + period - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            data = self.jpeg()
            last_key, last_sent = key, time.monotonic()
            yield (
                f"--{MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n".encode()
                + data
                + b"\r\n"
            )
            sent += 1

    def snapshot_jpeg(self, settled: SettledReading | None = None, highlight: Collection[int] = ()) -> bytes | None:
        """JPEG of a settled reveal's frame with its voted boxes (default: the newest), or ``None``."""
        settled = settled or self.settled()
        if settled is None or settled.image is None:
            return None
        image = draw_overlay(settled.image, settled.reading, highlight=highlight, style=self.style)
        return encode_jpeg(image, self.jpeg_quality)

    # -- internals ----------------------------------------------------------------------

    def _emit(self, event: PipelineEvent) -> None:
        with self._cond:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:
                log.exception("pipeline listener failed on %s", event.kind.value)

    def _on_camera(self, status: CameraStatus) -> None:
        with self._cond:
            self._view_seq += 1  # the placard (or the return of video) is a new view
            self._cond.notify_all()
            was, self._last_online = self._last_online, status.online
        if status.online and was is not True:
            try:
                self._deliver_pending_show()
            except Exception:  # a hint only: a source that cannot show it goes on as it is
                log.exception("demo hint failed")
            self._emit(PipelineEvent(EventKind.ONLINE, status))
        elif not status.online and status.running and (was is True or status.last_error):
            self._emit(PipelineEvent(EventKind.OFFLINE, status))

    def _detect_loop(self) -> None:
        find_cjk_font()  # warm the font look-up here, not on the first viewer's request
        last_index = -1
        min_period = 1.0 / self.detect_fps if self.detect_fps else 0.0
        next_due = 0.0
        while not self._stop.is_set():
            wait = next_due - time.monotonic()
            if wait > 0 and self._stop.wait(wait):
                return
            frame = self.camera.wait_frame(after=last_index, timeout=0.5)
            if frame is None:
                continue
            next_due = time.monotonic() + min_period
            if last_index >= 0 and frame.index > last_index + 1:
                with self._cond:
                    self._frames_skipped += frame.index - last_index - 1
            last_index = frame.index
            self._detect(frame)

    def _live_reader(self, kinds: frozenset[str]) -> Reader:
        """The reader for live frames of a table waiting for ``kinds``: dice alone, cards
        alone, or both."""
        if "card" not in kinds:
            return self._dice_reader
        return self._full_reader if "die" in kinds else self._cards_reader

    def _detect(self, frame: Frame) -> None:
        t0 = time.perf_counter()
        kinds = self._kinds
        try:
            with self._reader_lock:
                reader = self._live_reader(kinds)
                reading = reader.read(frame.image)
                if self.closer_look and "card" in kinds:
                    self._ready_card_closer_look(reader, *frame.image.shape[:2])
            if any(o.kind not in kinds for o in reading.objects):
                reading = replace(reading, objects=tuple(o for o in reading.objects if o.kind in kinds))
            foreign_below = self.policy.dice.foreign_below
            doubted = doubt_foreign(reading, self._vocabulary, foreign_below)
            reading = own_dice(reading, self._vocabulary, foreign_below)
        except Exception as err:
            with self._cond:
                first = self._reader_error is None
                self._reader_error = f"{type(err).__name__}: {err}"
                self._reader_errors += 1
            if first:
                log.exception("reader failed on frame %d", frame.index)
            return
        ms = (time.perf_counter() - t0) * 1000  # the frame's reading; a closer look is once per reveal
        with self._cond:
            self._reader_error = None
            settled = self._settler.update(doubted, index=frame.index, t=frame.t, image=frame.image, at=frame.wall)
            state, progress = self._settler.state, self._settler.progress
        if settled is not None:
            settled = self._look_closer(settled, kinds)
        with self._cond:
            self._latest = LiveReading(
                reading=reading,
                frame_index=frame.index,
                t=frame.t,
                state=state,
                progress=progress,
                image=frame.image,
            )
            self._reader_ms.append(ms)
            self._detect_times.append(time.monotonic())
            self._frames_detected += 1
            self._view_seq += 1
            if settled is not None:
                self._settled = settled
                self._settled_count += 1
                self._highlight = None
            self._cond.notify_all()
        if settled is not None:
            self._emit(PipelineEvent(EventKind.SETTLED, self.camera.status(), settled))

    def _ready_card_closer_look(self, reader: Reader, height: int, width: int) -> None:
        """Compile the card detector for the closer look's input on the first frame of a size,
        so the first reveal is not kept waiting for it (0.5-0.7 s here)."""
        if self._card_closer_ready == (height, width):
            return
        self._card_closer_ready = (height, width)
        prepare = getattr(card_closer_reader(reader, height, width, self.policy.cards.closer_max), "prepare", None)
        if prepare is not None:
            prepare(height, width)

    def _look_closer(self, settled: SettledReading, kinds: frozenset[str]) -> SettledReading:
        """The closer look at a settled reveal (see :func:`look_closer`, and
        :func:`look_closer_at_cards` on a table waiting for cards); the vote alone if it fails."""
        try:
            with self._reader_lock:
                looked = look_closer(self._closer_reader, settled, self._settler.config)
                if self.closer_look and "card" in kinds:
                    looked = look_closer_at_cards(self._live_reader(kinds), looked, self.policy.cards.closer_max)
                return looked
        except Exception:
            log.exception("closer look failed on settled reveal %d; the vote stands", settled.seq)
            return settled
