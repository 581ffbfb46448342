"""Frame sources: what each spec opens, the errors a player sees, folder and video playback."""

from __future__ import annotations

import doctest
import socket
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.live.sources as sources
from tests.vision.livefakes import FACE_LEVELS, write_scene
from vision.demo.table import (
    DemoSource,
    doubt_reveal,
    game_of,
    liars_reveal,
    nine_reveal,
    pin456_reveal,
    smooth_fill,
)
from vision.live.sources import (
    CameraNotFound,
    FolderEmpty,
    FolderSource,
    ImageUnreadable,
    SourceError,
    SourceNotFound,
    StreamUnreachable,
    VideoFileSource,
    VideoUnreadable,
    open_source,
)
from vision.synth.designs import DESIGNS
from vision.synth.errors import SynthError
from vision.synth.sets import DieSpec


def test_doctests() -> None:
    assert doctest.testmod(sources).failed == 0


def _solid(path: Path, level: int) -> Path:
    cv2.imwrite(str(path), np.full((24, 32, 3), level, np.uint8))
    return path


def _level(image: np.ndarray) -> int:
    return int(image[0, 0, 0])


def test_unknown_spec_says_what_to_give() -> None:
    with pytest.raises(SourceNotFound, match="no such file, folder or camera: 'nowhere/at/all'") as info:
        open_source("nowhere/at/all")
    assert "demo" in str(info.value)
    assert info.value.message("ja").startswith("ファイル")


def test_missing_camera_is_named() -> None:
    with pytest.raises(CameraNotFound, match="camera 97 not found"):
        open_source("97")


def test_unreachable_stream_fails_fast() -> None:
    with socket.socket() as s:  # a local port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(StreamUnreachable, match=f"cannot open stream http://127.0.0.1:{port}/video"):
        open_source(f"http://127.0.0.1:{port}/video")
    assert time.monotonic() - t0 < 5


def test_password_in_url_is_hidden() -> None:
    with pytest.raises(StreamUnreachable) as info:
        open_source("rtsp://admin:hunter2@127.0.0.1:1/live")
    assert "hunter2" not in str(info.value) and "admin:***@" in str(info.value)


def test_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not an image")
    with pytest.raises(FolderEmpty, match="has no readable images"):
        open_source(str(tmp_path))


def test_every_error_has_both_languages() -> None:
    kinds = [SourceError, *SourceError.__subclasses__()]
    kinds += [k for c in list(kinds) for k in c.__subclasses__()]
    for kind in kinds:
        assert {"en", "ja"} <= set(kind.templates), kind


def test_folder_cycles_in_name_order_holding_each_image(tmp_path: Path) -> None:
    for name, level in (("b.png", 20), ("a.jpg", 10), ("c.PNG", 30)):
        _solid(tmp_path / name, level)
    src = open_source(str(tmp_path), fps=500, hold_s=2 / 500)
    assert isinstance(src, FolderSource) and not src.live
    levels = [_level(src.read()) for _ in range(8)]
    assert [round(v, -1) for v in levels] == [10, 10, 20, 20, 30, 30, 10, 10]


def test_folder_frames_are_read_only(tmp_path: Path) -> None:
    _solid(tmp_path / "a.png", 10)
    frame = open_source(str(tmp_path), fps=500).read()
    with pytest.raises(ValueError):
        frame[0, 0, 0] = 1


def test_folder_picks_up_new_images_and_skips_broken_ones(tmp_path: Path) -> None:
    _solid(tmp_path / "a.png", 10)
    src = FolderSource(tmp_path, fps=500, hold_s=1 / 500)
    assert round(_level(src.read()), -1) == 10
    _solid(tmp_path / "b.png", 50)
    (tmp_path / "broken.png").write_bytes(b"not really a png")
    seen = {round(_level(src.read()), -1) for _ in range(6)}
    assert seen == {10, 50}


