"""The card half of the reader: corner indices, rank and suit, uncertainty, merging a card's corners."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.vision import tiny_card_reader as tc
from tests.vision import tiny_reader as tiny
import vision.read.card_outline
import vision.read.card_reader
from vision.read.card_reader import CardReader, CornerReadings, decided_by_corners, group_corners
from vision.read.detections import CARD_RANKS, CARD_SUITS, NOT_AN_INDEX, Detection
from vision.read.manifest import ClassifierSpec, ManifestError
from vision.read.policy import Mode
from vision.read.reader import DEFAULT_MODEL_DIR, DiceReader, Step, load_reader


def frame() -> np.ndarray:
    return tc.paint(tiny.scene())


def test_indices_read_rank_and_suit_one_by_one():
    indices = tc.fake_card_reader().read_indices(frame())
    assert [d.face for d in indices] == ["7S", "QH", "QH", "KD"]
    assert all(d.kind == "card" and d.colour is None for d in indices)
    assert [d.uncertain for d in indices] == [False, False, False, True]  # the near tie
    assert indices[1].score == pytest.approx(1.0, abs=1e-6)
    assert indices[3].score < 0.6  # rank and suit each about 1/3 sure
    np.testing.assert_allclose(indices[0].box, (40, 400, 52, 424), atol=0.6)


def test_unsure_box_is_uncertain_even_when_the_reading_is_clear():
    reader = tc.fake_card_reader()
    boxes = np.array([[0, 0, 10, 20]], np.float32)
    rank_p = np.eye(len(CARD_RANKS), dtype=np.float32)[:1]
    suit_p = np.array([[1, 0, 0, 0]], np.float32)
    (sure,) = reader.label(boxes, rank_p, suit_p, np.array([0.9], np.float32))
    (unsure,) = reader.label(boxes, rank_p, suit_p, np.array([0.3], np.float32))
    assert sure.face == unsure.face == "AS"
    assert not sure.uncertain and unsure.uncertain


def test_a_reader_with_cards_lists_dice_then_merged_cards():
    reader = DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier(), cards=tc.fake_card_reader())
    reading, indices = reader.read_detailed(frame())
    dice_only = DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier()).read(frame())
    assert reading.dice() == dice_only.objects and len(dice_only.objects) == 4
    cards = reading.cards()
    assert [c.face for c in cards] == ["7S", "QH", "KD"]
    qh = cards[1]
    assert qh.box == pytest.approx((400, 60, 482, 184), abs=0.6)  # both corners' union
    assert not qh.uncertain and cards[2].uncertain
    assert len(indices) == 4
    assert reader.read(frame()).objects == reading.objects
    assert reader.info["cards"]["threshold"] == 0.6


class _DiceClusterDetector(tc.FakeCardDetector):
    """The tiny card detector, taking also two of the tiny reader's dice for corner indices:
    the sure green 2 (read as a sure 7S, the real 7S's twin) and the grey die of unsure face."""

    ON_DICE = ((295, 190, 335, 250), (195, 290, 241, 350))

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        rows = [tiny._to_input(b) + [0.9] for b in self.ON_DICE]
        return [np.concatenate([tc.detector_output(), np.array(rows, np.float32).T[None]], axis=2)]


def test_an_index_that_holds_a_die_read_sure_is_no_index():
    cards = CardReader(tc.manifest(), _DiceClusterDetector(), tc.FakeCardClassifier())
    alone, _ = cards.read(frame())
    assert [(i.face, i.uncertain) for i in alone if i.box == pytest.approx(_DiceClusterDetector.ON_DICE[0], abs=0.6)] \
        == [("7S", False)]
    (joined,) = [c for c in cards.read(frame())[1] if c.face == "7S"]
    assert joined.box[2] > 300  # taken for the real 7S's far corner
    reader = DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier(), cards=cards)
    reading, indices = reader.read_detailed(frame())
    assert len(indices) == 5  # the four indices and the one on the unsure die
    assert not any(i.box == pytest.approx(_DiceClusterDetector.ON_DICE[0], abs=0.6) for i in indices)
    (seven,) = [c for c in reading.cards() if c.face == "7S"]
    assert seven.box[2] < 295 and not seven.uncertain  # the index on the unsure die may still be its corner
    assert reading.dice() == DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier()).read(frame()).objects


def test_card_threshold_override():
    lenient = tc.fake_card_reader(threshold=0.05)
    assert not any(d.uncertain for d in lenient.read_indices(frame()))
    with pytest.raises(ValueError):
        tc.fake_card_reader(threshold=1.5)


def test_card_manifest_must_name_ranks_and_suits():
    m = tc.manifest()
    bad = type(m)(m.detector, ClassifierSpec(file="x.onnx", faces=("1", "2"), colours=("S",)), m.threshold)
    with pytest.raises(ManifestError, match="ranks"):
        CardReader(bad, tc.FakeCardDetector(), tc.FakeCardClassifier())


def rejecting_reader() -> CardReader:
    m = tc.manifest()
    spec = ClassifierSpec(file=m.classifier.file, size=40, faces=(*CARD_RANKS, NOT_AN_INDEX), colours=m.classifier.colours)
    return CardReader(type(m)(m.detector, spec, m.threshold), tc.FakeCardDetector(), tc.FakeCardClassifier())


