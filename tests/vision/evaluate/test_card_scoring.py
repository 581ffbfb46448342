"""Card scoring: rank and suit accuracy over the same matching, look-alike pairs, card scenes,
and ``tableref eval`` on a set with cards."""

from __future__ import annotations

import json

import cv2
import pytest

from tests.vision import tiny_card_reader as tc
from tests.vision import tiny_reader as tiny
from vision.evaluate.card_scoring import score_cards, score_legibility
from vision.read.detections import Detection
from vision.evaluate.scoring import MISSED
from web.cli import main


# Each test's indices are all different cards, far apart: each is a card of its own, so the
# merged cards scored are the indices themselves.
def card(face: str, x: float, score: float = 1.0, uncertain: bool = False) -> Detection:
    return Detection("card", face, None, (x, 0.0, x + 10, 20.0), score, uncertain)


def test_rank_and_suit_are_scored_apart():
    gt = [card("6S", 0), card("AH", 50), card("10D", 100), card("QC", 150)]
    pred = [card("9S", 0), card("4H", 50, 0.4, True), card("10H", 100)]  # QC missed
    m = score_cards([(gt, pred, tuple(pred))])
    assert (m.card.gt_dice, m.card.matched) == (4, 3)
    assert m.rank.face_accuracy_matched == pytest.approx(1 / 3)  # only the 10 right
    assert m.suit.face_accuracy_matched == pytest.approx(2 / 3)  # H for D is the suit error
    assert m.card.face_accuracy_matched == 0.0
    assert m.pairs["6/9"] == 1 and m.pairs["A/4"] == 1 and m.pairs["8/3"] == 0
    assert m.rank.confusion.count("Q", MISSED) == 1
    assert m.rank.confusion.labels[:3] == ("A", "4", "6")  # rank order, not string order
    assert m.card.uncertain == 1 and (m.card.confident_matched, m.card.confident_correct) == (2, 0)
    assert (m.scenes, m.scenes_exact) == (1, 0)
    doc = m.to_json()
    assert doc["detection"]["gt_indices"] == 4 and doc["look_alike_pairs"]["6/9"] == 1
    json.dumps(doc)


def test_card_scene_is_exact_only_when_every_card_is_read_and_sure():
    gt = [card("7C", 0), card("7C", 80), card("2D", 200)]  # 7C shows both corners
    right = [card("7C", 0), card("2D", 200)]  # one corner missed: the card is still read
    assert score_cards([(gt, right, tuple(right))]).scenes_exact == 1
    unsure = [card("7C", 0), card("2D", 200, 0.3, True)]
    assert score_cards([(gt, unsure, tuple(unsure))]).scenes_exact == 0
    extra = right + [card("KS", 400)]
    assert score_cards([(gt, extra, tuple(extra))]).scenes_exact == 0
    assert score_cards([([], [], ())]).scenes == 0  # no cards at all: not a card scene


def test_legible_and_illegible_indices_are_scored_apart():
    gt = [card("6S", 0), card("AH", 50), card("10D", 100), card("QC", 150)]
    pred = [card("9S", 0), card("AH", 50), card("10H", 100, 0.4, True)]  # QC missed
    s = score_legibility([(gt, pred, tuple(pred))], [(False, True, False, True)])
    g, b = s.legible, s.illegible
    assert (g.indices, g.found, g.rank_right, g.suit_right, g.sure, g.sure_wrong) == (2, 1, 1, 1, 1, 0)
    assert g.recall == 0.5 and g.rank_accuracy_all == 0.5 and g.rank_accuracy_matched == 1.0
    # the 6S read surely as 9S is a guess; the unsure 10H is not
    assert (b.indices, b.found, b.rank_right, b.suit_right, b.sure, b.sure_wrong) == (2, 2, 1, 1, 1, 1)
    assert (s.scenes, s.scenes_exact) == (0, 0)  # not every index legible
    json.dumps(s.to_json())
    right = [card("6S", 0), card("AH", 50)]
    s = score_legibility([(right, right, tuple(right)), ([], [], ())], [(True, True), ()])
    assert (s.scenes, s.scenes_exact) == (1, 1) and s.illegible.recall is None
    with pytest.raises(ValueError, match="2 legibility flags for 4"):
        score_legibility([(gt, pred, ())], [(True, True)])


