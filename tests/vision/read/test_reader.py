"""The runtime reader end to end: numpy twins, hand-built ONNX on every backend, real models."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.read.backends import BackendUnavailable, available_backends, load_model
from vision.read.detections import DIE_FACES, NOT_AN_INDEX, Reading
from vision.read.manifest import ClassifierSpec, ManifestError, ReaderManifest
from vision.read.policy import Mode
from vision.read.reader import DEFAULT_MODEL_DIR, DiceReader, InvalidImage, Step, as_bgr, load_reader
from vision.read.vocabulary import Vocabulary

EXPECTED = [  # left to right: (face, colour, uncertain)
    ("プ", "blue", False),
    ("grey-tie", None, True),
    ("2", "green", False),
    ("wheel", "red", True),  # clear face, but the detector was unsure it is a die
]


def check_reading(reading: Reading) -> None:
    assert (reading.width, reading.height) == (640, 480)
    assert reading.ms > 0
    dice = reading.dice()
    assert len(dice) == 4, [d.box for d in dice]  # duplicate suppressed, noise dropped
    by_x = sorted(tiny.DICE, key=lambda d: d[0][0] + d[0][2])
    for det, (box, _, _), (face, colour, uncertain) in zip(dice, by_x, EXPECTED):
        assert det.kind == "die"
        assert det.box == pytest.approx(box, abs=0.6)
        assert 0.0 <= det.score <= 1.0
        assert det.uncertain is uncertain
        if face == "grey-tie":
            assert det.score == pytest.approx(1 / 3, abs=0.02)
            assert det.face in tiny.CHANNEL_FACE
        else:
            assert det.face == face and det.colour == colour
            assert det.score > 0.99


def test_fake_reader_reads_the_scene():
    reader = tiny.fake_reader()
    check_reading(reader.read(tiny.scene()))
    shape, dtype, lo, hi = reader.detector.inputs[-1]
    assert shape == (1, 3, 320, 416) and dtype == "float32" and 0.0 <= lo <= hi <= 1.0
    # one batched call for all dice
    assert reader.classifier.calls == [(4, 3, 48, 48)]


def test_threshold_override_changes_only_the_flags():
    low = tiny.fake_reader(threshold=0.2).read(tiny.scene())
    # the grey tie (score 1/3) is now confident; the red die stays uncertain (detector 0.40 < 0.5)
    assert [d.uncertain for d in low.dice()] == [False, False, False, True]
    with pytest.raises(ValueError):
        tiny.fake_reader(threshold=1.5)


def test_empty_frame_skips_the_classifier():
    fake = tiny.fake_reader()
    manifest = ReaderManifest(tiny.manifest().detector.__class__(imgsz=416, conf_threshold=0.99),
                              tiny.manifest().classifier)
    reader = DiceReader(manifest, fake.detector, fake.classifier)
    reading = reader.read(tiny.scene())
    assert reading.objects == () and reader.classifier.calls == []


def test_reading_json_matches_the_contract():
    out = tiny.fake_reader().read(tiny.scene()).to_json(image="x.jpg")
    assert list(out) == ["image", "width", "height", "ms", "objects"]
    first = out["objects"][0]
    assert set(first) == {"kind", "face", "colour", "box", "score"}
    assert out["objects"][3]["uncertain"] is True
    json.dumps(out, ensure_ascii=False)


def test_as_bgr_accepts_grey_and_bgra_and_rejects_others():
    assert as_bgr(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert as_bgr(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    for bad in (np.zeros((4, 5, 3), np.float32), np.zeros((4, 5, 2), np.uint8), np.zeros((0, 5, 3), np.uint8), "img"):
        with pytest.raises(InvalidImage):
            as_bgr(bad)  # type: ignore[arg-type]


def test_grey_frame_is_read():
    reading = tiny.fake_reader().read(cv2.cvtColor(tiny.scene(), cv2.COLOR_BGR2GRAY))
    assert len(reading.dice()) == 4


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory) -> Path:
    pytest.importorskip("onnx")
    return tiny.build_onnx(tmp_path_factory.mktemp("tiny-models"))


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_onnx_reader_on_each_backend(tiny_dir, backend):
    if backend not in available_backends():
        pytest.skip(f"{backend} not installed")
    reader = load_reader(tiny_dir, backend=backend, threads=1, precision="f32")
    assert reader.info["backend"] == backend and reader.info["precision"] == "f32"
    check_reading(reader.read(tiny.scene()))
    # a second frame size recompiles (OpenVINO) or reshapes (onnxruntime) transparently
    big = cv2.resize(tiny.scene(), (1280, 960), interpolation=cv2.INTER_NEAREST)
    assert len(reader.read(big).dice()) == 4


def test_backends_agree_with_numpy_twin(tiny_dir):
    x = np.random.default_rng(0).random((5, 3, 48, 48), dtype=np.float32)
    want = tiny.FakeClassifier().run(x)
    for backend in available_backends():
        got = load_model(tiny_dir / "dice-classifier.onnx", backend, threads=1, static=False, precision="f32").run(x)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, atol=1e-5)
    if "openvino" in available_backends():  # reduced precision stays close (bf16 where the CPU has it)
        got = load_model(tiny_dir / "dice-classifier.onnx", "openvino", threads=1, static=False).run(x)
        np.testing.assert_allclose(got[0], want[0], atol=0.05)
    with pytest.raises(ValueError):
        load_model(tiny_dir / "dice-classifier.onnx", precision="int3")


def test_auto_backend_and_info(tiny_dir):
    reader = load_reader(tiny_dir)
    info = reader.info
    assert info["backend"] == available_backends()[0]
    assert info["detector"]["sha256"] and info["classifier"]["sha256"]
    assert info["colours"] == list(tiny.COLOURS) and len(info["faces"]) == 16
    assert json.dumps(info)


def test_manifest_problems_are_reported(tiny_dir, tmp_path):
    with pytest.raises(ManifestError, match="no model manifest"):
        load_reader(tmp_path)
    for name in ("dice-reader.json", "dice-detector.onnx", "dice-classifier.onnx"):
        (tmp_path / name).write_bytes((tiny_dir / name).read_bytes())
    (tmp_path / "dice-classifier.onnx").write_bytes(b"tampered")
    with pytest.raises(ManifestError, match="sha256"):
        load_reader(tmp_path)
    (tmp_path / "dice-classifier.onnx").unlink()
    with pytest.raises(ManifestError, match="missing"):
        load_reader(tmp_path)
    (tmp_path / "dice-classifier.onnx").write_bytes((tiny_dir / "dice-classifier.onnx").read_bytes())
    m = ReaderManifest.load(tmp_path / "dice-reader.json")
    ReaderManifest(m.detector, m.classifier, m.threshold,
                   (ClassifierSpec(file="dice-specialist.onnx", size=48, faces=("プ", "2")),)).save(tmp_path / "dice-reader.json")
    with pytest.raises(ManifestError, match="specialist model .* is missing"):
        load_reader(tmp_path)
    (tmp_path / "dice-reader.json").write_text("{not json")
    with pytest.raises(ManifestError):
        load_reader(tmp_path)
    with pytest.raises(BackendUnavailable):
        load_model(tiny_dir / "dice-detector.onnx", backend="tensorflow")


def test_a_specialist_in_the_manifest_is_loaded_used_and_benched(tiny_dir, tmp_path, capsys):
    import shutil

    models = tmp_path / "models"
    shutil.copytree(tiny_dir, models)
    tiny.build_specialist(models)
    reader = load_reader(models, threads=1, precision="f32")
    [info] = reader.info["specialists"]
    assert info["faces"] == ["プ", "2"] and info["sha256"]
    faces = [d.face for d in reader.read(tiny.scene()).dice()]
    assert faces[0] == "2" and [d.face for d in reader.without_specialists().read(tiny.scene()).dice()][0] == "プ"
    row = bench_tiny(models, tmp_path)
    assert "without the specialists: プ/2" in capsys.readouterr().out
    assert "onnxruntime-f32_no_specialists" in row


def bench_tiny(models: Path, tmp_path: Path) -> dict:
    """``tableref bench`` on the tiny scene with ``models``: its 640x480 row from the JSON."""
    import argparse

    from vision.evaluate import bench

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "scene.png"), tiny.scene())
    args = parser.parse_args(["--models", str(models), "--images", str(frames), "--frames", "1", "--runs", "2",
                              "--warmup", "1", "--no-ultralytics", "--backend", "onnxruntime", "--json", str(tmp_path / "b.json")])
    assert bench.run(args) == 0
    sizes = json.loads((tmp_path / "b.json").read_text())["sizes"]
    live15 = sizes["640x480_15_dice"]  # the live target's frame, rendered
    assert live15["dice"] == 15 and live15["onnxruntime-f32"]["median_ms"] > 0 and live15["onnxruntime-f32_photo"]["runs"] > 0
    return sizes["640x480"]


COMMITTED = DEFAULT_MODEL_DIR / "dice-reader.json"
REAL_TEST = Path(__file__).resolve().parents[4] / "shared" / "data" / "real-dice-tray" / "images" / "test"


@pytest.mark.skipif(not COMMITTED.is_file(), reason="no trained models in models/")
def test_committed_models_read_a_real_photo():
    reader = load_reader()
    photos = sorted(REAL_TEST.glob("*.jpg"))[:2] if REAL_TEST.is_dir() else []
    frames = [cv2.imread(str(p)) for p in photos] or [np.full((480, 640, 3), 90, np.uint8)]
    for frame in frames:
        reading = reader.read(frame)
        assert (reading.width, reading.height) == (frame.shape[1], frame.shape[0])
        for d in reading.dice():
            assert d.face in reader.manifest.classifier.faces
            assert 0 <= d.box[0] <= d.box[2] <= frame.shape[1] and 0 <= d.box[1] <= d.box[3] <= frame.shape[0]
            assert 0.0 <= d.score <= 1.0
            if not d.uncertain:
                assert d.score >= reader.threshold


@pytest.mark.skipif(not COMMITTED.is_file() or not REAL_TEST.is_dir(), reason="no trained models or tray photos")
def test_the_committed_second_opinion_agrees_with_the_classifier_where_it_is_sure():
    """A trained second opinion, not a placeholder: on real photos it names the face the
    classifier reads at 0.95 or more nearly every time."""
    from vision.read.stages import classify_crops

    reader = load_reader()
    spec = reader.manifest.second_opinion
    assert spec is not None and reader.second_opinion is not None
    agree = total = 0
    for path in sorted(REAL_TEST.glob("*.jpg"))[:6]:
        frame = cv2.imread(str(path))
        boxes = reader.detect(frame).boxes
        first, _ = classify_crops(reader.classifier, reader.manifest.classifier, frame, boxes)
        second, _ = classify_crops(reader.second_opinion, spec, frame, boxes)
        sure = first.max(axis=1) >= 0.95
        agree += int((first.argmax(axis=1) == second.argmax(axis=1))[sure].sum())
        total += int(sure.sum())
    assert total >= 20 and agree >= 0.95 * total


def test_a_second_opinion_is_asked_about_unsure_dice_when_a_look_is_taken(tiny_dir, tmp_path):
    import shutil

    models = tmp_path / "models"
    shutil.copytree(tiny_dir, models)
    tiny.build_second_opinion(models)
    reader = load_reader(models, threads=1, precision="f32")
    assert reader.info["second_opinion"]["below"] == 0.9 and reader.info["second_opinion"]["sha256"]
    plain = [(d.face, round(d.score, 2)) for d in reader.read(tiny.scene()).dice()]
    looked = [(d.face, round(d.score, 2)) for d in reader.in_mode(Mode.PHOTO).read(tiny.scene()).dice()]
    alone = [(d.face, round(d.score, 2)) for d in
             reader.without_second_opinion().in_mode(Mode.PHOTO).read(tiny.scene()).dice()]
    grey = next(i for i, (face, score) in enumerate(alone) if score < 0.5)
    # A live frame (no look) never asks it; with a look only the unsure grey die is asked,
    # and the two readings are averaged: the second opinion's sure 3 against a three-way tie.
    assert plain == alone
    assert looked[grey][0] == tiny.SECOND_OPINION_FACE and looked[grey][1] == pytest.approx(0.5, abs=0.02)
    assert [r for i, r in enumerate(looked) if i != grey] == [r for i, r in enumerate(alone) if i != grey]


def test_the_bench_times_the_photo_reads_without_the_second_opinion(tiny_dir, tmp_path, capsys):
    import shutil

    models = tmp_path / "models"
    shutil.copytree(tiny_dir, models)
    tiny.build_second_opinion(models)
    row = bench_tiny(models, tmp_path)
    assert "those photo reads without the second-opinion classifier" in capsys.readouterr().out
    assert "onnxruntime-f32_photo_no_second_opinion" in row


def test_second_opinion_manifest_entries_are_checked(tiny_dir, tmp_path):
    import shutil
    from dataclasses import replace

    models = tmp_path / "models"
    shutil.copytree(tiny_dir, models)
    tiny.build_second_opinion(models)
    m = ReaderManifest.load(models / "dice-reader.json")
    assert ReaderManifest.from_json(m.to_json()) == m and m.second_opinion is not None
    with pytest.raises(ManifestError, match="faces and colours"):
        replace(m, second_opinion=replace(m.second_opinion, colours=("red",)))
    with pytest.raises(ManifestError, match="second_opinion_below"):
        replace(m, second_opinion_below=0.0)
    with pytest.raises(ManifestError, match="second-opinion model goes with"):
        DiceReader(m, tiny.FakeDetector(), tiny.FakeClassifier())
    (models / "dice-second-opinion.onnx").unlink()
    with pytest.raises(ManifestError, match="second-opinion model .* is missing"):
        load_reader(models)


def test_a_die_unsure_of_its_face_alone_lists_the_faces_it_may_show() -> None:
    # tiny classifier: the grey die is a 3-way tie (box sure); the red die's box is doubted
    blue, grey, green, red = tiny.fake_reader().read(tiny.scene()).dice()
    assert grey.uncertain and set(grey.alternatives) == set(tiny.CHANNEL_FACE) and grey.alternatives[0] == grey.face
    assert red.uncertain and red.alternatives == ()  # the detector doubts it is a die at all
    assert blue.alternatives == green.alternatives == ()  # sure
    assert "alternatives" not in grey.to_json()  # not part of `tableref read --json`
    # faces merged by a vocabulary are merged in the alternatives too
    merged = tiny.fake_reader(threshold=0.7).with_vocabulary(Vocabulary.of({"プ": "プ", "2": "プ", "wheel": "wheel"}))
    grey = merged.read(tiny.scene()).dice()[1]
    assert grey.uncertain and grey.alternatives == ("プ", "wheel")



def test_a_box_the_classifier_reads_as_no_die_is_left_out_of_a_photo():
    plain = tiny.fake_reader().in_mode(Mode.PHOTO).read(tiny.scene()).dice()
    rejecting = tiny.rejecting_reader(red_none=0.9).in_mode(Mode.PHOTO)
    kept = rejecting.read(tiny.scene()).dice()
    red = next(d for d in plain if d.face == "wheel")
    others = [d for d in plain if d != red]
    assert len(kept) == len(plain) - 1 and all(d.colour != "red" for d in kept)
    assert [(d.face, d.colour, d.uncertain) for d in kept] == [(d.face, d.colour, d.uncertain) for d in others]
    assert all(d.score == pytest.approx(p.score * 0.99, abs=1e-3) for d, p in zip(kept, others))
    assert rejecting.info["faces"] == list(DIE_FACES) and rejecting.info["rejects_boxes"]
    assert not tiny.fake_reader().info["rejects_boxes"]


def test_a_box_that_may_be_no_die_keeps_its_face_in_a_photo_but_reads_unsure():
    # p(no die) 0.7 is under the drop line (0.8): the die stays, its faces sharing the other 0.3
    dice = tiny.rejecting_reader(red_none=0.7, threshold=0.2).in_mode(Mode.PHOTO).read(tiny.scene()).dice()
    red = next(d for d in dice if d.colour == "red")
    assert red.face == "wheel" and red.score == pytest.approx(0.3, abs=0.01) and red.uncertain


def test_a_live_frame_reads_every_box_as_a_die():
    """Live frames are voted over by the settler: a box left out of some frames would blink."""
    plain = [(d.face, d.colour, d.uncertain, round(d.score, 3)) for d in tiny.fake_reader().read(tiny.scene()).dice()]
    live = tiny.rejecting_reader(red_none=0.9).read(tiny.scene()).dice()
    assert [(d.face, d.colour, d.uncertain, round(d.score, 3)) for d in live] == plain


def test_a_second_opinion_without_no_die_may_join_a_classifier_with_it():
    m = tiny.manifest()
    with_none = replace(m.classifier, faces=(*DIE_FACES, NOT_AN_INDEX))
    ReaderManifest(m.detector, with_none, second_opinion=replace(m.classifier, file="dice-second-opinion.onnx"))
    ReaderManifest(m.detector, with_none, second_opinion=replace(with_none, file="dice-second-opinion.onnx"))
    with pytest.raises(ManifestError, match="second opinion"):
        ReaderManifest(m.detector, m.classifier, second_opinion=replace(with_none, file="dice-second-opinion.onnx"))


def test_a_doubted_box_reads_unsure_however_surely_its_face_reads():
    """The red die's box scores 0.40 (under the detector's sure 0.5): read surely as a wheel,
    and as a die with p 0.99, it stays unsure with the detector's own score, in a live frame
    and in a photo; under the detector's floor it is not found at all."""
    for reader in (tiny.rejecting_reader(red_none=0.01), tiny.rejecting_reader(red_none=0.01).in_mode(Mode.PHOTO)):
        red = next(d for d in reader.read(tiny.scene()).dice() if d.colour == "red")
        assert red.face == "wheel" and red.uncertain and red.box_score == pytest.approx(0.40, abs=1e-3)
    reader = tiny.rejecting_reader(red_none=0.01)
    m = reader.manifest
    floored = DiceReader(replace(m, detector=replace(m.detector, conf_threshold=0.45)), reader.detector,
                         reader.classifier, threshold=reader.threshold)
    assert [d.colour for d in floored.read(tiny.scene()).dice()].count("red") == 0