def test_a_box_read_as_no_index_is_dropped_and_its_doubt_lowers_the_others():
    reader = rejecting_reader()
    assert reader.rejects and reader.info["rejects_non_indices"] and not tc.fake_card_reader().rejects
    boxes = np.array([[0, 0, 10, 20], [50, 0, 60, 20], [100, 0, 110, 20]], np.float32)
    rank_p = np.zeros((3, len(CARD_RANKS) + 1), np.float32)
    rank_p[0, 0] = 1.0  # an ace, sure
    rank_p[1, -1], rank_p[1, 1] = 0.5, 0.5  # as likely no index as an index: dropped
    rank_p[2, 2], rank_p[2, 3], rank_p[2, 4], rank_p[2, -1] = 0.25, 0.2, 0.2, 0.35  # no index is likeliest, but
    # an index of some rank is likelier still: kept, as an uncertain three
    suit_p = np.tile(np.array([[1, 0, 0, 0]], np.float32), (3, 1))
    read = reader.label(boxes, rank_p, suit_p, np.full(3, 0.9, np.float32))
    assert [(d.face, d.uncertain) for d in read] == [("AS", False), ("3S", True)]
    assert read[1].score == pytest.approx(0.25)
    assert read[1].box == (100.0, 0.0, 110.0, 20.0)


def test_a_card_classifier_may_add_only_the_no_index_class():
    m = tc.manifest()
    for faces in ((*CARD_RANKS, "joker"), (NOT_AN_INDEX, *CARD_RANKS), (*CARD_RANKS, NOT_AN_INDEX, NOT_AN_INDEX)):
        bad = type(m)(m.detector, ClassifierSpec(file="x.onnx", faces=faces, colours=m.classifier.colours), m.threshold)
        with pytest.raises(ManifestError, match="ranks"):
            CardReader(bad, tc.FakeCardDetector(), tc.FakeCardClassifier())


def _d(face: str, x: float, y: float = 0.0, score: float = 0.99, uncertain: bool = False) -> Detection:
    return Detection("card", face, None, (x, y, x + 10, y + 20), score, uncertain)


def _corners(*indices: Detection) -> CornerReadings:
    """Corner readings as the card reader's classifier would give them: each index's score
    on its own rank and suit, the rest spread over the others."""
    rank_p = np.zeros((len(indices), len(CARD_RANKS)), np.float32)
    suit_p = np.zeros((len(indices), len(CARD_SUITS)), np.float32)
    for i, index in enumerate(indices):
        card = index.card
        rank_p[i] = (1 - index.score) / (len(CARD_RANKS) - 1)
        rank_p[i, card.rank_index] = index.score
        suit_p[i] = (1 - index.score) / (len(CARD_SUITS) - 1)
        suit_p[i, card.suit_index] = index.score
    return CornerReadings(tuple(indices), rank_p, suit_p)


def _merge(indices: Sequence[Detection], image: np.ndarray | None = None) -> tuple[Detection, ...]:
    """The cards the card reader makes of these index readings (with the frame, its outlines too)."""
    return tc.fake_card_reader().merge(_corners(*indices), image)


def test_merge_joins_corners_of_one_card_and_keeps_others_apart():
    cards = tc.fake_card_reader().merge(_corners(_d("QH", 0), _d("QH", 100, 50), _d("QS", 30)))
    assert sorted((c.face, c.box, c.uncertain) for c in cards) == [("QH", (0, 0, 110, 70), False),
                                                                    ("QS", (30, 0, 40, 20), False)]


def test_merge_one_sure_corner_makes_the_card_sure():
    reader = tc.fake_card_reader()
    (card,) = reader.merge(_corners(_d("9D", 0, score=0.5, uncertain=True), _d("9D", 60, score=0.97)))
    assert card.face == "9D" and not card.uncertain and card.score >= 0.97
    (both_unsure,) = reader.merge(_corners(_d("9D", 0, score=0.5, uncertain=True),
                                           _d("9D", 60, score=0.4, uncertain=True)))
    assert both_unsure.uncertain and both_unsure.score == pytest.approx(0.5)  # its best corner's, not the joint


def test_merge_flags_one_card_seen_twice_far_apart():
    cards = tc.fake_card_reader().merge(_corners(_d("AS", 0), _d("AS", 1000), _d("2C", 500)))
    assert sorted((c.face, c.uncertain) for c in cards) == [("2C", False), ("AS", True), ("AS", True)]


def test_merge_chains_three_corners_and_nothing_in_nothing_out():
    reader = tc.fake_card_reader()
    assert reader.merge(_corners()) == ()
    (card,) = reader.merge(_corners(_d("5C", 0), _d("5C", 400), _d("5C", 200)))  # 0-200-400 linked through the middle
    assert card.box == (0, 0, 410, 20)


def test_corners_at_known_boxes_read_as_found_ones():
    """``tableref eval --gt-boxes`` reads the labelled index boxes as the reader reads the
    boxes it finds, and merges them with the reader's own merge."""
    reader = tc.fake_card_reader()
    image = frame()
    found = reader.read_corners(image)
    at = reader.corners_at(image, np.array([i.box for i in found.indices], np.float32))
    assert [(i.face, i.uncertain) for i in at.indices] == [(i.face, i.uncertain) for i in found.indices]
    assert np.allclose(at.rank_p, found.rank_p) and np.allclose(at.suit_p, found.suit_p)
    assert reader.corners_at(image, np.zeros((0, 4), np.float32)).indices == ()


