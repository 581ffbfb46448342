"""Durable table storage: one embedded SQLite database (WAL) under ``--data DIR``.

A table is a ``tableref-game/1`` log: its header (game, players, options) is one
row of ``tables`` and its events are rows of ``events``, one per event, in order.
Every change is one transaction, so a server killed at any moment (even in the
middle of a write) restarts with every table exactly as it was after the last
change it acknowledged.

Camera readings (with their corrections) live beside the log: a reading that
produced a reveal points at that event's row. Reveal snapshots are JPEG files in
``DIR/snapshots``; their names are generated here (never taken from a request).

>>> import tempfile
>>> store = Store(tempfile.mkdtemp())
>>> t = store.create_table("liars-dice", ("Wanjin", "Saewoon"), {})
>>> store.append_event(t.id, 0, {"type": "start", "opener": "Wanjin"}).seq
0
>>> [e.body["type"] for e in store.events(t.id)]
['start']
>>> store.close()
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee.log import FORMAT

JSON = dict[str, Any]

TABLE_ID = re.compile(r"^[0-9a-f]{10}$")
_SNAPSHOT_NAME = re.compile(r"^[0-9a-f]{32}\.jpg$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id       TEXT PRIMARY KEY,
    game     TEXT NOT NULL,
    players  TEXT NOT NULL,
    options  TEXT NOT NULL,
    created  TEXT NOT NULL,
    token    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    body     TEXT NOT NULL,
    created  TEXT NOT NULL,
    UNIQUE (table_id, seq)
);
CREATE TABLE IF NOT EXISTS readings (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    created  TEXT NOT NULL,
    source   TEXT NOT NULL,
    at_seq   INTEGER NOT NULL,
    width    INTEGER NOT NULL,
    height   INTEGER NOT NULL,
    original TEXT NOT NULL,
    objects  TEXT NOT NULL,
    snapshot TEXT,
    event_id INTEGER,
    status   TEXT NOT NULL,
    reason   TEXT,
    verdict  TEXT
);
CREATE TABLE IF NOT EXISTS corrections (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    reading_id INTEGER NOT NULL REFERENCES readings(id) ON DELETE CASCADE,
    created    TEXT NOT NULL,
    who        TEXT NOT NULL,
    before     TEXT NOT NULL,
    after      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS readings_by_table ON readings(table_id, id);
CREATE INDEX IF NOT EXISTS corrections_by_reading ON corrections(reading_id, id);
CREATE TABLE IF NOT EXISTS table_settings (
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (table_id, key)
);
CREATE TABLE IF NOT EXISTS taught (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id   TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    created    TEXT NOT NULL,
    profile    TEXT NOT NULL,
    photo      TEXT NOT NULL,
    source     TEXT NOT NULL,
    reading_id INTEGER,
    labels     TEXT NOT NULL,
    before     TEXT,
    undone     TEXT
);
CREATE INDEX IF NOT EXISTS taught_by_table ON taught(table_id, id);
"""


class StoreConflict(Exception):
    """The table changed under the caller (its event count is not what was expected)."""


class UnknownTable(KeyError):
    pass


class UnknownReading(KeyError):
    pass


#: SQLite keeps a row id in a signed 64-bit integer; a larger id names no reading (and
#: SQLite would raise OverflowError for it rather than find nothing).
MAX_ROW_ID = 2**63 - 1


def _check_reading_id(reading_id: int) -> None:
    if not 0 <= reading_id <= MAX_ROW_ID:
        raise UnknownReading(reading_id)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class TableRecord:
    id: str
    game: str
    players: tuple[str, ...]
    options: JSON
    created: str
    token: str

    def to_json(self) -> JSON:
        """Public description (never the join token)."""
        return {"id": self.id, "game": self.game, "players": list(self.players), "options": self.options, "created": self.created}


@dataclass(frozen=True)
class StoredEvent:
    id: int
    seq: int
    body: JSON
    created: str


@dataclass(frozen=True)
class ReadingRecord:
    """A camera (or hand-entered) reading taken for a reveal, and what came of it.

    ``status`` is ``"verdict"`` when it became the event ``event_id`` and
    ``"reread"`` when it did not add up (``reason`` says why; nothing was appended).
    """

    id: int
    table_id: str
    created: str
    source: str
    at_seq: int
    width: int
    height: int
    original: tuple[JSON, ...]
    objects: tuple[JSON, ...]
    snapshot: str | None
    event_id: int | None
    status: str
    reason: JSON | None
    verdict: JSON | None


