"""`tableref replay`: state JSON and exit 0, or {"error", "event"} and exit 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from web.cli import main

LOG = {
    "format": "tableref-game/1",
    "game": "liars-dice",
    "options": {},
    "players": ["Wanjin", "Saewoon", "Mina"],
    "events": [
        {"type": "start", "opener": "Wanjin"},
        {"type": "bid", "player": "Wanjin", "quantity": 5, "face": "3"},
        {"type": "challenge", "player": "Saewoon"},
        {"type": "reveal", "dice": ["3"] * 4 + ["wheel"] * 3 + ["2", "4", "5", "6", "6", "2", "4", "5"]},
    ],
}


def run_cli(tmp_path: Path, content: bytes | str, capsys) -> tuple[int, dict]:
    path = tmp_path / "log.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    code = main(["replay", str(path)])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_rulebook_example_replays(tmp_path, capsys):
    code, state = run_cli(tmp_path, json.dumps(LOG), capsys)
    assert code == 0
    assert state["rounds"][0]["actual"] == 7
    assert state["rounds"][0]["loser"] == "Saewoon" and state["rounds"][0]["lost"] == 2
    assert {p["name"]: p["dice"] for p in state["players"]}["Saewoon"] == 3


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json",
        b"\xff\xfe\x00garbage",
        b"[1, 2, 3]",
        b'{"format": "tableref-game/1", "game": "go", "players": ["A", "B"], "events": []}',
        b'{"format": "tableref-game/1", "game": "doubt", "players": ["A"], "events": []}',
        b'{"format": "tableref-game/1", "game": "pin456", "players": ["A", "A"], "events": []}',
        b"[" * 100000,
    ],
)
def test_malformed_files_exit_2_with_null_event(tmp_path, capsys, content):
    code, out = run_cli(tmp_path, content, capsys)
    assert code == 2
    assert set(out) == {"error", "event"} and out["event"] is None and out["error"]


def test_illegal_event_names_its_index(tmp_path, capsys):
    bad = json.loads(json.dumps(LOG))
    bad["events"][1]["player"] = "Saewoon"
    code, out = run_cli(tmp_path, json.dumps(bad), capsys)
    assert code == 2 and out["event"] == 1 and "Wanjin" in out["error"]


def test_misread_reveal_is_an_error_not_a_verdict(tmp_path, capsys):
    bad = json.loads(json.dumps(LOG))
    bad["events"][3]["dice"] = bad["events"][3]["dice"][:-1]
    code, out = run_cli(tmp_path, json.dumps(bad), capsys)
    assert code == 2 and out["event"] == 3


def test_missing_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert json.loads(capsys.readouterr().out)["event"] is None


def test_japanese_messages(tmp_path, capsys):
    bad = json.loads(json.dumps(LOG))
    bad["events"][1]["player"] = "Saewoon"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["replay", "--lang", "ja", str(path)]) == 2
    out = json.loads(capsys.readouterr().out)
    assert any(ord(ch) > 0x3000 for ch in out["error"])


def test_console_script_prints_no_traceback(tmp_path):
    path = tmp_path / "log.json"
    path.write_text("{broken", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "web.cli", "replay", str(path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    assert json.loads(proc.stdout)["event"] is None


def test_output_into_a_closed_pipe_stops_quietly(tmp_path):
    """``tableref ... | head``: the reader of the output is gone before it is written; the
    command exits 141 (128 + SIGPIPE), as a Unix tool does, without a traceback."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(LOG), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "replay", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the interpreter has started, so before anything is written
    err = proc.stderr.read().decode("utf-8", "replace")
    assert proc.wait(timeout=60) == 141, err
    assert err == ""


def test_a_lone_surrogate_exits_2_with_one_json_line_not_a_traceback(tmp_path):
    """The console script, as a player runs it: a player name that is a lone surrogate escape."""
    path = tmp_path / "log.json"
    text = json.dumps({**LOG, "players": ["Wanjin", "Saewoon", "Mina"]}).replace('"Mina"', '"\\ud800"')
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "web.cli", "replay", str(path)], capture_output=True,
                          encoding="utf-8", timeout=60)
    assert proc.returncode == 2 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert len(lines) == 1
    out = json.loads(lines[0])
    assert out["event"] is None and "players[2] holds a lone UTF-16 surrogate" in out["error"]


def test_a_deep_log_exits_2_naming_the_depth_limit(tmp_path, capsys):
    from referee.json_limits import MAX_DEPTH

    for depth in (700, 100_000):
        deep = "[" * depth + "]" * depth
        text = json.dumps(LOG)[:-1] + ', "x": ' + deep + "}"
        code, out = run_cli(tmp_path, text, capsys)
        assert code == 2 and out["event"] is None and f"more than {MAX_DEPTH} levels" in out["error"], out


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder"])
def test_only_a_regular_file_is_read(tmp_path, capsys, kind):
    """A symlink to /dev/zero once read gigabytes, a named pipe blocked forever: both are refused unread."""
    import os
    import threading

    path = tmp_path / "log.json"
    if kind == "dev-zero":
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero")
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes")
        os.mkfifo(path)
    else:
        path.mkdir()
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(["replay", str(path)])), daemon=True)
    worker.start()
    worker.join(10)
    assert result == [2], "replay did not return in 10 s"
    out = json.loads(capsys.readouterr().out)
    assert out["event"] is None
    assert ("not a regular file" in out["error"] or "is a directory" in out["error"]), out


def test_a_log_over_the_size_limit_is_refused_unread(tmp_path, capsys, monkeypatch):
    import web.replay_cmd

    monkeypatch.setattr(web.replay_cmd, "MAX_LOG_BYTES", 100)
    code, out = run_cli(tmp_path, json.dumps(LOG), capsys)
    assert code == 2 and out["event"] is None and "too large" in out["error"] and "more than 100" in out["error"]


def test_standard_input_is_read_up_to_the_limit(tmp_path, capsys, monkeypatch):
    import io

    import web.replay_cmd

    monkeypatch.setattr(web.replay_cmd, "MAX_LOG_BYTES", 100)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(LOG)))
    assert main(["replay", "-"]) == 2
    assert "too large" in json.loads(capsys.readouterr().out)["error"]
    monkeypatch.setattr(web.replay_cmd, "MAX_LOG_BYTES", 1 << 20)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(LOG)))
    assert main(["replay", "-"]) == 0
