"""Benchmarks of the live dashboard: pipeline frame rates, and settled reveal to verdict on screen.

    python -m web.live_bench [--seconds 10] [--reveals 7] [--models DIR]

(``tableref bench --live`` runs the same functions.)

- :func:`bench_pipeline_fps` runs :class:`~vision.live.pipeline.LivePipeline` on the demo
  source with the real reader and overlays, served by the dashboard app to one MJPEG
  consumer over HTTP, and reports the capture, detection and streamed frame rates
  (target: 15 a second, the demo's rate, on a 2-core laptop).
- :func:`bench_reveal_latency` starts ``tableref serve --source demo`` and drives the
  table page in headless Chromium (Playwright): a bid and a challenge through the page,
  then "Read the table" pressed while the revealed dice are still rolling, so the
  request waits for the camera. Latency runs from the moment the pipeline emits the
  settled reading (server wall clock, reported by the demo's status in ``/api/health``)
  to the moment the verdict is in the page's DOM (``performance.timeOrigin +
  performance.now()``, same machine, same clock). Target: median <= 300 ms.

The helpers that run the server and drive the page (:class:`ServeProcess`,
:class:`TablePage`) are shared with the browser end-to-end tests.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

JSON = dict[str, Any]
REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic")
MODEL_FILES = ("dice-reader.json", "dice-detector.onnx", "dice-classifier.onnx")
FPS_TARGET = 15.0
LATENCY_TARGET_MS = 300.0


class BenchError(RuntimeError):
    """A benchmark could not run (no model, no browser, the server did not start ...)."""


def models_present(models: Path | None = None) -> bool:
    """Whether the reader's three model files are in ``models`` (default: tableref's ``models/``)."""
    folder = Path(models) if models is not None else REPO / "models"
    return all((folder / name).is_file() for name in MODEL_FILES)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100) of a non-empty list.

    >>> percentile([10, 20, 30, 40], 50), percentile([10, 20, 30, 40], 90)
    (25.0, 37.0)
    """
    return float(np.percentile(np.asarray(values, dtype=float), q))


# --- (a) frames per second ---------------------------------------------------------------


class TimedReader:
    """Wraps a reader and keeps how long each ``read`` took (ms), for the benchmark."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.ms: list[float] = []
        self._lock = threading.Lock()

    @property
    def info(self) -> Mapping[str, Any]:
        return getattr(self.reader, "info", {}) or {}

    def read(self, image_bgr: np.ndarray) -> Any:
        t0 = time.perf_counter()
        try:
            return self.reader.read(image_bgr)
        finally:
            with self._lock:
                self.ms.append((time.perf_counter() - t0) * 1000)

    def since(self, k: int) -> list[float]:
        with self._lock:
            return self.ms[k:]


class MjpegCounter:
    """One MJPEG consumer over HTTP: reads ``/stream.mjpg`` and counts the JPEG parts received."""

    def __init__(self, port: int, path: str = "/stream.mjpg") -> None:
        self.parts = 0
        self.bytes = 0
        self.error: str | None = None
        self._stop = threading.Event()
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self._path = path
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="mjpeg-consumer", daemon=True)

    def start(self) -> "MjpegCounter":
        self._thread.start()
        return self

    def count(self) -> int:
        with self._lock:
            return self.parts

    def _run(self) -> None:
        boundary = b"--frame\r\n"
        try:
            self._conn.request("GET", self._path)
            response = self._conn.getresponse()
            if response.status != 200:
                self.error = f"HTTP {response.status}"
                return
            tail = b""
            while not self._stop.is_set():
                chunk = response.read1(65536)
                if not chunk:
                    return
                data = tail + chunk
                found = data.count(boundary)
                tail = data[-(len(boundary) - 1):]
                with self._lock:
                    self.parts += found
                    self.bytes += len(chunk)
        except (OSError, http.client.HTTPException) as err:
            if not self._stop.is_set():
                self.error = f"{type(err).__name__}: {err}"

    def stop(self) -> None:
        self._stop.set()
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the reading thread
            except OSError:
                pass
        self._conn.close()
        self._thread.join(2.0)


@contextmanager
def _app_server(camera: Any, data_dir: Path, stream_fps: float) -> Iterator[int]:
    """The dashboard app on ``camera`` in this process (a werkzeug thread); yields its port."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    from web.app import create_app

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    app = create_app({"data_dir": data_dir, "mjpeg_fps": stream_fps}, camera)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
    thread = threading.Thread(target=server.serve_forever, name="bench-http", daemon=True)
    thread.start()
    try:
        yield int(server.server_port)
    finally:
        server.shutdown()
        thread.join(5.0)
        app.extensions["tableref"].sessions.close()
        app.extensions["tableref"].store.close()


