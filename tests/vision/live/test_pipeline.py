"""The live pipeline end to end, with a fake reader on a folder source (and a demo benchmark)."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from tests.vision.livefakes import BlobReader, Opener, scene, wait_until, write_scene
from vision.read.detections import Detection, Reading
from vision.live.overlay import DEFAULT_STYLE
from vision.live.pipeline import MJPEG_BOUNDARY, EventKind, LivePipeline, PipelineEvent, Reader
from vision.read.policy import DiceKnobs, ReadPolicy
from vision.live.settle import SettleConfig, SettleState
from vision.live.sources import FolderEmpty

FAST = SettleConfig(stable_frames=3, min_still_s=0.1)
SCENES = [
    [(50, 50, "1"), (150, 50, "6")],
    [(100, 120, "wheel")],
    [(60, 160, "3"), (200, 150, "4"), (260, 60, "5")],
]



class Events:
    def __init__(self) -> None:
        self.items: list[PipelineEvent] = []
        self.lock = threading.Lock()

    def __call__(self, event: PipelineEvent) -> None:
        with self.lock:
            self.items.append(event)

    def of(self, kind: EventKind) -> list[PipelineEvent]:
        with self.lock:
            return [e for e in self.items if e.kind is kind]


def decode(data: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    for k, dice in enumerate(SCENES):
        write_scene(tmp_path / f"{k:02d}.png", dice)
    return tmp_path


def test_blob_reader_is_a_reader() -> None:
    assert isinstance(BlobReader(), Reader)


def test_folder_end_to_end(photos: Path) -> None:
    reader = BlobReader()
    events = Events()
    pipe = LivePipeline(str(photos), reader, settle=FAST, detect_fps=30, source_options={"fps": 30, "hold_s": 0.6})
    pipe.subscribe(events)
    with pipe:
        assert wait_until(lambda: len(events.of(EventKind.SETTLED)) >= 3)
        settled = [e.settled for e in events.of(EventKind.SETTLED)[:3]]
        assert [s.reading.faces() for s in settled] == [tuple(f for _, _, f in dice) for dice in SCENES]
        assert [s.seq for s in settled] == [1, 2, 3]
        assert all(s.image is not None and s.at is not None for s in settled)
        assert events.of(EventKind.ONLINE) and not events.of(EventKind.OFFLINE)

        status = pipe.status()
        assert status.running and status.camera.online and status.reader["name"] == "blob-reader"
        stats = pipe.stats()
        assert stats.capture_fps > 15 and stats.detect_fps > 5 and stats.frames_detected >= 9
        assert stats.reader_ms > 0 and stats.settled >= 3

        live = pipe.latest()
        assert live is not None and live.reading.width == 320
        view = decode(pipe.jpeg())
        assert view.shape == (240, 320, 3)

        chunks = list(pipe.mjpeg(max_frames=2))
        head, _, body = chunks[0].partition(b"\r\n\r\n")
        assert head.startswith(f"--{MJPEG_BOUNDARY}\r\nContent-Type: image/jpeg".encode())
        assert decode(body[:-2]).shape == (240, 320, 3)

        snap = pipe.snapshot_jpeg(settled[0])
        assert snap is not None and decode(snap).shape == (240, 320, 3)
    assert reader.threads == {"pipeline-detect"}  # never on the capture thread
    assert not pipe.status().running


def test_highlight_and_reread(tmp_path: Path) -> None:
    path = write_scene(tmp_path / "still.png", [(60, 60, "2"), (200, 120, "5")])
    pipe = LivePipeline(str(path), BlobReader(), settle=FAST, detect_fps=30, source_options={"fps": 30})
    with pipe:
        first = pipe.wait_settled(0, timeout=8)
        assert first is not None and first.reading.faces() == ("2", "5")
        assert wait_until(lambda: pipe.latest() is not None and pipe.latest().state is SettleState.SETTLED)
        plain = decode(pipe.jpeg())
        pipe.set_highlight({1})
        lit = decode(pipe.jpeg())
        x1, y1, _, y2 = (int(v) for v in first.reading.objects[1].box)
        ring = lit[(y1 + y2) // 2, x1 - 6 : x1 - 2].astype(int)
        assert np.abs(ring - DEFAULT_STYLE.highlight).sum(axis=1).min() < 60
        assert np.abs(plain[(y1 + y2) // 2, x1 - 6 : x1 - 2].astype(int) - DEFAULT_STYLE.highlight).sum(axis=1).min() > 60

        assert pipe.wait_settled(first.seq, timeout=0.5) is None  # still scene: settled once
        pipe.request_reread()
        again = pipe.wait_settled(first.seq, timeout=8)
        assert again is not None and again.seq == 2 and again.reading.faces() == ("2", "5")
        assert not pipe.show([])  # only the demo takes hints


class Flaky:
    """A reader that fails until it is told it is healthy."""

    info = {"name": "flaky"}

    def __init__(self) -> None:
        self.healthy = threading.Event()
        self.failures = 0
        self.inner = BlobReader()

    def read(self, image_bgr: np.ndarray) -> Reading:
        if not self.healthy.is_set():
            self.failures += 1
            raise RuntimeError("model not warmed up")
        return self.inner.read(image_bgr)


def test_reader_errors_are_reported_and_survived(tmp_path: Path) -> None:
    path = write_scene(tmp_path / "a.png", [(60, 60, "4")])
    reader = Flaky()
    pipe = LivePipeline(str(path), reader, settle=FAST, detect_fps=30, source_options={"fps": 30})
    with pipe:
        assert wait_until(lambda: reader.failures >= 3)
        assert "model not warmed up" in (pipe.status().reader_error or "")
        assert pipe.latest() is None
        reader.healthy.set()
        settled = pipe.wait_settled(0, timeout=8)
        assert settled is not None and settled.reading.faces() == ("4",)
        assert pipe.status().reader_error is None
        assert pipe.stats().reader_errors == reader.failures


def test_offline_source_shows_a_placard_and_comes_back(tmp_path: Path) -> None:
    image = scene([(100, 100, "6")])
    cv2.imwrite(str(tmp_path / "later.png"), image)
    later = tmp_path / "later.png"
    folder = tmp_path / "cam"
    folder.mkdir()
    events = Events()
    pipe = LivePipeline(
        str(folder),
        BlobReader(),
        settle=FAST,
        detect_fps=30,
        camera_options={"backoff_s": 0.05, "backoff_max_s": 0.1},
        source_options={"fps": 30},
    )
    pipe.subscribe(events)
    with pipe:
        assert wait_until(lambda: bool(events.of(EventKind.OFFLINE)))
        off = events.of(EventKind.OFFLINE)[0]
        assert off.camera.error_code == FolderEmpty.code
        card = decode(pipe.jpeg())
        assert card.shape == (480, 640, 3)  # no frame yet: a default-size placard
        later.rename(folder / "a.png")
        settled = pipe.wait_settled(0, timeout=8)
        assert settled is not None and settled.reading.faces() == ("6",)
        assert events.of(EventKind.ONLINE)


def test_read_once_shares_the_reader(photos: Path) -> None:
    reader = BlobReader()
    pipe = LivePipeline(str(photos), reader, detect_fps=30, source_options={"fps": 30})
    with pipe:
        results = []
        threads = [threading.Thread(target=lambda: results.append(pipe.read_once(scene([(40, 40, "5")])))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [r.faces() for r in results] == [("5",)] * 4


def test_watch_reads_dice_as_the_games_dice(tmp_path: Path) -> None:
    from tests.vision import tiny_reader as tiny
    from vision.read.vocabulary import Vocabulary, VocabularyError

    cv2.imwrite(str(tmp_path / "scene.png"), tiny.scene())
    pipe = LivePipeline(str(tmp_path), tiny.fake_reader(), detect_fps=30, source_options={"fps": 30})
    assert pipe.read_once(tiny.scene()).faces() == ("プ", "2", "2", "wheel")  # the grey tie reads its first face, 2
    only = Vocabulary.of({"プ": "プ", "2": "プ", "wheel": "プ"}, name="one face")
    pipe.watch({"die"}, only)
    assert pipe.vocabulary is only
    assert pipe.read_once(tiny.scene()).faces() == ("プ",) * 4
    assert pipe.status().reader["vocabulary"]["name"] == "one face"
    with pytest.raises(VocabularyError):
        pipe.watch({"die"}, Vocabulary.of(["2"], ["gold"]))
    assert pipe.vocabulary is only  # a refused vocabulary changes nothing
    pipe.watch({"die"}, None)
    assert pipe.read_once(tiny.scene()).faces()[0] == "プ" and pipe.status().reader["vocabulary"] is None


def test_mjpeg_ends_when_the_pipeline_stops(photos: Path) -> None:
    pipe = LivePipeline(str(photos), BlobReader(), source_options={"fps": 30}).start()
    stream = pipe.mjpeg()
    assert next(stream).startswith(b"--frame")
    threading.Timer(0.2, pipe.stop).start()
    t0 = time.monotonic()
    rest = list(stream)
    assert time.monotonic() - t0 < 3 and len(rest) < 60


def test_listener_gets_offline_for_a_missing_camera() -> None:
    def fail() -> None:
        raise FolderEmpty(path="nowhere")

    events = Events()
    pipe = LivePipeline(Opener(fail), BlobReader(), camera_options={"backoff_s": 0.05})
    pipe.subscribe(events)
    with pipe:
        assert wait_until(lambda: bool(events.of(EventKind.OFFLINE)))
        assert pipe.latest() is None and pipe.settled() is None
        assert pipe.status().camera.state == "offline"


class DemoTruth:
    """Reads the demo's ground truth for the frame on screen (a test double for a perfect model)."""

    info = {"name": "demo-truth"}

    def __init__(self) -> None:
        self.pipe: LivePipeline | None = None

    def read(self, image_bgr: np.ndarray) -> Reading:
        src = self.pipe.camera.current_source() if self.pipe else None
        truth = getattr(src, "last_truth", ())
        if truth is None:  # rolling: a real reader sees dice, somewhere else each frame
            rng = np.random.default_rng()
            truth = tuple(Detection("die", "2", "red", (x, 10.0, x + 20, 30.0), 0.5) for x in rng.uniform(0, 280, 3))
        return Reading(tuple(truth), image_bgr.shape[1], image_bgr.shape[0], 0.0)