def test_load_reader_picks_up_the_card_models(tmp_path):
    pytest.importorskip("onnx")
    tiny.build_onnx(tmp_path)
    tc.build_onnx(tmp_path)
    reader = load_reader(tmp_path, backend="onnxruntime")
    assert reader.cards is not None
    assert [c.face for c in reader.read(frame()).cards()] == ["7S", "QH", "KD"]
    assert load_reader(tmp_path, backend="onnxruntime", cards=False).cards is None
    (tmp_path / "card-classifier.onnx").write_bytes(b"not a model")
    with pytest.raises(ManifestError, match="sha256"):
        load_reader(tmp_path, backend="onnxruntime")


def test_read_json_lists_cards(tmp_path, capsys):
    pytest.importorskip("onnx")
    import cv2

    from web.cli import main

    tiny.build_onnx(tmp_path / "models")
    tc.build_onnx(tmp_path / "models")
    cv2.imwrite(str(tmp_path / "t.png"), frame())
    assert main(["read", "--json", "--models", str(tmp_path / "models"), "--backend", "onnxruntime", str(tmp_path / "t.png")]) == 0
    out = json.loads(capsys.readouterr().out)
    cards = [o for o in out["objects"] if o["kind"] == "card"]
    assert [(c["face"], c["colour"], c.get("uncertain", False)) for c in cards] == [("7S", None, False), ("QH", None, False), ("KD", None, True)]


def test_plain_read_summary_lists_cards(tmp_path, capsys):
    pytest.importorskip("onnx")
    import cv2

    from web.cli import main

    tiny.build_onnx(tmp_path / "models")
    tc.build_onnx(tmp_path / "models")
    cv2.imwrite(str(tmp_path / "t.png"), frame())
    args = ["read", "--models", str(tmp_path / "models"), "--backend", "onnxruntime", str(tmp_path / "t.png")]
    assert main(args) == 0
    head, *rows = capsys.readouterr().out.splitlines()
    assert head.endswith("; 3 cards - 7S, QH, KD? (1 uncertain)")
    assert sum(" card " in r for r in rows) == 3
    assert main([*args, "--no-cards", "--json"]) == 0
    assert '"card"' not in capsys.readouterr().out


COMMITTED_CARDS = DEFAULT_MODEL_DIR / "card-reader.json"


@pytest.mark.skipif(not COMMITTED_CARDS.is_file(), reason="no trained card models in models/")
def test_committed_card_models_on_rendered_cards():
    """The committed card reader on four rendered rows of cards: it finds cards, and what it
    reads as sure is right (the renderer's labels are the truth)."""
    from vision.synth.card_scene import CardSceneConfig, render_card_scene
    from vision.synth.writer import scene_rng

    reader = load_reader()
    assert reader.cards is not None
    found = sure = total = 0
    config = CardSceneConfig(width=1280, height=720, layouts=("row", "single"), occluders=False, camera_effects=False)
    for i in range(4):
        scene = render_card_scene(scene_rng(99, i), config)
        truth = {o.face for o in scene.objects}
        total += len(truth)
        cards = reader.read(scene.image).cards()
        found += len({c.face for c in cards} & truth)
        for c in cards:
            assert c.face[:-1] in CARD_RANKS and c.face[-1] in "SHDC"
            if not c.uncertain:
                sure += 1
                assert c.face in truth, f"scene {i}: {c.face} read as sure, cards there: {sorted(truth)}"
    assert found >= 2 / 3 * total and sure >= 3  # measured: all 9 cards found, 6 read as sure


def test_an_index_is_read_at_the_manifests_quarter_turns():
    from dataclasses import replace

    class Counting(tc.FakeCardClassifier):
        def __init__(self) -> None:
            self.shapes: list[tuple[int, ...]] = []

        def run(self, x):
            self.shapes.append(tuple(x.shape))
            return super().run(x)

    m = tc.manifest()
    turned = replace(m, classifier=replace(m.classifier, turns=4))
    model = Counting()
    reader = CardReader(turned, tc.FakeCardDetector(), model)
    assert reader.turns == 4 and reader.info["classifier"]["turns"] == 4
    four = reader.read_indices(frame())
    assert model.shapes == [(16, 3, 40, 40)]  # 4 indices x 4 turns, one call
    assert [d.face for d in four] == [d.face for d in tc.fake_card_reader().read_indices(frame())]  # colour only: same
    once = reader.with_turns(1)
    once.read_indices(frame())
    assert model.shapes[-1] == (4, 3, 40, 40) and once.threshold == reader.threshold
    assert tc.fake_card_reader().turns == 1  # a manifest without turns reads each crop once
    with pytest.raises(ValueError, match="quarter turns"):
        reader.with_turns(0)


def test_bench_times_the_card_stages_with_and_without_turns(tmp_path, capsys):
    pytest.importorskip("onnx")
    import argparse

    import cv2

    from vision.evaluate import bench

    tiny.build_onnx(tmp_path)
    tc.build_onnx(tmp_path)
    path = tmp_path / "card-reader.json"
    data = json.loads(path.read_text())
    data["classifier"]["turns"] = 4
    data["detector"]["photo_imgsz"] = 448
    path.write_text(json.dumps(data))
    assert load_reader(tmp_path, backend="onnxruntime").cards.turns == 4
    assert load_reader(tmp_path, backend="onnxruntime", card_turns=1).cards.turns == 1  # eval --card-turns 1
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "scene.png"), frame())
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--models", str(tmp_path), "--images", str(frames), "--frames", "1", "--runs", "2",
                              "--warmup", "1", "--no-ultralytics", "--backend", "onnxruntime", "--json", str(tmp_path / "b.json")])
    assert bench.run(args) == 0
    out = capsys.readouterr().out
    assert "not at 4 quarter turns" in out and "as tableref read takes a photo" in out
    row = json.loads((tmp_path / "b.json").read_text())["sizes"]["1280x720_20_dice_3_cards"]
    assert row["onnxruntime-f32_cards_one_turn"]["median_ms"] > 0
    assert row["onnxruntime-f32_photo"]["median_ms"] > 0
    assert row["onnxruntime-f32_cards_photo"]["median_ms"] > 0
    assert "card indices found at 448, not 416" in out and "at the photo size 448" in out
    assert "without the card body classifier" not in out  # no body model: nothing to compare