def _wait(predicate: Callable[[], bool], timeout: float, what: str, poll: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise BenchError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(poll)


def bench_pipeline_fps(
    seconds: float = 10.0,
    *,
    source: str = "demo",
    reader: Any = None,
    models: Path | None = None,
    fps: float = FPS_TARGET,
    stream_fps: float | None = None,
    warmup_s: float = 2.0,
    startup_timeout_s: float = 120.0,
) -> JSON:
    """Run the live pipeline for ``seconds`` (after a warm-up) and measure its frame rates.

    ``source`` is anything ``tableref serve --source`` takes (default: the demo at ``fps``
    frames a second); ``reader`` defaults to the real one (:func:`vision.read.reader.load_reader`
    on ``models``). Detection is capped at ``fps`` and the MJPEG stream at ``stream_fps``
    (default ``fps``). With the demo, the warm-up waits until its first bank of clips
    is rendered, so the window measures the steady state (one clip re-rendered per cycle
    still runs in the background, as in ``serve``).

    Returns rates over the window (``capture_fps``, ``detect_fps``, ``stream_fps``: MJPEG
    parts one HTTP consumer actually received), the reader's per-frame time
    (``reader_ms_median`` / ``_p90``), the overlay+JPEG time, frames skipped, the CPU
    this process used (``cpu_percent``, 200 = both cores) and the load average.
    """
    from vision.live.pipeline import LivePipeline

    from web.live import PipelineCamera

    if reader is None:
        from vision.read.reader import load_reader

        reader = load_reader(models)
    timed = TimedReader(reader)
    stream_fps = float(stream_fps or fps)
    pipeline = LivePipeline(source, timed, detect_fps=fps, stream_fps=stream_fps, source_options={"fps": fps})
    camera = PipelineCamera(pipeline)
    with tempfile.TemporaryDirectory(prefix="tableref-bench-") as tmp, _app_server(camera, Path(tmp), stream_fps) as port:
        camera.start()
        consumer = MjpegCounter(port)
        try:
            _wait(lambda: pipeline.stats().frames_detected > 0, startup_timeout_s, "the first detected frame")
            src = pipeline.camera.current_source()
            bank = getattr(src, "bank_size", 0)
            if bank and hasattr(src, "ready"):
                _wait(lambda: src.ready() >= bank, startup_timeout_s, "the demo's clips to render")
            consumer.start()
            time.sleep(warmup_s)
            t0, c0 = time.monotonic(), time.process_time()
            cam0, st0, parts0, reads0 = pipeline.camera.status(), pipeline.stats(), consumer.count(), len(timed.ms)
            time.sleep(seconds)
            t1, c1 = time.monotonic(), time.process_time()
            cam1, st1, parts1 = pipeline.camera.status(), pipeline.stats(), consumer.count()
            ms = timed.since(reads0)
        finally:
            consumer.stop()
            camera.stop()
    elapsed = t1 - t0
    if consumer.error:
        raise BenchError(f"the MJPEG consumer failed: {consumer.error}")
    detected = st1.frames_detected - st0.frames_detected
    result: JSON = {
        "source": source,
        "seconds": round(elapsed, 2),
        "target_fps": fps,
        "capture_fps": round((cam1.frames - cam0.frames) / elapsed, 2),
        "detect_fps": round(detected / elapsed, 2),
        "stream_fps": round((parts1 - parts0) / elapsed, 2),
        "stream_cap_fps": stream_fps,
        "frames_captured": cam1.frames - cam0.frames,
        "frames_detected": detected,
        "frames_skipped": st1.frames_skipped - st0.frames_skipped,
        "frames_streamed": parts1 - parts0,
        "reader_ms_median": round(statistics.median(ms), 2) if ms else None,
        "reader_ms_p90": round(percentile(ms, 90), 2) if ms else None,
        "overlay_ms": round(st1.overlay_ms, 2),
        "reader_errors": st1.reader_errors - st0.reader_errors,
        "cpu_percent": round(100 * (c1 - c0) / elapsed, 1),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "reader": {k: v for k, v in dict(timed.info).items() if k in ("backend", "threads", "name", "trained")},
    }
    result["meets_target"] = min(result["capture_fps"], result["detect_fps"], result["stream_fps"]) >= 0.95 * fps
    return result


# --- the server and the page (shared with the browser tests) ------------------------------


class ServeProcess:
    """``tableref serve`` in a subprocess on a free port; waits until ``/api/health`` answers.

    ``program`` replaces ``python -m web.cli`` (the arguments ``serve --source ...``
    follow it). The server's output goes to ``serve.log`` in the data folder.
    """

    def __init__(self, data: Path, *, source: str = "demo", models: Path | None = None, port: int | None = None,
                 program: Sequence[str] | None = None, startup_timeout_s: float = 120.0) -> None:
        self.data = Path(data)
        self.data.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.data / "serve.log"
        argv = [*(program or (sys.executable, "-m", "web.cli")), "serve", "--source", source,
                "--port", str(self.port), "--data", str(self.data)]
        if models is not None:
            argv += ["--models", str(models)]
        self._log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(argv, cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        try:
            self._wait_health(startup_timeout_s)
        except BaseException:
            self.stop()
            raise

    def log_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def _wait_health(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"tableref serve exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                status, _ = self.get("/api/health", timeout=2)
                if status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.1)
        raise BenchError(f"tableref serve did not answer /api/health in {timeout:g} s:\n{self.log_tail()}")

    def get(self, path: str, timeout: float = 10) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            body = r.read()
            return r.status, json.loads(body) if body and r.getheader("Content-Type", "").startswith("application/json") else body
        finally:
            conn.close()

    def get_json(self, path: str) -> Any:
        status, body = self.get(path)
        if status != 200:
            raise BenchError(f"GET {path}: HTTP {status}: {body!r}"[:500])
        return body

    def health(self) -> JSON:
        return dict(self.get_json("/api/health"))

    def camera(self) -> JSON:
        return dict(self.health()["camera"])

    def demo(self) -> JSON:
        demo = self.camera().get("demo")
        if demo is None:
            raise BenchError("the server's camera is not the demo (no 'demo' in /api/health)")
        return dict(demo)

    def wait_camera_online(self, timeout: float = 120.0) -> JSON:
        """Wait until the camera is online and the reader has read a frame; returns the health."""
        deadline = time.monotonic() + timeout
        while True:
            health = self.health()
            if health["camera"].get("online") and (health["model"].get("stats") or {}).get("frames_detected", 0) > 0:
                return health
            if health["model"].get("reader") is None:
                raise BenchError(f"the server runs without a reader: {health['camera'].get('last_error')}")
            if time.monotonic() > deadline:
                raise BenchError(f"the camera did not come online in {timeout:g} s: {health['camera']}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()

    def __enter__(self) -> "ServeProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def chromium(headless: bool = True, executable: str = CHROMIUM) -> Iterator[Any]:
    """A Playwright browser on Debian's Chromium."""
    from playwright.sync_api import sync_playwright

    if not Path(executable).exists():
        raise BenchError(f"no Chromium at {executable}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=headless, args=list(CHROMIUM_ARGS))
        try:
            yield browser
        finally:
            browser.close()


def testid_value(value: object) -> str:
    """A value as the page writes it in test ids (anything but ``[A-Za-z0-9_-]`` as ``u<hex>``).

    >>> testid_value("wheel"), testid_value(3), testid_value("プ")
    ('wheel', '3', 'u30d7')
    """
    return "".join(c if c.isascii() and (c.isalnum() or c in "_-") else f"u{ord(c):x}" for c in str(value))


# Records, in the page, when the verdict panel's reading or status changes: the DOM time
# (in the MutationObserver, before paint) and the next animation frame after it.
_OBSERVER = """() => {
  if (window.__tableref_marks) return;
  window.__tableref_marks = [];
  const panel = document.querySelector('[data-testid=verdict-panel]');
  new MutationObserver(() => {
    const mark = {id: panel.dataset.readingId || null, status: panel.dataset.status || null,
                  dom: performance.timeOrigin + performance.now(), frame: null};
    const last = window.__tableref_marks[window.__tableref_marks.length - 1];
    if (last && last.id === mark.id && last.status === mark.status) return;
    window.__tableref_marks.push(mark);
    requestAnimationFrame(() => { mark.frame = performance.timeOrigin + performance.now(); });
  }).observe(panel, {attributes: true, attributeFilter: ['data-status', 'data-reading-id', 'hidden']});
}"""

PANEL = "[data-testid=verdict-panel]"
TOAST = "[data-testid=error]:not([hidden]):not(.info)"  # an error, not the verdict's info toast


@dataclass(frozen=True)
class RevealOutcome:
    """What the page showed after "Read the table" or "Re-read": the reading's status
    (``verdict`` / ``reread``) and id, or ``error`` with the toast's text."""

    status: str
    reading_id: int | None
    message: str = ""


class TablePage:
    """The table page of a live server, driven like a player would (clicks on test ids)."""

    def __init__(self, page: Any, base_url: str, timeout_s: float = 30.0) -> None:
        self.page = page
        self.base_url = base_url
        self.timeout_ms = timeout_s * 1000
        page.set_default_timeout(self.timeout_ms)
        self.table_id: str | None = None

    def tid(self, value: object) -> str:
        return f"[data-testid={json.dumps(str(value))}]"

    def create_table(self, players: Sequence[str], game: str = "liars-dice") -> str:
        """Fill the home page's form and open the new table's page."""
        page = self.page
        page.goto(self.base_url + "/")
        page.select_option(self.tid("game-select"), game)
        for i, name in enumerate(players, start=1):
            if not page.query_selector(self.tid(f"player-input-{i}")):
                page.click(self.tid("add-player"))
            page.fill(self.tid(f"player-input-{i}"), name)
        page.click(self.tid("create-table"))
        page.wait_for_url("**/t/*")
        page.wait_for_selector('#table[data-seq="0"]')
        self.table_id = page.get_attribute("#table", "data-table-id")
        page.evaluate(_OBSERVER)
        return str(self.table_id)

    def seq(self) -> int:
        return int(self.page.get_attribute("#table", "data-seq") or 0)

    def _after(self, seq: int) -> None:
        self.page.wait_for_selector(f'#table[data-seq="{seq + 1}"]')

    def choose(self, action: str, field: str, value: object) -> None:
        self.page.click(self.tid(f"choice-{action}-{field}-{testid_value(value)}"))

    def choices(self, action: str, field: str) -> list[str]:
        prefix = f"choice-{action}-{field}-"
        return [str(el.get_attribute("data-testid"))[len(prefix):]
                for el in self.page.query_selector_all(f'[data-testid^="{prefix}"]')]

    def start(self, opener: str) -> None:
        seq = self.seq()
        self.choose("start", "opener", opener)
        self.page.click(self.tid("send-start"))
        self._after(seq)

    def bid(self, quantity: int | None = None, face: str | None = None) -> tuple[int, str]:
        """Bid through the legal-raise chips: ``quantity`` / ``face`` when offered, else the
        lowest quantity offered and the first face offered for it. Returns the bid made."""
        seq = self.seq()
        quantities = sorted(int(q) for q in self.choices("bid", "quantity"))
        if not quantities:
            raise BenchError("no bid quantities offered on the page")
        q = quantity if quantity in quantities else quantities[0]
        self.choose("bid", "quantity", q)
        self.page.wait_for_selector('[data-testid^="choice-bid-face-"]')
        faces = self.choices("bid", "face")
        f = face if face is not None and testid_value(face) in faces else faces[0]
        self.choose("bid", "face", f)
        send = self.tid("send-bid")
        self.page.wait_for_selector(f"{send}:not([disabled])")
        self.page.click(send)
        self._after(seq)
        return q, f

    def challenge(self) -> None:
        seq = self.seq()
        self.page.click(self.tid("do-challenge"))
        self._after(seq)
        self.page.wait_for_selector(f"{self.tid('reveal-card')}:not([hidden])")

    def undo(self) -> None:
        seq = self.seq()
        self.page.click(self.tid("undo-button"))
        self.page.wait_for_selector(f'#table[data-seq="{seq - 1}"]')

    def reading_id(self) -> int | None:
        value = self.page.get_attribute(PANEL, "data-reading-id")
        return int(value) if value else None

    def _press(self, button: str) -> RevealOutcome:
        before = self.reading_id()
        page = self.page
        page.evaluate("() => { const t = document.querySelector('[data-testid=error]'); t.hidden = true; t.textContent = ''; }")
        page.click(self.tid(button))
        fresh = f'{PANEL}:not([hidden])[data-status]' + (f':not([data-reading-id="{before}"])' if before is not None else "")
        page.wait_for_selector(f"{fresh}, {TOAST}")
        if page.query_selector(fresh) is None:
            return RevealOutcome("error", None, page.inner_text(TOAST))
        status = str(page.get_attribute(PANEL, "data-status"))
        return RevealOutcome(status, self.reading_id())

    def reveal(self) -> RevealOutcome:
        """Press "Read the table" and wait for the new reading (or the error toast)."""
        return self._press("reveal-button")

    def reread(self) -> RevealOutcome:
        return self._press("reread-button")

    def marks(self) -> list[JSON]:
        return list(self.page.evaluate("() => window.__tableref_marks || []"))

    def terminal(self) -> bool:
        return self.page.query_selector(self.tid("game-over")) is not None


def event_time(iso: str) -> float:
    """A stored event's ``created`` time (ISO 8601, UTC) as ``time.time()`` seconds.

    >>> event_time("1970-01-01T00:01:00.250000Z")
    60.25
    """
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def settled_entry(demo: Mapping[str, Any], faces: Sequence[str], before: float | None = None) -> JSON | None:
    """The demo's record of the settled reveal that gave a reading of ``faces`` (in reading
    order): the newest with those faces, emitted at or before ``before`` if given.

    >>> demo = {"settled": [{"seq": 1, "at": 5.0, "faces": ["2"]}, {"seq": 2, "at": 7.0, "faces": ["2"]}]}
    >>> settled_entry(demo, ["2"], before=6.0)["seq"], settled_entry(demo, ["3"])
    (1, None)
    """
    hits = [e for e in demo.get("settled", []) if list(e.get("faces") or []) == list(faces)
            and (before is None or e["at"] <= before)]
    return max(hits, key=lambda e: e["seq"]) if hits else None


def truth_round(log: Mapping[str, Any], truth: Sequence[str]) -> JSON:
    """The Liar's Dice round the referee gives when the last reveal of ``log`` is replaced
    by the dice the demo really rendered (``truth``)."""
    from referee.replay import replay_json

    events = list(log["events"])
    if not events or events[-1].get("type") != "reveal":
        raise BenchError("the log does not end with a reveal")
    doc = {**log, "events": [*events[:-1], {"type": "reveal", "dice": list(truth)}]}
    return dict(replay_json(doc)["rounds"][-1])


# --- (b) settled reveal -> verdict on screen ------------------------------------------------


def _wait_rolling(server: ServeProcess, dice: int, after: float, timeout: float) -> bool:
    """Wait until the demo plays a clip of ``dice`` dice that is not still yet (they roll
    in), and no reveal has settled since ``after``; False if that moment was missed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        demo = server.demo()
        if any(e["at"] > after for e in demo["settled"]):
            return False  # something settled first (a demo scene still playing): no clean sample
        if demo["clip_dice"] == dice and demo["truth"] is None:
            return True
        time.sleep(0.02)
    return False


def bench_reveal_latency(
    n: int = 7,
    *,
    models: Path | None = None,
    data: Path | None = None,
    max_attempts: int | None = None,
    program: Sequence[str] | None = None,
    headless: bool = True,
    progress: Callable[[str], None] | None = None,
) -> JSON:
    """Median and p90 (ms) from settled reveal (server) to verdict in the DOM (browser), over ``n`` reveals.

    Each sample is a fresh round played through the page (bid, challenge); "Read the
    table" is pressed while the dice the demo reveals are rolling in, so the request is
    waiting when the pipeline settles. A sample counts only if the verdict came from a
    reveal that settled after the press; other attempts (a reading to re-read, another
    scene settling first, no settled reading in time) are counted in ``discarded`` and the
    round is taken back with "Undo". ``agree`` counts verdicts that match the dice the
    demo rendered. Also reports ``frame_*`` (to the next animation frame after the DOM
    change) and ``from_capture_*`` (from the capture of the settling frame).
    """
    if not models_present(models) and program is None:
        raise BenchError(f"no reader model in {models or REPO / 'models'} (needs {', '.join(MODEL_FILES)})")
    say = progress or (lambda _: None)
    max_attempts = max_attempts or 4 * n
    samples: list[JSON] = []
    discarded: dict[str, int] = {}
    agree = 0
    with tempfile.TemporaryDirectory(prefix="tableref-latency-") as tmp:
        folder = Path(data) if data is not None else Path(tmp)
        with ServeProcess(folder, models=models, program=program) as server, chromium(headless) as browser:
            server.wait_camera_online()
            page = TablePage(browser.new_page(viewport={"width": 1280, "height": 900}), server.url)
            players = ["Wanjin", "Saewoon"]
            attempts = 0
            while len(samples) < n and attempts < max_attempts:
                if page.table_id is None or page.terminal():
                    page.create_table(players)
                    page.start(players[0])
                if page.page.query_selector(f"{page.tid('reveal-card')}:not([hidden])"):
                    page.undo()  # a round left waiting for a reveal: take the challenge back
                else:
                    page.bid()
                page.challenge()
                attempts += 1
                view = server.get_json(f"/api/tables/{page.table_id}")
                asked = event_time(view["history"][-1]["at"])
                dice = int(view["state"]["dice_in_play"])
                if not _wait_rolling(server, dice, asked, timeout=30.0):
                    discarded["missed_roll"] = discarded.get("missed_roll", 0) + 1
                    continue
                pressed = time.time()
                outcome = page.reveal()
                if outcome.status != "verdict":
                    key = "reread" if outcome.status == "reread" else "no_settled_reading"
                    discarded[key] = discarded.get(key, 0) + 1
                    say(f"attempt {attempts}: {outcome.status} {outcome.message}".rstrip())
                    continue
                mark = next((m for m in reversed(page.marks()) if m["status"] == "verdict"
                             and str(m["id"]) == str(outcome.reading_id)), None)
                reading = server.get_json(f"/api/tables/{page.table_id}/readings/{outcome.reading_id}")
                faces = [o["face"] for o in reading["objects"]]
                entry = settled_entry(server.demo(), faces, before=mark["dom"] / 1000 if mark else None)
                if mark is None or entry is None or entry["at"] < pressed:
                    discarded["settled_before_press"] = discarded.get("settled_before_press", 0) + 1
                    continue
                log = server.get_json(f"/api/tables/{page.table_id}/log")
                truth_ok = entry["truth"] is not None and truth_round(log, entry["truth"]) == reading["verdict"]["round"]
                agree += truth_ok
                sample = {
                    "ms": mark["dom"] - 1000 * entry["at"],
                    "frame_ms": None if mark["frame"] is None else mark["frame"] - 1000 * entry["at"],
                    "from_capture_ms": None if entry["frame_at"] is None else mark["dom"] - 1000 * entry["frame_at"],
                    "wait_ms": 1000 * (entry["at"] - pressed),
                    "dice": dice,
                    "truth_agrees": truth_ok,
                }
                samples.append(sample)
                say(f"reveal {len(samples)}/{n}: {sample['ms']:.0f} ms (dice {dice}, verdict "
                    f"{'agrees with' if truth_ok else 'DIFFERS from'} the rendered dice)")
    if not samples:
        raise BenchError(f"no clean sample in {attempts} attempts (discarded: {discarded})")
    ms = [s["ms"] for s in samples]
    frame = [s["frame_ms"] for s in samples if s["frame_ms"] is not None]
    capture = [s["from_capture_ms"] for s in samples if s["from_capture_ms"] is not None]
    return {
        "n": len(samples),
        "median_ms": round(statistics.median(ms), 1),
        "p90_ms": round(percentile(ms, 90), 1),
        "max_ms": round(max(ms), 1),
        "frame_median_ms": round(statistics.median(frame), 1) if frame else None,
        "from_capture_median_ms": round(statistics.median(capture), 1) if capture else None,
        "target_ms": LATENCY_TARGET_MS,
        "meets_target": statistics.median(ms) <= LATENCY_TARGET_MS,
        "agree": agree,
        "attempts": attempts,
        "discarded": discarded,
        "samples": samples,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


# --- command line ---------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the frame-rate run (default 10)")
    parser.add_argument("--reveals", type=int, default=7, help="reveals timed in the browser (default 7; 0 skips)")
    parser.add_argument("--models", type=Path, default=None, metavar="DIR", help="reader model folder (default: models/)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the numbers here")


def run(args: argparse.Namespace) -> int:
    out: JSON = {}
    try:
        fps = bench_pipeline_fps(args.seconds, models=args.models)
    except Exception as err:  # ManifestError (no model) or BenchError
        print(f"live bench: {err}", file=sys.stderr)
        return 2
    out["pipeline"] = fps
    print(f"live pipeline on the demo, {fps['seconds']} s, target {fps['target_fps']:g} fps "
          f"(load average {fps['loadavg'][0]}, {fps['cores']} cores):")
    print(f"  capture {fps['capture_fps']:.1f} fps, detection {fps['detect_fps']:.1f} fps, "
          f"streamed {fps['stream_fps']:.1f} fps (one MJPEG consumer)")
    print(f"  reader median {fps['reader_ms_median']} ms (p90 {fps['reader_ms_p90']} ms), overlay+JPEG "
          f"{fps['overlay_ms']} ms, {fps['frames_skipped']} frames skipped, CPU {fps['cpu_percent']}%")
    if args.reveals > 0:
        try:
            lat = bench_reveal_latency(args.reveals, models=args.models, progress=lambda s: print("  " + s))
        except Exception as err:
            print(f"live bench: reveal latency: {err}", file=sys.stderr)
            return 2
        out["reveal_latency"] = lat
        print(f"settled reveal -> verdict in the page, {lat['n']} reveals: median {lat['median_ms']:.0f} ms, "
              f"p90 {lat['p90_ms']:.0f} ms (target {lat['target_ms']:.0f} ms); next frame median "
              f"{lat['frame_median_ms']} ms; {lat['agree']}/{lat['n']} verdicts match the rendered dice")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m web.live_bench", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