def test_demo_hint_becomes_a_settled_reveal() -> None:
    from vision.demo.table import DemoSource
    from vision.synth.sets import DieSpec

    reader = DemoTruth()
    opener = lambda: DemoSource(fps=30.0, size=(320, 240), hold_s=1.5, empty_s=0.1, rolling=3, bank=1, seed=3, games=("nine-dice",))
    pipe = LivePipeline(opener, reader, settle=FAST, detect_fps=30)
    reader.pipe = pipe
    with pipe:
        assert wait_until(lambda: pipe.camera.current_source() is not None)
        assert pipe.show([DieSpec("liars") for _ in range(7)])
        deadline = time.monotonic() + 30
        settled = None
        while time.monotonic() < deadline:
            settled = pipe.wait_settled(settled.seq if settled else 0, timeout=1)
            if settled is not None and len(settled.reading.objects) == 7:
                break
        assert settled is not None and len(settled.reading.objects) == 7
        assert set(settled.reading.faces()) <= {"wheel", "2", "3", "4", "5", "6"}  # the liars dice, not the bank's Nine Dice
        assert all(v.face_share == 1.0 for v in settled.votes)


def test_a_demo_hint_asked_before_the_camera_opens_is_shown_once_it_does() -> None:
    from vision.demo.table import DemoSource

    reader = DemoTruth()
    opener = lambda: DemoSource(fps=30.0, size=(640, 480), hold_s=1.5, empty_s=0.1, rolling=3, bank=1, seed=3, games=("nine-dice",))
    pipe = LivePipeline(opener, reader, settle=FAST, detect_fps=30)
    reader.pipe = pipe
    pipe.watch({"card"})
    assert not pipe.show(["QS", "10H"])  # nothing open yet: kept for the source to come
    with pipe:
        deadline = time.monotonic() + 30
        settled = None
        while time.monotonic() < deadline:
            settled = pipe.wait_settled(settled.seq if settled else 0, timeout=1)
            if settled is not None and settled.reading.faces() and settled.reading.faces()[0][-1] in "SHDC":
                break
        assert settled is not None and sorted(settled.reading.faces()) == ["10H", "QS"]


