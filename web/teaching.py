"""Teaching a table's reader profile from the dashboard (``docs/teach.md``).

A table chooses one of the server's profiles (:mod:`web.profiles`); the choice and a
"teach during play" switch are table settings kept in the store, so a table remembers
them across restarts. Whenever the camera is asked to read for a table (its reveal, or a
teaching roll), the live reader reads with that table's profile (:meth:`TableTeaching.apply_camera`,
the same way the table's game picks the dice vocabulary).

Teaching: the page reads the table's still frame (:meth:`TableTeaching.read`), a player
confirms or corrects the reading, and :meth:`TableTeaching.confirm` keeps the photo and
its labels in the profile and fits the profile again on every photo it keeps. During play,
a camera reveal that gave a verdict and every correction teach it too, when the switch
is on. Each photo taught is logged for the table and can be taken back
(:meth:`TableTeaching.undo`), which restores the photo's labels before it (or removes the
photo) and fits again.

Durability: the photo is written, then the labels naming it, then the profile, each file
whole (:class:`~vision.teach.store.ProfileFolder`), and only then is the teaching
acknowledged, so a server killed at any moment keeps every confirmed photo.

The fit reuses each photo's examples (:func:`~vision.teach.fitting.taught_dice`, the base reader's
probabilities) while its labels are unchanged, so confirming one more photo reads only that
photo. How well the profile reads photos it was not taught from
(:func:`~vision.teach.fitting.held_out`) is computed off the request thread, once per set of labels.
The teaching uses readers of its own, never the live pipeline's: OpenVINO's infer requests
are not shared between threads.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from vision.read.image_io import UnreadableImage, decode_image, read_image
from vision.teach.labels import DatasetError, LabelledImage, LabelsError, load_labels
from vision.read.profile import PROFILE_FILE, Profile, ProfileError
from vision.teach.store import LABELS_FILE, PHOTOS, label_line, write_atomic
from vision.read.reader import DiceReader
from vision.teach.fitting import HeldOut, TaughtPhoto, held_out, taught_photo, teach_examples
from web.errors import (
    AlreadyUndone,
    BadRequest,
    NoProfileChosen,
    NoTeachingReader,
    NoTeachPhoto,
    ProfileForOtherModels,
    ProfileNotFound,
    TaughtNotFound,
    UndoLaterTeaching,
)
from web.profiles import ProfileLibrary, labels_lines, line_image
from web.readings import MAX_OBJECTS, from_reading, object_kind, parse_object
from web.session import Sessions, TableSession, no_settled_reading
from web.store import TaughtRecord

JSON = dict[str, Any]
log = logging.getLogger(__name__)

#: A profile is "ready" once it keeps this many photos and reads the photos held out from
#: its teaching at least this well, with at most this share of dice read surely wrong:
#: the targets a set is taught to, after 10 photos.
READY_PHOTOS = 10
READY_ACCURACY = 0.98
READY_CONFIDENTLY_WRONG = 0.005
#: How long a teaching read waits for the dice to settle (the demo renders a roll first:
#: several seconds on a busy 2-core machine).
TEACH_WAIT_S = 15.0
#: The niceness of the held-out score's thread (Linux: per thread), below the live reading.
HELD_OUT_NICE = 10
#: Examples kept in memory per photo and labels (one photo is a few dice: small).
CACHE_SIZE = 5000

SETTING_PROFILE = "profile"
SETTING_LEARN = "learn_in_play"
LEARN_DEFAULT = True


def is_ready(photos: int, held: HeldOut | None) -> bool:
    """Whether a profile of ``photos`` photos that reads held-out photos as ``held`` is ready.

    >>> is_ready(10, HeldOut(dice=200, found=200, sure_right=197, sure_wrong=1))
    True
    >>> is_ready(10, HeldOut(dice=200, found=200, sure_right=197, sure_wrong=2)), is_ready(9, HeldOut(100, 100, 100, 0))
    (False, False)
    """
    if photos < READY_PHOTOS or held is None or held.accuracy is None or held.confidently_wrong is None:
        return False
    return held.accuracy >= READY_ACCURACY and held.confidently_wrong <= READY_CONFIDENTLY_WRONG


def teach_hint(game: str, players: Sequence[str]) -> JSON:
    """What a teaching roll asks the camera for (:meth:`~web.camera.TableCamera.expect`):
    every die the table plays with (the demo source rolls them all), or a few cards.

    >>> teach_hint("liars-dice", ["A", "B"])["dice_in_play"], teach_hint("pin456", ["A"])["declared"]
    (10, 6)
    """
    if game == "liars-dice":
        return {"dice_in_play": 5 * max(1, len(players))}
    if game == "pin456":
        return {"declared": 6, "dice_left": {"pin": 3, "456": 3}}
    if game == "doubt":
        from referee.doubt import deck_cards

        return {"expects": "reveal", "reveal": {"count": 4, "rank": "Q",
                                                "possible": sorted(str(c) for c in deck_cards(52))}}
    return {}


def demo_rolling(camera: Any, deadline: float) -> None:
    """With the demo source, wait (until ``deadline``, monotonic) for the roll just asked for
    to be on the table: the clip asked for, its dice rolling (``truth`` None). The demo renders
    it first, and until then it still shows the dice before (or its own loop), which a read
    would take. A real camera shows the roll the players made before they asked: no wait."""
    while time.monotonic() < deadline:
        demo = camera.status().get("demo")
        if not isinstance(demo, Mapping) or (demo.get("truth") is None and demo.get("clip_asked", True)):
            return
        time.sleep(0.05)


def label_objects(objects: Sequence[Mapping[str, Any]]) -> list[JSON]:
    """A reading's objects as labels: a die still unsure (not corrected) is marked not
    readable, so it teaches neither its guessed face nor "no die"."""
    out = []
    for o in objects:
        sure = not o.get("uncertain") or o.get("corrected")
        label: JSON = {"kind": o.get("kind", "die"), "face": o.get("face") if sure else None,
                       "colour": o.get("colour"), "box": list(o.get("box") or [0, 0, 0, 0])}
        if not sure:
            label["readable"] = False
        out.append(label)
    return out


def has_boxes(objects: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every object has a box on the photo (a reading typed by hand has none)."""
    return all(len(o.get("box") or ()) == 4 and o["box"][0] < o["box"][2] and o["box"][1] < o["box"][3]
               for o in objects)