@dataclass(frozen=True)
class CorrectionRecord:
    id: int
    reading_id: int
    created: str
    who: str
    before: tuple[JSON, ...]
    after: tuple[JSON, ...]

    def to_json(self) -> JSON:
        return {"id": self.id, "reading": self.reading_id, "created": self.created, "who": self.who,
                "before": list(self.before), "after": list(self.after)}


@dataclass(frozen=True)
class TaughtRecord:
    """One photo a table taught its profile: from the teaching page (``source`` "teach"), a
    confirmed reveal ("reveal") or a correction ("correction"); ``undone`` when taken back."""

    id: int
    table_id: str
    created: str
    profile: str
    photo: str
    source: str
    reading_id: int | None
    labels: str
    before: str | None
    undone: str | None

    def to_json(self) -> JSON:
        return {"id": self.id, "created": self.created, "profile": self.profile, "photo": self.photo,
                "source": self.source, "reading": self.reading_id, "undone": self.undone}


class Store:
    """All persistent state of ``tableref serve``. Thread-safe (one lock, short transactions)."""

    DB_NAME = "tableref.db"

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.root = Path(data_dir).expanduser().resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.snapshots = self.root / "snapshots"
        self.snapshots.mkdir(exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.root / self.DB_NAME, isolation_level=None, check_same_thread=False, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        # FULL: an acknowledged change survives even a power cut, not only a killed process.
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")

    # --- tables ----------------------------------------------------------------------

    def create_table(self, game: str, players: Sequence[str], options: Mapping[str, Any],
                     events: Sequence[Mapping[str, Any]] = ()) -> TableRecord:
        """A new table (with an imported log's events, all in one transaction)."""
        created = now()
        token = secrets.token_urlsafe(16)
        with self._tx() as db:
            while True:
                table_id = secrets.token_hex(5)
                if db.execute("SELECT 1 FROM tables WHERE id=?", (table_id,)).fetchone() is None:
                    break
            db.execute("INSERT INTO tables (id, game, players, options, created, token) VALUES (?,?,?,?,?,?)",
                       (table_id, game, _dump(list(players)), _dump(dict(options)), created, token))
            for seq, body in enumerate(events):
                db.execute("INSERT INTO events (table_id, seq, body, created) VALUES (?,?,?,?)",
                           (table_id, seq, _dump(dict(body)), created))
        return TableRecord(table_id, game, tuple(players), dict(options), created, token)

    def get_table(self, table_id: str) -> TableRecord:
        if not isinstance(table_id, str) or not TABLE_ID.match(table_id):
            raise UnknownTable(table_id)
        with self._lock:
            row = self._db.execute("SELECT * FROM tables WHERE id=?", (table_id,)).fetchone()
        if row is None:
            raise UnknownTable(table_id)
        return _table(row)

    def list_tables(self) -> list[tuple[TableRecord, int]]:
        """Every table, newest first, with its event count."""
        with self._lock:
            rows = self._db.execute(
                "SELECT t.*, (SELECT COUNT(*) FROM events e WHERE e.table_id=t.id) AS n "
                "FROM tables t ORDER BY t.created DESC, t.id").fetchall()
        return [(_table(r), int(r["n"])) for r in rows]

    def delete_table(self, table_id: str) -> None:
        self.get_table(table_id)
        with self._tx() as db:
            names = [r["snapshot"] for r in db.execute(
                "SELECT snapshot FROM readings WHERE table_id=? AND snapshot IS NOT NULL", (table_id,))]
            db.execute("DELETE FROM tables WHERE id=?", (table_id,))
        for name in names:
            self._snapshot_file(name).unlink(missing_ok=True)

    # --- the log ---------------------------------------------------------------------

    def events(self, table_id: str) -> list[StoredEvent]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM events WHERE table_id=? ORDER BY seq", (table_id,)).fetchall()
        return [StoredEvent(r["id"], r["seq"], json.loads(r["body"]), r["created"]) for r in rows]

    def log_json(self, table_id: str) -> JSON:
        """The table as a ``tableref-game/1`` document: its header and exactly its events."""
        t = self.get_table(table_id)
        return {"format": FORMAT, "game": t.game, "options": t.options, "players": list(t.players),
                "events": [e.body for e in self.events(table_id)]}

    @staticmethod
    def _check_seq(db: sqlite3.Connection, table_id: str, expected: int) -> None:
        n = db.execute("SELECT COUNT(*) FROM events WHERE table_id=?", (table_id,)).fetchone()[0]
        if n != expected:
            raise StoreConflict(f"table {table_id} has {n} events, expected {expected}")

    def append_event(self, table_id: str, expected_seq: int, body: Mapping[str, Any]) -> StoredEvent:
        """Append one event at position ``expected_seq`` (refused if the log moved on)."""
        created = now()
        with self._tx() as db:
            self._check_seq(db, table_id, expected_seq)
            cur = db.execute("INSERT INTO events (table_id, seq, body, created) VALUES (?,?,?,?)",
                             (table_id, expected_seq, _dump(dict(body)), created))
        return StoredEvent(int(cur.lastrowid or 0), expected_seq, dict(body), created)

    def pop_event(self, table_id: str, expected_seq: int) -> StoredEvent:
        """Remove the last event (undo); ``expected_seq`` is the current event count."""
        with self._tx() as db:
            self._check_seq(db, table_id, expected_seq)
            if expected_seq == 0:
                raise StoreConflict("no event to remove")
            row = db.execute("SELECT * FROM events WHERE table_id=? AND seq=?", (table_id, expected_seq - 1)).fetchone()
            db.execute("DELETE FROM events WHERE id=?", (row["id"],))
        return StoredEvent(row["id"], row["seq"], json.loads(row["body"]), row["created"])

    # --- readings --------------------------------------------------------------------

    def add_reading(self, table_id: str, expected_seq: int, *, source: str, width: int, height: int,
                    objects: Sequence[Mapping[str, Any]], snapshot_jpeg: bytes | None,
                    event: Mapping[str, Any] | None, reason: JSON | None, verdict: JSON | None,
                    replace_event_id: int | None = None) -> tuple[ReadingRecord, StoredEvent | None]:
        """Store a reading and, when it gave a verdict, append its event in the same transaction.

        With ``replace_event_id`` (a re-read of the last reveal) that event, which must be
        the last one, is removed first, so the new reading takes its place.
        """
        name = self._write_snapshot(snapshot_jpeg) if snapshot_jpeg else None
        created = now()
        objs = _dump(list(objects))
        try:
            with self._tx() as db:
                if replace_event_id is not None:
                    self._check_seq(db, table_id, expected_seq + 1)
                    last = db.execute("SELECT id FROM events WHERE table_id=? AND seq=?", (table_id, expected_seq)).fetchone()
                    if last is None or last["id"] != replace_event_id:
                        raise StoreConflict("the event to replace is not the last one")
                    db.execute("DELETE FROM events WHERE id=?", (replace_event_id,))
                else:
                    self._check_seq(db, table_id, expected_seq)
                stored: StoredEvent | None = None
                if event is not None:
                    cur = db.execute("INSERT INTO events (table_id, seq, body, created) VALUES (?,?,?,?)",
                                     (table_id, expected_seq, _dump(dict(event)), created))
                    stored = StoredEvent(int(cur.lastrowid or 0), expected_seq, dict(event), created)
                cur = db.execute(
                    "INSERT INTO readings (table_id, created, source, at_seq, width, height, original, objects,"
                    " snapshot, event_id, status, reason, verdict) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (table_id, created, source, expected_seq, int(width), int(height), objs, objs, name,
                     stored.id if stored else None, "verdict" if stored else "reread",
                     None if reason is None else _dump(reason), None if verdict is None else _dump(verdict)))
                rid = int(cur.lastrowid or 0)
        except BaseException:
            if name:
                self._snapshot_file(name).unlink(missing_ok=True)
            raise
        return self.reading(table_id, rid), stored

    def reading(self, table_id: str, reading_id: int) -> ReadingRecord:
        _check_reading_id(reading_id)
        with self._lock:
            row = self._db.execute("SELECT * FROM readings WHERE id=? AND table_id=?", (reading_id, table_id)).fetchone()
        if row is None:
            raise UnknownReading(reading_id)
        return _reading(row)

    def readings(self, table_id: str, limit: int = 100) -> list[ReadingRecord]:
        """The most recent readings of a table, newest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM readings WHERE table_id=? ORDER BY id DESC LIMIT ?",
                                    (table_id, limit)).fetchall()
        return [_reading(r) for r in rows]

    def reading_for_event(self, table_id: str, event_id: int) -> ReadingRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM readings WHERE table_id=? AND event_id=? ORDER BY id DESC LIMIT 1",
                                   (table_id, event_id)).fetchone()
        return None if row is None else _reading(row)

    def event_exists(self, event_id: int) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM events WHERE id=?", (event_id,)).fetchone() is not None

    def correct_reading(self, table_id: str, reading_id: int, expected_seq: int, *, who: str,
                        objects: Sequence[Mapping[str, Any]], event_action: str, event: Mapping[str, Any] | None,
                        reason: JSON | None, verdict: JSON | None,
                        undo: int | None = None) -> tuple[ReadingRecord, CorrectionRecord]:
        """Log a hand correction and apply its consequence to the log, atomically.

        ``event_action``: ``"replace"`` (the reading's event gets the new body),
        ``"remove"`` (its event was the last one and the corrected reading no longer
        adds up), ``"append"`` (a re-read reading now gives a verdict) or ``"none"``.
        With ``undo`` (the id of the reading's latest correction) the correction is taken
        back instead: ``objects`` are what it changed, and its record is removed and returned.
        """
        _check_reading_id(reading_id)
        created = now()
        after = _dump(list(objects))
        with self._tx() as db:
            self._check_seq(db, table_id, expected_seq)
            row = db.execute("SELECT * FROM readings WHERE id=? AND table_id=?", (reading_id, table_id)).fetchone()
            if row is None:
                raise UnknownReading(reading_id)
            event_id = row["event_id"]
            if event_action == "replace":
                db.execute("UPDATE events SET body=? WHERE id=? AND table_id=?", (_dump(dict(event or {})), event_id, table_id))
            elif event_action == "remove":
                last = db.execute("SELECT id FROM events WHERE table_id=? AND seq=?", (table_id, expected_seq - 1)).fetchone()
                if last is None or last["id"] != event_id:
                    raise StoreConflict("the reading's event is not the last one")
                db.execute("DELETE FROM events WHERE id=?", (event_id,))
                event_id = None
            elif event_action == "append":
                cur = db.execute("INSERT INTO events (table_id, seq, body, created) VALUES (?,?,?,?)",
                                 (table_id, expected_seq, _dump(dict(event or {})), created))
                event_id = int(cur.lastrowid or 0)
            status = "verdict" if event_action in ("replace", "append") else ("reread" if event_action == "remove" else row["status"])
            db.execute("UPDATE readings SET objects=?, event_id=?, status=?, reason=?, verdict=? WHERE id=?",
                       (after, event_id, status, None if reason is None else _dump(reason),
                        None if verdict is None else _dump(verdict), reading_id))
            undone: CorrectionRecord | None = None
            if undo is not None:
                fix = db.execute("SELECT * FROM corrections WHERE id=? AND reading_id=?", (undo, reading_id)).fetchone()
                if fix is None:
                    raise StoreConflict("the correction to undo is gone")
                db.execute("DELETE FROM corrections WHERE id=?", (undo,))
                undone = CorrectionRecord(fix["id"], reading_id, fix["created"], fix["who"],
                                          tuple(json.loads(fix["before"])), tuple(json.loads(fix["after"])))
            else:
                cur = db.execute("INSERT INTO corrections (reading_id, created, who, before, after) VALUES (?,?,?,?,?)",
                                 (reading_id, created, who, row["objects"], after))
                cid = int(cur.lastrowid or 0)
        if undone is not None:
            return self.reading(table_id, reading_id), undone
        correction = CorrectionRecord(cid, reading_id, created, who, tuple(json.loads(row["objects"])), tuple(objects))
        return self.reading(table_id, reading_id), correction

    def corrections(self, reading_id: int) -> list[CorrectionRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM corrections WHERE reading_id=? ORDER BY id", (reading_id,)).fetchall()
        return [CorrectionRecord(r["id"], r["reading_id"], r["created"], r["who"],
                                 tuple(json.loads(r["before"])), tuple(json.loads(r["after"]))) for r in rows]

    # --- table settings and teaching ----------------------------------------------------

    def setting(self, table_id: str, key: str) -> Any:
        """A table's setting (a JSON value), None when never set."""
        with self._lock:
            row = self._db.execute("SELECT value FROM table_settings WHERE table_id=? AND key=?", (table_id, key)).fetchone()
        return None if row is None else json.loads(row["value"])

    def set_setting(self, table_id: str, key: str, value: Any) -> None:
        """Remember a table's setting across restarts (the table must exist)."""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM tables WHERE id=?", (table_id,)).fetchone() is None:
                raise UnknownTable(table_id)
            db.execute("INSERT INTO table_settings (table_id, key, value) VALUES (?,?,?) "
                       "ON CONFLICT (table_id, key) DO UPDATE SET value=excluded.value", (table_id, key, _dump(value)))

    def add_taught(self, table_id: str, *, profile: str, photo: str, source: str, reading_id: int | None,
                   labels: str, before: str | None) -> TaughtRecord:
        """Log one photo a table taught its profile (``labels``: its labels line; ``before``:
        that photo's labels line before, None when it was new to the profile)."""
        created = now()
        with self._tx() as db:
            cur = db.execute("INSERT INTO taught (table_id, created, profile, photo, source, reading_id, labels, before)"
                             " VALUES (?,?,?,?,?,?,?,?)", (table_id, created, profile, photo, source, reading_id, labels, before))
        return TaughtRecord(int(cur.lastrowid or 0), table_id, created, profile, photo, source, reading_id, labels, before, None)

    def taught(self, table_id: str, limit: int = 200) -> list[TaughtRecord]:
        """What a table taught its profiles, newest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM taught WHERE table_id=? ORDER BY id DESC LIMIT ?",
                                    (table_id, limit)).fetchall()
        return [_taught(r) for r in rows]

    def taught_entry(self, table_id: str, entry_id: int) -> TaughtRecord | None:
        if not 0 <= entry_id <= MAX_ROW_ID:
            return None
        with self._lock:
            row = self._db.execute("SELECT * FROM taught WHERE id=? AND table_id=?", (entry_id, table_id)).fetchone()
        return None if row is None else _taught(row)

    def mark_untaught(self, entry_id: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE taught SET undone=? WHERE id=?", (now(), entry_id))

    # --- snapshots -------------------------------------------------------------------

    def snapshot_bytes(self, reading: ReadingRecord) -> bytes | None:
        if reading.snapshot is None:
            return None
        try:
            return self._snapshot_file(reading.snapshot).read_bytes()
        except FileNotFoundError:
            return None

    def _snapshot_file(self, name: str) -> Path:
        if not _SNAPSHOT_NAME.match(name):  # names come from the DB, which only we write; still, never trust
            raise ValueError(f"bad snapshot name {name!r}")
        return self.snapshots / name

    def _write_snapshot(self, jpeg: bytes) -> str:
        name = secrets.token_hex(16) + ".jpg"
        final = self._snapshot_file(name)
        tmp = final.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            fh.write(jpeg)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        return name


def _table(row: sqlite3.Row) -> TableRecord:
    return TableRecord(row["id"], row["game"], tuple(json.loads(row["players"])), json.loads(row["options"]),
                       row["created"], row["token"])


def _taught(row: sqlite3.Row) -> TaughtRecord:
    return TaughtRecord(row["id"], row["table_id"], row["created"], row["profile"], row["photo"], row["source"],
                        row["reading_id"], row["labels"], row["before"], row["undone"])


def _reading(row: sqlite3.Row) -> ReadingRecord:
    return ReadingRecord(
        id=row["id"], table_id=row["table_id"], created=row["created"], source=row["source"], at_seq=row["at_seq"],
        width=row["width"], height=row["height"], original=tuple(json.loads(row["original"])),
        objects=tuple(json.loads(row["objects"])), snapshot=row["snapshot"], event_id=row["event_id"],
        status=row["status"], reason=None if row["reason"] is None else json.loads(row["reason"]),
        verdict=None if row["verdict"] is None else json.loads(row["verdict"]))