def test_a_card_body_model_is_loaded_checked_and_benched(tmp_path, capsys):
    pytest.importorskip("onnx")
    import argparse

    import cv2

    from vision.evaluate import bench
    from vision.read.manifest import CARD_BODY_NAME

    tiny.build_onnx(tmp_path)
    tc.build_body(tc.build_onnx(tmp_path))
    reader = load_reader(tmp_path, backend="onnxruntime")
    assert reader.cards.body is not None and reader.cards.info["body"]["file"] == CARD_BODY_NAME
    assert reader.without_card_body().cards.body is None and reader.without_cards().without_card_body() is not None
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "scene.png"), frame())
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--models", str(tmp_path), "--images", str(frames), "--frames", "1", "--runs", "2",
                              "--warmup", "1", "--no-ultralytics", "--backend", "onnxruntime", "--json", str(tmp_path / "b.json")])
    assert bench.run(args) == 0
    assert "without the card body classifier" in capsys.readouterr().out
    row = json.loads((tmp_path / "b.json").read_text())["sizes"]["1280x720_20_dice_3_cards"]
    assert row["onnxruntime-f32_no_card_body"]["median_ms"] > 0
    (tmp_path / CARD_BODY_NAME).write_bytes(b"not the model")
    with pytest.raises(ManifestError, match="does not match the sha256"):
        load_reader(tmp_path, backend="onnxruntime")


class _SizeRecorder(tc.FakeCardDetector):
    """The fake detector, noting the input shape of each call."""

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.shapes.append(tuple(x.shape))
        return super().run(x)


def test_photos_are_detected_at_the_manifests_photo_size_live_frames_at_imgsz():
    from dataclasses import replace

    m = tc.manifest()
    photo = replace(m, detector=replace(m.detector, photo_imgsz=640))
    det = _SizeRecorder()
    live = CardReader(photo, det, tc.FakeCardClassifier())
    assert (live.imgsz, live.photo_imgsz) == (tiny.IMGSZ, 640)
    live.detect(frame())
    live.at_imgsz(live.photo_imgsz).detect(frame())
    assert [s[3] for s in det.shapes] == [tiny.IMGSZ, 640]  # the 640x480 frame's long side
    assert live.at_imgsz(tiny.IMGSZ) is live
    with pytest.raises(ValueError, match="multiple of 32"):
        live.at_imgsz(500)
    # without a photo size a photo is read as a live frame is
    assert tc.fake_card_reader().photo_imgsz == tiny.IMGSZ
    both = DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier(), cards=live)
    assert both.with_card_imgsz(None).cards.imgsz == 640
    assert both.with_card_imgsz(448).cards.imgsz == 448
    assert both.without_cards().with_card_imgsz(None).cards is None


def test_photo_size_is_kept_in_the_manifest_only_when_set():
    from dataclasses import replace

    from vision.read.manifest import DetectorSpec, ReaderManifest

    m = tc.manifest()
    assert "photo_imgsz" not in m.to_json()["detector"]  # older manifests stay byte for byte
    photo = replace(m, detector=replace(m.detector, photo_imgsz=704))
    assert ReaderManifest.from_json(photo.to_json()).detector.photo_imgsz == 704
    assert photo.detector.still_imgsz == 704 and m.detector.still_imgsz == m.detector.imgsz
    with pytest.raises(ManifestError, match="photo_imgsz must be a positive multiple of the stride 32"):
        DetectorSpec(imgsz=512, photo_imgsz=720)
    bad = photo.to_json()
    bad["detector"]["photo_imgsz"] = 0
    with pytest.raises(ManifestError, match="positive multiple"):
        ReaderManifest.from_json(bad)


def test_read_and_eval_refuse_a_card_size_the_detector_cannot_take(tmp_path, capsys):
    pytest.importorskip("onnx")
    import cv2

    from web.cli import main

    tiny.build_onnx(tmp_path / "models")
    tc.build_onnx(tmp_path / "models")
    cv2.imwrite(str(tmp_path / "t.png"), frame())
    args = ["--models", str(tmp_path / "models"), "--backend", "onnxruntime", "--card-imgsz", "500"]
    assert main(["read", *args, str(tmp_path / "t.png")]) == 2
    assert "--card-imgsz 500: card detector input size must be a positive multiple of 32" in capsys.readouterr().err
    assert main(["read", "--json", "--models", str(tmp_path / "models"), "--backend", "onnxruntime", "--card-imgsz", "416",
                 str(tmp_path / "t.png")]) == 0
    assert [o["face"] for o in json.loads(capsys.readouterr().out)["objects"] if o["kind"] == "card"] == ["7S", "QH", "KD"]