class TruthReader:
    """For the benchmark: a reader that costs nothing and returns a fixed 9-dice reading,
    so the numbers measure the pipeline (capture, hand-off, settling, overlay, JPEG)."""

    info = {"name": "fixed"}

    def __init__(self, reading: Reading) -> None:
        self.reading = reading

    def read(self, image_bgr: np.ndarray) -> Reading:
        return self.reading


def test_benchmark_demo_pipeline_fps(benchmark) -> None:  # type: ignore[no-untyped-def]
    if benchmark.disabled:
        pytest.skip("benchmarks are disabled by default (run with --benchmark-enable)")
    faces = ("プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "プ", "ラ")
    reading = Reading(tuple(Detection("die", f, "white", (40 + 60 * k, 200, 90 + 60 * k, 250), 0.9) for k, f in enumerate(faces)), 640, 480, 0.0)
    pipe = LivePipeline("demo", TruthReader(reading), detect_fps=30, stream_fps=30).start()
    try:
        assert pipe.camera.wait_frame(timeout=60) is not None
        stream = pipe.mjpeg()
        next(stream)

        def pull() -> int:
            return sum(1 for _ in zip(range(30), stream))

        cpu0, wall0 = time.process_time(), time.monotonic()
        benchmark.pedantic(pull, rounds=3, iterations=1)
        cpu_share = (time.process_time() - cpu0) / (time.monotonic() - wall0)
        stats = pipe.stats()
        benchmark.extra_info.update(stats.to_json(), cpu_cores_used=round(cpu_share, 3))
        print(f"\nCPU: {cpu_share:.2f} cores (background demo rendering included)")
        print("\npipeline on demo:", stats.to_json())
        assert stats.capture_fps >= 14
    finally:
        pipe.stop()


def test_a_settled_reveal_gets_a_closer_look(tmp_path: Path) -> None:
    from tests.vision import tiny_reader as tiny

    cv2.imwrite(str(tmp_path / "scene.png"), tiny.scene())
    looks = {}
    for closer in (True, False):
        reader = tiny.fake_reader()
        pipe = LivePipeline(str(tmp_path), reader, settle=FAST, detect_fps=30, source_options={"fps": 30},
                            closer_look=closer)
        with pipe:
            settled = pipe.wait_settled(timeout=20)
        # the red die the detector doubts (0.40) is left out of the settled reveal
        assert settled is not None and settled.reading.faces() == ("プ", "2", "2")
        looks[closer] = (settled, list(reader.classifier.calls))
    looked, calls = looks[True]
    assert all(v.closer is not None for v in looked.votes)
    assert looked.votes[0].closer[0] == "プ" and not looked.reading.objects[0].uncertain
    assert looked.reading.objects[1].uncertain  # the grey tie (left to right: second) stays a tie up close
    assert (6, 3, 48, 48) in calls  # the six extra crops of the one unsure face
    plain, plain_calls = looks[False]
    assert all(v.closer is None for v in plain.votes) and (6, 3, 48, 48) not in plain_calls


def test_a_die_the_detector_doubts_in_every_frame_stays_out_of_the_settled_reveal(tmp_path: Path) -> None:
    from tests.vision import tiny_reader as tiny

    cv2.imwrite(str(tmp_path / "scene.png"), tiny.scene())
    pipe = LivePipeline(str(tmp_path), tiny.rejecting_reader(0.01), settle=FAST, detect_fps=30,
                        source_options={"fps": 30})
    with pipe:
        settled = pipe.wait_settled(timeout=20)
    # the red die's box (0.40) is doubted in every frame: read surely as a wheel and as a die
    # with p 0.99, it is still a speck the detector may be seeing, not a die in play
    assert settled is not None and settled.reading.faces() == ("プ", "2", "2")


def test_dice_that_are_none_of_the_games_dice_are_left_out() -> None:
    from vision.live.pipeline import own_dice

    FOREIGN_BELOW = DiceKnobs().foreign_below

    speck = Detection("die", "2", "white", (0, 0, 9, 9), FOREIGN_BELOW / 2, uncertain=True)
    die = Detection("die", "ブ", "blue", (20, 0, 29, 9), 0.62, uncertain=True)
    card = Detection("card", "QS", None, (40, 0, 60, 30), 0.05, uncertain=True)
    reading = Reading((speck, die, card))
    assert own_dice(reading, "nine-dice").objects == (die, card)
    assert own_dice(reading, None) is reading  # no game: every die stays
    assert own_dice(Reading((die,)), "nine-dice").objects == (die,)


def _settles(readings: list[Reading]) -> tuple[str, ...] | None:
    from vision.live.settle import Settler

    settler = Settler(SettleConfig())
    for k, reading in enumerate(readings):
        got = settler.update(reading, index=k, t=k / 15)
        if got is not None:
            return got.reading.faces()
    return None


def test_a_die_read_near_the_foreign_line_no_longer_keeps_the_reveal_from_settling() -> None:
    from vision.live.pipeline import doubt_foreign, own_dice

    FOREIGN_BELOW = DiceKnobs().foreign_below

    dice = [Detection("die", f, "white", (40.0 * k, 0, 40.0 * k + 30, 30), 0.95, box_score=0.9) for k, f in enumerate("234")]
    near = Detection("die", "5", "white", (200, 0, 230, 30), FOREIGN_BELOW + 0.05, uncertain=True, box_score=0.8)
    below = replace(near, score=FOREIGN_BELOW - 0.05)
    blinking = [Reading((*dice, near if k % 3 else below)) for k in range(30)]
    # Dropped in every third frame, the die changes the count: motion, never settled.
    assert _settles([own_dice(r, "liars-dice") for r in blinking]) is None
    # Kept as a faint object, it may blink; read as one of the game's dice in most
    # frames, it stays in the reveal (uncertain), and the count is right.
    assert _settles([doubt_foreign(r, "liars-dice") for r in blinking]) == ("2", "3", "4", "5")
    # None of the game's dice in every frame: left out, as before.
    assert _settles([doubt_foreign(Reading((*dice, below)), "liars-dice")] * 30) == ("2", "3", "4")
    assert doubt_foreign(blinking[0], None) is blinking[0] and doubt_foreign(blinking[1], "liars-dice") is blinking[1]


def test_the_closer_look_reads_the_frame_as_a_photo_in_one_detector_pass() -> None:
    from tests.vision import tiny_reader as tiny
    from vision.live.pipeline import closer_reader
    from vision.read.reader import DiceReader

    live = DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier())
    closer = closer_reader(live)
    assert closer is not None and closer.reads_photos and not live.reads_photos
    closer.read(tiny.scene())
    assert len(closer.detector.inputs) == 1  # one detector pass, not two
    assert closer_reader(tiny.fake_reader()) is not None and closer_reader(object()) is None  # type: ignore[arg-type]