def write_card_set(root):
    (root / "images").mkdir(parents=True)
    faces = {(255, 0, 0): "QH", (0, 255, 0): "7S", (100, 100, 110): "KD"}
    objs = [{"kind": "card", "face": faces[c], "colour": None, "box": list(b), "score": 1.0} for b, c, _ in tc.INDICES]
    objs[3]["face"] = "KC"  # truth differs from the uncertain KD reading: a suit error
    cv2.imwrite(str(root / "images" / "000000.png"), tc.paint(tiny.scene()))
    line = {"image": "images/000000.png", "width": 640, "height": 480, "objects": objs}
    (root / "annotations.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return root


def test_eval_cli_scores_cards(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    tc.build_onnx(models)
    data = write_card_set(tmp_path / "set")
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "cards in set: 4 labelled corner indices in 1 images with cards (indices found at 416 px)" in text
    assert "none labelled, 4 read (false detections; " in text  # the tiny dice detector always fires
    doc = json.loads((out / "metrics.json").read_text())["cards"]
    assert doc["detection"]["recall"] == 1.0
    assert doc["rank"]["accuracy_matched"] == 1.0 and doc["suit"]["accuracy_matched"] == pytest.approx(0.75)
    assert doc["uncertain"]["flagged"] == 1 and doc["uncertain"]["confident_accuracy"] == 1.0
    assert doc["card_scenes_exact"]["exact"] == 0
    assert (out / "card-rank-confusion.png").is_file() and (out / "card-suit-confusion.png").is_file()
    assert main(["eval", str(data), "--models", str(models), "--out", str(out), "--gt-boxes"]) == 0
    gt_doc = json.loads((out / "metrics.json").read_text())["cards"]
    assert gt_doc["detection"]["recall"] == 1.0 and gt_doc["suit"]["accuracy_matched"] == pytest.approx(0.75)
    assert "by_legibility" not in doc  # no scene records, no split


def test_eval_cli_splits_cards_by_legibility_with_scene_records(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    tc.build_onnx(models)
    data = write_card_set(tmp_path / "set")
    objs = json.loads((data / "annotations.jsonl").read_text())["objects"]
    indices = []
    for k, o in enumerate(objs):
        x0, y0, x1, y1 = o["box"]
        if k == 3:  # the KC read unsurely as KD: a glyph of 6 px, too small to read
            y1 = y0 + 10.4
        quad = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
        indices.append({"face": o["face"], "indices": [{"quad_px": quad, "labelled": True, "object": k}]})
    scene = {"image": "images/000000.png", "sensor": {"defocus_px": 0.5},
             "card_deck": {"design": {"rank_mm": 7.5, "index_gap_mm": 0.5, "suit_mm": 5.0}}, "cards": indices}
    (data / "scenes.jsonl").write_text(json.dumps(scene) + "\n", encoding="utf-8")
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "legible    3 indices" in text and "illegible  1 indices: 0 read surely, 0 of them wrong (guessed); 1 flagged uncertain" in text
    split = json.loads((out / "metrics.json").read_text())["cards"]["by_legibility"]
    assert split["legible"]["rank"]["accuracy_all"] == 1.0 and split["legible"]["suit"]["accuracy_all"] == 1.0
    assert split["illegible"]["found"] == 1 and split["illegible"]["suit"]["right"] == 0
    assert split["all_legible_scenes"] == {"images": 0, "exact": 0}


def test_eval_cli_says_when_cards_are_not_scored(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")  # dice models only
    data = write_card_set(tmp_path / "set")
    assert main(["eval", str(data), "--models", str(models), "--out", str(tmp_path / "e")]) == 0
    assert "no card model is loaded" in capsys.readouterr().out


def test_eval_cli_counts_cards_read_on_a_set_without_cards(tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    tc.build_onnx(models)
    data = write_card_set(tmp_path / "set")
    line = json.loads((data / "annotations.jsonl").read_text())
    line["objects"] = []  # the same painted cards, unlabelled: every card read is a phantom
    (data / "annotations.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    out = tmp_path / "eval"
    assert main(["eval", str(data), "--models", str(models), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["cards"] is None
    assert doc["cards_read_unlabelled"] == {"read": 3, "read_surely": 2}  # QH and 7S sure, KD not
    assert "cards in set: none labelled, 3 read (false detections; 2 read surely)" in text