def test_committed_card_model_reads_photos_at_the_frames_size():
    """A larger photo input (704) found more indices but read no more cards surely, with as
    many sure mistakes more, at a fifth more time a photo (models/MODEL_CARD.md)."""
    if not (DEFAULT_MODEL_DIR / "card-reader.json").is_file():
        pytest.skip("no committed card model")
    cards = load_reader(cards=True).cards
    assert cards is not None
    assert cards.imgsz == cards.photo_imgsz == 640 and cards.rejects


# -- one card, two corners that read differently ------------------------------------------

def _card_scene() -> tuple[np.ndarray, tuple[float, float, float, float], tuple[float, float, float, float]]:
    from tests.vision.read.test_card_outline import draw_card, table

    img = table()
    a, b = draw_card(img, (320, 240), 110, 15.0)
    return img, a, b


def _probs(rank: str, p_rank: float, suit: str, p_suit: float) -> tuple[np.ndarray, np.ndarray]:
    r = np.full(len(CARD_RANKS), (1 - p_rank) / (len(CARD_RANKS) - 1))
    r[CARD_RANKS.index(rank)] = p_rank
    s = np.full(4, (1 - p_suit) / 3)
    s["SHDC".index(suit)] = p_suit
    return r, s


def _reader_seeing(boxes, readings) -> CardReader:
    """The tiny card reader, its detector and classifier replaced by fixed boxes and readings."""
    from vision.read.detections import Detections

    reader = tc.fake_card_reader(threshold=0.8)
    ranks, suits = zip(*(_probs(*r) for r in readings))
    reader.detect = lambda image, photo=False: Detections(np.array(boxes, np.float32), np.full(len(boxes), 0.9, np.float32))  # type: ignore[method-assign]
    reader.classify = lambda image, b: (np.array(ranks), np.array(suits))  # type: ignore[method-assign]
    return reader


def test_disagreeing_corners_of_one_card_are_one_card_only_with_the_frame():
    img, a, b = _card_scene()
    sure = Detection("card", "5H", None, a, 0.95)
    unsure = Detection("card", "3H", None, b, 0.45, uncertain=True)
    assert len(_merge((sure, unsure))) == 2  # by readings alone: two cards
    (card,) = _merge((sure, unsure), img)
    assert card.face == "5H" and not card.uncertain  # the unsure corner leaves room for a 5: the product is sure
    both_sure = (sure, Detection("card", "3H", None, b, 0.9))
    assert len(_merge(both_sure, img)) == 2  # two sure readings are two cards


def test_two_sure_corners_of_one_rank_in_two_suits_are_one_card_with_its_suit_open():
    img, a, b = _card_scene()
    corners = (Detection("card", "5C", None, a, 0.95), Detection("card", "5S", None, b, 0.9))
    assert len(_merge(corners)) == 2  # by readings alone: two cards
    (card,) = _merge(corners, img)
    assert card.face == "5C" and card.uncertain
    red = (corners[0], Detection("card", "5H", None, b, 0.9))
    assert len(_merge(red, img)) == 2  # a suit's colour is read right: two sure cards


def test_two_cards_each_read_alike_at_two_sure_corners_stay_two_cards(monkeypatch):
    from tests.vision.read.test_card_outline import _side_by_side

    # Two tens side by side, their papers touching: with no gap to split them, their paper
    # is one card's shape, whose opposite corners hold the 10S's first and the 10C's second.
    monkeypatch.setattr("vision.read.card_outline.SPLIT_SHARE", 2.0)
    img, (s1, s2), (c1, c2) = _side_by_side(4.0, 30.0)
    assert vision.read.card_outline.same_card(img, s1, c2)
    spades = [Detection("card", "10S", None, box, 0.95) for box in (s1, s2)]
    clubs = [Detection("card", "10C", None, box, 0.95) for box in (c1, c2)]
    cards = _merge((spades[0], clubs[1], spades[1], clubs[0]), img)
    assert sorted(c.face for c in cards) == ["10C", "10S"] and not any(c.uncertain for c in cards)
    # One sure corner of each is still paired by the outline: it may be one card whose
    # small suit one corner misread.
    (card,) = _merge((spades[0], clubs[1]), img)
    assert card.uncertain
    # An unsure corner is too, but for the sure corner between the cards.
    unsure = replace(clubs[1], score=0.6, uncertain=True)
    (card,) = _merge((spades[0], unsure), img)
    assert card.face == "10S"
    assert len(_merge((spades[0], unsure, spades[1]), img)) == 2


def test_an_outline_with_a_sure_index_midway_along_it_pairs_no_corners(monkeypatch):
    from tests.vision.read.test_card_outline import _side_by_side

    monkeypatch.setattr("vision.read.card_outline.SPLIT_SHARE", 2.0)
    img, (s1, s2), (c1, c2) = _side_by_side(4.0, 30.0)
    # The 10S's second corner misread surely as the 10C: the lone 10S and the 10C's far
    # corner sit at opposite corners of the two cards' joint outline, with the two corners
    # between the cards midway along its long sides.
    corners = (Detection("card", "10S", None, s1, 0.95), *(Detection("card", "10C", None, b, 0.95) for b in (s2, c1, c2)))
    assert sorted(c.face for c in _merge(corners, img)) == ["10C", "10S"]
    # An unsure one there (a pip taken for an index) leaves one card's corners paired.
    one, a, b = _card_scene()
    middle = (315.0, 230.0, 325.0, 250.0)
    found = [Detection("card", "5C", None, a, 0.95), Detection("card", "5S", None, b, 0.9),
             Detection("card", "8S", None, middle, 0.5, uncertain=True)]
    assert sorted(group_corners(found, image=one)) == [[0, 1], [2]]
    assert sorted(group_corners([*found[:2], replace(found[2], score=0.9, uncertain=False)], image=one)) == [[0], [1], [2]]


