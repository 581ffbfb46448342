"""A Nine Dice table on the demo source with the committed reader, in process: the demo
shows only the table's own game's dice (its loop here plays Liar's Dice), the dice read
stay on the table once the table has read them, and reading again after an undo reads
those same dice."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from web_support import Tables

from referee.nine_dice import Letter
from vision.demo.table import DemoSource
from vision.live.pipeline import LivePipeline
from vision.read.reader import load_reader
from web.app import create_app
from web.live import PipelineCamera

pytestmark = pytest.mark.slow

MODELS = Path(__file__).resolve().parents[2] / "models"
ATTEMPTS = 8
KATAKANA = {letter.value for letter in Letter}


@contextmanager
def demo_table(tmp_path: Path) -> Iterator[tuple[PipelineCamera, Tables]]:
    if not (MODELS / "dice-detector.onnx").exists():
        pytest.skip("no committed dice reader")
    pipeline = LivePipeline(lambda: DemoSource(fps=15, size=(640, 480), hold_s=3.0, bank=1, games=("liars-dice",), seed=5),
                            load_reader(MODELS), detect_fps=15)
    camera = PipelineCamera(pipeline)
    app = create_app({"data_dir": tmp_path / "data", "settle_wait_s": 8.0}, camera)
    camera.start()
    try:
        yield camera, Tables(app.test_client())
    finally:
        camera.stop()
        app.extensions["tableref"].store.close()


def settled_roll(camera: PipelineCamera, after_seq: int) -> dict[str, Any]:
    """The newest reveal the demo settled past ``after_seq`` that shows a whole roll (its truth
    9 or 10 katakana dice): the moment a player would read the table."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        for entry in reversed(camera.status().get("demo", {}).get("settled", [])):
            truth = entry["truth"]
            if entry["seq"] > after_seq and truth and len(truth) in (9, 10) and set(truth) <= KATAKANA:
                return entry
        time.sleep(0.1)
    raise AssertionError(f"the demo settled no roll: {camera.status().get('demo')}")


def last_seq(camera: PipelineCamera) -> int:
    return max([e["seq"] for e in camera.status().get("demo", {}).get("settled", [])] or [0])


def read_until_verdict(tables: Tables, camera: PipelineCamera, tid: str, after_seq: int = 0) -> tuple[dict[str, Any], list[str]]:
    """Read the table as players would: once a roll has settled, and after a reading that
    did not add up, once the demo's next roll of the dice has settled."""
    seen: list[str] = []
    out: dict[str, Any] = {}
    for _ in range(ATTEMPTS):
        settled_roll(camera, after_seq)
        path = "reread" if out.get("status") == "reread" else "reveal"
        r = tables.client.post(f"/api/tables/{tid}/{path}", json={}, headers=tables.headers())
        after_seq = last_seq(camera)
        if r.status_code != 200:
            seen.append(r.json["error"]["code"])
            assert r.json["error"]["code"] == "no_settled_reading", r.json
            continue
        out = dict(r.json)
        seen.append(out["status"])
        # Only Nine Dice dice are ever read here: katakana faces, never a wheel or pips.
        assert {o["face"] for o in out["reading"]["objects"]} <= KATAKANA, out["reading"]["objects"]
        if out["status"] == "verdict":
            break
    return out, seen


def truth_now(camera: PipelineCamera) -> list[str] | None:
    truth = camera.status()["demo"]["truth"]
    return None if truth is None else sorted(truth)


def fits(objects: list[dict[str, Any]], truth: list[str]) -> bool:
    """Whether a verdict's reading is the dice on the table as the table judges them: every
    sure die reads its true face, and an unsure die (whose face cannot change the score, or
    the table would have asked for a re-read) lists its true face among its alternatives."""
    options = [[o["face"]] if not o.get("uncertain") else list(o.get("alternatives") or [o["face"]]) for o in objects]
    if len(options) != len(truth):
        return False
    partner: dict[int, int] = {}  # truth index -> object index: a bipartite matching, augmented die by die

    def place(k: int, seen: set[int]) -> bool:
        for t, face in enumerate(truth):
            if face in options[k] and t not in seen:
                seen.add(t)
                if t not in partner or place(partner[t], seen):
                    partner[t] = k
                    return True
        return False

    return all(place(k, set()) for k in range(len(objects)))


def test_fits_matches_unsure_dice_by_their_alternatives() -> None:
    sure = [{"face": "ブ"}, {"face": "ラ"}]
    unsure = [{"face": "プ", "uncertain": True, "alternatives": ["プ", "ブ"]}, {"face": "ラ"}]
    assert fits(sure, ["ラ", "ブ"]) and fits(unsure, ["ブ", "ラ"]) and fits(unsure, ["プ", "ラ"])
    assert not fits([{"face": "プ"}, {"face": "ラ"}], ["ブ", "ラ"])  # a sure die must read its own face
    assert not fits(unsure, ["ブ", "ブ"]) and not fits(unsure, ["ラ"])


def test_a_nine_dice_table_on_the_demo_reads_its_own_dice_and_they_stay(tmp_path: Path) -> None:
    with demo_table(tmp_path) as (camera, tables):
        tid = tables.create("nine-dice", ["Ben", "Mina"])  # the demo is asked for a roll at once
        out, seen = read_until_verdict(tables, camera, tid)
        print("nine dice demo reads:", seen)
        assert out.get("status") == "verdict", f"never a verdict in {ATTEMPTS} reads: {seen}"
        truth = truth_now(camera)
        assert truth is not None and fits(out["reading"]["objects"], truth), (out["reading"]["objects"], truth)
        # The table read them: no re-roll and no loop replaces them (well past hold_s and the re-rolls).
        time.sleep(12.0)
        assert truth_now(camera) == truth
        # Undo the roll and read again: the same dice, read again at once.
        assert tables.undo(tid)["view"]["expects"] == "roll"
        r = tables.client.post(f"/api/tables/{tid}/reveal", json={}, headers=tables.headers())
        assert r.status_code == 200, r.json  # the still on the table is read again at once
        again = dict(r.json)
        seen = [again["status"]]
        assert again["status"] == "verdict", f"no verdict reading again after the undo: {seen}"
        assert fits(again["reading"]["objects"], truth), (again["reading"]["objects"], truth)
