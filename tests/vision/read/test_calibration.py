"""Temperature scaling and the one threshold (vision.read.calibration), and `tableref calibrate`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.read.calibration import (
    calibrate_head,
    fit_temperature,
    indices,
    nll,
    tempered,
)
from vision.read.manifest import ClassifierSpec, DetectorSpec, ManifestError, ReaderManifest, load_training_record
from web.cli import main

REPO = Path(__file__).resolve().parents[3]


def overconfident(n: int = 3000, classes: int = 5, sharpen: float = 2.5, seed: int = 1):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n)
    logits = rng.normal(0, 1, (n, classes))
    logits[np.arange(n), truth] += 1.0  # so the true odds are softmax(logits)
    p = np.exp(logits * sharpen)
    return p / p.sum(1, keepdims=True), truth


def test_tempering_keeps_each_readings_order_and_sums_to_one() -> None:
    p, _ = overconfident()
    for t in (0.5, 2.0, 4.0):
        q = tempered(p, t)
        assert np.allclose(q.sum(1), 1.0)
        assert (q.argmax(1) == p.argmax(1)).all()
    assert (tempered(p, 2.0).max(1) < p.max(1) + 1e-9).all()  # above 1 it only softens
    with pytest.raises(ValueError):
        tempered(p, 0.0)


def test_the_fitted_temperature_undoes_the_sharpening_and_lowers_the_likelihood_loss() -> None:
    p, truth = overconfident(sharpen=2.5)
    t = fit_temperature(p, truth)
    assert 2.2 < t < 2.8
    head = calibrate_head(p, truth)
    assert head.nll_after < head.nll_before
    assert head.nll_after == pytest.approx(nll(tempered(p, t), truth))
    with pytest.raises(ValueError):
        fit_temperature(p[:0], truth[:0])


def test_indices_name_each_label_by_its_class() -> None:
    assert indices(["b", "a", "b"], ["a", "b"]).tolist() == [1, 0, 1]


def test_a_manifest_keeps_its_temperatures_and_refuses_nonsense() -> None:
    spec = ClassifierSpec(temperature=1.7, colour_temperature=2.5)
    m = ReaderManifest(DetectorSpec(), spec)
    back = ReaderManifest.from_json(json.loads(json.dumps(m.to_json())))
    assert (back.classifier.temperature, back.classifier.colour_temperature) == (1.7, 2.5)
    assert "temperature" not in ReaderManifest(DetectorSpec(), ClassifierSpec()).to_json()["classifier"]
    for bad in (0.0, -1.0, float("nan"), 100.0):
        with pytest.raises(ManifestError, match="temperature"):
            ClassifierSpec(temperature=bad)


def test_calibrate_writes_temperatures_threshold_and_its_record(tmp_path: Path, capsys) -> None:
    """The numbers go into the manifest and what they were fitted on into the training record
    beside it; a folder whose old manifest still holds the record under ``"training"`` has it
    moved there, every earlier entry kept."""
    data = tmp_path / "set"
    assert main(["synth", "--out", str(data), "--n", "4", "--seed", "5", "--quiet", "--workers", "1"]) == 0
    models = tmp_path / "models"
    models.mkdir()
    manifest = json.loads((REPO / "models" / "dice-reader.json").read_text("utf-8"))
    for key in ("classifier", "detector", "second_opinion"):
        if key in manifest:
            shutil.copy(REPO / "models" / manifest[key]["file"], models)
    for spec in manifest.get("specialists", []):
        shutil.copy(REPO / "models" / spec["file"], models)
    earlier = load_training_record(REPO / "models" / "dice-reader.json")
    assert {"created", "detector", "classifier"} <= set(earlier)
    (models / "dice-reader.json").write_text(json.dumps({**manifest, "training": earlier}), "utf-8")
    assert main(["calibrate", str(data), "--models", str(models), "--max-wrong", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "temperature" in out and "threshold" in out
    written = json.loads((models / "dice-reader.json").read_text("utf-8"))
    assert "training" not in written and written["created"] == earlier["created"]  # calibrating trains nothing
    training = json.loads((models / "dice-reader.training.json").read_text("utf-8"))
    assert {k: v for k, v in training.items() if k != "calibration"} == \
        {k: v for k, v in earlier.items() if k != "calibration"}
    record = training["calibration"]
    assert record["sets"] == [str(data)] and record["images"] > 0 and record["max_wrong"] == 0.01
    assert written["threshold"] == record["threshold"]
    assert written["classifier"].get("temperature", 1.0) == pytest.approx(record["faces"]["temperature"], abs=1e-3)
    assert record["sure_wrong"] <= 0.01 or written["threshold"] == 0.999  # what the photos read says
    assert 1 <= record["reads"] <= 6  # a bisection over the thresholds, not a sweep


def test_calibrate_refuses_a_set_with_nothing_it_can_fit_on(tmp_path: Path) -> None:
    empty = tmp_path / "labels.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["calibrate", str(empty), "--models", str(REPO / "models"), "--dry-run"])


def test_the_read_path_threshold_is_found_by_bisection(monkeypatch) -> None:
    from vision.commands import calibrate as calibrate_cmd

    asked: list[float] = []

    def share(model_dir, items, threshold):  # sure and wrong fall as the threshold rises
        asked.append(threshold)
        return 1.0 - threshold / 2, max(0.0, 0.8 - threshold) / 10

    monkeypatch.setattr(calibrate_cmd, "read_path_share", share)
    threshold, sure, wrong, reads = calibrate_cmd.choose_on_read_path(Path("m"), [], 0.0045)
    assert threshold == 0.76 and wrong <= 0.0045 and sure == pytest.approx(1 - 0.76 / 2)
    assert reads == len(set(asked)) <= 7