def test_reader_reads_one_card_from_both_corners():
    img, a, b = _card_scene()
    # A sure 5H and an unsure corner leaning 3H that leaves room for 5: one sure 5H.
    reader = _reader_seeing([a, b], [("5", 0.95, "H", 0.99), ("3", 0.45, "H", 0.9)])
    indices, cards = reader.read(img)
    assert [d.face for d in indices] == ["5H", "3H"] and indices[1].uncertain
    (card,) = cards
    assert card.face == "5H" and not card.uncertain and card.score > 0.8
    # A corner nearly sure of another card makes it uncertain, still one card.
    reader = _reader_seeing([a, b], [("5", 0.95, "H", 0.99), ("3", 0.79, "D", 0.99)])
    (card,) = reader.read(img)[1]
    assert card.uncertain


def test_corners_that_read_different_suits_make_an_uncertain_card():
    img, a, b = _card_scene()
    # a sure 5S and an unsure 5C: the product is sure of spades, but at 640x480 the corner
    # read surely was the wrong one in both wrong validation reveals (see the model card)
    reader = _reader_seeing([a, b], [("5", 0.99, "S", 0.98), ("5", 0.9, "C", 0.6)])
    indices, (card,) = reader.read(img)
    assert [d.face for d in indices] == ["5S", "5C"] and not indices[0].uncertain and indices[1].uncertain
    assert card.face == "5S" and card.score > 0.8 and card.uncertain
    assert card.alternatives[0] == "5S" and "5C" in card.alternatives  # each corner's suit may be the true one
    # the same suit at both corners, ranks apart: the product decides, as before
    reader = _reader_seeing([a, b], [("5", 0.99, "S", 0.98), ("3", 0.45, "S", 0.9)])
    (card,) = reader.read(img)[1]
    assert card.face == "5S" and not card.uncertain


def test_two_unsure_corners_that_agree_stay_uncertain():
    img, a, b = _card_scene()
    reader = _reader_seeing([a, b], [("7", 0.75, "S", 0.95), ("7", 0.75, "S", 0.95)])
    indices, (card,) = reader.read(img)
    assert all(d.uncertain for d in indices)
    assert card.face == "7S" and card.uncertain
    assert card.score == pytest.approx(max(d.score for d in indices))


def test_reader_read_is_its_corners_merged():
    reader = tc.fake_card_reader()
    indices, cards = reader.read(frame())
    assert indices == reader.read_indices(frame())
    assert cards == reader.merge(reader.read_corners(frame()), frame())


def test_a_card_manifest_naming_a_specialist_is_refused():
    """The card reader asks no specialist (a suit specialist read no better than the suit
    head): a manifest naming one for the suits is malformed, as specialists name only the
    classifier's first head's classes; one for some ranks is refused by the card reader
    rather than read without it."""
    suits = ClassifierSpec(file="card-suit-specialist.onnx", size=40, faces=("S", "H", "D", "C"), turns=4)
    with pytest.raises(ManifestError, match="two or more of the classifier's faces; got \\['S', 'H', 'D', 'C'\\]"):
        replace(tc.manifest(), specialists=(suits,))
    ranks = ClassifierSpec(file="card-rank-specialist.onnx", size=40, faces=("6", "9"), turns=4)
    m = replace(tc.manifest(), specialists=(ranks,))
    with pytest.raises(ManifestError, match="has no specialists; the card manifest names card-rank-specialist.onnx"):
        CardReader(m, tc.FakeCardDetector(), tc.FakeCardClassifier())
    assert "specialists" not in tc.fake_card_reader().info


# -- close-ups: indices too large for the detector ------------------------------------------

