"""Scoring on hand-made predictions, dataset loading, and ``tableref eval`` end to end."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.evaluate.photos
import vision.evaluate.scoring
from tests.vision import tiny_reader as tiny
from vision.evaluate.confusion_plot import draw_confusion
from vision.evaluate.datasets import DatasetError, load_dataset, parse_yolo_line
from vision.read.detections import Detection
from vision.evaluate.photos import report
from vision.evaluate.scoring import EXTRA, MISSED, SureMistake, greedy_match, score, size_bin, size_bins
from web.cli import main


def die(face: str, box, colour: str | None = None, score: float = 1.0, uncertain: bool = False) -> Detection:
    return Detection("die", face, colour, tuple(float(v) for v in box), score, uncertain)


# image 1: all right.  image 2: one miss, one wrong face, one extra.  image 3: no dice, none found.
IMAGES = [
    (
        [die("1", (0, 0, 10, 10), "red"), die("プ", (20, 0, 30, 10), "blue")],
        [die("1", (0, 0, 10, 10), "red", 0.9), die("プ", (21, 0, 31, 10), "white", 0.8)],
    ),
    (
        [die("6", (0, 0, 10, 10)), die("ブ", (20, 0, 30, 10)), die("6", (40, 0, 50, 10))],
        [die("6", (0, 1, 10, 11), None, 0.7), die("フ", (20, 0, 30, 10), None, 0.3, True), die("2", (90, 90, 99, 99), None, 0.6)],
    ),
    ([], []),
]


def test_counts_and_rates():
    m = score(IMAGES)
    assert (m.images, m.gt_dice, m.predicted, m.matched) == (3, 5, 5, 4)
    assert m.recall == pytest.approx(4 / 5) and m.precision == pytest.approx(4 / 5)
    assert m.face_correct == 3
    assert m.face_accuracy_matched == pytest.approx(3 / 4)
    assert m.face_accuracy_all == pytest.approx(3 / 5)
    assert (m.colour_evaluated, m.colour_correct) == (2, 1)  # only image 1 has colour labels
    assert m.scenes_exact == 2 and m.scene_exact_rate == pytest.approx(2 / 3)  # the empty scene counts as exact
    assert m.uncertain == 1 and (m.confident_matched, m.confident_correct) == (3, 3)
    assert m.extra_sure == 1 and m.to_json()["detection"]["extra_sure"] == 1  # image 2's stray 2


def test_found_and_right_by_die_size():
    small, mid, big = (0, 0, 12, 18), (100, 0, 125, 20), (200, 0, 300, 90)
    truth = [die("1", small), die("2", mid), die("3", big), die("4", (400, 0, 490, 80))]
    reading = [die("1", small, None, 0.9), die("5", mid, None, 0.9), die("3", big, None, 0.9)]  # the last big one missed
    by = dict(score([(truth, reading)]).by_size)
    assert list(by) == ["<20 px", "20-30 px", ">=70 px"]  # empty bins are left out
    assert (by["<20 px"].gt, by["<20 px"].matched, by["<20 px"].correct) == (1, 1, 1)
    assert (by["20-30 px"].matched, by["20-30 px"].correct) == (1, 0)
    assert (by[">=70 px"].gt, by[">=70 px"].matched, by[">=70 px"].correct) == (2, 1, 1)
    assert score([(truth, reading)]).to_json()["by_size"][">=70 px"]["recall"] == 0.5


def test_size_bins_cover_every_box():
    assert size_bins() == ("<20 px", "20-30 px", "30-45 px", "45-70 px", ">=70 px")
    for side in (0.0, 19.9, 20.0, 44.9, 45.0, 69.9, 70.0, 1e4):
        assert size_bin((0, 0, side, 1)) in size_bins()


def test_colour_mistakes_are_counted_by_pair_most_first():
    truth = [die("1", (i * 20, 0, i * 20 + 10, 10), c)
             for i, c in enumerate(["grey", "grey", "white", "black", "blue", "ivory"])]
    reading = [die("1", d.box, c, 0.9) for d, c in zip(truth, ["white", "white", "grey", "black", "green", "white"])]
    m = score([(truth, reading)])
    assert m.colour_mistakes == (("grey", "white", 2), ("blue", "green", 1), ("white", "grey", 1))
    assert m.to_json()["colour"]["mistakes"][0] == {"truth": "grey", "read": "white", "dice": 2}
    # a label naming a shade (ivory) is scored as the plain colour a reading reports (white)
    assert m.per_colour == (("grey", 2, 0), ("white", 2, 1), ("black", 1, 1), ("blue", 1, 0))
    assert m.to_json()["colour"]["per_colour"]["black"] == {"matched": 1, "correct": 1, "accuracy": 1.0}
    assert "grey→white: 2" in report("t", m, []) and "black: 100.0% (1/1)" in report("t", m, [])
    assert score(IMAGES[:1]).colour_mistakes == (("blue", "white", 1),)


def test_extra_sure_counts_only_unflagged_strays():
    phantoms = [([], [die("3", (0, 0, 10, 10), None, 0.95), die("5", (20, 0, 30, 10), None, 0.4, True)])]
    m = score(phantoms + [([die("4", (0, 0, 10, 10))], [die("4", (0, 0, 10, 10), None, 0.9)])])
    assert (m.predicted, m.matched, m.uncertain, m.extra_sure) == (3, 1, 1, 1)


def test_wrong_readings_not_flagged_uncertain_are_listed_by_image():
    misread = ([die("4", (0, 0, 10, 10)), die("5", (20, 0, 30, 10))],
               [die("6", (0, 0, 10, 10), None, 0.86), die("3", (20, 0, 30, 10), None, 0.5, True)])
    m = score(IMAGES + [misread])
    # image 1's flagged ブ→フ and image 4's flagged 5→3 are not listed; image 1's sure stray and image 4's 4→6 are
    assert m.sure_mistakes == (SureMistake(1, (90.0, 90.0, 99.0, 99.0), "2", 0.6), SureMistake(3, (0.0, 0.0, 10.0, 10.0), "6", 0.86, "4"))
    assert len(m.sure_mistakes) == m.extra_sure + m.confident_matched - m.confident_correct
    names = ["a.jpg", "b.jpg", "c.jpg", "d.jpg"]
    assert m.to_json(names)["sure_mistakes"][1] == {"image": "d.jpg", "box": [0.0, 0.0, 10.0, 10.0], "truth": "4",
                                                   "read": "6", "score": 0.86}
    assert m.to_json()["sure_mistakes"][0]["image"] == 1 and m.to_json()["sure_mistakes"][0]["truth"] is None
    assert "sure wrong 2: b.jpg no die, read 2 (0.60); d.jpg 4 read 6 (0.86)" in report("t", m, [], names)
    assert "sure wrong" not in report("t", score(IMAGES[:1]), [], names[:1])


def test_a_sure_box_of_no_die_names_the_die_it_overlaps_under_the_match():
    """A box round a die's top face (the label holds the whole die) matches at IoU under 0.5:
    the die is missed and the box is a sure box of no die, which the report says reads the
    die's face. A box apart from every die names none."""
    labelled = [die("3", (0, 0, 20, 30)), die("5", (100, 0, 120, 20))]
    read = [die("3", (0, 0, 20, 12), None, 0.91), die("2", (60, 60, 70, 70), None, 0.9),
            die("5", (100, 0, 120, 20), None, 0.95), die("6", (104, 2, 126, 26), None, 0.85)]
    m = score([(labelled, read)])
    assert [(w.read, w.near) for w in m.sure_mistakes] == [("3", ("3", 0.4)), ("2", None), ("6", ("5", 0.45))]
    assert [w.on_a_die_read_right for w in m.sure_mistakes] == [True, False, False]
    assert m.to_json(["p.jpg"])["sure_mistakes"][0]["near"] == {"truth": "3", "iou": 0.4}
    assert "near" not in m.to_json(["p.jpg"])["sure_mistakes"][1]
    line = report("t", m, [], ["p.jpg"])
    assert ("sure wrong 3 (1 of them on a labelled die whose face they read, not matched to it): "
            "p.jpg no die (IoU 0.40 with a 3), read 3 (0.91); p.jpg no die, read 2 (0.90); "
            "p.jpg no die (IoU 0.45 with a 5), read 6 (0.85)") in line