class CardLookReader:
    """A Doubt table's reader: read at the live input it sees ``live``; asked for a larger
    card input (the closer look) it sees ``closer``. Records the inputs asked for."""

    info = {"name": "card look"}
    cards = SimpleNamespace(photo_imgsz=704, manifest=SimpleNamespace(detector=SimpleNamespace(stride=32)))

    def __init__(self, live: tuple[Detection, ...], closer: tuple[Detection, ...], imgsz: int = 640,
                 asked: list[int] | None = None, prepared: list[tuple[int, int, int]] | None = None) -> None:
        self.live, self.closer, self.imgsz = live, closer, imgsz
        self.asked = [] if asked is None else asked
        self.prepared = [] if prepared is None else prepared

    def without_cards(self) -> CardLookReader:
        return self

    def with_card_imgsz(self, imgsz: int) -> CardLookReader:
        self.asked.append(imgsz)
        return CardLookReader(self.live, self.closer, imgsz, self.asked, self.prepared)

    def prepare(self, height: int, width: int) -> None:
        self.prepared.append((self.imgsz, height, width))

    def read(self, image_bgr: np.ndarray) -> Reading:
        h, w = image_bgr.shape[:2]
        return Reading(self.live if self.imgsz == 640 else self.closer, w, h, 1.0)