def _large_die_and_pieces() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 120 px die read surely as a 5, a pip and a corner of it read unsurely, and a die apart."""
    faces = len(DIE_FACES) + 1
    p = np.zeros((4, faces), np.float32)
    p[0, 4], p[0, -1] = 0.97, 0.01  # the large die: "5"
    p[1, 0:3], p[1, -1] = 0.3, 0.1  # a pip: three faces alike, unsure
    p[2, 0], p[2, -1] = 0.45, 0.5  # a corner: may be no die (under the drop line), unsure
    p[3, 5], p[3, -1] = 0.98, 0.01  # a die beside it: "6"
    colours = np.tile(np.array([[0.0, 1.0, 0.0]], np.float32), (4, 1))
    boxes = np.array([[100, 100, 220, 220], [140, 140, 160, 160], [190, 100, 220, 130], [300, 100, 330, 130]],
                     np.float32)
    return boxes, p, colours


def test_a_photo_leaves_out_a_box_read_as_no_die_and_doubts_the_pieces_of_a_large_die():
    boxes, p, colours = _large_die_and_pieces()
    scores = np.array([0.9, 0.6, 0.5, 0.9])
    photo = tiny.rejecting_reader(red_none=0.01).in_mode(Mode.PHOTO)
    # the pieces stay, unsure (a count that does not add up asks for a re-read); the die is sure
    dice = photo.label_dice(boxes, p, colours, scores)
    assert [(d.box[0], d.face, d.uncertain) for d in dice] == [  # left to right by the boxes' middles
        (140, "1", True), (100, "5", False), (190, "1", True), (300, "6", False)]
    p[0, 4], p[0, -1] = 0.05, 0.95  # the large box is no die: left out, the unsure boxes in it stay, unsure
    dice = photo.label_dice(boxes, p, colours, scores)
    assert [(d.box[0], d.uncertain) for d in dice] == [(140, True), (190, True), (300, False)]
    # a live frame lists every box: the settler votes over frames, and the count of dice in play checks it
    assert len(tiny.rejecting_reader(red_none=0.01).label_dice(boxes, p, colours, scores)) == 4


def test_a_photo_is_detected_at_the_photo_input_size_and_a_live_frame_at_its_own():
    base = tiny.fake_reader()
    det = replace(base.manifest.detector, photo_imgsz=640)
    reader = DiceReader(replace(base.manifest, detector=det), tiny.FakeDetector(), tiny.FakeClassifier())
    reader.read(tiny.scene())  # live: the manifest's imgsz (416 on the long side)
    assert reader.detector.inputs[-1][0] == (1, 3, 320, 416)
    photo = reader.in_mode(Mode.PHOTO)
    photo.read(tiny.scene())  # a photo: 640 on the long side
    assert photo.detector.inputs[-1][0][2:] == (480, 640)


class _CropSpy(tiny.FakeClassifier):
    """The tiny classifier, keeping every batch of crops it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.crops: list[np.ndarray] = []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.crops.append(x.copy())
        return super().run(x)


def test_small_dice_crops_are_sharpened_unless_the_step_is_left_out() -> None:
    spy = _CropSpy()
    reader = DiceReader(tiny.manifest(), tiny.FakeDetector(), spy)
    below = reader.policy.dice.sharpen_below
    image = np.full((200, 200, 3), 90, np.uint8)
    image[48:52, 48:52] = 170
    image[148:152, 148:152] = 170
    small = 0.8 * below / 1.25  # its crop is cut under sharpen_below pixels a side
    boxes = np.array([[50 - small / 2, 50 - small / 2, 50 + small / 2, 50 + small / 2],
                      [110, 110, 190, 190]], np.float32)
    reader.classify(image, boxes)
    reader.without(Step.SHARPEN_SOFT).classify(image, boxes)
    sharpened, plain = spy.crops
    assert sharpened[0].max() > plain[0].max()
    np.testing.assert_array_equal(sharpened[1], plain[1])
    none = DiceReader(tiny.manifest(), tiny.FakeDetector(), spy,
                      policy=replace(reader.policy, dice=replace(reader.policy.dice, sharpen_below=0.0, sharpen_soft_below=0.0)))
    none.classify(image, boxes)
    np.testing.assert_array_equal(spy.crops[-1], plain)