class _LargeIndexDetector:
    """Finds one large corner index (150 px in a 640x480 frame) only when the frame is
    letterboxed to half the tiny reader's input size, as the real detector finds indices
    only up to about 64 px at its input; notes each call's input shape."""

    backend, version = "numpy", "test"
    BOX = (400.0, 100.0, 490.0, 250.0)  # clear of the tiny reader's dice (a card index holds none)

    def __init__(self) -> None:
        self.shapes: list[tuple[int, ...]] = []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        from vision.read.boxes import letterbox

        self.shapes.append(tuple(x.shape))
        rows = []
        if max(x.shape[2:]) < tiny.IMGSZ:
            lb = letterbox(np.zeros((tiny.FRAME_H, tiny.FRAME_W, 3), np.uint8), tiny.IMGSZ // 2)
            x0, y0, x1, y1 = self.BOX
            rows.append([(x0 + x1) / 2 * lb.scale + lb.pad_x, (y0 + y1) / 2 * lb.scale + lb.pad_y,
                         (x1 - x0) * lb.scale, (y1 - y0) * lb.scale, 0.9])
        return [np.array(rows, np.float32).reshape(-1, 5).T[None]]


def _without(cards: CardReader, **detector: object) -> CardReader:
    """``cards`` with some of its detector's settings changed (say, a pass turned off)."""
    from dataclasses import replace

    spec = replace(cards.manifest.detector, **detector)
    return CardReader(replace(cards.manifest, detector=spec), cards.detector, cards.classifier, cards.threshold,
                      body=cards.body)


def _zooming_card_reader(zoom_out_above: int | None) -> tuple[CardReader, _LargeIndexDetector]:
    from dataclasses import replace

    m = tc.manifest()
    det = _LargeIndexDetector()
    return CardReader(replace(m, detector=replace(m.detector, zoom_out_above=zoom_out_above)), det, tc.FakeCardClassifier()), det


def test_a_photo_whose_indices_are_too_large_for_the_detector_is_looked_at_zoomed_out():
    reader, det = _zooming_card_reader(32)
    indices, cards = reader.read(frame(), photo=True)
    assert [tuple(round(v) for v in i.box) for i in indices] == [_LargeIndexDetector.BOX]
    assert len(cards) == 1
    assert [s[3] for s in det.shapes] == [tiny.IMGSZ, 224]  # half of 416, padded to the stride


def test_a_live_frame_without_indices_or_a_reader_without_the_setting_is_detected_once():
    live, det = _zooming_card_reader(32)
    assert live.read(frame()) == ((), ())  # a live frame with no index is a dice table or an empty one
    assert len(det.shapes) == 1
    off, det = _zooming_card_reader(None)
    assert off.read(frame(), photo=True) == ((), ())
    assert len(det.shapes) == 1


def test_only_a_photo_looks_for_cards_again_zoomed_out():
    from tests.vision.tiny_reader import FakeClassifier, FakeDetector

    cards, det = _zooming_card_reader(32)
    reader = DiceReader(tiny.manifest(), FakeDetector(), FakeClassifier(), cards=cards)
    assert reader.read(frame()).cards() == ()
    assert len(reader.in_mode(Mode.PHOTO).read(frame()).cards()) == 1
    assert [s[3] for s in det.shapes] == [tiny.IMGSZ, tiny.IMGSZ, 224]


@pytest.mark.skipif(not COMMITTED_CARDS.is_file(), reason="no trained card models in models/")
def test_committed_card_reader_reads_a_close_up_whose_indices_it_misses_at_full_size():
    """A quarter of a 2560x1920 render (validation seed 71, scene 8): two cards whose indices
    are about 100 px at the photo size, larger than any the detector learnt. The committed
    manifest's zoomed-out look finds and reads both; without it none is found."""

    from vision.synth.card_scene import CardSceneConfig, render_card_scene
    from vision.synth.closeups import window_for
    from vision.synth.writer import scene_rng

    scene = render_card_scene(scene_rng(71, 8), CardSceneConfig(width=2560, height=1920))
    x0, y0, w, h = window_for([o.box for o in scene.objects], 2560, 1920, 4.0)
    close_up = np.ascontiguousarray(scene.image[y0:y0 + h, x0:x0 + w])
    cards = load_reader(cards=True).with_card_imgsz(None).cards
    assert cards is not None and cards.manifest.detector.zoom_out_above == 32  # chosen on validation renders
    sure = sorted(c.face for c in cards.read(close_up, photo=True)[1] if not c.uncertain)
    assert sure == ["4S", "9C"]
    assert _without(cards, zoom_out_above=None).read(close_up, photo=True) == ((), ())


class _SmallIndexDetector(_LargeIndexDetector):
    """Finds one 40 px index of a 1800x2400 photo only when the photo is letterboxed to
    twice the tiny reader's input size (at 416 it would be 7 px, under what the real
    detector finds)."""

    BOX = (1000.0, 800.0, 1030.0, 840.0)
    SHAPE = (1800, 2400)

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        from vision.read.boxes import letterbox

        self.shapes.append(tuple(x.shape))
        rows = []
        if max(x.shape[2:]) >= 2 * tiny.IMGSZ:
            lb = letterbox(np.zeros((*self.SHAPE, 3), np.uint8), 2 * tiny.IMGSZ)
            x0, y0, x1, y1 = self.BOX
            rows.append([(x0 + x1) / 2 * lb.scale + lb.pad_x, (y0 + y1) / 2 * lb.scale + lb.pad_y,
                         (x1 - x0) * lb.scale, (y1 - y0) * lb.scale, 0.9])
        return [np.array(rows, np.float32).reshape(-1, 5).T[None]]


def test_a_wide_photo_whose_indices_are_too_small_for_the_detector_is_looked_at_zoomed_in():
    from dataclasses import replace

    m = tc.manifest()
    det = _SmallIndexDetector()
    reader = CardReader(replace(m, detector=replace(m.detector, zoom_out_above=32, zoom_in_below=12)), det, tc.FakeCardClassifier())
    photo = np.zeros((*_SmallIndexDetector.SHAPE, 3), np.uint8)
    assert [tuple(round(v) for v in i.box) for i in reader.read(photo, photo=True)[0]] == [_SmallIndexDetector.BOX]
    assert [s[3] for s in det.shapes] == [416, 224, 832]  # nothing found: zoomed out, then in
    det.shapes.clear()
    assert reader.read(photo) == ((), ())  # a live frame is never looked at closer
    assert [s[3] for s in det.shapes] == [416]


@pytest.mark.skipif(not COMMITTED_CARDS.is_file(), reason="no trained card models in models/")
def test_committed_card_reader_reads_a_wide_photo_whose_indices_it_misses_at_the_photo_size():
    """A 2560x1920 render (validation seed 71, scene 6) set four times side by side: a
    5120x3840 photo whose indices are about 5 px at the photo size of 640. The committed
    manifest's closer look reads all twelve surely; without it none is read surely."""

    from vision.synth.card_scene import CardSceneConfig, render_card_scene
    from vision.synth.writer import scene_rng

    scene = render_card_scene(scene_rng(71, 6), CardSceneConfig(width=2560, height=1920))
    wide = np.vstack([np.hstack([scene.image, scene.image])] * 2)
    cards = load_reader(cards=True).with_card_imgsz(None).cards
    assert cards is not None and cards.manifest.detector.zoom_in_below == 12  # chosen on validation mosaics
    sure = [i.face for i in cards.read(wide, photo=True)[0] if not i.uncertain]
    assert len(sure) == 4 * len(scene.objects) == 12
    assert sorted(set(sure)) == sorted({o.face for o in scene.objects}) == ["6H", "AS"]
    assert not [i for i in _without(cards, zoom_in_below=None).read(wide, photo=True)[0] if not i.uncertain]


def test_an_index_unsure_of_its_reading_alone_lists_the_cards_it_may_show():
    indices = tc.fake_card_reader().read_indices(frame())
    assert [d.alternatives for d in indices[:3]] == [(), (), ()]  # sure
    near_tie = indices[3]
    assert near_tie.uncertain and near_tie.alternatives[0] == near_tie.face and len(near_tie.alternatives) > 1
    # a box the detector doubts lists none, however clear its reading
    reader = tc.fake_card_reader()
    boxes = np.array([[0, 0, 10, 20]], np.float32)
    rank_p = np.full((1, len(CARD_RANKS)), 0.5 / 12, np.float32)
    rank_p[0, 0] = 0.5
    suit_p = np.array([[1, 0, 0, 0]], np.float32)
    (doubted,) = reader.label(boxes, rank_p, suit_p, np.array([0.3], np.float32))
    (clear_box,) = reader.label(boxes, rank_p, suit_p, np.array([0.9], np.float32))
    assert doubted.uncertain and doubted.alternatives == ()
    assert clear_box.uncertain and clear_box.alternatives[0] == "AS"


def test_a_card_seen_twice_lists_no_alternatives():
    from vision.read.card_reader import _one_deck

    unsure = Detection("card", "AS", None, (0, 0, 10, 20), 0.6, True, alternatives=("AS", "AC"))
    far = Detection("card", "AS", None, (900, 0, 910, 20), 0.6, True, alternatives=("AS", "AH"))
    other = Detection("card", "2C", None, (400, 0, 410, 20), 0.6, True, alternatives=("2C", "2S"))
    cards = _one_deck([unsure, far, other], 0.8)
    assert [(c.face, c.alternatives) for c in cards] == [("AS", ()), ("2C", ("2C", "2S")), ("AS", ())]


TRAY_PHOTO = Path(__file__).resolve().parents[4] / "shared" / "data" / "real-dice-tray" / "images" / "train" / "IMG_20191208_111316.jpg"


@pytest.mark.skipif(not COMMITTED_CARDS.is_file(), reason="no trained card models in models/")
@pytest.mark.skipif(not TRAY_PHOTO.is_file(), reason="no real dice tray photos beside the repository")
def test_the_committed_reader_reads_no_card_on_a_tray_of_dice():
    """A real photo of two dozen dice and no card, where the card reader keeps a cluster of dice
    as a corner index, though its classifier learnt on the tray's photos that most such boxes
    are no index: the rule on sure dice (the cross-checks) drops it."""
    import cv2

    reader = load_reader(cards=True).in_mode(Mode.PHOTO).with_card_imgsz(None)  # as tableref read reads it
    photo = cv2.imread(str(TRAY_PHOTO))
    corners = reader.cards.read_corners(photo, photo=True)
    assert len(corners.indices) >= 1
    unchecked, _ = reader.without(Step.CROSS_CHECKS).read_detailed(photo)
    assert unchecked.cards()  # without the rule, a cluster of dice shows as a card
    reading, indices = reader.read_detailed(photo)
    assert reading.cards() == () and indices == ()
    assert len(reading.dice()) >= 10


def test_doctests() -> None:
    import doctest

    for module in (vision.read.card_reader, vision.read.card_outline):
        assert doctest.testmod(module).failed == 0, module.__name__


def corner(face: str, x: float, y: float, score: float = 0.99) -> Detection:
    return Detection("card", face, None, (x - 5, y - 10, x + 5, y + 10), score, uncertain=score < 0.8)


def test_two_sure_corners_that_agree_decide_a_card_alone():
    pair = [corner("7S", 10, 10), corner("7S", 70, 110)]
    assert decided_by_corners([0, 1], pair)
    assert decided_by_corners([0, 1], [*pair, corner("4D", 400, 300, 0.5)])  # another card far off


def test_a_card_is_not_decided_by_one_corner_an_unsure_one_or_two_readings():
    assert not decided_by_corners([0], [corner("7S", 10, 10)])
    assert not decided_by_corners([0, 1], [corner("7S", 10, 10), corner("7S", 70, 110, 0.6)])
    assert not decided_by_corners([0, 1], [corner("7S", 10, 10), corner("7C", 70, 110)])


def test_an_index_of_another_group_on_the_card_leaves_it_to_the_outline():
    pair = [corner("7S", 10, 10), corner("7S", 70, 110)]
    assert not decided_by_corners([0, 1], [*pair, corner("8S", 40, 60, 0.5)])  # a pip in the middle
    assert not decided_by_corners([0, 1], [*pair, corner("2H", 95, 125)])  # a neighbour's corner beside it