def card(x: float, face: str, score: float, uncertain: bool = False) -> Detection:
    return Detection("card", face, None, (x, 100, x + 12, 124), score, uncertain)


LIVE_CARDS = (card(100, "7D", 0.32, uncertain=True), card(300, "9C", 0.99))
CLOSER_CARDS = (card(100, "7D", 0.97), card(300, "9C", 1.0), card(500, "5D", 0.91))


def test_a_settled_card_reveal_is_read_again_with_the_card_detector_at_the_frames_size() -> None:
    from vision.live.pipeline import look_closer_at_cards
    from vision.live.settle import ObjectVote, SettledReading

    votes = (ObjectVote("7D", 1.0, None, 0.0, 0.32, (("7D", 5),)), ObjectVote("9C", 1.0, None, 0.0, 0.99, (("9C", 5),)))
    for (h, w), imgsz in (((480, 640), 704), ((720, 1280), 1280), ((1080, 1920), 1280)):
        reader = CardLookReader(LIVE_CARDS, CLOSER_CARDS)
        settled = SettledReading(Reading(LIVE_CARDS, w, h), votes, frame_index=9, t=0.6, frames=5, seq=1,
                                 image=np.zeros((h, w, 3), np.uint8))
        looked = look_closer_at_cards(reader, settled)
        assert reader.asked == [imgsz]
        assert looked.reading.faces() == ("7D", "9C", "5D") and not looked.uncertain
        assert [v.closer for v in looked.votes] == [("7D", 0.97), ("9C", 1.0), ("5D", 0.91)]
        assert looked.votes[0].counts == (("7D", 5),) and looked.votes[2].face_share == 0.0
    no_image = replace(settled, image=None)
    assert look_closer_at_cards(reader, no_image) is no_image
    assert reader.asked == [1280]  # no frame, no look
    assert look_closer_at_cards(TruthReader(Reading(LIVE_CARDS)), settled) is settled  # no card stages
    no_cards = replace(settled, reading=Reading(()), votes=())
    assert look_closer_at_cards(reader, no_cards) is no_cards and reader.asked == [1280]