def test_per_face_and_confusion():
    m = score(IMAGES)
    per = dict(m.per_face)
    assert (per["6"].gt, per["6"].matched, per["6"].correct) == (2, 1, 1)
    assert per["6"].accuracy == pytest.approx(0.5)
    assert per["ブ"].accuracy == 0.0 and per["1"].accuracy == 1.0
    c = m.confusion
    assert c.labels == ("1", "2", "6", "プ", "ブ", "フ")  # DIE_FACES order, only those seen
    assert c.count("ブ", "フ") == 1 and c.count("6", "6") == 1
    assert c.count("6", MISSED) == 1 and c.count(EXTRA, "2") == 1
    total = sum(map(sum, c.matrix))
    assert total == m.matched + (m.gt_dice - m.matched) + (m.predicted - m.matched)
    doc = m.to_json()
    assert doc["confusion"]["rows"][-1] == EXTRA and doc["confusion"]["cols"][-1] == MISSED
    assert doc["face"]["per_face"]["6"]["accuracy_matched"] == 1.0
    json.dumps(doc, ensure_ascii=False)
    img = draw_confusion(c)
    assert img.shape[0] > 200 and img.shape[1] > 200


def test_greedy_matching_prefers_highest_iou_and_respects_threshold():
    gt = np.array([[0, 0, 10, 10]])
    preds = np.array([[2, 0, 12, 10], [0, 0, 10, 10]])
    assert greedy_match(gt, preds) == [(0, 1)]
    assert greedy_match(gt, np.array([[6, 0, 16, 10]])) == []  # IoU 0.25
    assert greedy_match(gt, np.array([[5, 0, 15, 10]]), iou_threshold=0.3) == [(0, 0)]