@dataclass(frozen=True)
class HeldOutState:
    """The held-out score of a profile's labels ``digest`` (or why it failed)."""

    digest: str
    result: HeldOut | None
    error: str | None = None


class Teacher:
    """Fits profiles from the photos they keep, with a reader made by ``reader_factory``
    (the base dice models; None: this server cannot teach)."""

    def __init__(self, library: ProfileLibrary, reader_factory: Callable[[], DiceReader] | None) -> None:
        self.library = library
        self._factory = reader_factory
        self._readers: dict[str, DiceReader] = {}
        self._reader_error: str | None = None
        self._fit_lock = threading.Lock()  # the fitting reader, and the examples cache
        self._score_lock = threading.Lock()  # the held-out reader
        self._cache: dict[tuple[str, str], TaughtPhoto] = {}
        self._held: dict[str, HeldOutState] = {}
        self._running: set[str] = set()
        self._held_lock = threading.Lock()

    def reader(self, role: str = "fit") -> DiceReader:
        """A reader of its own for ``role`` ("fit" or "score"), loaded once;
        :class:`NoTeachingReader` when the server has none."""
        reader = self._readers.get(role)
        if reader is not None:
            return reader
        if self._factory is None:
            raise NoTeachingReader(reason="no model folder", reason_ja="モデルなし")
        try:
            reader = self._factory().with_profile(None)
        except Exception as exc:  # ManifestError, BackendUnavailable ...: say why, once
            self._reader_error = f"{type(exc).__name__}: {exc}"[:200]
            raise NoTeachingReader(reason=self._reader_error) from None
        from vision.read.policy import Mode

        reader = reader.in_mode(Mode.PHOTO)  # as `tableref teach` reads its photos
        self._readers[role] = reader
        return reader

    @property
    def base_models(self) -> Mapping[str, str] | None:
        try:
            return self.reader().base_models
        except NoTeachingReader:
            return None

    def _examples(self, reader: DiceReader, photo: LabelledImage) -> TaughtPhoto:
        key = (photo.path.name, label_line(photo, ""))
        found = self._cache.get(key)
        if found is None:
            found = taught_photo(reader, photo, read_image(str(photo.path)))
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = found
        return found

    def fit(self, photos: Sequence[LabelledImage]) -> Profile:
        """A profile fitted on ``photos`` as :func:`vision.teach.fitting.teach` fits it (each photo's
        examples read once, while its labels stay the same)."""
        with self._fit_lock:
            reader = self.reader()
            return teach_examples(reader, [self._examples(reader, p) for p in photos])

    def add(self, pid: str, jpeg: bytes, objects: Sequence[Mapping[str, Any]]) -> tuple[str, str | None, str]:
        """Keep a photo (JPEG bytes) with ``objects`` as its labels in profile ``pid`` and fit
        it again. Returns the photo's name in the profile, its labels line before (None if
        it was new) and now. :class:`BadRequest` for labels ``tableref teach`` would refuse."""
        self.reader()  # no reader: refused before anything is written
        with self.library.lock(pid):
            folder = self.library.folder(pid)
            incoming = self.library.root / f".incoming-{secrets.token_hex(6)}"
            incoming.mkdir()
            try:
                try:
                    decode_image(jpeg)
                except UnreadableImage as exc:
                    raise BadRequest(f"the photo cannot be read ({exc})", "写真を読めません") from None
                write_atomic(incoming / "photo.jpg", jpeg)
                line = json.dumps({"image": "photo.jpg", "objects": label_objects(objects)}, ensure_ascii=False)
                write_atomic(incoming / LABELS_FILE, (line + "\n").encode("utf-8"))
                try:
                    (photo,) = load_labels(incoming / LABELS_FILE)
                except LabelsError as exc:
                    raise BadRequest(exc.reason, exc.reason) from None
                except DatasetError as exc:
                    raise BadRequest(str(exc), str(exc)) from None
                name = f"{PHOTOS}/{hashlib.sha256(jpeg).hexdigest()[:20]}.jpg"
                before = {line_image(x): x for x in labels_lines(folder.path)}.get(name)
                everything = folder.keep([photo])  # the photo, written whole
                folder.commit(everything, self.fit(everything))  # then its labels, then the profile
            finally:
                shutil.rmtree(incoming, ignore_errors=True)
            after = {line_image(x): x for x in labels_lines(folder.path)}[name]
        return name.split("/", 1)[1], before, after

    def take_back(self, pid: str, photo: str, labels: str, before: str | None) -> None:
        """Undo teaching ``photo`` the labels ``labels``: its labels become ``before`` again
        (None: the photo leaves the profile), and the profile is fitted again.
        :class:`UndoLaterTeaching` when its labels changed since."""
        self.reader()
        with self.library.lock(pid):
            folder = self.library.folder(pid)
            name = f"{PHOTOS}/{photo}"
            lines = labels_lines(folder.path)
            if next((x for x in lines if line_image(x) == name), None) != labels:
                raise UndoLaterTeaching()
            rest = [x for x in lines if line_image(x) != name] if before is None else \
                [before if line_image(x) == name else x for x in lines]
            if rest:
                write_atomic(folder.path / LABELS_FILE, ("\n".join(rest) + "\n").encode("utf-8"))
                kept = folder.kept()
                folder.commit(kept, self.fit(kept))
            else:  # no photo left: no profile (removed first, so labels never outlive it unread)
                (folder.path / PROFILE_FILE).unlink(missing_ok=True)
                (folder.path / LABELS_FILE).unlink(missing_ok=True)
            if before is None:
                (folder.path / name).unlink(missing_ok=True)

    def refit(self, pid: str) -> None:
        """Fit profile ``pid`` again on what it keeps (an imported profile, for these models)."""
        with self.library.lock(pid):
            folder = self.library.folder(pid)
            kept = folder.kept()
            if kept:
                folder.commit(kept, self.fit(kept))

    # --- held-out score ----------------------------------------------------------------

    def _digest(self, pid: str) -> str | None:
        """What the profile's labels are now (None: it keeps no photo, or is gone)."""
        try:
            return hashlib.sha256((self.library.path(pid) / LABELS_FILE).read_bytes()).hexdigest()
        except (FileNotFoundError, ProfileNotFound):
            return None

    def held_out(self, pid: str) -> JSON | None:
        """How well the profile reads photos held out from its teaching: the last score
        computed, ``current`` when it is for the labels kept now; a newer one is started in
        the background when it is not. None before two photos are kept."""
        path = self.library.path(pid)
        digest = self._digest(pid)
        if digest is None or len(labels_lines(path)) < 2:
            return None
        with self._held_lock:
            state = self._held.get(pid)
            if (state is None or state.digest != digest) and pid not in self._running:
                self._running.add(pid)
                threading.Thread(target=self._score, args=(pid, digest), name=f"held-out-{pid}", daemon=True).start()
            computing = pid in self._running
        out: JSON = {"current": state is not None and state.digest == digest, "computing": computing,
                     "error": None if state is None else state.error}
        if state is not None and state.result is not None:
            out.update(state.result.to_json())
        return out

    def held_out_result(self, pid: str) -> HeldOut | None:
        """The held-out score of the labels kept now, if it was computed."""
        digest = self._digest(pid)
        state = self._held.get(pid)
        return state.result if digest is not None and state is not None and state.digest == digest else None

    def _score(self, pid: str, digest: str) -> None:
        """Score the labels ``digest``, and again while they changed meanwhile, at a low CPU
        priority: the live reading of the tables comes first (the score reader's own threads,
        made in this thread, inherit it)."""
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HELD_OUT_NICE)
        except (AttributeError, OSError):  # not on this system: the score just competes
            pass
        try:
            while True:
                state = self._score_once(pid, digest)
                with self._held_lock:
                    self._held[pid] = state
                now = self._digest(pid)
                if now is None or now == state.digest:
                    return
                digest = now
        finally:
            with self._held_lock:
                self._running.discard(pid)

    def _score_once(self, pid: str, digest: str) -> HeldOutState:
        try:
            with self.library.lock(pid):  # the files as they are together; decoded and read after
                digest = self._digest(pid) or digest
                kept = self.library.folder(pid).kept()
                data = [p.path.read_bytes() for p in kept]
            photos = [(p, decode_image(d)) for p, d in zip(kept, data)]
            with self._score_lock:
                return HeldOutState(digest, held_out(self.reader("score"), photos))
        except Exception as exc:  # no reader, a damaged photo ...: said once, for these labels
            log.info("held-out score of profile %s failed: %s", pid, exc)
            return HeldOutState(digest, None, f"{type(exc).__name__}: {exc}"[:200])

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Wait for background held-out scores to finish (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._held_lock:
                if not self._running:
                    return True
            time.sleep(0.02)
        return False


@dataclass(frozen=True)
class Pending:
    """A teaching photo read from the camera, waiting for a player to confirm or correct it."""

    id: int
    jpeg: bytes
    width: int
    height: int
    objects: tuple[JSON, ...]

    def to_json(self, table_id: str) -> JSON:
        return {"id": self.id, "width": self.width, "height": self.height, "objects": list(self.objects),
                "photo": f"/api/tables/{table_id}/teaching/photo.jpg?id={self.id}"}


class TableTeaching:
    """Every table's profile choice, teaching photos and teaching log."""

    def __init__(self, sessions: Sessions, library: ProfileLibrary, teacher: Teacher,
                 teach_wait_s: float = TEACH_WAIT_S) -> None:
        self.sessions = sessions
        self.store = sessions.store
        self.library = library
        self.teacher = teacher
        self.teach_wait_s = teach_wait_s
        self._pending: dict[str, Pending] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._camera_table: str | None = None
        self._in_play = ThreadPoolExecutor(max_workers=1, thread_name_prefix="teach-in-play")
        sessions.reader_view = self.apply_camera

    def close(self) -> None:
        self._in_play.shutdown(wait=True)

    # --- settings --------------------------------------------------------------------

    def profile_id(self, table_id: str) -> str | None:
        """The profile the table reads with (None: none chosen, or it was deleted)."""
        pid = self.store.setting(table_id, SETTING_PROFILE)
        if not isinstance(pid, str):
            return None
        try:
            self.library.path(pid)
        except ProfileNotFound:
            return None
        return pid

    def learns_in_play(self, table_id: str) -> bool:
        value = self.store.setting(table_id, SETTING_LEARN)
        return LEARN_DEFAULT if value is None else bool(value)

    def choose(self, table: TableSession, pid: Any) -> None:
        """The table reads with profile ``pid`` from now on (None: with none)."""
        if pid is not None:
            self.library.path(pid)
            base = self.teacher.base_models
            try:
                profile = self.library.loaded(pid)
            except ProfileError:
                profile = None
            if profile is not None and base is not None and dict(profile.base) != dict(base):
                raise ProfileForOtherModels(profile=pid)
        self.store.set_setting(table.id, SETTING_PROFILE, pid)
        if self._camera_table == table.id:
            self.apply_camera(table.id)

    def set_learning(self, table: TableSession, on: Any) -> None:
        if not isinstance(on, bool):
            raise BadRequest("learn must be true or false", "learnはtrueかfalseです")
        self.store.set_setting(table.id, SETTING_LEARN, on)

    # --- the live reader -------------------------------------------------------------------

    def live_profile(self, table_id: str) -> Profile | None:
        pid = self.profile_id(table_id)
        if pid is None:
            return None
        try:
            return self.library.loaded(pid)
        except ProfileError as exc:
            log.warning("profile %s of table %s cannot be read: %s", pid, table_id, exc)
            return None

    def apply_camera(self, table_id: str) -> None:
        """The camera reads for ``table_id`` now: with that table's profile (none: the reader
        as the server was started). A camera that cannot take a profile reads as it is."""
        self._camera_table = table_id
        use = getattr(self.sessions.camera, "use_profile", None)
        if use is None:
            return
        profile = self.live_profile(table_id)
        try:
            use(profile)
        except ProfileError as exc:
            log.warning("table %s: its profile is not for these models (%s); reading without it", table_id, exc)
            use(None)

    def deleted(self, pid: str) -> None:
        """Profile ``pid`` is gone: the table the camera reads for reads without it (the tables
        that chose it read with none)."""
        table = self._camera_table
        if table is not None:
            self.apply_camera(table)

    def _refitted(self, pid: str) -> None:
        table = self._camera_table
        if table is not None and self.profile_id(table) == pid:
            self.apply_camera(table)

    # --- teaching page ---------------------------------------------------------------

    def status(self, table: TableSession) -> JSON:
        """The table's profile (name, photos, held-out score, ready), its switch, the photo
        waiting to be confirmed and what it taught."""
        pid = self.profile_id(table.id)
        profile: JSON | None = None
        ready = False
        if pid is not None:
            profile = self.library.describe(pid)
            profile["held_out"] = self.teacher.held_out(pid)
            ready = is_ready(profile["photos"], self.teacher.held_out_result(pid))
            profile["ready"] = ready
        pending = self._pending.get(table.id)
        taught = self.store.taught(table.id)
        latest: dict[tuple[str, str], int] = {}
        for entry in reversed(taught):
            if entry.undone is None:
                latest[(entry.profile, entry.photo)] = entry.id
        return {"table": table.id, "profile": profile, "learn": self.learns_in_play(table.id),
                "pending": None if pending is None else pending.to_json(table.id),
                "taught": [{**e.to_json(), "can_undo": e.undone is None and latest.get((e.profile, e.photo)) == e.id}
                           for e in taught],
                "ready_when": {"photos": READY_PHOTOS, "accuracy": READY_ACCURACY,
                               "confidently_wrong": READY_CONFIDENTLY_WRONG}}

    def read(self, table: TableSession) -> JSON:
        """Read the table's still frame for teaching, with the table's profile: the photo and
        its reading wait for a player to confirm or correct them."""
        if self.profile_id(table.id) is None:
            raise NoProfileChosen(table=table.id)
        camera = self.sessions.camera
        self.apply_camera(table.id)
        self.sessions.camera_owner = None  # the teaching roll is not the reveal the table waits for
        deadline = time.monotonic() + max(self.sessions.settle_wait, self.teach_wait_s)
        try:
            camera.expect(table.record.game, teach_hint(table.record.game, table.record.players))
        except Exception:
            log.exception("camera hint failed")
        demo_rolling(camera, deadline)
        settled = camera.settled_after(time.time(), timeout=max(0.0, deadline - time.monotonic()))
        if settled is None or settled.jpeg is None:
            raise no_settled_reading(camera)
        self.sessions.camera_used_until = max(self.sessions.camera_used_until, settled.at)
        try:  # the roll stays on the table until the page asks for the next one
            camera.keep()
        except Exception:
            log.exception("camera keep failed")
        parsed = from_reading(settled.reading, table.record.game)
        pending = Pending(next(self._ids), settled.jpeg, parsed.width, parsed.height, parsed.objects)
        with self._lock:
            self._pending[table.id] = pending
        return self.status(table)

    def pending_photo(self, table: TableSession, photo_id: Any) -> bytes | None:
        pending = self._pending.get(table.id)
        if pending is None or (photo_id is not None and str(pending.id) != str(photo_id)):
            return None
        return pending.jpeg

    def confirm(self, table: TableSession, photo_id: Any, objects: Any) -> JSON:
        """Keep the waiting photo with ``objects`` (its reading as confirmed or corrected) in
        the table's profile, and fit the profile again."""
        pid = self.profile_id(table.id)
        if pid is None:
            raise NoProfileChosen(table=table.id)
        pending = self._pending.get(table.id)
        if pending is None or not isinstance(photo_id, int) or isinstance(photo_id, bool) or pending.id != photo_id:
            raise NoTeachPhoto(photo=str(photo_id)[:20])
        if not isinstance(objects, list) or len(objects) > MAX_OBJECTS:
            raise BadRequest(f"objects must be a list of at most {MAX_OBJECTS} objects",
                             f"objectsは最大{MAX_OBJECTS}個のリストです")
        parsed = [parse_object(o, table.record.game, i) for i, o in enumerate(objects)]
        if not has_boxes(parsed):
            raise BadRequest("every object needs its box on the photo: tap where it lies",
                             "すべての物に写真上の枠が必要です。写真の位置をタップしてください")
        self._teach(table.id, pid, pending.jpeg, parsed, "teach", None)
        with self._lock:
            if self._pending.get(table.id) is pending:
                del self._pending[table.id]
        return self.status(table)

    def _teach(self, table_id: str, pid: str, jpeg: bytes, objects: Sequence[Mapping[str, Any]], source: str,
               reading_id: int | None) -> TaughtRecord:
        photo, before, after = self.teacher.add(pid, jpeg, objects)
        entry = self.store.add_taught(table_id, profile=pid, photo=photo, source=source, reading_id=reading_id,
                                      labels=after, before=before)
        self._refitted(pid)
        self.sessions.bus.publish(table_id, "taught", {"entry": entry.to_json()})
        return entry

    def undo(self, table: TableSession, entry_id: int) -> JSON:
        """Take back one photo the table taught: the profile forgets it and is fitted again."""
        entry = self.store.taught_entry(table.id, entry_id)
        if entry is None:
            raise TaughtNotFound(table=table.id, entry=entry_id)
        if entry.undone is not None:
            raise AlreadyUndone()
        self.teacher.take_back(entry.profile, entry.photo, entry.labels, entry.before)
        self.store.mark_untaught(entry.id)
        self._refitted(entry.profile)
        self.sessions.bus.publish(table.id, "taught", {"undone": entry.to_json()})
        return self.status(table)

    # --- teaching during play --------------------------------------------------------------

    def after_reading(self, table: TableSession, result: Mapping[str, Any], corrected: bool) -> None:
        """A reveal, re-read or correction answered ``result``: when the table teaches during
        play, a camera reading that gave a verdict (or was corrected) teaches its profile,
        in the background (the verdict is not kept waiting)."""
        reading = result.get("reading")
        if not isinstance(reading, Mapping) or reading.get("source") != "camera":
            return
        if not corrected and reading.get("status") != "verdict":
            return
        if object_kind(table.record.game) != "die" or not self.learns_in_play(table.id):
            return
        pid = self.profile_id(table.id)
        if pid is None:
            return
        self._in_play.submit(self._teach_reading, table, pid, int(reading["id"]), corrected)

    def _teach_reading(self, table: TableSession, pid: str, reading_id: int, corrected: bool) -> None:
        try:
            rec = table.reading(reading_id)
            jpeg = self.store.snapshot_bytes(rec)
            if jpeg is None or not rec.objects or not has_boxes(rec.objects):
                return
            self._teach(table.id, pid, jpeg, rec.objects, "correction" if corrected else "reveal", reading_id)
        except Exception as exc:  # teaching in play must never disturb the game
            log.warning("table %s: reading %s did not teach profile %s: %s", table.id, reading_id, pid, exc)

    def drain(self, timeout: float = 30.0) -> None:
        """Wait until every reading queued for teaching in play is taught (tests)."""
        self._in_play.submit(lambda: None).result(timeout=timeout)