def test_the_dice_closer_look_reads_the_still_frames_mean_on_a_noisy_sensor() -> None:
    from vision.live.pipeline import look_closer
    from vision.live.settle import ObjectVote, SettledReading

    class Recorder:
        def __init__(self) -> None:
            self.seen: list[np.ndarray] = []

        def read(self, image: np.ndarray) -> Reading:
            self.seen.append(image)
            return Reading((Detection("die", "4", "white", (10, 10, 50, 50), 0.97),))

    frame, mean = np.zeros((48, 64, 3), np.uint8), np.full((48, 64, 3), 7, np.uint8)
    dice = (Detection("die", "4", "white", (10, 10, 50, 50), 0.6, uncertain=True),)
    settled = SettledReading(Reading(dice, 64, 48), (ObjectVote("4", 1.0, "white", 1.0, 0.6, (("4", 5),)),),
                             frame_index=9, t=0.6, frames=5, seq=1, image=frame)
    for given, read in ((settled, frame), (replace(settled, mean_image=mean), mean)):
        reader = Recorder()
        look_closer(reader, given, SettleConfig())  # type: ignore[arg-type]
        assert len(reader.seen) == 1 and reader.seen[0] is read


def test_a_table_waiting_for_cards_takes_the_closer_look_at_them(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "scene.png"), np.full((480, 640, 3), 90, np.uint8))
    looks = {}
    for closer in (True, False):
        reader = CardLookReader(LIVE_CARDS, CLOSER_CARDS)
        pipe = LivePipeline(str(tmp_path), reader, settle=FAST, detect_fps=30, source_options={"fps": 30},
                            closer_look=closer)
        pipe.watch({"card"}, None)
        with pipe:
            settled = pipe.wait_settled(timeout=20)
        assert settled is not None
        looks[closer] = (settled, reader.asked, reader.prepared)
    looked, asked, prepared = looks[True]
    assert looked.reading.faces() == ("7D", "9C", "5D") and not looked.uncertain and set(asked) == {704}
    assert prepared == [(704, 480, 640)]  # compiled for once, on the first frame, before the reveal settled
    plain, plain_asked, plain_prepared = looks[False]
    assert plain.reading.faces() == ("7D", "9C") and plain.uncertain and plain_asked == plain_prepared == []