def test_cards_are_ignored_and_empty_input():
    card = Detection("card", "QH", None, (0, 0, 10, 10), 0.9)
    m = score([([card], [card])])
    assert m.gt_dice == 0 and m.recall is None and m.scene_exact_rate == 1.0
    assert score([]).images == 0


def test_yolo_and_synth_layouts(tmp_path):
    yolo = tmp_path / "tray"
    (yolo / "images" / "test").mkdir(parents=True)
    (yolo / "labels" / "test").mkdir(parents=True)
    cv2.imwrite(str(yolo / "images" / "test" / "a.jpg"), np.zeros((50, 100, 3), np.uint8))
    cv2.imwrite(str(yolo / "images" / "test" / "b.jpg"), np.zeros((50, 100, 3), np.uint8))
    (yolo / "labels" / "test" / "a.txt").write_text("5 0.5 0.5 0.2 0.4\n\n")
    items = load_dataset(yolo, "test")
    assert [i.path.name for i in items] == ["a.jpg", "b.jpg"]
    assert items[0].objects == (die("6", (40, 15, 60, 35)),) and items[1].objects == ()
    with pytest.raises(DatasetError, match="pass --split"):
        load_dataset(yolo)
    with pytest.raises(DatasetError):
        parse_yolo_line("9 0.5 0.5 0.1 0.1", 10, 10)

    synth = tmp_path / "synth"
    (synth / "images").mkdir(parents=True)
    line = {"image": "images/000000.jpg", "width": 100, "height": 50,
            "objects": [{"kind": "die", "face": "ガ", "colour": "green", "box": [1, 2, 11, 12], "score": 1.0}]}
    (synth / "annotations.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    (item,) = load_dataset(synth)
    assert item.path == synth / "images" / "000000.jpg" and item.dice()[0].face == "ガ" and item.dice()[0].colour == "green"
    (synth / "annotations.jsonl").write_text("{broken\n")
    with pytest.raises(DatasetError, match="annotations.jsonl:1"):
        load_dataset(synth)


def write_tiny_set(root: Path) -> Path:
    """A synthetic-layout set of two frames of the tiny scene, with the truth the tiny models should find."""
    (root / "images").mkdir(parents=True)
    truth_faces = {(255, 0, 0): ("プ", "blue"), (0, 255, 0): ("2", "green"), (0, 0, 255): ("wheel", "red"), (128, 128, 128): ("ス", "white")}
    lines = []
    for i in range(2):
        cv2.imwrite(str(root / "images" / f"{i:06d}.png"), tiny.scene())
        objs = [{"kind": "die", "face": truth_faces[c][0], "colour": truth_faces[c][1], "box": list(b), "score": 1.0}
                for b, c, _ in tiny.DICE]
        lines.append(json.dumps({"image": f"images/{i:06d}.png", "width": 640, "height": 480, "objects": objs}, ensure_ascii=False))
    (root / "annotations.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def relabel(root: Path, first: tuple[str, str] | None = None, second: tuple[str, str] | None = None) -> Path:
    """The tiny set with one die's face in the first and/or second frame's labels changed (old, new)."""
    ann = root / "annotations.jsonl"
    lines = ann.read_text(encoding="utf-8").splitlines()
    for k, change in enumerate((first, second)):
        if change:
            lines[k] = lines[k].replace(f'"face": "{change[0]}"', f'"face": "{change[1]}"')
    ann.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_eval_cli_end_to_end(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    data = write_tiny_set(tmp_path / "set")
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "recall 100.0%" in text and "scenes     exact 0.0%" in text
    assert "by size" in text and "by scene" not in text  # no scene records: not rendered
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["detection"]["recall"] == 1.0 and metrics["detection"]["precision"] == 1.0
    assert metrics["face"]["accuracy_matched"] == pytest.approx(0.75)  # the grey "ス" die reads as a tie
    assert metrics["colour"]["accuracy"] == pytest.approx(0.75)
    assert metrics["face"]["per_face"]["ス"]["accuracy"] == 0.0
    assert metrics["reader"]["backend"] in ("openvino", "onnxruntime")
    assert metrics["renderer"] is None  # hand-made, not drawn by tableref synth
    assert metrics["by_scene"] is None
    assert sum(b["gt"] for b in metrics["by_size"].values()) == metrics["detection"]["gt_dice"]
    assert metrics["sure_mistakes"] == []  # the ス it reads wrong is a tie, flagged uncertain
    png = cv2.imread(str(out / "confusion.png"))
    assert png is not None and png.shape[0] > 100


def test_eval_cli_names_the_image_of_each_wrong_sure_reading(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    data = relabel(write_tiny_set(tmp_path / "set"), first=("2", "3"))  # mislabel one die
    assert main(["eval", str(data), "--models", str(models), "--out", str(tmp_path / "eval")]) == 0
    assert "sure wrong 1: images/000000.png 3 read 2 (" in capsys.readouterr().out
    (mistake,) = json.loads((tmp_path / "eval" / "metrics.json").read_text(encoding="utf-8"))["sure_mistakes"]
    assert (mistake["image"], mistake["truth"], mistake["read"]) == ("images/000000.png", "3", "2")
    assert mistake["score"] >= 0.8


def test_eval_cli_bad_dataset(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "nothing")]) == 2
    assert "no dataset folder" in capsys.readouterr().err


def eval_tiny(tmp_path, *flags):
    """``tableref eval`` of the tiny set with the tiny models and these flags: (models, data, metrics)."""
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    data = write_tiny_set(tmp_path / "set")
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), *flags]) == 0
    return models, data, json.loads((out / "metrics.json").read_text(encoding="utf-8"))


