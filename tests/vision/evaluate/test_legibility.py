"""Which rendered corner indices a person could read: the rule, and its records from real renders."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from vision.evaluate.datasets import load_dataset
from vision.evaluate.legibility import (
    CONTRAST_KEPT, MIN_GLYPH_PX, Legibility, blur_px, card_flags, dataset_legibility, max_blur_fraction, scene_legibility,
)
from web.cli import main


def test_the_blur_limit_keeps_a_quarter_of_the_contrast_at_three_cycles_a_glyph():
    k = max_blur_fraction()
    assert Legibility(20.0, k * 20.0).contrast == pytest.approx(CONTRAST_KEPT)
    assert Legibility(20.0, k * 20.0 * 0.99).legible and not Legibility(20.0, k * 20.0 * 1.01).legible
    # the same blur spoils a small glyph and spares a large one
    assert not Legibility(10.0, 1.5).legible and Legibility(30.0, 1.5).legible
    assert Legibility(40.0, 0.0).contrast == 1.0 and Legibility(0.0, 0.0).contrast == 0.0


def test_a_sharp_glyph_still_needs_its_pixels():
    assert not Legibility(MIN_GLYPH_PX - 0.1, 0.0).legible and Legibility(MIN_GLYPH_PX, 0.0).legible


def test_blur_adds_defocus_and_motion_as_variances():
    assert blur_px({}) == 0.0
    assert blur_px({"defocus_px": 1.2}) == pytest.approx(1.2)
    assert blur_px({"motion_px": math.sqrt(12.0)}) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("legible") / "set"
    assert main(["synth", "--out", str(out), "--n", "4", "--seed", "3", "--workers", "1", "--mixed", "--quiet"]) == 0
    return out


def test_every_labelled_index_of_a_render_has_a_record(rendered: Path):
    table = dataset_legibility(rendered)
    assert table is not None
    scenes = [json.loads(line) for line in (rendered / "scenes.jsonl").read_text().splitlines()]
    n = 0
    for item in load_dataset(rendered):
        records = table[item.path.relative_to(rendered).as_posix()]
        flags = card_flags(item.objects, records)
        assert flags is not None and len(flags) == len(item.cards())
        for k, o in enumerate(item.objects):
            if o.kind != "card":
                assert k not in records
                continue
            rec = records[k]
            side = max(o.box[2] - o.box[0], o.box[3] - o.box[1])
            assert 0.3 * side < rec.glyph_px < side  # the rank is most of the index, not all of it
            n += 1
    assert n > 0
    assert {r.blur_px for s in scenes for r in scene_legibility(s).values()} <= {blur_px(s["sensor"]) for s in scenes}


def test_a_photo_set_has_no_records(tmp_path: Path):
    (tmp_path / "images").mkdir()
    assert dataset_legibility(tmp_path) is None
    assert scene_legibility({"image": "images/0.jpg", "cards": []}) == {}