class Flickering:
    """A reader that finds the still scene's first die every frame and its second one only
    in two frames of three: its readings never hold still, though the picture does."""

    info = {"name": "flickering"}

    def __init__(self) -> None:
        self.inner = BlobReader()
        self.calls = 0

    def read(self, image_bgr: np.ndarray) -> Reading:
        self.calls += 1
        reading = self.inner.read(image_bgr)
        return reading if self.calls % 3 else replace(reading, objects=reading.objects[:1])


def test_a_still_picture_whose_readings_flicker_settles_live(tmp_path: Path) -> None:
    path = write_scene(tmp_path / "still.png", [(60, 60, "2"), (200, 120, "5")])
    flicker = replace(FAST, flicker_frames=6, flicker_s=0.2)
    pipe = LivePipeline(str(path), Flickering(), settle=flicker, detect_fps=30, source_options={"fps": 30})
    with pipe:
        got = pipe.wait_settled(0, timeout=8)
    assert got is not None and got.reading.faces() == ("2", "5") and got.frames >= 6
    sure, flickered = got.reading.objects
    assert not sure.uncertain and flickered.uncertain
    blind = LivePipeline(str(path), Flickering(), settle=replace(flicker, flicker_frames=None), detect_fps=30,
                         source_options={"fps": 30})
    with blind:
        assert blind.wait_settled(0, timeout=1.5) is None


def test_the_pipeline_decides_as_its_readers_policy_and_settle_overrides_its_settling() -> None:
    from tests.vision import tiny_reader as tiny

    reader = tiny.fake_reader()
    pipe = LivePipeline("demo", reader)
    assert pipe.policy is reader.policy and pipe._settler.config == reader.policy.settle
    fast = SettleConfig(stable_frames=2, min_still_s=0.0)
    assert LivePipeline("demo", reader, settle=fast).policy.settle == fast
    strict = replace(ReadPolicy(), dice=replace(DiceKnobs(), foreign_below=0.5))
    assert LivePipeline("demo", BlobReader(), policy=strict).policy is strict
    assert LivePipeline("demo", BlobReader()).policy == ReadPolicy()  # a test double has no policy: the defaults
