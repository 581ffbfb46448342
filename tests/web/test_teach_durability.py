"""A server killed mid-teaching loses no confirmed photo (issue 81): a profile's photo is
written, then the labels naming it, then the profile, each file whole, and a teaching is
acknowledged only after them.

Two ways: a crash between any two of those writes (the write that would come next never
happens), and a real ``kill -9`` of a process teaching photo after photo as fast as it can.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from teach_support import TeachCamera, confirmed, make_app, running

import vision.teach.store
from tests.vision import tiny_reader as tiny
from vision.read.profile import Profile
from vision.teach.store import ProfileFolder
from vision.read.reader import load_reader

pytest.importorskip("onnx")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory: Any) -> Path:
    return tiny.build_onnx(tmp_path_factory.mktemp("tiny") / "models")


class Killed(BaseException):
    """The process dies here: nothing after it runs, not even clean-up of a half-written file."""


def teach(client: Any, camera: TeachCamera, reader: Any, tid: str, mark: int) -> Any:
    camera.show_roll(reader, mark)
    pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
    return client.post(f"/api/tables/{tid}/teaching/confirm",
                       json={"photo": pending["id"], "objects": confirmed(pending["objects"])})


@pytest.mark.parametrize("crash_at", [1, 2, 3])  # before the photo, before the labels, before the profile
def test_a_crash_between_writes_keeps_every_confirmed_photo(tmp_path: Path, models: Path, crash_at: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    reader = load_reader(models, cards=False)
    camera = TeachCamera()
    app = make_app(tmp_path / "data", camera, models)
    client = app.test_client()
    tid = client.post("/api/tables", json={"game": "liars-dice", "players": ["A", "B"]}).json["table"]["id"]
    pid = client.post("/api/profiles", json={"name": "Crash"}).json["id"]
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    assert teach(client, camera, reader, tid, 1).status_code == 200
    assert teach(client, camera, reader, tid, 2).status_code == 200
    folder = ProfileFolder(tmp_path / "data" / "profiles" / pid)
    confirmed_photos = {p.path.name for p in folder.kept()}
    assert len(confirmed_photos) == 2

    real, calls = vision.teach.store.write_atomic, []

    def dying(path: Path, data: bytes) -> None:
        calls.append(path.name)
        if len(calls) == crash_at:
            raise Killed()
        real(path, data)

    monkeypatch.setattr(vision.teach.store, "write_atomic", dying)
    with pytest.raises(Killed):
        teach(client, camera, reader, tid, 3)
    monkeypatch.setattr(vision.teach.store, "write_atomic", real)
    app.extensions["tableref"].store.close()

    # after the restart: every confirmed photo is kept and the profile reads
    kept = {p.path.name for p in ProfileFolder(folder.path).kept()}
    assert confirmed_photos <= kept
    assert Profile.load(folder.path).photos in (2, 3)
    with running(make_app(tmp_path / "data", camera, models)) as again:
        client = again.test_client()
        assert client.get(f"/api/tables/{tid}/teaching").json["profile"]["id"] == pid
        assert teach(client, camera, reader, tid, 3).status_code == 200  # and teaching goes on
        assert Profile.load(folder.path).photos == 3


TEACHER = """
import sys
sys.path[:0] = [sys.argv[3], sys.argv[3] + "/tests/web"]
from pathlib import Path
from teach_support import TeachCamera, confirmed, make_app
from vision.read.reader import load_reader

models, data = Path(sys.argv[1]), Path(sys.argv[2])
reader = load_reader(models, cards=False)
camera = TeachCamera()
client = make_app(data, camera, models).test_client()
tid = client.post("/api/tables", json={"game": "liars-dice", "players": ["A", "B"]}).json["table"]["id"]
pid = client.post("/api/profiles", json={"name": "Killed"}).json["id"]
client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
print("profile", pid, flush=True)
for mark in range(1, 1000):
    camera.show_roll(reader, mark)
    pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
    r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"], "objects": confirmed(pending["objects"])})
    assert r.status_code == 200, r.json
    print("confirmed", r.json["taught"][0]["photo"], flush=True)
"""


def test_kill_9_mid_teaching_loses_no_confirmed_photo(tmp_path: Path, models: Path) -> None:
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-c", TEACHER, str(models), str(data), str(REPO)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        while sum(line.startswith("confirmed") for line in lines) < 4 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
        time.sleep(0.013)  # somewhere inside the next teaching
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    lines += out.splitlines()
    assert proc.returncode == -signal.SIGKILL, err[-2000:]
    pid = next(line.split()[1] for line in lines if line.startswith("profile"))
    said = {line.split()[1] for line in lines if line.startswith("confirmed")}
    assert len(said) >= 4, (lines, err[-2000:])
    folder = ProfileFolder(data / "profiles" / pid)
    kept = {p.path.name for p in folder.kept()}
    assert said <= kept
    profile = Profile.load(folder.path)
    assert profile.photos >= len(said)  # the profile was written before each acknowledgement too