def test_eval_cli_with_ground_truth_boxes(tmp_path, capsys):
    _, _, metrics = eval_tiny(tmp_path, "--gt-boxes")
    assert metrics["gt_boxes"] is True
    assert metrics["detection"]["recall"] == 1.0 and metrics["detection"]["precision"] == 1.0
    assert metrics["face"]["accuracy_matched"] == pytest.approx(0.75)
    assert metrics["uncertain"]["flagged"] == 2  # the grey tie in each of the two images


def test_eval_cli_reads_as_a_games_dice(tmp_path, capsys):
    models, data, metrics = eval_tiny(tmp_path, "--gt-boxes", "--game", "pin456")
    assert metrics["reader"]["vocabulary"]["name"] == "pin456"
    assert set(metrics["face"]["per_face"]) >= {"プ", "2", "wheel"}  # the labels, scored as read
    assert metrics["face"]["accuracy_matched"] == 0.0  # none of the tiny set's faces is a Pin-456 face
    assert metrics["uncertain"]["flagged"] == 8  # and so no reading is sure
    assert main(["eval", str(data), "--models", str(models), "--game", "chess"]) == 2


def test_eval_cli_names_the_truth_as_the_games_table_does(tmp_path, capsys):
    """Plain pip dice read as Liar's Dice dice: the table reports a 1 as the wheel it stands
    for, and the labelled 1 is scored as that wheel, not as a mistake."""
    models = tiny.build_onnx(tmp_path / "models")
    data = write_tiny_set(tmp_path / "set")
    labels = data / "annotations.jsonl"
    labels.write_text(labels.read_text(encoding="utf-8").replace('"face": "wheel"', '"face": "1"'), encoding="utf-8")
    scored = {}
    for game in (None, "liars-dice"):
        out = tmp_path / f"eval-{game}"
        flags = ["--game", game] if game else []
        assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--gt-boxes", *flags]) == 0
        scored[game] = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert "1" in scored[None]["face"]["per_face"] and "1" not in scored["liars-dice"]["face"]["per_face"]
    assert scored[None]["face"]["per_face"]["1"]["correct"] == 0  # read as the wheel: a mistake, unnamed
    assert scored["liars-dice"]["face"]["per_face"]["wheel"]["correct"] == 2


