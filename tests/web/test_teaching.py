"""Teaching a table's reader profile from the dashboard (issue 81), on the tiny known reader:
profiles listed, named, deleted, exported and imported; a table's profile and switch kept
across restarts; the teaching read, confirm (with a correction) and undo; the held-out score
and "ready"; teaching during play from a confirmed reveal and a correction; the live reader
given the table's profile."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from teach_support import TeachCamera, confirmed, liars_reading, make_app, running
from web_support import Tables

import web.profiles
import web.teaching
from tests.vision import tiny_reader as tiny
from vision.live.pipeline import LivePipeline
from vision.read.profile import PROFILE_FILE, Profile
from vision.read.policy import Mode
from vision.teach.store import LABELS_FILE
from vision.read.reader import load_reader

pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def models(tmp_path_factory: Any) -> Path:
    return tiny.build_onnx(tmp_path_factory.mktemp("tiny") / "models")


@pytest.fixture
def camera() -> TeachCamera:
    return TeachCamera()


@pytest.fixture
def app(tmp_path: Path, camera: TeachCamera, models: Path) -> Any:
    with running(make_app(tmp_path / "data", camera, models)) as application:
        yield application


@pytest.fixture
def reader(models: Path) -> Any:
    return load_reader(models, cards=False)


def teaching(app: Any) -> Any:
    return app.extensions["tableref_teaching"]


def new_table(client: Any, game: str = "liars-dice") -> str:
    return client.post("/api/tables", json={"game": game, "players": ["Wanjin", "Saewoon"]}).json["table"]["id"]


def new_profile(client: Any, name: str = "Kitchen") -> str:
    r = client.post("/api/profiles", json={"name": name})
    assert r.status_code == 201, r.json
    return str(r.json["id"])


def teach_once(client: Any, camera: TeachCamera, reader: Any, tid: str, mark: int) -> dict[str, Any]:
    camera.show_roll(reader, mark)
    pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
    r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"],
                                                                  "objects": confirmed(pending["objects"])})
    assert r.status_code == 200, r.json
    return dict(r.json)


def test_profiles_are_listed_named_renamed_and_deleted(client: Any, app: Any) -> None:
    assert client.get("/api/profiles").json == []
    pid = new_profile(client, " Kitchen table ")
    other = new_profile(client, "ブラフ")
    assert {p["name"] for p in client.get("/api/profiles").json} == {"Kitchen table", "ブラフ"}
    r = client.post(f"/api/profiles/{pid}/rename", json={"name": "Club night"})
    assert r.status_code == 200 and r.json["name"] == "Club night" and r.json["photos"] == 0
    assert client.get(f"/api/profiles/{pid}").json["name"] == "Club night"
    for bad in ("", "x" * 41, "tab\there", 7, None):
        r = client.post("/api/profiles", json={"name": bad})
        assert r.status_code == 400 and r.json["error"]["code"] == "bad_request"
    assert client.delete(f"/api/profiles/{pid}").status_code == 200
    assert client.get(f"/api/profiles/{pid}").status_code == 404
    assert client.get(f"/api/profiles/{pid}", query_string={"lang": "ja"}).json["error"]["message"].startswith("プロファイル")
    assert [p["id"] for p in client.get("/api/profiles").json] == [other]
    assert sorted(p.name for p in teaching(app).library.root.iterdir()) == [other]  # nothing left aside


def test_a_confirmed_correction_teaches_the_profile_and_the_live_reader_reads_with_it(
        client: Any, app: Any, camera: TeachCamera, reader: Any) -> None:
    tid = new_table(client)
    r = client.post(f"/api/tables/{tid}/teaching/read", json={})
    assert r.status_code == 409 and r.json["error"]["code"] == "no_profile_chosen"
    pid = new_profile(client)
    status = client.post(f"/api/tables/{tid}/teaching", json={"profile": pid}).json
    assert status["profile"]["id"] == pid and status["learn"] is True and status["pending"] is None

    camera.show_roll(reader, 1)
    status = client.post(f"/api/tables/{tid}/teaching/read", json={}).json
    pending = status["pending"]
    assert pending["width"] == tiny.FRAME_W and len(pending["objects"]) == 4
    grey = next(o for o in pending["objects"] if o["box"][0] == 200.0)
    assert grey["uncertain"] is True  # the tie the profile is to teach
    photo = client.get(pending["photo"])
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg"
    assert client.get(f"/api/tables/{tid}/teaching/photo.jpg?id=999").status_code == 404

    r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"] + 1, "objects": []})
    assert r.status_code == 409 and r.json["error"]["code"] == "no_teach_photo"
    r = client.post(f"/api/tables/{tid}/teaching/confirm",
                    json={"photo": pending["id"], "objects": [{**grey, "face": "7", "uncertain": False}]})
    assert r.status_code == 400 and "unknown die face" in r.json["error"]["message"]
    assert teaching(app).library.describe(pid)["photos"] == 0  # refused: nothing kept
    r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"],
                                                                  "objects": confirmed(pending["objects"])})
    assert r.status_code == 200, r.json
    status = r.json
    assert status["pending"] is None and status["profile"]["photos"] == 1
    assert [(e["source"], e["can_undo"]) for e in status["taught"]] == [("teach", True)]

    profile = teaching(app).library.loaded(pid)
    assert isinstance(profile, Profile) and profile.photos == 1
    (base,) = [d for d in reader.read(tiny.scene()).dice() if d.box[0] == 200.0]
    (die,) = [d for d in reader.with_profile(profile).read(tiny.scene()).dice() if d.box[0] == 200.0]
    # one photo changes nothing: too few to check a change by (vision.teach.fitting.MIN_TO_CHOOSE)
    assert die.face == base.face and die.score == pytest.approx(base.score, abs=1e-4)
    assert camera.profiles and camera.profiles[-1] is profile  # the live reader reads the table's set now

    # the reveal the table waits for asks the camera, and with it the table's profile
    camera.profiles.clear()
    tables = Tables(client)
    for event in ({"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"},
                  {"type": "challenge", "player": "Saewoon"}):
        tables.act(tid, event)
    assert camera.profiles == [profile]
    client.delete(f"/api/profiles/{pid}")
    assert camera.profiles[-1] is None  # a deleted profile reads no more
    assert client.get(f"/api/tables/{tid}/teaching").json["profile"] is None


def test_a_reveal_never_takes_the_teaching_roll(client: Any, app: Any, camera: TeachCamera, reader: Any) -> None:
    from teach_support import jpeg

    tables = Tables(client)
    tid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    client.post(f"/api/tables/{tid}/teaching", json={"profile": new_profile(client)})
    for event in ({"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"},
                  {"type": "challenge", "player": "Saewoon"}):
        tables.act(tid, event)
    camera.show(liars_reading(["4", "2", "3", "5", "6", "wheel", "2", "3", "5", "6"]), jpeg(1))
    assert client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"] is not None
    r = client.post(f"/api/tables/{tid}/reveal", json={}, headers=tables.headers())
    assert r.status_code == 409 and r.json["error"]["code"] == "no_settled_reading"
    camera.show(liars_reading(["4", "2", "3", "5", "6", "wheel", "2", "3", "5", "6"]), jpeg(2))
    assert tables.reveal(tid)["status"] == "verdict"


def test_held_out_score_and_ready(client: Any, app: Any, camera: TeachCamera, reader: Any,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    tid = new_table(client)
    pid = new_profile(client)
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    status = teach_once(client, camera, reader, tid, 1)
    assert status["profile"]["held_out"] is None and status["profile"]["ready"] is False
    monkeypatch.setattr(web.teaching, "READY_PHOTOS", 4)
    for mark in (2, 3, 4):
        status = teach_once(client, camera, reader, tid, mark)
    assert status["profile"]["photos"] == 4
    assert teaching(app).teacher.wait_idle(60)
    status = client.get(f"/api/tables/{tid}/teaching").json
    held = status["profile"]["held_out"]
    # 3 readable dice a photo (the red die is read unsure, so it teaches nothing), each read by
    # a profile taught on the 3 other photos (enough to choose a change by): the grey die surely a 2
    assert held["current"] is True and held["dice"] == 12 and held["found"] == 12
    assert held["accuracy"] == 1.0 and held["confidently_wrong"] == 0.0
    assert status["profile"]["ready"] is True and status["ready_when"]["accuracy"] == 0.98
    monkeypatch.setattr(web.teaching, "READY_ACCURACY", 1.01)
    assert client.get(f"/api/tables/{tid}/teaching").json["profile"]["ready"] is False
    assert client.get(f"/api/profiles/{pid}").json["held_out"]["accuracy"] == 1.0


def test_undo_takes_a_photo_back_and_fits_again(client: Any, app: Any, camera: TeachCamera, reader: Any) -> None:
    tid = new_table(client)
    pid = new_profile(client)
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    folder = teaching(app).library.path(pid)
    teach_once(client, camera, reader, tid, 1)
    status = teach_once(client, camera, reader, tid, 2)
    assert status["profile"]["photos"] == 2 and len(list((folder / "photos").iterdir())) == 2
    second, first = status["taught"]
    r = client.post(f"/api/tables/{tid}/teaching/{second['id']}/undo", json={})
    assert r.status_code == 200 and r.json["profile"]["photos"] == 1
    assert not (folder / "photos" / second["photo"]).exists()
    assert Profile.load(folder).photos == 1
    r = client.post(f"/api/tables/{tid}/teaching/{second['id']}/undo", json={})
    assert r.status_code == 409 and r.json["error"]["code"] == "taught_already_undone"
    assert client.post(f"/api/tables/{tid}/teaching/999/undo", json={}).status_code == 404

    # the same photo taught again (labels replaced): the later teaching is undone first
    camera.show_roll(reader, 1)
    pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
    objects = confirmed(pending["objects"])
    objects[0] = {**objects[0], "face": "6", "corrected": True}
    again = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"], "objects": objects}).json
    assert again["profile"]["photos"] == 1 and Profile.load(folder).counts.get("6") == 1
    r = client.post(f"/api/tables/{tid}/teaching/{first['id']}/undo", json={})
    assert r.status_code == 409 and r.json["error"]["code"] == "undo_later_teaching_first"
    client.post(f"/api/tables/{tid}/teaching/{again['taught'][0]['id']}/undo", json={})
    assert "6" not in Profile.load(folder).counts and len(list((folder / "photos").iterdir())) == 1
    status = client.post(f"/api/tables/{tid}/teaching/{first['id']}/undo", json={}).json
    assert status["profile"]["photos"] == 0
    assert not (folder / PROFILE_FILE).exists() and not (folder / LABELS_FILE).exists()
    assert not any((folder / "photos").iterdir())


def test_play_teaches_from_a_confirmed_reveal_and_a_correction_and_the_table_remembers(
        tmp_path: Path, client: Any, app: Any, camera: TeachCamera, models: Path) -> None:
    tables = Tables(client)
    tid = tables.create("liars-dice", ["Wanjin", "Saewoon"])
    pid = new_profile(client)
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    for event in ({"type": "start", "opener": "Wanjin"}, {"type": "bid", "player": "Wanjin", "quantity": 2, "face": "4"},
                  {"type": "challenge", "player": "Saewoon"}):
        tables.act(tid, event)
    from teach_support import jpeg

    camera.show(liars_reading(["4", "2", "3", "5", "6", "wheel", "2", "3", "5", "6"]), jpeg(5))
    out = tables.reveal(tid)
    assert out["status"] == "verdict"
    teaching(app).drain()
    status = client.get(f"/api/tables/{tid}/teaching").json
    assert [e["source"] for e in status["taught"]] == ["reveal"] and status["profile"]["photos"] == 1
    tables.correct(tid, out["reading"]["id"], [{"index": 0, "face": "3"}])
    teaching(app).drain()
    status = client.get(f"/api/tables/{tid}/teaching").json
    assert [(e["source"], e["can_undo"]) for e in status["taught"]] == [("correction", True), ("reveal", False)]
    assert status["profile"]["photos"] == 1 and status["profile"]["counts"]["3"] == 3
    # a hand-typed reveal has no photo: it teaches nothing; and play stops teaching when told
    assert client.post(f"/api/tables/{tid}/teaching", json={"learn": False}).json["learn"] is False
    tables.correct(tid, out["reading"]["id"], [{"index": 1, "face": "5"}])
    teaching(app).drain()
    assert len(client.get(f"/api/tables/{tid}/teaching").json["taught"]) == 2
    assert client.post(f"/api/tables/{tid}/teaching", json={"learn": "yes"}).status_code == 400

    # a restart: the table still reads with its profile, still without teaching in play
    with running(make_app(tmp_path / "data", TeachCamera(), models)) as again:
        status = again.test_client().get(f"/api/tables/{tid}/teaching").json
        assert status["profile"]["id"] == pid and status["learn"] is False and len(status["taught"]) == 2


def test_a_profile_for_other_models_or_none_is_refused(client: Any, app: Any, camera: TeachCamera,
                                                       reader: Any) -> None:
    tid = new_table(client)
    r = client.post(f"/api/tables/{tid}/teaching", json={"profile": "0123456789"})
    assert r.status_code == 404 and r.json["error"]["code"] == "profile_not_found"
    pid = new_profile(client)
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    teach_once(client, camera, reader, tid, 1)
    path = teaching(app).library.path(pid) / PROFILE_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["base"] = {name: "0" * 64 for name in data["base"]}
    path.write_text(json.dumps(data), encoding="utf-8")
    other = new_table(client)
    r = client.post(f"/api/tables/{other}/teaching", json={"profile": pid})
    assert r.status_code == 409 and r.json["error"]["code"] == "profile_for_other_models"
    assert client.post(f"/api/tables/{tid}/teaching", json={"profile": None}).json["profile"] is None


def test_a_server_without_a_reader_keeps_profiles_but_cannot_teach(tmp_path: Path, reader: Any) -> None:
    camera = TeachCamera()
    with running(make_app(tmp_path / "data", camera, None)) as app:
        client = app.test_client()
        tid = new_table(client)
        pid = new_profile(client)
        client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
        camera.show_roll(reader, 1)
        pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
        r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"],
                                                                      "objects": confirmed(pending["objects"])})
        assert r.status_code == 409 and r.json["error"]["code"] == "no_teaching_reader"
        assert teaching(app).library.describe(pid)["photos"] == 0


def test_confirm_refuses_labels_teach_would_refuse_and_keeps_nothing(client: Any, app: Any, camera: TeachCamera,
                                                                     reader: Any) -> None:
    tid = new_table(client)
    pid = new_profile(client)
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    camera.show_roll(reader, 1)
    pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
    good = confirmed(pending["objects"])
    for objects, says in (("x", "objects must be a list"), ([{**good[0], "box": [600, 400, 700, 470]}], "outside"),
                          ([{**good[0], "box": [0, 0, 0, 0]}], "needs its box"), ([{**good[0], "face": ""}], "face")):
        r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"], "objects": objects})
        assert r.status_code == 400 and says in r.json["error"]["message"], r.json
    for photo in (True, str(pending["id"]), None):
        r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": photo, "objects": good})
        assert r.status_code == 409, r.json
    assert teaching(app).library.describe(pid)["photos"] == 0
    assert client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"], "objects": good}).status_code == 200


def test_a_doubt_table_keeps_the_cards_it_is_shown(client: Any, app: Any, camera: TeachCamera) -> None:
    from teach_support import jpeg
    from vision.read.detections import Detection, Reading

    tid = client.post("/api/tables", json={"game": "doubt", "players": ["A", "B", "C"]}).json["table"]["id"]
    pid = new_profile(client, "Old deck")
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    cards = (Detection("card", "QS", None, (100.0, 100.0, 160.0, 190.0), 0.9),
             Detection("card", "10H", None, (300.0, 100.0, 360.0, 190.0), 0.9),
             Detection("die", "4", None, (500.0, 300.0, 530.0, 330.0), 0.9))
    camera.show(Reading(cards, tiny.FRAME_W, tiny.FRAME_H, 5.0), jpeg(7))
    pending = client.post(f"/api/tables/{tid}/teaching/read", json={}).json["pending"]
    assert [o["face"] for o in pending["objects"]] == ["QS", "10H"]  # a die beside the deck is no part of it
    r = client.post(f"/api/tables/{tid}/teaching/confirm", json={"photo": pending["id"], "objects": pending["objects"]})
    assert r.status_code == 200 and r.json["profile"]["photos"] == 1
    line = json.loads((teaching(app).library.path(pid) / LABELS_FILE).read_text(encoding="utf-8"))
    assert [(o["kind"], o["face"]) for o in line["objects"]] == [("card", "QS"), ("card", "10H")]


# --- profile files ------------------------------------------------------------------------


def _zip(files: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16)
            zf.writestr(info, "../../etc/passwd")
    return out.getvalue()


def _import(client: Any, data: bytes, **query: str) -> Any:
    return client.post("/api/profiles/import", data=data, content_type="application/zip", query_string=query)


@pytest.fixture
def exported(client: Any, camera: TeachCamera, reader: Any) -> dict[str, bytes]:
    tid = new_table(client)
    pid = new_profile(client, "Travel set")
    client.post(f"/api/tables/{tid}/teaching", json={"profile": pid})
    teach_once(client, camera, reader, tid, 1)
    teach_once(client, camera, reader, tid, 2)
    r = client.get(f"/api/profiles/{pid}/export")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert "attachment" in r.headers["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(r.data)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_export_then_import_makes_the_same_profile(client: Any, app: Any, exported: dict[str, bytes]) -> None:
    assert sorted(n.split("/")[0] for n in exported) == ["labels.jsonl", "meta.json", "photos", "photos", "profile.json"]
    r = _import(client, _zip(exported))
    assert r.status_code == 201, r.json
    assert r.json["name"] == "Travel set" and r.json["photos"] == 2 and r.json["objects"] == 6
    r = _import(client, _zip(exported), name="Copy")
    assert r.status_code == 201 and r.json["name"] == "Copy"
    lib = teaching(app).library
    assert Profile.load(lib.path(r.json["id"])).photos == 2
    assert len(client.get("/api/profiles").json) == 3


def _photo(files: dict[str, bytes]) -> str:
    return next(n for n in files if n.startswith("photos/"))


@pytest.mark.parametrize("fmt, suffix", [("TIFF", ".tif"), ("HEIF", ".heic")])
def test_a_profile_taught_from_a_tiff_or_heic_photo_imports(
        client: Any, app: Any, exported: dict[str, bytes], fmt: str, suffix: str) -> None:
    """A profile keeps each taught photo as it came (``tableref teach`` takes any photo the
    reader decodes): one whose photo is a TIFF or an iPhone's HEIC imports like a JPEG's."""
    import hashlib

    from PIL import Image

    old = _photo(exported)
    out = io.BytesIO()
    with Image.open(io.BytesIO(exported[old])) as im:
        im.save(out, format=fmt, quality=95) if fmt == "HEIF" else im.save(out, format=fmt)
    data = out.getvalue()
    new = f"photos/{hashlib.sha256(data).hexdigest()[:20]}{suffix}"
    files = {k: v for k, v in exported.items() if k != old} | {new: data}
    files["labels.jsonl"] = exported["labels.jsonl"].replace(old.encode(), new.encode())
    r = _import(client, _zip(files))
    assert r.status_code == 201, r.json
    assert r.json["photos"] == 2 and r.json["objects"] == 6
    assert (teaching(app).library.path(r.json["id"]) / new).is_file()


@pytest.mark.parametrize("spoil, code, says", [
    (lambda f: {**f, "../evil.txt": b"x"}, "bad_profile_file", "unexpected file"),
    (lambda f: {**f, "photos/../../x.jpg": b"x"}, "bad_profile_file", "unexpected file"),
    (lambda f: {**f, "/etc/cron.d/x": b"x"}, "bad_profile_file", "unexpected file"),
    (lambda f: {**f, "notes.txt": b"x"}, "bad_profile_file", "unexpected file"),
    (lambda f: {k: v for k, v in f.items() if k != "labels.jsonl"}, "bad_profile_file", "labels.jsonl is missing"),
    (lambda f: {**f, _photo(f): f[_photo(f)] + b"tampered"}, "bad_profile_file", "not named by its content"),
    (lambda f: {**f, "labels.jsonl": f["labels.jsonl"].replace(b'"face": "2"', b'"face": "7"', 1)},
     "bad_profile_file", "unknown die face"),
    (lambda f: {**f, "labels.jsonl": f["labels.jsonl"].replace(b'"photos/', b'"/etc/', 1)},
     "bad_profile_file", "must name one of its photos"),
    (lambda f: {**f, "labels.jsonl": b"{not json\n"}, "bad_profile_file", "must name one of its photos"),
    (lambda f: {k: v for k, v in f.items() if not k.startswith("photos/")} | {"labels.jsonl": f["labels.jsonl"]},
     "bad_profile_file", "must name one of its photos"),
    (lambda f: {**f, "profile.json": b'{"format": 99}'}, "bad_profile_file", "profile.json"),
    (lambda f: {**f, "meta.json": b"[]"}, "bad_profile_file", "meta.json"),
])
def test_an_import_that_is_not_a_profile_is_refused_and_keeps_nothing(
        client: Any, app: Any, exported: dict[str, bytes], spoil: Any, code: str, says: str) -> None:
    root = teaching(app).library.root
    before = sorted(p.name for p in root.iterdir())
    r = _import(client, _zip(spoil(exported)))
    assert r.status_code == 400 and r.json["error"]["code"] == code and says in r.json["error"]["message"], r.json
    assert sorted(p.name for p in root.iterdir()) == before


def test_import_refuses_links_other_bodies_and_large_files(client: Any, app: Any, exported: dict[str, bytes],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = teaching(app).library.root
    before = sorted(p.name for p in root.iterdir())
    r = _import(client, _zip(exported, links=("photos/" + "0" * 20 + ".jpg",)))
    assert r.status_code == 400 and "unexpected file" in r.json["error"]["message"]
    assert _import(client, b"PK\x03\x04 not really").json["error"]["code"] == "bad_profile_file"
    r = client.post("/api/profiles/import", json={"name": "x"})
    assert r.status_code == 415 and r.json["error"]["code"] == "not_a_profile_zip"
    monkeypatch.setattr(web.profiles, "IMPORT_MAX_BYTES", 1000)
    r = _import(client, _zip(exported))
    assert r.status_code == 413 and r.json["error"]["code"] == "profile_file_too_large"
    monkeypatch.setattr(web.profiles, "IMPORT_MAX_BYTES", 64 * 1024 * 1024)
    monkeypatch.setattr(web.profiles, "IMPORT_MAX_UNPACKED", 1000)
    assert _import(client, _zip(exported)).status_code == 413
    assert sorted(p.name for p in root.iterdir()) == before


def test_live_pipeline_reads_with_the_profile_it_is_given(models: Path, reader: Any, tmp_path: Path) -> None:
    from vision.teach.fitting import teach
    from vision.evaluate.datasets import LabelledImage
    from vision.read.detections import Detection

    dice = tuple(Detection("die", f, None, tuple(float(v) for v in box), 1.0)
                 for (box, _, _), f in zip(tiny.DICE, ("プ", "2", "wheel", "2")))
    photo = LabelledImage(tmp_path / "x.png", dice, tiny.FRAME_W, tiny.FRAME_H)
    profile = teach(reader.in_mode(Mode.LIVE), [(photo, tiny.scene())] * 3)  # three rolls: enough to choose a change
    pipeline = LivePipeline(str(tmp_path), reader)
    try:
        def grey() -> Any:
            return next(d for d in pipeline.read_once(tiny.scene()).dice() if d.box[0] == 200.0)

        assert grey().uncertain
        pipeline.use_profile(profile)
        assert grey().face == "2" and not grey().uncertain
        pipeline.use_profile(None)
        assert grey().uncertain
    finally:
        pipeline.stop()


@pytest.mark.parametrize("name", ["web.profiles", "web.teaching"])
def test_doctests(name: str) -> None:
    import doctest
    import importlib

    assert doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS).failed == 0


def test_exposed_profiles_are_the_hosts_and_teaching_needs_the_table_token(tmp_path: Path, models: Path) -> None:
    from web.app import create_app

    phone_env = {"REMOTE_ADDR": "192.168.1.23"}
    with running(create_app({"data_dir": tmp_path / "data", "host": "0.0.0.0", "settle_wait_s": 0.0}, TeachCamera())) as app:
        host, phone = app.test_client(), app.test_client()
        made = host.post("/api/tables", json={"game": "liars-dice", "players": ["A", "B"]}).json
        tid, token = made["table"]["id"], made["token"]
        pid = new_profile(host)
        for method, url, kwargs in (("post", "/api/profiles", {"json": {"name": "x"}}),
                                    ("post", f"/api/profiles/{pid}/rename", {"json": {"name": "x"}}),
                                    ("delete", f"/api/profiles/{pid}", {}), ("get", f"/api/profiles/{pid}/export", {}),
                                    ("post", "/api/profiles/import", {"data": b"PK", "content_type": "application/zip"})):
            r = getattr(phone, method)(url, environ_base=phone_env, **kwargs)
            assert r.status_code == 403 and r.json["error"]["code"] == "host_only", url
        for url, body in ((f"/api/tables/{tid}/teaching", {"profile": pid}), (f"/api/tables/{tid}/teaching/read", {}),
                          (f"/api/tables/{tid}/teaching/confirm", {"photo": 1, "objects": []}),
                          (f"/api/tables/{tid}/teaching/1/undo", {})):
            r = phone.post(url, json=body, environ_base=phone_env)
            assert r.status_code == 403 and r.json["error"]["code"] == "token_required", url
        r = phone.post(f"/api/tables/{tid}/teaching", json={"profile": pid}, headers={"X-Table-Token": token},
                       environ_base=phone_env)
        assert r.status_code == 200 and r.json["profile"]["id"] == pid
        page = phone.get(f"/t/{tid}/teach?token={token}", environ_base=phone_env)
        assert page.status_code == 200 and b'data-host="false"' in page.data and token.encode() in page.data
        assert token.encode() not in phone.get(f"/t/{tid}/teach", environ_base=phone_env).data


def test_the_teaching_page_and_the_table_pages_link_in_both_languages(client: Any) -> None:
    tid = new_table(client)
    assert client.get("/t/0000000000/teach").status_code == 404
    page = client.get(f"/t/{tid}/teach?lang=ja").get_data(as_text=True)
    assert "このセットをtablerefに教える" in page and "振ってから読み取る" in page and 'data-host="true"' in page
    page = client.get(f"/t/{tid}/teach?lang=en").get_data(as_text=True)
    assert "Teach tableref this set" in page and "Roll, then read" in page
    table = client.get(f"/t/{tid}?lang=ja").get_data(as_text=True)
    assert f'href="/t/{tid}/teach"' in table and "このセットを教える" in table
