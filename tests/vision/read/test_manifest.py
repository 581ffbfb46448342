"""vision.read.manifest: the manifest holds what the runtime needs; the training record lives in
its own file beside it, and a manifest written before that split still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.read.manifest import (
    CARD_MANIFEST_NAME,
    MANIFEST_NAME,
    ClassifierSpec,
    DetectorSpec,
    ManifestError,
    ReaderManifest,
    load_training_record,
    save_training_record,
    training_record_path,
)
from vision.read.reader import DEFAULT_MODEL_DIR

CREATED = "2026-11-29T02:44:06+00:00"
RECORD = {"created": CREATED, "detector": {"epochs": 100, "trained": CREATED}, "threshold": {"value": 0.8}}


def manifest(created: str | None = CREATED) -> ReaderManifest:
    return ReaderManifest(DetectorSpec(sha256="d" * 64), ClassifierSpec(colours=("white", "red")), 0.7,
                          created=created)


def test_a_manifest_round_trips_without_a_training_record(tmp_path: Path) -> None:
    m = manifest()
    m.save(tmp_path / MANIFEST_NAME)
    doc = json.loads((tmp_path / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert "training" not in doc and doc["created"] == CREATED
    assert ReaderManifest.load(tmp_path / MANIFEST_NAME) == m
    assert not training_record_path(tmp_path / MANIFEST_NAME).exists()  # saving a manifest writes no record
    assert "created" not in manifest(None).to_json()  # a manifest never trained says nothing of when


def test_an_old_manifest_holding_its_training_record_still_loads(tmp_path: Path) -> None:
    old = {**manifest(None).to_json(), "training": RECORD}
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(old), encoding="utf-8")
    loaded = ReaderManifest.load(tmp_path / MANIFEST_NAME)
    assert loaded == manifest() and loaded.created == CREATED  # the trained date is kept; the rest is not the runtime's
    assert "training" not in loaded.to_json()
    assert load_training_record(tmp_path / MANIFEST_NAME) == RECORD  # what a writer moves beside it


def test_the_training_record_lives_beside_its_manifest(tmp_path: Path) -> None:
    path = tmp_path / CARD_MANIFEST_NAME
    assert training_record_path(path) == tmp_path / "card-reader.training.json"
    assert load_training_record(path) == {}  # no manifest, no record: a first run starts one
    manifest().save(path)
    assert load_training_record(path) == {}
    save_training_record(path, RECORD)
    assert json.loads(training_record_path(path).read_text(encoding="utf-8")) == RECORD
    assert training_record_path(path).read_text(encoding="utf-8") == json.dumps(RECORD, indent=2) + "\n"
    # The record file wins over an old manifest's key: it is the newer of the two.
    path.write_text(json.dumps({**manifest().to_json(), "training": {"created": "older"}}), encoding="utf-8")
    assert load_training_record(path) == RECORD


def test_an_unreadable_training_record_is_refused_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / MANIFEST_NAME
    manifest().save(path)
    training_record_path(path).write_text("{not json", encoding="utf-8")
    with pytest.raises(ManifestError, match="training.json"):
        load_training_record(path)
    training_record_path(path).write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ManifestError, match="expected a JSON object"):
        load_training_record(path)
    assert ReaderManifest.load(path) == manifest()  # the runtime never reads it


@pytest.mark.parametrize("name", [MANIFEST_NAME, CARD_MANIFEST_NAME])
def test_the_committed_manifests_hold_no_training_record(name: str) -> None:
    path = DEFAULT_MODEL_DIR / name
    if not path.is_file():
        pytest.skip(f"no committed {name}")
    doc = json.loads(path.read_text(encoding="utf-8"))
    record = json.loads(training_record_path(path).read_text(encoding="utf-8"))
    assert "training" not in doc
    assert doc["created"] == record["created"] == ReaderManifest.load(path).created
    assert {"detector", "classifier"} <= set(record)
