"""A table in play: its stored log, the state replayed from it, and every change to it.

The state is never stored: it is the replay of the table's events. An action is
validated by applying it to the replayed state and only then appended; undo
drops the last event. A reveal turns a reading (the camera's latest settled
one, or one sent with the request) into the game's reveal event: if it does
not add up the answer is "re-read" and nothing is appended. Every reading is
stored with its photo and what came of it, and any reading can be corrected
by hand: the correction is logged (who, when, before, after) and the verdict
recomputed by putting the corrected reveal in place of the old one.

>>> import tempfile
>>> from web.store import Store
>>> from web.camera import NoCamera
>>> from web.bus import Bus
>>> tables = Sessions(Store(tempfile.mkdtemp()), NoCamera(), Bus())
>>> t = tables.create("liars-dice", ["Wanjin", "Saewoon"], {})
>>> table = tables.get(t.id)
>>> for raw in [{"type": "start", "opener": "Wanjin"},
...             {"type": "bid", "player": "Wanjin", "quantity": 3, "face": "4"},
...             {"type": "challenge", "player": "Saewoon"}]:
...     _ = table.apply(raw)
>>> out = table.reveal({"objects": [{"face": f} for f in "4 4 wheel 2 3 5 6 6 2 3".split()]})
>>> out["status"], out["verdict"]["round"]["loser"]
('verdict', 'Saewoon')
>>> table.reveal({"objects": [{"face": "4"}]})["status"]
Traceback (most recent call last):
...
web.errors.NotExpectingReading: The table is not waiting for a reading now (nothing to reveal or roll).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from referee.errors import MalformedEvent, MalformedLog, Misread, OutOfOrder, RefereeError
from referee.game import State
from referee.log import GameLog
from referee.replay import ReplayError, replay, rules_for, start

from web.bus import Bus
from web.camera import TableCamera, reveal_hint
from web.errors import (
    BadRequest,
    Conflict,
    DiscardReadingUnavailable,
    LaterEventsConflict,
    NoSettledReading,
    NothingToUndo,
    NotExpectingReading,
    NotFourOfAKind,
    OddsUnavailable,
    ReadingNotFound,
    StaleReading,
    TableNotFound,
    UseReveal,
)
from web.readings import (
    READING_EVENTS,
    ParsedReading,
    apply_changes,
    discard_event,
    from_reading,
    judge_reading,
    object_kind,
    parse_reading,
    size_advice,
)
from web.store import (
    CorrectionRecord,
    ReadingRecord,
    Store,
    StoreConflict,
    StoredEvent,
    TableRecord,
    UnknownReading,
    UnknownTable,
)
from web.shouts import BUZZ_HOLD_S, BUZZER_WINDOW_S, RoundClaimed, shout_lines, shout_notes, tap_time
from web.unsure import judge_unsure, note_unsure, outcome
from web.verdicts import score, verdict

JSON = dict[str, Any]
log = logging.getLogger(__name__)

MAX_NAME = 32
MAX_WHO = 40
DISCARD_WAIT_S = 8.0  # how long a camera discard waits for the four cards to be laid and settle
#: Decisions a game expects before play starts, offered with one choice per player.
SETUP_FIELDS = {"start": "opener", "deal": "dealer"}


def bilingual(err: RefereeError) -> JSON:
    """A refusal in both languages, for storing and for live pages that switch language."""
    out = err.to_json("en")
    return {"code": err.code, "messages": {"en": err.message("en"), "ja": err.message("ja")}, "params": out["params"]}


def with_advice(reason: JSON, advice: tuple[str, str] | None) -> JSON:
    """``reason`` (as :func:`bilingual` gives it) with ``advice`` (English, Japanese) added to
    its messages and kept under ``advice``; as it is without advice.

    >>> with_advice({"code": "misread", "messages": {"en": "No.", "ja": "いいえ。"}, "params": {}}, ("come closer", "近づく"))["messages"]
    {'en': 'No. Come closer.', 'ja': 'いいえ。近づく。'}
    """
    if advice is None:
        return reason
    en, ja = advice
    messages = dict(reason.get("messages", {}))
    messages["en"] = f"{messages.get('en', '')} {en[:1].upper()}{en[1:]}.".strip()
    messages["ja"] = f"{messages.get('ja', '')}{ja}。"
    return {**reason, "messages": messages, "advice": {"en": en, "ja": ja}}


def localize(reason: Mapping[str, Any] | None, lang: str) -> JSON | None:
    if reason is None:
        return None
    messages = reason.get("messages", {})
    return {**reason, "message": messages.get(lang) or messages.get("en", "")}


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def no_settled_reading(camera: TableCamera) -> NoSettledReading:
    """The refusal when no reading settled in time, with what the camera's status says of why:
    the camera is offline, it reads nothing at all on the table (the pieces too small or too
    dim for it), or what it reads is still moving.

    >>> class Cam:
    ...     def __init__(self, **st): self.st = st
    ...     def status(self): return self.st
    >>> no_settled_reading(Cam(online=True, settle="empty")).params["advice"]
    'bring the camera closer or light the table'
    >>> no_settled_reading(Cam(online=False)).params["camera"], no_settled_reading(Cam(online=True, settle="moving")).params["advice"]
    ('camera offline', 'hold still')
    """
    status = camera.status()
    if not status.get("online"):
        return NoSettledReading(camera="camera offline", camera_ja="カメラはオフライン",
                                advice="reconnect the camera", advice_ja="カメラをつなぎ直す")
    if status.get("settle") == "empty":
        return NoSettledReading(camera="camera online, nothing read on the table",
                                camera_ja="カメラはオンライン、テーブルに何も読み取れません",
                                advice="bring the camera closer or light the table",
                                advice_ja="カメラを近づけるかテーブルを明るくする")
    return NoSettledReading(camera="camera online", camera_ja="カメラはオンライン",
                            advice="hold still", advice_ja="動かさずに待つ")


def check_players(players: Any) -> list[str]:
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise MalformedLog("players must be a list of names", "playersは名前のリストである必要があります")
    names = [p.strip() for p in players]
    for name in names:
        if len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
            raise BadRequest(f"player names are at most {MAX_NAME} printable characters",
                             f"プレイヤー名は{MAX_NAME}文字以内です")
    return names


@dataclass
class _Buzz:
    """A Nine Dice shout waiting to be scored: when it was tapped and arrived (server
    clock), its event (None: a phone's buzz whose hand is still to come), whose it is,
    and what scoring it gave (the view, or the refusal)."""

    tap: float
    received: float
    raw: JSON | None
    player: str
    result: JSON | None = None
    error: RefereeError | None = None


class Sessions:
    """Every table of one server."""

    def __init__(self, store: Store, camera: TableCamera, bus: Bus, settle_wait: float = 2.0) -> None:
        self.store = store
        self.camera = camera
        self.bus = bus
        self.settle_wait = settle_wait
        self._lock = threading.Lock()
        self._tables: dict[str, TableSession] = {}
        #: The table, and the event count it waited at, that the camera was last asked to
        #: read for: one camera, several tables, and each reads only what it asked for.
        self.camera_owner: tuple[str, int] | None = None
        #: Called with a table's id whenever the camera is asked to read for that table, so
        #: it reads with that table's reader view (its profile: :mod:`web.teaching`).
        self.reader_view: Callable[[str], None] | None = None
        #: When the camera last settled a reading taken for something other than a reveal (a
        #: teaching roll): a reveal takes only a newer one, never that roll.
        self.camera_used_until = 0.0
        self._unsubscribe = camera.subscribe(self._on_camera)

    def _on_camera(self, kind: str, data: JSON) -> None:
        self.bus.broadcast(kind, data)

    def close(self) -> None:
        self._unsubscribe()

    def create(self, game: Any, players: Any, options: Any) -> TableRecord:
        """A new, empty table; the game, seating and options are checked by the referee."""
        names = check_players(players)
        log = GameLog.from_json({"format": "tableref-game/1", "game": game, "players": names,
                                 "options": {} if options is None else options, "events": []})
        state = start(log)  # MalformedLog / InvalidOption: refused before anything is stored
        record = self.store.create_table(log.game, log.players, dict(log.options))
        if state.expects() in READING_EVENTS:  # a new Nine Dice table reads its own dice from the start
            self.get(record.id)._ask_camera(0, state)
        return record

    def import_log(self, doc: Any) -> TableRecord:
        """A new table holding exactly ``doc``'s events, if the whole log replays (else :class:`ReplayError`)."""
        try:
            log = GameLog.from_json(doc)
        except MalformedLog as err:
            raise ReplayError(err, None) from err
        try:
            check_players(list(log.players))
        except RefereeError as err:
            raise ReplayError(err, None) from err
        replay(log)
        return self.store.create_table(log.game, log.players, dict(log.options), log.events)

    def get(self, table_id: str) -> "TableSession":
        with self._lock:
            table = self._tables.get(table_id)
            if table is None:
                try:
                    record = self.store.get_table(table_id)
                except UnknownTable:
                    raise TableNotFound(table=str(table_id)[:40]) from None
                table = self._tables[table_id] = TableSession(self, record)
            return table

    def delete(self, table_id: str) -> None:
        table = self.get(table_id)
        with table.lock:
            self.store.delete_table(table_id)
            with self._lock:
                self._tables.pop(table_id, None)
        self.bus.publish(table_id, "deleted", {"table": table_id})

    def list(self) -> list[JSON]:
        out = []
        for record, n in self.store.list_tables():
            out.append({**record.to_json(), "events": n})
        return out


class TableSession:
    """One table. Changes are serialised by ``lock``; reads replay the stored log."""

    def __init__(self, sessions: Sessions, record: TableRecord) -> None:
        self.sessions = sessions
        self.store: Store = sessions.store
        self.record = record
        self.rules = rules_for(record.game)
        self.lock = threading.RLock()
        self._cache: tuple[list[StoredEvent], State] | None = None
        self._claim: JSON | None = None  # Nine Dice: a correct shout waiting for its colour
        self._buzzed: list[_Buzz] = []  # Nine Dice: shouts and buzzes waiting to be scored in tap order
        self._turns = threading.Condition(self.lock)

    @property
    def id(self) -> str:
        return self.record.id

    # --- reading the table -----------------------------------------------------------

    def _replay(self, bodies: Sequence[Mapping[str, Any]]) -> State:
        return replay(GameLog(self.record.game, self.record.players, self.record.options, tuple(bodies)))

    def load(self) -> tuple[list[StoredEvent], State]:
        with self.lock:
            if self._cache is None:
                events = self.store.events(self.id)
                self._cache = (events, self._replay([e.body for e in events]))
            return self._cache

    def _changed(self) -> None:
        self._cache = None
        events, state = self.load()
        if state.expects() in READING_EVENTS:
            self._ask_camera(len(events), state)
        elif (events and events[-1].body.get("type") in READING_EVENTS
              and self.sessions.camera_owner == (self.id, len(events) - 1)):
            try:  # the reveal was read: it stays on the table (the demo rolls nothing new)
                self.sessions.camera.keep()
            except Exception:
                log.exception("camera keep failed")
        if self.sessions.bus.subscribers(self.id):
            self.sessions.bus.publish(self.id, "state", self.view())

    def _ask_camera(self, seq: int, state: State) -> None:
        """Ask the camera for this table's reveal at event count ``seq``, unless it was
        asked for just that already: waiting again at the same point (an undone reveal, a
        correction that withdrew its verdict) the dice on the table are the same."""
        if self.sessions.camera_owner == (self.id, seq):
            return
        self.sessions.camera_owner = (self.id, seq)
        self._hint_camera(reveal_hint(state))

    def _hint_camera(self, hint: JSON) -> None:
        try:
            if self.sessions.reader_view is not None:
                self.sessions.reader_view(self.id)
            self.sessions.camera.expect(self.record.game, hint)
        except Exception:  # a hint only: the table must go on whatever the camera does with it
            log.exception("camera hint failed")

    def view(self) -> JSON:
        """Everything a page needs: state, legal actions, score, history and the current reading."""
        events, state = self.load()
        sj = state.to_json()
        expects = state.expects()
        actions = [a.to_json() for a in state.legal_actions()] + self._setup_actions(state, expects)
        return {
            "table": self.record.to_json(),
            "seq": len(events),
            "state": sj,
            "expects": expects,
            "reading_expected": expects in READING_EVENTS,
            "legal_actions": actions,
            "terminal": state.is_terminal(),
            "winner": state.winner(),
            "score": score(self.record.game, sj),
            "history": self._history(events, sj),
            "reading": self._current_reading(events, state),
            "aids": self._aids(state, sj),
        }

    def _history(self, events: list[StoredEvent], sj: Mapping[str, Any]) -> list[JSON]:
        """Every event, and what came of it where the page should say so: a reveal's verdict
        (who lost what), a Nine Dice shout's one-line result (``note``, both languages)."""
        notes: dict[int, JSON] = {}
        if self.record.game == "nine-dice":
            shouts = iter(shout_notes(sj))
            for e in events:
                if e.body.get("type") == "shout":
                    note = next(shouts, None)
                    if note is not None:
                        notes[e.id] = note["text"]
        else:
            for rec in self.store.readings(self.id, limit=200):
                if rec.event_id is not None and rec.verdict and rec.event_id not in notes:
                    notes[rec.event_id] = dict(rec.verdict.get("summary") or {})
        return [{"seq": e.seq, "event": e.body, "at": e.created, "note": notes.get(e.id)} for e in events]

    def _setup_actions(self, state: State, expects: str | None) -> list[JSON]:
        field = SETUP_FIELDS.get(expects or "")
        if field is None:
            return []
        out = []
        for player in self.record.players:
            raw = {"type": expects, field: player}
            try:
                state.apply(self.rules.parse_event(raw, self.record.players))
            except RefereeError:
                continue
            out.append(raw)
        return out

    def _aids(self, state: State, sj: Mapping[str, Any]) -> JSON:
        if self.record.game == "pin456" and hasattr(state, "feasible_guesses"):
            return {"feasible_sums": list(state.feasible_guesses())}
        if self.record.game == "nine-dice":
            from referee.nine_dice import ALL_HANDS

            return {"shout_lines": shout_lines(sj), "claim": self._live_claim(),
                    "buzzed": [b.player for b in sorted(self._buzzed, key=lambda b: b.tap) if b.raw is None],
                    "hands": [{"hand": str(h), "choose": h.chooses_colour, "expansion": h.needs_expansion}
                              for h in ALL_HANDS]}
        return {}

    def _live_claim(self) -> JSON | None:
        events, _ = self.load()
        claim = self._claim
        return None if claim is None or claim["seq"] != len(events) else {k: claim[k] for k in ("player", "hand")}

    def _current_reading(self, events: list[StoredEvent], state: State) -> JSON | None:
        recent = self.store.readings(self.id, limit=1)
        if not recent:
            return None
        rec = recent[0]
        status = self._live_status(rec, events, state)
        if status in ("stale", "withdrawn"):
            return None
        return self.reading_json(rec, events, state)

    def _live_status(self, rec: ReadingRecord, events: list[StoredEvent], state: State) -> str:
        """verdict (its event is in the log), withdrawn (undone or replaced), reread (the table
        still waits for this reveal) or stale (the game moved on)."""
        ids = {e.id: e.seq for e in events}
        if rec.event_id is not None and rec.event_id in ids:
            return "verdict"
        if rec.status == "verdict":
            return "withdrawn"
        if rec.at_seq == len(events) and state.expects() in READING_EVENTS:
            return "reread"
        return "stale"

    def reading_json(self, rec: ReadingRecord, events: list[StoredEvent] | None = None, state: State | None = None) -> JSON:
        if events is None or state is None:
            events, state = self.load()
        seqs = {e.id: e.seq for e in events}
        return {
            "id": rec.id,
            "created": rec.created,
            "source": rec.source,
            "status": self._live_status(rec, events, state),
            "at_seq": rec.at_seq,
            "event_seq": seqs.get(rec.event_id) if rec.event_id is not None else None,
            "width": rec.width,
            "height": rec.height,
            "objects": list(rec.objects),
            "original": list(rec.original),
            "snapshot": f"/api/tables/{self.id}/readings/{rec.id}/snapshot.jpg" if rec.snapshot else None,
            "verdict": rec.verdict,
            "reason": rec.reason,
            "corrections": [c.to_json() for c in self.store.corrections(rec.id)],
        }

    def readings(self, limit: int = 50) -> list[JSON]:
        events, state = self.load()
        return [self.reading_json(r, events, state) for r in self.store.readings(self.id, limit)]

    def reading(self, reading_id: int) -> ReadingRecord:
        try:
            return self.store.reading(self.id, reading_id)
        except UnknownReading:
            raise ReadingNotFound(table=self.id, reading=reading_id) from None

    def export(self) -> JSON:
        return self.store.log_json(self.id)

    # --- changing the table ----------------------------------------------------------

    def apply(self, raw: Any) -> JSON:
        """Apply one decision (a bid, challenge, shout, play, stake, start, deal ...).

        A Nine Dice shout is scored at once, unless it comes from a phone's buzzer
        (``tapped_at`` and ``sent_at``, the phone's own clock in ms): then it waits
        :data:`~web.shouts.BUZZER_WINDOW_S` so that taps still on their way are scored
        first when they were tapped first. A correct colour-choosing shout without its
        colour claims the round: the view's ``aids.claim`` asks the winner for the
        colour, and other shouts are refused until it comes (or an undo).
        """
        if not isinstance(raw, Mapping):
            raise MalformedEvent("an event must be a JSON object", "イベントはJSONオブジェクトです")
        if raw.get("type") in READING_EVENTS:
            raise UseReveal(event=str(raw.get("type")))
        if self.record.game == "nine-dice" and raw.get("type") == "shout":
            return self._shout(raw)
        return self._apply(raw)

    def _shout(self, raw: Mapping[str, Any]) -> JSON:
        """A Nine Dice shout, or a phone's buzz (no ``hand`` yet: it holds the player's place
        in the order from the moment it was tapped; ``cancel`` gives the place up)."""
        received = time.time()
        player = raw.get("player")
        self.rules.parse_event({"type": "shout", "player": player, "hand": "ナシゴレン"}, self.record.players)
        tap = tap_time(received, raw.get("tapped_at"), raw.get("sent_at"))
        body = {k: raw[k] for k in ("type", "player", "hand", "colour") if k in raw}
        with self._turns:
            held = next((b for b in self._buzzed if b.player == player and b.raw is None), None)
            if raw.get("hand") is None:
                if raw.get("cancel") is True:
                    self._buzzed = [b for b in self._buzzed if b is not held]
                elif held is None:
                    self._check_buzz(str(player))
                    self._buzzed.append(_Buzz(tap, received, None, str(player)))
                self._turns.notify_all()
                self._changed()
                return {**self.view(), "status": "buzzed"}
            if held is not None:  # the hand of an earlier buzz: it keeps the buzz's place
                entry, wait = held, False
                entry.raw = body
            else:
                entry, wait = _Buzz(tap, received, body, str(player)), raw.get("tapped_at") is not None
                self._buzzed.append(entry)
        if wait:
            time.sleep(BUZZER_WINDOW_S)  # another phone's earlier tap may still be on its way
        with self._turns:
            while entry.result is None and entry.error is None:
                self._score_in_turn()
                if entry.result is not None or entry.error is not None:
                    break
                self._turns.wait(0.25)  # an earlier buzz still waits for its hand
        if entry.error is not None:
            raise entry.error
        assert entry.result is not None
        return entry.result

    def _check_buzz(self, player: str) -> None:
        """A buzz is refused as its shout would be: no round open, or the player has shouted."""
        from referee.nine_dice import AlreadyShouted
        from referee.nine_dice import State as NineState

        _, state = self.load()
        assert isinstance(state, NineState)
        if not state.round_open:
            raise OutOfOrder("shout", "no round is open: roll the dice and read the table first",
                             "ラウンドが始まっていません。先にダイスを振って読み取ってください")
        done = next((s for s in state.shouts if s.player == player), None)
        if done is not None:
            raise AlreadyShouted(player, str(done.hand))

    def _score_in_turn(self) -> None:
        """Score waiting shouts in tap order, up to the first buzz still without its hand
        (a buzz older than :data:`~web.shouts.BUZZ_HOLD_S` gives its place up)."""
        now = time.time()
        for buzz in sorted(self._buzzed, key=lambda b: (b.tap, b.received)):
            if buzz.raw is None:
                if now - buzz.received < BUZZ_HOLD_S:
                    return
                self._buzzed.remove(buzz)
                continue
            self._buzzed.remove(buzz)
            try:
                buzz.result = self._score_shout(buzz.raw)
            except RefereeError as err:
                buzz.error = err
            self._turns.notify_all()
            if not self.load()[1].to_json().get("round_open"):  # the round is won: no buzz waits any more
                self._buzzed = [b for b in self._buzzed if b.raw is not None]

    def _score_shout(self, raw: Mapping[str, Any]) -> JSON:
        from referee.nine_dice import ColourNeeded

        events, _ = self.load()
        claim = self._live_claim()
        if claim is not None and claim["player"] != raw.get("player"):
            raise RoundClaimed(player=claim["player"], hand=claim["hand"])
        try:
            out = self._apply(raw)
        except ColourNeeded as err:
            self._claim = {"seq": len(events), "player": err.params["player"], "hand": err.params["hand"]}
            self._changed()
            return {**self.view(), "status": "colour_needed"}
        self._claim = None
        return {**out, "status": "scored"}

    def _apply(self, raw: Mapping[str, Any]) -> JSON:
        with self.lock:
            events, state = self.load()
            event = self.rules.parse_event(raw, self.record.players)
            state.apply(event)
            try:
                self.store.append_event(self.id, len(events), event.to_json())
            except StoreConflict:
                raise Conflict() from None
            self._claim = None
            self._changed()
            return self.view()

    def undo(self) -> JSON:
        """Take back the last thing done: the latest event, or a hand correction made after
        it (a correction is a thing done: undoing it restores the reading and verdict it
        changed, and keeps the reveal)."""
        with self.lock:
            events, state = self.load()
            fix = self._last_correction(events, state)
            if fix is not None:
                return self._undo_correction(events, state, *fix)
            self._claim = None
            self._buzzed = [b for b in self._buzzed if b.raw is not None]
            if not events:
                raise NothingToUndo()
            try:
                popped = self.store.pop_event(self.id, len(events))
            except StoreConflict:
                raise Conflict() from None
            self._changed()
            return {"undone": popped.body, "view": self.view()}

    def _take(self, reading: Any, since: float) -> tuple[ParsedReading, bytes | None, str]:
        """The reading sent with the request, else the camera's settled one (newer than ``since``,
        and than any the camera read for something else: :attr:`Sessions.camera_used_until`)."""
        if reading is not None:
            return parse_reading(reading, self.record.game), None, "manual"
        camera = self.sessions.camera
        settled = camera.settled_after(max(since, self.sessions.camera_used_until), timeout=self.sessions.settle_wait)
        if settled is None:
            raise no_settled_reading(camera)
        try:  # what was read stays on the table while it is judged (one that does not add up asks again)
            camera.keep()
        except Exception:
            log.exception("camera keep failed")
        return from_reading(settled.reading, self.record.game), settled.jpeg, "camera"

    def _judge(self, state: State, event_type: str, objects: Sequence[Mapping[str, Any]]) -> tuple[JSON, State, JSON]:
        """The event ``objects`` make, the state after it and its verdict; unsure dice whose
        faces cannot change the outcome do not stop it (:mod:`web.unsure`)."""
        body, after, judged, unsure = judge_unsure(objects, lambda read: self._judge_sure(state, event_type, read),
                                                   lambda s: outcome(s.to_json()))
        return body, after, note_unsure(verdict(self.record.game, state.to_json(), after.to_json(), judged), unsure,
                                        object_kind(self.record.game))

    def _judge_sure(self, state: State, event_type: str, objects: Sequence[Mapping[str, Any]]) -> tuple[JSON, State]:
        return judge_reading(self.rules, self.record.players, state, event_type, objects)

    def reveal(self, reading: Any = None) -> JSON:
        """Judge a reading for the reveal (or roll) the table waits for."""
        events, state = self.load()
        expects = state.expects()
        if expects not in READING_EVENTS:
            raise NotExpectingReading()
        if reading is None:
            self._ask_camera(len(events), state)  # another table may have had the camera since
        since = _epoch(events[-1].created) if events else 0.0
        # A camera reading already judged for this reveal (a re-read answer) must not be taken again.
        since = max([since] + [_epoch(r.created) for r in self.store.readings(self.id, limit=20)
                               if r.at_seq == len(events) and r.source == "camera"])
        parsed, jpeg, source = self._take(reading, since)
        with self.lock:
            now_events, state = self.load()
            if len(now_events) != len(events):
                raise Conflict()
            return self._record(state, expects, parsed, jpeg, source, len(events), None)

    def discard_from_camera(self, player: Any) -> JSON:
        """Doubt: read the four cards ``player`` lays face up and discard their rank.

        Waits up to :data:`DISCARD_WAIT_S` (or the settle wait, if longer) for a settled
        reading of four sure cards of one rank, one per suit, newer than the last event;
        a scene that is not one yet (the cards still being laid) is read again until then.
        The referee then checks the discard like one entered by hand. Raises
        :class:`NotFourOfAKind` naming what was read, or :class:`NoSettledReading`.
        """
        if self.record.game != "doubt":
            raise DiscardReadingUnavailable()
        self.rules.parse_event({"type": "discard", "player": player, "rank": "A"}, self.record.players)  # a known player
        events, state = self.load()
        ranks = [a["rank"] for a in (x.to_json() for x in state.legal_actions())
                 if a.get("type") == "discard" and a.get("player") == player]
        camera = self.sessions.camera
        # Read cards now; the demo source lays down a four of a kind the player could hold.
        self.sessions.camera_owner = None  # the cards laid down are not the reveal the table waits for
        self._hint_camera({**reveal_hint(state), "discard": {"player": player, "ranks": ranks}})
        since = _epoch(events[-1].created) if events else 0.0
        deadline = time.monotonic() + max(self.sessions.settle_wait, DISCARD_WAIT_S)
        refused: NotFourOfAKind | None = None
        while (settled := camera.settled_after(since, timeout=max(0.0, deadline - time.monotonic()))) is not None:
            read = from_reading(settled.reading, self.record.game)
            try:
                event = discard_event(player, read.objects)
            except NotFourOfAKind as err:
                refused, since = err, settled.at
                if time.monotonic() >= deadline:
                    break
                continue
            out = self.apply(event)
            return {"status": "discarded", "event": event, "cards": [o["face"] for o in read.objects], "view": out}
        raise refused if refused is not None else no_settled_reading(camera)

    def reread(self, reading: Any = None) -> JSON:
        """Read again: replace the last reveal's reading, or read the pending reveal."""
        events, state = self.load()
        last = events[-1] if events else None
        if last is not None and last.body.get("type") in READING_EVENTS:
            prior = self._replay([e.body for e in events[:-1]])
            if reading is None:
                self._ask_camera(len(events) - 1, prior)
            parsed, jpeg, source = self._take(reading, _epoch(last.created))
            with self.lock:
                now_events, _ = self.load()
                if [e.id for e in now_events] != [e.id for e in events]:
                    raise Conflict()
                return self._record(prior, str(last.body["type"]), parsed, jpeg, source, len(events) - 1, last.id)
        if state.expects() in READING_EVENTS:
            return self.reveal(reading)
        raise NotExpectingReading()

    def _record(self, state: State, event_type: str, parsed: ParsedReading, jpeg: bytes | None, source: str,
                seq: int, replace_event_id: int | None) -> JSON:
        objects = parsed.objects
        try:
            body, _, result = self._judge(state, event_type, objects)
        except Misread as err:
            body, reason, result = None, bilingual(err), None
            if source == "camera":
                reason = with_advice(reason, size_advice(objects))
        else:
            reason = None
        try:
            rec, _ = self.store.add_reading(self.id, seq, source=source, width=parsed.width, height=parsed.height,
                                            objects=objects, snapshot_jpeg=jpeg, event=body, reason=reason,
                                            verdict=result, replace_event_id=replace_event_id)
        except StoreConflict:
            raise Conflict() from None
        if body is None and source == "camera":
            self.sessions.camera_owner = None  # it did not add up: the demo rolls these dice again
        self._changed()
        out = self.reading_json(rec)
        kind = "verdict" if body is not None else "reread"
        self.sessions.bus.publish(self.id, kind, {"reading": out})
        return {"status": kind, "reading": out, "verdict": result, "reason": reason, "view": self.view()}

    def correct(self, reading_id: Any, who: Any, changes: Any) -> JSON:
        """Correct a reading by hand and recompute its verdict."""
        if not isinstance(reading_id, int):
            raise ReadingNotFound(table=self.id, reading=str(reading_id)[:20])
        if who is None:
            who = "anonymous"
        if not isinstance(who, str) or not who.strip() or len(who) > MAX_WHO:
            raise BadRequest(f"who must be a name of at most {MAX_WHO} characters", f"whoは{MAX_WHO}文字以内の名前です")
        with self.lock:
            events, state = self.load()
            rec = self.reading(reading_id)
            objects = apply_changes(rec.objects, changes, self.record.game)
            position = next((i for i, e in enumerate(events) if e.id == rec.event_id), None)
            kwargs: JSON
            if position is not None:
                kwargs = self._correct_in_log(events, position, objects)
            elif rec.at_seq == len(events) and state.expects() in READING_EVENTS:
                kwargs = self._judged(state, objects)
            else:
                raise StaleReading(reading_id, "the game has moved on since it was taken",
                                   "読み取った後にゲームが進んでいます")
            try:
                rec, correction = self.store.correct_reading(self.id, reading_id, len(events), who=who.strip(),
                                                             objects=objects, **kwargs)
            except StoreConflict:
                raise Conflict() from None
            self._changed()
            out = self.reading_json(rec)
            kind = "verdict" if out["status"] == "verdict" else "reread"
            self.sessions.bus.publish(self.id, kind, {"reading": out, "correction": correction.to_json()})
            return {"status": kind, "reading": out, "verdict": out["verdict"], "reason": out["reason"],
                    "correction": correction.to_json(), "view": self.view()}

    def _judged(self, state: State, objects: Any) -> JSON:
        """What a corrected reading of the reveal the table waits for does to the log: the
        event it makes and its verdict, or none and the reason it cannot be judged."""
        try:
            body, _, result = self._judge(state, str(state.expects()), objects)
        except Misread as err:
            return {"event_action": "none", "event": None, "reason": bilingual(err), "verdict": None}
        return {"event_action": "append", "event": body, "reason": None, "verdict": result}

    def _last_correction(self, events: list[StoredEvent], state: State) -> tuple[ReadingRecord, CorrectionRecord] | None:
        """The newest correction of a reading still in play (its reveal in the log, or the
        table still waiting on it), if it came after the last event: made later, or made
        to that event's own reading (a correction that withdrew and gave back a verdict
        re-dated the event, not what was done first)."""
        newest: tuple[ReadingRecord, CorrectionRecord] | None = None
        for rec in self.store.readings(self.id, limit=20):
            if self._live_status(rec, events, state) not in ("verdict", "reread"):
                continue
            fixes = self.store.corrections(rec.id)
            if fixes and (newest is None or _epoch(fixes[-1].created) > _epoch(newest[1].created)):
                newest = (rec, fixes[-1])
        if newest is None:
            return None
        if events and newest[0].event_id != events[-1].id and _epoch(newest[1].created) < _epoch(events[-1].created):
            return None
        return newest

    def _undo_correction(self, events: list[StoredEvent], state: State, rec: ReadingRecord,
                         fix: CorrectionRecord) -> JSON:
        objects = fix.before
        position = next((i for i, e in enumerate(events) if e.id == rec.event_id), None)
        kwargs: JSON
        if position is not None:
            kwargs = self._correct_in_log(events, position, objects)
        else:
            kwargs = self._judged(state, objects)
        try:
            rec, undone = self.store.correct_reading(self.id, rec.id, len(events), who=fix.who, objects=objects,
                                                     undo=fix.id, **kwargs)
        except StoreConflict:
            raise Conflict() from None
        self._changed()
        out = self.reading_json(rec)
        kind = "verdict" if out["status"] == "verdict" else "reread"
        self.sessions.bus.publish(self.id, kind, {"reading": out})
        return {"undone": {"type": "correction", **undone.to_json()}, "reading": out, "view": self.view()}

    def _correct_in_log(self, events: list[StoredEvent], k: int, objects: Sequence[Mapping[str, Any]]) -> JSON:
        before = self._replay([e.body for e in events[:k]])
        try:
            body, after, result = self._judge(before, str(events[k].body["type"]), objects)
        except Misread as err:
            if k == len(events) - 1:
                return {"event_action": "remove", "event": None, "reason": bilingual(err), "verdict": None}
            raise LaterEventsConflict(event=k, reason=err.message("en"), reason_ja=err.message("ja")) from err
        state = after
        for i in range(k + 1, len(events)):
            try:
                state = state.apply(self.rules.parse_event(events[i].body, self.record.players))
            except RefereeError as err:
                raise LaterEventsConflict(event=i, reason=err.message("en"), reason_ja=err.message("ja")) from err
        return {"event_action": "replace", "event": body, "reason": None, "verdict": result}

    # --- table aids ------------------------------------------------------------------

    def odds(self, player: Any = None, own: Any = None) -> JSON:
        """Liar's Dice: the exact chance that the standing bid (and each legal raise) is
        true, for ``player`` (default: the player to act) knowing their own dice ``own``."""
        if self.record.game != "liars-dice":
            raise OddsUnavailable(reason="in Liar's Dice", reason_ja="ライアーズダイス")
        from referee import liars_dice as ld

        _, state = self.load()
        assert isinstance(state, ld.State)
        if player is None:
            player = state.turn_player
        if player is None:
            raise OddsUnavailable(reason="while a player is to act", reason_ja="手番のプレイヤーがいるとき")
        if not isinstance(player, str) or player not in state.players:
            raise BadRequest("player must be a player at this table", "playerはこのテーブルのプレイヤーです")
        held = state.dice[state.players.index(player)]
        own = [] if own is None else own
        if not isinstance(own, list) or len(own) > held:
            raise BadRequest(f"dice must be a list of at most {held} faces ({player}'s dice)",
                             f"diceは最大{held}個の目のリストです")
        try:
            faces = [ld.Face(f) for f in own]
        except ValueError:
            raise BadRequest('dice faces are "wheel" or "2".."6"', 'ダイスの目は"wheel"か"2"〜"6"です') from None
        unseen = state.dice_in_play - len(faces)

        def entry(bid: "ld.Bid") -> JSON:
            p = ld.bid_probability(bid, faces, unseen)
            return {**bid.to_json(), "probability": float(p), "fraction": f"{p.numerator}/{p.denominator}"}

        standing = None if state.bid is None else {"player": state.players[state.bidder], **entry(state.bid)}  # type: ignore[index]
        raises = [entry(a.bid) for a in state.legal_actions() if isinstance(a, ld.BidEvent)] if player == state.turn_player else []
        return {"player": player, "own": [f.value for f in faces], "unseen": unseen, "bid": standing, "raises": raises}
