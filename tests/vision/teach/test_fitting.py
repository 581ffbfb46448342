"""``tableref teach`` and reading with a profile (docs/teach.md), on the tiny known reader.

The tiny classifier reads a grey die as a three-way tie (uncertain); a profile taught that
such a die is a 2 must read it surely as a 2, and leave the other dice as they were.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.read.profile import PROFILE_FILE, Profile, ProfileError, Recalibration
from vision.teach.store import LABELS_FILE, PHOTOS
from web.cli import main

pytest.importorskip("onnx")

TRUE_FACES = ("プ", "2", "wheel", "2")  # tiny.DICE in order: blue, green, red, grey (taught as 2)
TRUE_COLOURS = ("blue", "green", "red", None)
ROLLS = 5


@pytest.fixture()
def table(tmp_path: Path) -> dict[str, Path]:
    models = tiny.build_onnx(tmp_path / "models")
    (tmp_path / "set").mkdir()
    objects = [{"kind": "die", "face": face, "colour": colour, "box": [float(v) for v in box]}
               for (box, _, _), face, colour in zip(tiny.DICE, TRUE_FACES, TRUE_COLOURS)]
    lines = []
    for k in range(ROLLS):  # the same dice, a pixel apart: photos the profile keeps apart
        image = tiny.scene()
        image[0, k] = 255
        cv2.imwrite(str(tmp_path / "set" / f"roll-{k:02d}.png"), image)
        lines.append(json.dumps({"image": f"roll-{k:02d}.png", "objects": objects}, ensure_ascii=False))
    labels = tmp_path / "set" / "labels.jsonl"
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"models": models, "photo": tmp_path / "set" / "roll-00.png", "labels": labels,
            "profile": tmp_path / "profile"}


def read_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict]]:
    status = main(["read", "--json", *args])
    return status, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def teach(capsys: pytest.CaptureFixture[str], table: dict[str, Path], *labels: Path) -> tuple[int, dict]:
    status = main(["teach", "--profile", str(table["profile"]), "--models", str(table["models"]), *map(str, labels)])
    return status, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def grey(objects: list[dict]) -> dict:
    (die,) = [o for o in objects if 200 <= o["box"][0] <= 202]
    return die


def test_a_taught_profile_reads_the_set_surely_and_leaves_the_other_faces(table, capsys):
    status, before = read_json(capsys, "--models", str(table["models"]), str(table["photo"]))
    assert status == 0 and grey(before[0]["objects"])["uncertain"] is True

    status, said = teach(capsys, table, table["labels"])
    assert status == 0
    assert said["profile"] == str(table["profile"]) and said["photos"] == ROLLS and said["objects"] == 4 * ROLLS
    assert said["faces"] == {"2": 2 * ROLLS, "wheel": ROLLS, "プ": ROLLS} and said["seconds"] >= 0

    status, after = read_json(capsys, "--models", str(table["models"]), "--profile", str(table["profile"]),
                              str(table["photo"]))
    assert status == 0
    die = grey(after[0]["objects"])
    assert die["face"] == "2" and "uncertain" not in die
    others = [(o["face"], o["colour"]) for o in after[0]["objects"] if o is not die]
    assert others == [(o["face"], o["colour"]) for o in before[0]["objects"] if o["box"][0] != die["box"][0]]
    assert set(after[0]) == set(before[0])  # the read-json contract is kept


def test_too_few_photos_to_check_a_profile_change_nothing(table, capsys):
    two = table["labels"].parent / "two.jsonl"
    two.write_text("".join(table["labels"].read_text(encoding="utf-8").splitlines(keepends=True)[:2]),
                   encoding="utf-8")
    status, said = teach(capsys, table, two)
    assert status == 0 and said["photos"] == 2
    status, after = read_json(capsys, "--models", str(table["models"]), "--profile", str(table["profile"]),
                              str(table["photo"]))
    assert status == 0 and grey(after[0]["objects"])["uncertain"] is True


def test_teaching_keeps_the_photos_adds_to_the_profile_and_teaches_again_from_them(table, capsys):
    assert teach(capsys, table, table["labels"])[0] == 0
    kept = sorted((table["profile"] / PHOTOS).iterdir())
    assert len(kept) == ROLLS and table["photo"].read_bytes() in {k.read_bytes() for k in kept}
    first = json.loads((table["profile"] / PROFILE_FILE).read_text(encoding="utf-8"))
    # the same photos taught again replace their labels: not counted twice
    status, said = teach(capsys, table, table["labels"])
    assert status == 0 and said["photos"] == ROLLS
    # no labels file: taught again from what the profile keeps, to the same profile
    for photo in table["photo"].parent.glob("*.png"):
        photo.unlink()
    status, said = teach(capsys, table)
    assert status == 0 and said["photos"] == ROLLS and said["objects"] == 4 * ROLLS
    assert json.loads((table["profile"] / PROFILE_FILE).read_text(encoding="utf-8"))["faces"] == first["faces"]


@pytest.mark.parametrize("line, reason", [
    ('{"image": "roll-01.png", "objects": [{"face": "7", "box": [1, 1, 9, 9]}]}', "unknown die face"),
    ('{"image": "missing.png", "objects": []}', "missing"),
    ('{"image": "roll-01.png", "objects": [{"face": "2", "box": [600, 400, 700, 470]}]}', "outside"),
    ('{"image": "roll-01.png", "objects": [', "not a JSON line"),
])
def test_bad_input_exits_2_naming_the_line_and_changes_nothing(table, capsys, line, reason):
    assert teach(capsys, table, table["labels"])[0] == 0
    before = {p.name: p.read_bytes() for p in table["profile"].rglob("*") if p.is_file()}
    bad = table["labels"].parent / "bad.jsonl"
    bad.write_text(table["labels"].read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    status, said = teach(capsys, table, bad)
    assert status == 2 and said["line"] == ROLLS + 1 and reason in said["error"]
    assert {p.name: p.read_bytes() for p in table["profile"].rglob("*") if p.is_file()} == before


def test_a_new_profile_with_bad_input_is_not_made(table, capsys):
    bad = table["labels"].parent / "bad.jsonl"
    bad.write_text('{"image": "roll-01.png", "objects": "none"}\n', encoding="utf-8")
    status, said = teach(capsys, table, bad)
    assert status == 2 and said["line"] == 1
    assert not table["profile"].exists()
    status, said = teach(capsys, table)
    assert status == 2 and "keeps no photos" in said["error"]


def test_a_profile_for_other_base_models_is_refused(table, capsys):
    assert teach(capsys, table, table["labels"])[0] == 0
    path = table["profile"] / PROFILE_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    data["base"] = {name: "0" * 64 for name in data["base"]}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["read", "--models", str(table["models"]), "--profile", str(table["profile"]),
                 str(table["photo"])]) == 2
    assert "other base models" in capsys.readouterr().err
    # teaching it again from its photos makes it fit the models it is taught with
    assert teach(capsys, table)[0] == 0
    assert read_json(capsys, "--models", str(table["models"]), "--profile", str(table["profile"]),
                     str(table["photo"]))[0] == 0


def test_the_kept_labels_are_a_labels_file(table, capsys):
    assert teach(capsys, table, table["labels"])[0] == 0
    lines = (table["profile"] / LABELS_FILE).read_text(encoding="utf-8").splitlines()
    assert len(lines) == ROLLS
    data = json.loads(lines[0])
    assert data["image"].startswith(PHOTOS + "/") and [o["face"] for o in data["objects"]] == list(TRUE_FACES)


def test_recalibration_round_trips_and_refuses_a_bad_file(tmp_path):
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    fitted = Recalibration.fit(("a", "b", "c"), np.repeat(p, 5, axis=0), np.array([1, 2] * 5))
    again = Recalibration.from_json(json.loads(json.dumps(fitted.to_json())))
    assert np.allclose(again.apply(p), fitted.apply(p), atol=1e-4)
    assert fitted.apply(p[:1]).argmax() == 1  # taught: that reading is a b
    with pytest.raises(ProfileError, match="malformed"):
        Recalibration.from_json({"classes": ["a"], "weight": [[1, 2]], "bias": [0]})
    with pytest.raises(ProfileError, match="holds no profile"):
        Profile.load(tmp_path)
    (tmp_path / PROFILE_FILE).write_text("{", encoding="utf-8")
    with pytest.raises(ProfileError, match="cannot be read"):
        Profile.load(tmp_path)


def test_the_pull_keeps_one_photo_from_overturning_a_sure_reading():
    """Taught one die alone, a face the teaching never showed is still read as before."""
    classes = ("a", "b", "c")
    taught = np.array([[0.34, 0.33, 0.33]])
    fitted = Recalibration.fit(classes, taught, np.array([1]))
    sure_c = np.array([[0.02, 0.03, 0.95]])
    assert fitted.apply(sure_c).argmax() == 2 and fitted.apply(sure_c)[0, 2] > 0.8


def test_a_change_is_taken_only_when_its_gain_beats_the_folds_spread():
    import doctest

    from vision.teach import fitting
    from vision.teach.fitting import clears_noise

    assert doctest.testmod(fitting).failed == 0
    # a deck taught from 3 photos: the base reads one fold's card surely wrong (-18), a pull undoes
    # it there and reads as before elsewhere; on held-out photos that pull read 15 fewer cards surely
    assert not clears_noise([1, 0, -18], [0, 0, 1])
    assert clears_noise([0, 0, 0, 0, 0], [2, 3, 1, 2, 2])  # small, but every fold gains
    assert not clears_noise([0, 0, 0], [0, 0, 0])  # no gain: no change
    assert not clears_noise([5], [9])  # one fold shows no spread to beat


def test_held_out_scores_a_profile_on_photos_it_was_not_taught_from(table):
    from vision.evaluate.datasets import load_labels
    from vision.read.reader import load_reader
    from vision.teach.fitting import held_out, score_reading

    photos = load_labels(table["labels"])
    reader = load_reader(table["models"], cards=False)
    pixels = [(photo, cv2.imread(str(photo.path))) for photo in photos]
    base = score_reading(reader, pixels[:1])
    assert (base.dice, base.found, base.sure_wrong) == (4, 4, 0) and base.sure_right < 4  # the grey die is unsure
    # three dice have a labelled colour, each read in it
    assert (base.colours, base.colours_right) == (3, 3) and base.to_json()["colour_accuracy"] == 1.0
    assert held_out(reader, pixels[:1]) is None
    every = held_out(reader, pixels)
    assert every is not None and every.dice == 4 * ROLLS and every.sure_right > ROLLS * base.sure_right
    assert every.accuracy == every.sure_right / (4 * ROLLS) and every.to_json()["dice"] == 4 * ROLLS


def test_teach_curve_scores_each_count_on_the_same_held_out_photos(table, capsys):
    status = main(["teach-curve", str(table["labels"]), "--models", str(table["models"]), "--counts", "1,3", "--json"])
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"]
    assert out["held_photos"] == ROLLS - 3 and [r["taught"] for r in rows] == [0, 1, 3]
    # one photo leaves nothing to check a change by; three teach the grey die its face (the red
    # one stays unsure: its box scored 0.40, under the detector's sure 0.5)
    assert rows[0]["accuracy"] == rows[1]["accuracy"] == 0.5
    assert rows[2]["accuracy"] == 0.75 and rows[2]["confidently_wrong"] == 0.0
    assert all(r["colours"] == 3 * 2 and r["colour_accuracy"] == 1.0 for r in rows)  # 3 labelled colours a photo
    assert main(["teach-curve", str(table["labels"]), "--models", str(table["models"]), "--counts", "1"]) == 0
    header, base = capsys.readouterr().out.splitlines()[1:3]
    assert "colour" in header.split() and base.split()[4] == "100.0%"
    assert main(["teach-curve", str(table["labels"]), "--models", str(table["models"]), "--counts", str(ROLLS)]) == 2
    assert "leave none to score" in capsys.readouterr().err


def test_a_deck_taught_with_the_dice_reads_its_unsure_index_surely(tmp_path, capsys):
    from tests.vision import tiny_card_reader as tiny_cards

    models = tiny_cards.build_onnx(tiny.build_onnx(tmp_path / "models"))
    dice = [{"kind": "die", "face": face, "colour": colour, "box": [float(v) for v in box]}
            for (box, _, _), face, colour in zip(tiny.DICE, TRUE_FACES, TRUE_COLOURS)]
    cards = [{"kind": "card", "face": "QH", "box": [380, 40, 500, 200]},
             {"kind": "card", "face": "7S", "box": [20, 380, 110, 470]},
             {"kind": "card", "face": "KD", "box": [560, 395, 635, 475]}]  # the index read near a tie
    lines = []
    for k in range(4):  # four photos of the deck laid out alike (a pixel apart, so kept as four)
        image = tiny_cards.paint(tiny.scene())
        image[0, k] = 255
        cv2.imwrite(str(tmp_path / f"deck-{k}.png"), image)
        lines.append(json.dumps({"image": f"deck-{k}.png", "objects": dice + cards}))
    photo = tmp_path / "deck-0.png"
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def kd(args: list[str]) -> dict:
        status, out = read_json(capsys, "--models", str(models), *args, str(photo))
        assert status == 0
        (card,) = [o for o in out[0]["objects"] if o["kind"] == "card" and o["box"][0] > 560]
        return card

    assert kd([])["face"] == "KD" and kd([]).get("uncertain") is True
    status = main(["teach", "--profile", str(tmp_path / "p"), "--models", str(models), str(labels)])
    said = json.loads(capsys.readouterr().out)
    assert status == 0 and said["photos"] == 4 and said["faces"]["KD"] == 4 and said["objects"] == 28
    profile = Profile.load(tmp_path / "p")
    assert profile.ranks is not None and profile.card_base and set(profile.card_base) != set(profile.base)
    taught = kd(["--profile", str(tmp_path / "p")])
    assert taught["face"] == "KD" and "uncertain" not in taught
    from vision.evaluate.datasets import load_labels
    from vision.read.reader import load_reader
    from vision.teach.fitting import score_reading

    reader = load_reader(models)
    first = [(load_labels(labels)[0], cv2.imread(str(photo)))]
    before, after = score_reading(reader, first), score_reading(reader.with_profile(profile), first)
    assert (before.cards, before.cards_sure_wrong, after.cards, after.cards_sure_wrong) == (3, 0, 3, 0)
    assert after.cards_sure_right == before.cards_sure_right + 1 and after.to_json()["card_accuracy"] > 0


def test_a_deck_alone_is_taught_when_its_own_indices_say_so(tmp_path, capsys):
    """Doubt photos hold no dice: the cross-validation weighs the deck's indices."""
    from tests.vision import tiny_card_reader as tiny_cards

    models = tiny_cards.build_onnx(tiny.build_onnx(tmp_path / "models"))
    cards = [{"kind": "card", "face": "QH", "box": [380, 40, 500, 200]},
             {"kind": "card", "face": "7S", "box": [20, 380, 110, 470]},
             {"kind": "card", "face": "KD", "box": [560, 395, 635, 475]}]
    lines = []
    for k in range(4):
        image = tiny_cards.paint(np.zeros((tiny.FRAME_H, tiny.FRAME_W, 3), np.uint8))
        image[0, k] = 255
        cv2.imwrite(str(tmp_path / f"deck-{k}.png"), image)
        lines.append(json.dumps({"image": f"deck-{k}.png", "objects": cards}))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["teach", "--profile", str(tmp_path / "p"), "--models", str(models), str(labels)]) == 0
    capsys.readouterr()
    profile = Profile.load(tmp_path / "p")
    assert profile.ranks is not None and profile.faces.is_identity  # the deck learnt; no die was shown
