"""The vision pipeline behind the dashboard's camera protocol (a still image, a fixed reader)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.detections import Detection, Reading
from vision.live.pipeline import LivePipeline
from vision.read.vocabulary import game_vocabulary
from web.camera import TableCamera
from web.live import PipelineCamera, demo_specs


class FixedReader:
    info = {"name": "fixed-reader", "version": "test"}

    def read(self, image: np.ndarray) -> Reading:
        dice = tuple(Detection("die", face, "white", (20.0 + 60 * i, 40.0, 70.0 + 60 * i, 90.0), 0.95)
                     for i, face in enumerate(["4", "wheel", "2"]))
        return Reading(dice, int(image.shape[1]), int(image.shape[0]), 1.0)


def test_pipeline_camera_settles_streams_and_reports(tmp_path: Path) -> None:
    still = tmp_path / "table.png"
    cv2.imwrite(str(still), np.full((240, 320, 3), 90, np.uint8))
    camera = PipelineCamera(LivePipeline(str(still), FixedReader(), detect_fps=30, stream_fps=10))
    assert isinstance(camera, TableCamera)
    seen: list[tuple[str, dict[str, Any]]] = []
    camera.subscribe(lambda kind, data: seen.append((kind, data)))
    camera.start()
    try:
        settled = camera.settled_after(0.0, timeout=15)
        assert settled is not None and settled.reading.faces() == ("4", "wheel", "2")
        assert settled.jpeg is not None and settled.jpeg[:2] == b"\xff\xd8"
        assert settled.at <= time.time()
        assert ("camera", True) in [(k, d.get("online")) for k, d in seen]
        assert any(k == "settled" and d["objects"] == 3 for k, d in seen)
        status = camera.status()
        assert status["online"] is True and status["source"]
        assert camera.info()["reader"]["name"] == "fixed-reader"
        chunk = next(iter(camera.mjpeg(10, 1)))
        assert chunk.startswith(b"--frame\r\nContent-Type: image/jpeg")
        # Asked after the scene settled, the camera reads the still scene again.
        again = camera.settled_after(time.time(), timeout=15)
        assert again is not None and again.seq > settled.seq
    finally:
        camera.stop()


def wait_for(cond: Any, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


class MixedReader:
    """Two dice and two cards, plus a stray card that shows on every other frame (a die's
    face half-read as a card index), which would keep any scene from settling;
    ``without_cards()`` reads the dice only."""

    info = {"name": "mixed-reader", "version": "test"}

    def __init__(self, cards: bool = True) -> None:
        self.cards = object() if cards else None
        self.calls = {"full": 0, "dice-only": 0}
        self.frames = 0

    def without_cards(self) -> "MixedReader":
        dice_only = MixedReader(cards=False)
        dice_only.calls = self.calls
        return dice_only

    def read(self, image: np.ndarray) -> Reading:
        self.calls["full" if self.cards is not None else "dice-only"] += 1
        self.frames += 1
        objects = [Detection("die", "3", "red", (20.0, 40.0, 60.0, 80.0), 0.95), Detection("die", "6", "red", (80.0, 40.0, 120.0, 80.0), 0.95)]
        if self.cards is not None:
            objects += [Detection("card", "QH", None, (150.0, 40.0, 170.0, 80.0), 0.97), Detection("card", "7S", None, (200.0, 40.0, 220.0, 80.0), 0.97)]
            if self.frames % 2:
                objects.append(Detection("card", "4D", None, (90.0, 50.0, 100.0, 70.0), 0.3, uncertain=True))
        return Reading(tuple(objects), int(image.shape[1]), int(image.shape[0]), 1.0)


def test_the_pipeline_reads_what_the_waiting_table_plays_with(tmp_path: Path) -> None:
    still = tmp_path / "table.png"
    cv2.imwrite(str(still), np.full((240, 320, 3), 90, np.uint8))
    reader = MixedReader()
    pipeline = LivePipeline(str(still), reader, detect_fps=30, stream_fps=10)
    camera = PipelineCamera(pipeline)
    camera.start()
    try:
        dice = camera.settled_after(0.0, timeout=15)  # by default: dice, the card stages skipped
        assert dice is not None and [(o.kind, o.face) for o in dice.reading.objects] == [("die", "3"), ("die", "6")]
        assert reader.calls["dice-only"] > 0 and reader.calls["full"] == 0
        camera.expect("doubt", {})  # a Doubt table waits for a reveal: the card stages run
        assert pipeline.kinds == {"card"}
        assert wait_for(lambda: reader.calls["full"] > 3)
        live = pipeline.latest()
        assert live is not None and {o.kind for o in live.reading.objects} == {"card"}
        assert pipeline.vocabulary is None  # cards: no dice vocabulary
        camera.expect("liars-dice", {"dice_in_play": 2})
        assert pipeline.kinds == {"die"}
        assert pipeline.vocabulary == game_vocabulary("liars-dice")  # wheel and 2-6 only
        camera.expect("nine-dice", {})
        assert pipeline.vocabulary == game_vocabulary("nine-dice")
    finally:
        camera.stop()
    try:
        pipeline.watch({"chip"})
    except ValueError as err:
        assert "subset" in str(err)
    else:
        raise AssertionError("an unknown kind was accepted")


def test_demo_specs_fit_the_table() -> None:
    assert [s.design for s in demo_specs("liars-dice", {"dice_in_play": 4}, seed=0)] == ["liars"] * 4
    assert len(demo_specs("nine-dice", {}, seed=0)) in (9, 10)
    pins = demo_specs("pin456", {"declared": 2, "dice_left": {"pin": 0, "456": 2}}, seed=0)
    assert [s.design for s in pins] == ["456", "456"]
    assert demo_specs("pin456", {"declared": 3, "dice_left": {"pin": 0, "456": 2}}) is None
    assert demo_specs("doubt", {}) is None  # no play to reveal


def test_demo_cards_fit_a_doubt_table_waiting_for_a_reveal() -> None:
    from referee import doubt
    from referee.doubt import Card
    from web.camera import reveal_hint

    state = doubt.new_game(("Wanjin", "Saewoon", "Mina"), doubt.parse_options({}))
    for event in ({"type": "deal", "dealer": "Mina"}, {"type": "play", "player": "Wanjin", "count": 2, "rank": "Q"},
                  {"type": "challenge", "player": "Saewoon"}):
        state = state.apply(doubt.parse_event(event, state.players))
    hint = reveal_hint(state)
    assert {k: v for k, v in hint.items() if k != "reveal"} == state.to_json()  # the state JSON, and more
    assert hint["reveal"]["count"] == 2 and hint["reveal"]["rank"] == "Q" and len(hint["reveal"]["possible"]) == 52  # nothing seen yet
    for seed in range(20):
        cards = demo_specs("doubt", hint, seed=seed)
        assert cards is not None and len(cards) == 2
        state.apply(doubt.Reveal(tuple(Card.parse(c) for c in cards)))  # the referee accepts what the demo shows
    # Without the hint's cards: the play and rank from the state, the deck less the discarded ranks.
    bare = demo_specs("doubt", {"play": {"count": 3}, "rank": "7", "deck": 36, "discarded": ["K"]}, seed=1)
    assert bare is not None and len(bare) == 3 and not any(c.startswith(("K", "2")) for c in bare)
    assert demo_specs("doubt", {"reveal": {"count": 2, "rank": "Q", "possible": ["QS"]}}) is None
    assert "reveal" not in reveal_hint(doubt.new_game(("A", "B"), doubt.parse_options({})))  # nothing challenged yet
