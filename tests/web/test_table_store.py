"""The SQLite store: ordered events, atomic changes, readings and corrections, snapshots."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from web.store import Store, StoreConflict, UnknownTable


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path)
    yield s
    s.close()


def test_events_are_appended_in_order_and_popped(store: Store) -> None:
    t = store.create_table("liars-dice", ["A", "B"], {"start_rule": "ja"})
    assert store.get_table(t.id).options == {"start_rule": "ja"}
    for n in range(3):
        store.append_event(t.id, n, {"type": "x", "n": n})
    assert [e.body["n"] for e in store.events(t.id)] == [0, 1, 2]
    with pytest.raises(StoreConflict):
        store.append_event(t.id, 2, {"type": "x"})  # someone else appended meanwhile
    assert store.pop_event(t.id, 3).body["n"] == 2
    with pytest.raises(StoreConflict):
        store.pop_event(t.id, 3)
    assert store.log_json(t.id) == {"format": "tableref-game/1", "game": "liars-dice", "options": {"start_rule": "ja"},
                                    "players": ["A", "B"], "events": [{"type": "x", "n": 0}, {"type": "x", "n": 1}]}
    assert store.list_tables()[0][1] == 2


def test_table_ids_are_checked(store: Store) -> None:
    for bad in ("../x", "ABCDEF0123", "", "0" * 11, None):
        with pytest.raises(UnknownTable):
            store.get_table(bad)  # type: ignore[arg-type]


def test_reading_with_event_is_one_transaction(store: Store) -> None:
    t = store.create_table("pin456", ["A", "B"], {})
    store.append_event(t.id, 0, {"type": "declare"})
    with pytest.raises(StoreConflict):
        store.add_reading(t.id, 0, source="manual", width=0, height=0, objects=[], snapshot_jpeg=b"\xff\xd8jpeg",
                          event={"type": "reveal"}, reason=None, verdict={"v": 1})
    assert len(store.events(t.id)) == 1 and store.readings(t.id) == []
    assert list(store.snapshots.iterdir()) == []  # the photo of a refused reading is not kept
    rec, ev = store.add_reading(t.id, 1, source="camera", width=4, height=3, objects=[{"face": "4"}],
                                snapshot_jpeg=b"\xff\xd8jpeg", event={"type": "reveal"}, reason=None, verdict={"v": 1})
    assert ev is not None and ev.seq == 1 and rec.event_id == ev.id and rec.status == "verdict"
    assert store.snapshot_bytes(rec) == b"\xff\xd8jpeg" and rec.snapshot and rec.snapshot.endswith(".jpg")
    rec2, correction = store.correct_reading(t.id, rec.id, 2, who="B", objects=[{"face": "5"}], event_action="replace",
                                             event={"type": "reveal", "dice": ["5"]}, reason=None, verdict={"v": 2})
    assert rec2.objects == ({"face": "5"},) and rec2.original == ({"face": "4"},) and rec2.verdict == {"v": 2}
    assert correction.before == ({"face": "4"},) and store.events(t.id)[1].body["dice"] == ["5"]
    rec3, _ = store.correct_reading(t.id, rec.id, 2, who="B", objects=[], event_action="remove", event=None,
                                    reason={"code": "misread"}, verdict=None)
    assert rec3.status == "reread" and rec3.event_id is None and len(store.events(t.id)) == 1
    assert len(store.corrections(rec.id)) == 2
    store.delete_table(t.id)
    assert list(store.snapshots.iterdir()) == [] and store.list_tables() == []


_CRASH = """
import os, signal, sys
from web.store import Store
store = Store(sys.argv[1])
table = sys.argv[2]
store.append_event(table, 1, {"type": "committed"})
with store._tx() as db:  # killed inside the transaction, after the row was written
    db.execute("INSERT INTO events (table_id, seq, body, created) VALUES (?, 2, '{}', 'now')", (table,))
    db.execute("UPDATE tables SET players='[]' WHERE id=?", (table,))
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_killed_mid_transaction_loses_only_the_unfinished_change(tmp_path: Path) -> None:
    store = Store(tmp_path)
    t = store.create_table("liars-dice", ["A", "B"], {})
    store.append_event(t.id, 0, {"type": "start", "opener": "A"})
    store.close()
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_CRASH), str(tmp_path), t.id],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    again = Store(tmp_path)
    assert [e.body["type"] for e in again.events(t.id)] == ["start", "committed"]
    assert again.get_table(t.id).players == ("A", "B")
    assert again._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    again.append_event(t.id, 2, {"type": "after"})
    again.close()
    with sqlite3.connect(tmp_path / "tableref.db") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
