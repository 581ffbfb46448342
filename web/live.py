"""The vision pipeline (:class:`vision.live.pipeline.LivePipeline`) seen as a :class:`~web.camera.TableCamera`.

The pipeline reads frames, runs the reader, settles reveals and draws the
annotated view; this adapter only translates: settled reveals get the wall
time they settled at (to tell a fresh reading from one of an earlier round)
and their frame as a JPEG snapshot, and pipeline events become the dashboard's
``camera`` / ``settled`` messages.

With the demo source, the status also says what the demo really shows (``demo``):
the faces on the table now and, for each recent settled reveal, the faces read and
the faces rendered, so tests and benchmarks can check a verdict against the truth.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from web.camera import JSON, Listener, Settled
from web.readings import object_kind

log = logging.getLogger(__name__)


def demo_specs(game: str, state: Mapping[str, Any], seed: int | None = None) -> list[Any] | None:
    """What the demo source should reveal for a table waiting on ``state``
    (Liar's Dice: every die in play; Nine Dice: a roll; Pin-456: the declared dice
    from the unused ones; Doubt: the challenged play's cards, as card codes, or four of
    a kind when ``state["discard"]`` names the ranks a player may discard), or None
    when the state does not say what to show.

    For Doubt, ``state["reveal"]`` (see :func:`web.camera.reveal_hint`) gives the play's size, rank
    and the cards that can be in it; without it the play's size and rank come from the
    state and the cards from the deck less the discarded ranks.

    >>> len(demo_specs("liars-dice", {"dice_in_play": 7}, seed=1))
    7
    >>> sorted({s.design for s in demo_specs("pin456", {"declared": 3, "dice_left": {"pin": 1, "456": 3}}, seed=2)}) <= ["456", "pin"]
    True
    >>> len(demo_specs("doubt", {"reveal": {"count": 2, "rank": "Q", "possible": ["QS", "QH", "3D"]}}, seed=3))
    2
    """
    import numpy as np

    from vision.demo import table as demo

    rng = np.random.default_rng(seed)
    if game == "doubt":
        return _doubt_cards(rng, state)
    if game == "liars-dice" and state.get("dice_in_play"):
        return list(demo.liars_reveal(rng, int(state["dice_in_play"])))
    if game == "nine-dice":
        return list(demo.nine_reveal(rng))
    if game == "pin456" and state.get("declared"):
        left = dict(state.get("dice_left") or {})
        pool = [s for s in demo.pin456_reveal(rng, 6) if left.get(s.design, 0) > 0]
        unused = []
        for design in ("pin", "456"):
            unused += [s for s in pool if s.design == design][: left.get(design, 0)]
        k = int(state["declared"])
        if k > len(unused):
            return None
        return random.Random(seed).sample(unused, k)
    return None


def _doubt_cards(rng: Any, state: Mapping[str, Any]) -> list[Any] | None:
    from vision.demo import table as demo

    discard = state.get("discard")
    if discard is not None:  # a player is about to lay down four of a kind
        ranks = list(discard.get("ranks") or ())
        if not ranks:
            return None
        rank = str(ranks[int(rng.integers(len(ranks)))])
        return [rank + suit for suit in rng.permutation(["S", "H", "D", "C"])]
    if state.get("expects", "reveal") != "reveal":
        return None
    reveal = state.get("reveal") or {}
    count = reveal.get("count") or (state.get("play") or {}).get("count")
    rank = reveal.get("rank") or state.get("rank")
    if not count or not rank:
        return None
    possible = reveal.get("possible")
    if possible is None:
        from referee.doubt import deck_cards

        discarded = set(state.get("discarded") or ())
        possible = [str(c) for c in deck_cards(int(state.get("deck") or 52)) if str(c.rank) not in discarded]
    if int(count) > len(possible):
        return None
    return list(demo.doubt_reveal(rng, int(count), str(rank), sorted(possible)))


def _faces(truth: Any) -> list[str] | None:
    return None if truth is None else [str(d.face) for d in truth]


class PipelineCamera:
    def __init__(self, pipeline: Any) -> None:
        self.pipeline = pipeline
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._settled_at: dict[int, float] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self._demo_settled: deque[JSON] = deque(maxlen=16)

    def start(self) -> None:
        self._unsubscribe = self.pipeline.subscribe(self._on_event)
        self.pipeline.start()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.pipeline.stop()

    def status(self) -> JSON:
        st = self.pipeline.status()
        cam = st.camera.to_json()
        out = {**cam, "settle": st.state.value, "progress": round(st.progress, 3), "reader_error": st.reader_error}
        demo = self._demo_status()
        if demo is not None:
            out["demo"] = demo
        return out

    def _demo_source(self) -> Any | None:
        camera = getattr(self.pipeline, "camera", None)
        source = camera.current_source() if camera is not None else None
        return source if source is not None and hasattr(source, "last_truth") else None

    def _demo_status(self) -> JSON | None:
        """The demo's truth: ``truth`` (faces on the table now, None while dice roll),
        ``clip_dice`` (dice in the clip playing), ``clip_asked`` (it shows dice a table asked
        for, not the demo's own loop) and ``settled`` (recent settled reveals:
        ``seq``, ``at`` when emitted, ``frame_at`` when its last frame was captured,
        ``faces`` read, ``truth`` rendered). None when the source is not the demo."""
        source = self._demo_source()
        with self._lock:
            settled = [dict(entry) for entry in self._demo_settled]
        if source is None and not settled:
            return None
        clip = getattr(source, "clip", None)
        return {"truth": None if source is None else _faces(source.last_truth),
                "clip_dice": len(clip.objects) if clip is not None else 0,
                "clip_asked": bool(getattr(clip, "hinted", False)), "settled": settled}

    def info(self) -> JSON:
        info = getattr(self.pipeline.reader, "info", {}) or {}
        return {"reader": dict(info), "stats": self.pipeline.stats().to_json()}

    def mjpeg(self, fps: float, max_frames: int | None = None) -> Iterator[bytes]:
        # The pipeline paces its stream itself (stream_fps, set from the same cap by serve).
        return self.pipeline.mjpeg(max_frames=max_frames)

    def _convert(self, settled: Any) -> Settled:
        jpeg = None
        if getattr(settled, "image", None) is not None:
            from vision.live.overlay import encode_jpeg

            jpeg = encode_jpeg(settled.image, 90)
        with self._lock:
            at = self._settled_at.get(settled.seq, time.time())
        return Settled(reading=settled.reading, jpeg=jpeg, at=at, seq=settled.seq)

    def settled_after(self, t: float, timeout: float) -> Settled | None:
        current = self.pipeline.settled()
        if current is not None:
            with self._lock:
                at = self._settled_at.get(current.seq)
            if at is not None and at > t:
                return self._convert(current)
        # The scene may already be still (read before the table asked): ask for it again.
        self.pipeline.request_reread()
        newer = self.pipeline.wait_settled(after_seq=current.seq if current is not None else 0, timeout=timeout)
        return None if newer is None else self._convert(newer)

    def expect(self, game: str, state: JSON) -> None:
        """Read what the waiting table plays with (dice as that game's dice, or cards for
        Doubt), and with the demo source, reveal dice (or cards) that fit the table."""
        from vision.read.vocabulary import game_vocabulary

        self.pipeline.watch({object_kind(game)}, game_vocabulary(game))
        specs = demo_specs(game, state)
        if specs:
            self.pipeline.show(specs)

    def use_profile(self, profile: Any) -> None:
        """Read with the reader profile of the table the camera reads for now (None: the reader
        as the server was started); see :meth:`~vision.live.pipeline.LivePipeline.use_profile`."""
        self.pipeline.use_profile(profile)

    def keep(self) -> None:
        """With the demo source: the reveal was read, so it stays on the table (no re-roll)."""
        source = self._demo_source()
        hold = getattr(source, "hold", None)
        if hold is not None:
            hold()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _on_event(self, event: Any) -> None:
        kind = event.kind.value
        if kind == "settled" and event.settled is not None:
            now = time.time()
            source = self._demo_source()
            with self._lock:
                self._settled_at[event.settled.seq] = now
                if source is not None:
                    self._demo_settled.append({
                        "seq": event.settled.seq, "at": round(now, 4),
                        "frame_at": None if event.settled.at is None else round(event.settled.at, 4),
                        "faces": list(event.settled.reading.faces()), "truth": _faces(source.last_truth)})
                for seq in [s for s in self._settled_at if s < event.settled.seq - 64]:
                    del self._settled_at[seq]
            data: JSON = {"seq": event.settled.seq, "objects": len(event.settled.reading.objects),
                          "uncertain": bool(event.settled.uncertain)}
            self._tell("settled", data)
        else:
            self._tell("camera", {**event.camera.to_json()})

    def _tell(self, kind: str, data: JSON) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(kind, data)