def test_folder_skips_a_photo_still_being_copied_and_shows_a_phones_heic(tmp_path: Path) -> None:
    """A JPEG cut short (a phone still syncing it into the folder) is skipped until it is
    whole; an iPhone's HEIC photo is shown, as ``tableref read`` reads it."""
    from PIL import Image

    import vision.read.image_io  # noqa: F401  (registers the HEIF codec this test writes with)

    y, x = np.mgrid[0:120, 0:160]
    whole = cv2.imencode(".jpg", np.dstack([x, y, x + y]).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    (tmp_path / "a-copying.jpg").write_bytes(whole[: len(whole) // 2])
    Image.fromarray(np.full((120, 160, 3), 90, np.uint8)).save(tmp_path / "b.heic", quality=95)
    src = FolderSource(tmp_path, fps=500, hold_s=1 / 500)
    assert {round(_level(src.read()), -1) for _ in range(4)} == {90}
    (tmp_path / "a-copying.jpg").write_bytes(whole)
    src = FolderSource(tmp_path, fps=500, hold_s=1 / 500)
    assert src.read().shape == (120, 160, 3) and round(_level(src.read()), -1) == 90


def test_emptied_folder_raises_folder_empty(tmp_path: Path) -> None:
    path = _solid(tmp_path / "a.png", 10)
    src = FolderSource(tmp_path, fps=500, hold_s=1 / 500)
    src.read()
    path.unlink()
    with pytest.raises(FolderEmpty):
        src.read()


def test_single_image_is_a_still(tmp_path: Path) -> None:
    path = write_scene(tmp_path / "reveal.png", [(50, 50, "3")])
    src = open_source(str(path), fps=500)
    a, b = src.read(), src.read()
    assert a is b and a.shape == (240, 320, 3)
    assert int(a[50, 50, 2]) == FACE_LEVELS["3"]


def test_broken_image_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.jpg"
    path.write_bytes(b"\xff\xd8 nope")
    with pytest.raises(ImageUnreadable, match="broken.jpg"):
        open_source(str(path))


def _video(path: Path, levels: list[int]) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, (32, 24))
    assert writer.isOpened()
    for level in levels:
        writer.write(np.full((24, 32, 3), level, np.uint8))
    writer.release()
    return path


def test_video_plays_at_its_rate_and_loops(tmp_path: Path) -> None:
    path = _video(tmp_path / "clip.avi", [0, 60, 120, 180])
    src = open_source(str(path))
    assert isinstance(src, VideoFileSource) and src.fps == pytest.approx(25.0)
    t0 = time.monotonic()
    levels = [round(_level(src.read()) / 60) * 60 for _ in range(10)]
    elapsed = time.monotonic() - t0
    assert levels == [0, 60, 120, 180, 0, 60, 120, 180, 0, 60]
    assert 9 / 25 * 0.8 < elapsed < 2.0  # paced at about 25 fps, not as fast as decoding goes
    src.close()


def test_video_that_is_not_a_video(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"garbage" * 100)
    with pytest.raises(VideoUnreadable, match="clip.mp4"):
        open_source(str(path)).read()


def test_pacing_of_folder(tmp_path: Path) -> None:
    _solid(tmp_path / "a.png", 10)
    src = open_source(str(tmp_path), fps=50)
    t0 = time.monotonic()
    for _ in range(11):
        src.read()
    assert 0.16 < time.monotonic() - t0 < 0.6


# -- the demo source ---------------------------------------------------------------------



def test_demo_reveals_follow_the_games() -> None:
    rng = np.random.default_rng(0)
    nine = nine_reveal(rng, expansion=False)
    assert len(nine) == 9 and sorted(s.colour for s in nine) == ["black"] * 3 + ["blue"] * 3 + ["white"] * 3
    assert sorted(s.design for s in nine if s.colour == "white") == ["nine-a", "nine-a", "nine-c"]
    assert [s.design for s in nine_reveal(rng, expansion=True)][-1] == "nine-x"
    liars = liars_reveal(rng, 12)
    assert len(liars) == 12 and len({s.colour for s in liars[:5]}) == 1 and liars[0].colour != liars[5].colour
    for k in range(1, 7):
        pin = pin456_reveal(rng, k)
        assert len(pin) == k and {s.design for s in pin} <= {"pin", "456"}
        assert sum(s.design == "pin" for s in pin) <= 3 and sum(s.design == "456" for s in pin) <= 3
    assert game_of(liars) == "liars-dice" and game_of(nine) == "nine-dice"


def _small_demo(**kw: object) -> DemoSource:
    options = dict(fps=60.0, size=(320, 240), hold_s=0.3, empty_s=0.1, rolling=3, bank=1, seed=7)
    options.update(kw)
    return DemoSource(**options)  # type: ignore[arg-type]


def test_demo_opens_by_name() -> None:
    src = open_source("demo")
    try:
        assert isinstance(src, DemoSource) and src.name == "demo"
    finally:
        src.close()


def test_demo_shows_the_hinted_reveal_and_serves_frames_fast() -> None:
    src = _small_demo()
    try:
        src.show([DieSpec("liars") for _ in range(7)])
        t0 = time.monotonic()
        phases: list[str] = []
        truth = None
        n = 0
        while time.monotonic() - t0 < 30:
            frame = src.read()
            n += 1
            assert frame.shape == (240, 320, 3)
            clip = src.clip
            if clip is None or len(clip.specs) != 7:
                continue
            t = src.last_truth
            phase = "empty" if t == () else ("rolling" if t is None else "still")
            if not phases or phases[-1] != phase:
                phases.append(phase)
            if phase == "still":
                truth = t
                break
        elapsed = time.monotonic() - t0
        assert phases == ["empty", "rolling", "still"]
        assert truth is not None and len(truth) == 7
        assert all(o.face in DESIGNS["liars"].labels for o in truth)
        assert n / elapsed >= 15  # frames keep coming while the hinted clip renders
    finally:
        src.close()


def test_demo_rolls_an_asked_for_reveal_again_then_keeps_it_on_the_table() -> None:
    from vision.demo.table import HINT_ROLLS

    src = _small_demo()
    try:
        src.show([DieSpec("liars") for _ in range(5)])
        assert src.games == ("liars-dice",)  # the loop now shows only the asked-for game
        clips: list[object] = []
        t0 = time.monotonic()
        held = 0
        while time.monotonic() - t0 < 60 and held < 60:
            src.read()
            clip = src.clip
            if clip is not None and (not clips or clips[-1] is not clip):
                clips.append(clip)
                if clip.hinted and len(clips) > 1 and not clips[-2].hinted:  # type: ignore[attr-defined]
                    clips = clips[-1:]  # count from the first hinted clip on
            if len([c for c in clips if c.hinted]) == HINT_ROLLS and src.last_truth:  # type: ignore[attr-defined]
                held += 1  # the last roll's still, frame after frame
        hinted = [c for c in clips if c.hinted]  # type: ignore[attr-defined]
        assert len(hinted) == HINT_ROLLS and len(hinted) == len({id(c) for c in hinted})  # fresh layouts
        assert all(len(c.specs) == 5 for c in hinted)  # type: ignore[attr-defined]
        assert held == 60 and clips[-1] is hinted[-1] and src.clip is hinted[-1]  # the dice stay: no loop
    finally:
        src.close()


def test_demo_holds_the_reveal_the_table_read() -> None:
    """Once the table has read a reveal, no re-roll replaces it: the dice read stay shown."""
    src = _small_demo()
    try:
        src.show([DieSpec("nine-a", "white") for _ in range(3)])
        t0 = time.monotonic()
        while time.monotonic() - t0 < 30 and not (src.clip is not None and src.clip.hinted and src.last_truth):
            src.read()
        first = src.clip
        assert first is not None and first.hinted
        src.hold()
        for _ in range(200):  # well past the clip's length and any re-roll
            src.read()
        assert src.clip is first and src.last_truth == first.objects
    finally:
        src.close()


def test_demo_still_frames_differ_only_by_noise() -> None:
    src = _small_demo()
    try:
        stills: list[np.ndarray] = []
        deadline = time.monotonic() + 30
        while len(stills) < 2 and time.monotonic() < deadline:
            frame = src.read()
            if src.last_truth:
                stills.append(frame.astype(int))
        assert len(stills) == 2
        diff = np.abs(stills[0] - stills[1])
        assert 0 < diff.mean() < 6  # sensor noise, not a different picture
    finally:
        src.close()


def test_demo_rejects_dice_it_cannot_draw() -> None:
    src = _small_demo()
    try:
        with pytest.raises(SynthError):
            src.show([DieSpec("d20")])
        with pytest.raises(SynthError):
            src.show([DieSpec("pin", "white", "6")])
        with pytest.raises(SynthError):
            src.show([])
    finally:
        src.close()


def test_doubt_reveals_are_honest_or_lies_from_the_possible_cards() -> None:
    rng = np.random.default_rng(0)
    possible = ["QS", "QH", "QD", "3C", "KD", "7S"]
    honest = lies = 0
    for _ in range(200):
        cards = doubt_reveal(rng, 2, "Q", possible)
        assert len(cards) == 2 == len(set(cards)) and set(cards) <= set(possible)
        if all(c.startswith("Q") for c in cards):
            honest += 1
        else:
            lies += 1
    assert 60 <= honest <= 140 and honest + lies == 200  # about half and half
    assert all(c.startswith("7") for c in doubt_reveal(rng, 1, "7", ["7S"]))  # nothing else could be there
    assert len(doubt_reveal(rng)) in (1, 2, 3)
    with pytest.raises(SynthError):
        doubt_reveal(rng, 3, "Q", ["QS", "QH"])
    assert game_of(["QS", "10H"]) == "doubt"


def test_demo_shows_the_asked_for_cards_as_whole_cards() -> None:
    src = _small_demo(size=(640, 480))
    try:
        src.show(["QS", "10H", "7D"])
        truth = None
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:
            src.read()
            clip = src.clip
            if clip is not None and clip.hinted and src.last_truth:
                truth = src.last_truth
                break
        assert truth is not None and clip is not None
        assert clip.game == "doubt" and clip.specs == ("QS", "10H", "7D")
        assert sorted(o.face for o in truth) == ["10H", "7D", "QS"] and {o.kind for o in truth} == {"card"}
        for o in truth:
            x1, y1, x2, y2 = o.box
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480 and y2 - y1 > 100  # a whole card, not an index
        # The empty table shows no card: where they lie it looks like the table around them.
        empty, still = clip.empty.astype(np.float32), clip.still.astype(np.float32)
        under = np.zeros(empty.shape[:2], bool)
        for o in truth:
            x1, y1, x2, y2 = (int(v) for v in o.box)
            under[y1:y2, x1:x2] = True
        table = empty[~under].mean(axis=0)
        assert np.abs(empty[under].mean(axis=0) - table).max() < 12
        assert np.abs(still[under].mean(axis=0) - table).max() > np.abs(empty[under].mean(axis=0) - table).max() + 5
        # Then the cards stay on the table, and the loop would deal only cards (a reader set to
        # cards is never shown dice) ...
        for _ in range(100):
            src.read()
        assert src.clip is not None and src.clip.hinted and src.clip.game == "doubt" and src.games == ("doubt",)
        # ... until dice are asked for again.
        src.show([DieSpec("liars") for _ in range(3)])
        assert src.games == ("liars-dice",) and all(c.game == "liars-dice" for c in src._bank)
    finally:
        src.close()


def test_demo_refuses_cards_no_deck_holds_and_dice_mixed_with_cards() -> None:
    src = _small_demo()
    try:
        for bad in (["QS", "QS"], ["1H"], ["QS", DieSpec("liars")]):
            with pytest.raises(SynthError):
                src.show(bad)  # type: ignore[arg-type]
    finally:
        src.close()


def test_smooth_fill_reaches_every_hole_and_keeps_the_rest() -> None:
    img = np.zeros((60, 80, 3), np.uint8)
    img[:, :, 1] = np.linspace(0, 200, 80, dtype=np.uint8)[None, :]  # a gradient across the table
    mask = np.zeros((60, 80), np.uint8)
    mask[10:50, 20:60] = 255  # a big hole
    out = smooth_fill(img, mask, 2.0)
    assert np.array_equal(out[mask == 0], img[mask == 0].astype(np.float32))
    assert abs(float(out[30, 21, 1]) - float(img[30, 21, 1])) < 25  # continuous at the hole's edge
    assert out[30, 22, 1] < out[30, 40, 1] < out[30, 57, 1]  # the gradient carries on through it


class FakeCapture:
    """A ``cv2.VideoCapture`` stand-in: a webcam with a 640x480 default that can also send
    1280x720, or (``delivers_asked=False``) one that takes the size and then sends nothing."""

    opened: list[FakeCapture] = []
    delivers_asked = True

    def __init__(self, *args: object) -> None:
        self.size, self.asked = (640, 480), False
        self.released = False
        FakeCapture.opened.append(self)

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        self.asked = True
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            self.size = (int(value), self.size[1])
        elif prop == cv2.CAP_PROP_FRAME_HEIGHT:
            self.size = (self.size[0], int(value))
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.asked and not FakeCapture.delivers_asked:
            return False, None
        return True, np.zeros((self.size[1], self.size[0], 3), np.uint8)

    def release(self) -> None:
        self.released = True


@pytest.fixture
def fake_webcam(monkeypatch: pytest.MonkeyPatch) -> type[FakeCapture]:
    FakeCapture.opened, FakeCapture.delivers_asked = [], True
    monkeypatch.setattr(sources.cv2, "VideoCapture", FakeCapture)
    return FakeCapture


def test_a_webcam_is_asked_for_1280x720(fake_webcam: type[FakeCapture]) -> None:
    src = open_source("0")
    assert isinstance(src, sources.CaptureSource) and src.size == sources.WEBCAM_SIZE == (1280, 720)
    assert src.read().shape == (720, 1280, 3) and src.read().shape == (720, 1280, 3)
    assert open_source("1", size=None).size == (640, 480)  # the driver's own default


def test_a_webcam_that_refuses_the_size_opens_as_it_is(fake_webcam: type[FakeCapture]) -> None:
    fake_webcam.delivers_asked = False
    src = open_source("0")
    assert src.size == (640, 480)
    first, second = fake_webcam.opened
    assert first.released and not second.released