def test_eval_cli_reads_photos_as_photos_and_records_it(tmp_path, capsys):
    _, _, metrics = eval_tiny(tmp_path)
    assert metrics["reader"]["mode"] == "photo"
    assert metrics["face"]["accuracy_matched"] == pytest.approx(0.75)


def test_eval_cli_scores_the_photos_as_another_camera_took_them(tmp_path, capsys):
    _, _, metrics = eval_tiny(tmp_path, "--gt-boxes", "--camera", "warm")
    assert metrics["camera"] == "warm"
    assert "-camera-warm" in capsys.readouterr().out
    # The grey die reads as a tie (flagged) as rendered; a warm white balance tints it and breaks the tie.
    assert metrics["uncertain"]["flagged"] == 0


def test_eval_cli_refuses_an_unknown_camera(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["eval", str(tmp_path), "--camera", "fisheye"])
    assert "invalid choice" in capsys.readouterr().err


def test_the_faces_an_unsure_die_may_show_are_checked_against_the_truth() -> None:
    D = Detection
    gt = [D("die", "4", None, (0, 0, 10, 10), 1.0), D("die", "ブ", None, (20, 0, 30, 10), 1.0),
          D("die", "2", None, (40, 0, 50, 10), 1.0)]
    pred = [D("die", "6", None, (0, 0, 10, 10), 0.5, uncertain=True, alternatives=("6", "4")),
            D("die", "プ", None, (20, 0, 30, 10), 0.6, uncertain=True, alternatives=("プ", "フ", "ラ")),
            D("die", "2", None, (40, 0, 50, 10), 0.6, uncertain=True)]  # unsure for another reason
    m = score([(gt, pred)])
    assert m.alternatives == (2, 1, 5)
    assert m.to_json()["uncertain"]["faces_listed_mean"] == 2.5 and m.to_json()["uncertain"]["truth_listed"] == 1


def test_eval_cli_draws_only_the_photos_not_read_exactly(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    data = relabel(write_tiny_set(tmp_path / "set"), second=("ス", "2"))  # the tie's read face: that frame is exact
    out = tmp_path / "mistakes"
    assert main(["eval", str(data), "--models", str(models), "--out", str(tmp_path / "eval"), "--mistakes", str(out)]) == 0
    assert "scenes     exact 50.0%" in (text := capsys.readouterr().out)
    assert f"drew 1 photo whose dice were not read exactly into {out}" in text
    assert [p.name for p in out.iterdir()] == ["images_000000.jpg"]
    assert cv2.imread(str(out / "images_000000.jpg")).shape == (480, 640, 3)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["eval", str(data), "--models", str(models), "--out", str(tmp_path / "e2"), "--mistakes", str(blocker / "sub")]) == 2
    assert "--mistakes" in capsys.readouterr().err
    # a picture that cannot be written is reported and the exit status is 1, but the scores are written
    (out / "images_000000.jpg").unlink()
    (out / "images_000000.jpg").mkdir()
    assert main(["eval", str(data), "--models", str(models), "--out", str(tmp_path / "e3"), "--mistakes", str(out)]) == 1
    assert "cannot draw" in capsys.readouterr().err
    assert (tmp_path / "e3" / "metrics.json").is_file()


def test_doctests() -> None:
    for module in (vision.evaluate.scoring, vision.evaluate.photos):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__

