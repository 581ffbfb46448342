"""The shared reader stages: the closer look at unsure dice, the specialist, and the detector's zoomed passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from dataclasses import replace

from vision.read.detections import DIE_FACES, Detection
from vision.read.manifest import SPECIALIST_NAME, ClassifierSpec, DetectorSpec, ManifestError, ReaderManifest
from vision.read.policy import Look, Mode, ReadPolicy
from vision.read.reader import DiceReader
from vision.read.stages import (
    ask_specialist,
    classify_crops,
    detect_boxes,
    detect_zoomed_in,
    detect_zoomed_out,
    holds_a_card_index,
    look_again,
    view_boxes,
)

PHOTO_VIEWS = ReadPolicy().photo_views
CLOSER = ReadPolicy().closer_look


def boxes() -> np.ndarray:
    return np.array([b for b, _, _ in tiny.DICE], np.float32)


def test_only_dice_read_inside_the_band_are_looked_at_again() -> None:
    model, spec, image = tiny.FakeClassifier(), tiny.manifest().classifier, tiny.scene()
    face_p, colour_p = classify_crops(model, spec, image, boxes())
    again_f, again_c = look_again(model, spec, image, boxes(), face_p, colour_p, Look((0.3, 0.9), PHOTO_VIEWS))
    grey = 3  # the grey die is a three-way tie (1/3); the coloured ones read > 0.99
    assert model.calls == [(4, 3, 48, 48), (len(PHOTO_VIEWS), 3, 48, 48)]
    unchanged = [i for i in range(4) if i != grey]
    assert np.array_equal(again_f[unchanged], face_p[unchanged])
    assert np.array_equal(again_c[unchanged], colour_p[unchanged])
    assert again_f[grey].sum() == pytest.approx(1.0, abs=1e-5)  # still a distribution
    assert not np.array_equal(again_f[grey], face_p[grey])  # its mean over three crops (black edges show)
    assert face_p[grey].max() < 0.9  # the input is left as it was
    look_again(model, spec, image, boxes(), face_p, colour_p, Look((0.5, 0.9), PHOTO_VIEWS))  # the tie is below it
    assert len(model.calls) == 2


def test_no_call_when_every_die_is_clear() -> None:
    model, spec, image = tiny.FakeClassifier(), tiny.manifest().classifier, tiny.scene()
    face_p, colour_p = classify_crops(model, spec, image, boxes()[:3])
    out = look_again(model, spec, image, boxes()[:3], face_p, colour_p, CLOSER)
    assert out[0] is face_p and len(model.calls) == 1
    empty = look_again(model, spec, image, np.zeros((0, 4), np.float32), face_p[:0], colour_p[:0], CLOSER)
    assert empty[0].shape == (0, face_p.shape[1])


def test_only_the_closer_look_reads_a_die_again() -> None:
    reader = tiny.fake_reader()
    reader.read(tiny.scene())
    assert reader.classifier.calls == [(4, 3, 48, 48)] and reader.info["mode"] == "live"
    photo = reader.in_mode(Mode.PHOTO)
    assert photo.without_cards().mode is Mode.PHOTO and photo.info["mode"] == "photo"
    photo.classifier.calls.clear()
    photo.read(tiny.scene())
    assert photo.classifier.calls == [(4, 3, 48, 48)]  # one crop per die, the grey tie too
    closer = reader.in_mode(Mode.CLOSER)
    closer.classifier.calls.clear()
    grey = [d for d in closer.read(tiny.scene()).dice() if d.colour is None or d.score < 0.9]
    assert closer.classifier.calls[-1] == (len(CLOSER.views), 3, 48, 48) and len(grey) == 1


def test_a_look_shifts_and_scales_its_extra_crops() -> None:
    b = np.array([[10, 20, 30, 60]], np.float32)
    shifted, expand = view_boxes(b, (0.1, 0.5, -0.25))
    assert expand == 0.1 and shifted.tolist() == [[20, 10, 40, 50]]
    assert b.tolist() == [[10, 20, 30, 60]]  # the input is left as it was
    assert view_boxes(b, (0.0, 0.0, 0.0))[0].tolist() == b.tolist()


def test_the_closer_look_reads_every_unsure_die_from_all_its_views() -> None:
    model, spec, image = tiny.FakeClassifier(), tiny.manifest().classifier, tiny.scene()
    face_p, colour_p = classify_crops(model, spec, image, boxes())
    look_again(model, spec, image, boxes(), face_p, colour_p, CLOSER)
    assert model.calls[-1] == (len(CLOSER.views), 3, 48, 48)  # the grey tie, six more crops


@pytest.mark.parametrize("band", [(0.9, 0.5), (-0.1, 0.5), (0.5, 1.5)])
def test_a_look_with_a_band_outside_0_1_is_refused(band) -> None:
    with pytest.raises(ValueError, match="band"):
        Look(band, PHOTO_VIEWS)
    with pytest.raises(ValueError, match="view"):
        Look((0.5, 0.9), ())


class FakeSpecialist:
    """Tells "プ" from "2" by the crop's red channel: reads "2" on the blue die (no red)."""

    backend, version = "numpy", "test"

    def __init__(self, out_faces: int = 2) -> None:
        self.calls: list[tuple[int, ...]] = []
        self.out_faces = out_faces

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.calls.append(tuple(x.shape))
        out = np.zeros((len(x), self.out_faces), np.float32)
        out[:, 0], out[:, 1] = 0.1, 0.9
        return [out]


SPEC = ClassifierSpec(file=SPECIALIST_NAME, size=48, faces=("プ", "2"))


def test_the_specialist_shares_out_only_its_faces_probability() -> None:
    p = np.zeros((3, len(DIE_FACES)), np.float32)
    pu, two, wheel = DIE_FACES.index("プ"), DIE_FACES.index("2"), DIE_FACES.index("wheel")
    p[0, [pu, two, wheel]] = 0.5, 0.3, 0.2  # the group holds 0.8
    p[1, [pu, wheel]] = 0.1, 0.9  # under the 0.2 floor: not asked
    p[2, [two, wheel]] = 0.25, 0.75  # 0.25 in the group: asked, but the wheel stays ahead
    model = FakeSpecialist()
    out = ask_specialist(model, SPEC, DIE_FACES, tiny.scene(), boxes()[:3], p)
    assert model.calls == [(2, 3, 48, 48)]  # one call, the two dice that could show its faces
    assert out[0, [pu, two, wheel]] == pytest.approx([0.08, 0.72, 0.2])
    assert np.array_equal(out[1], p[1])
    assert out[2, [pu, two, wheel]] == pytest.approx([0.025, 0.225, 0.75])
    assert out.sum(axis=1) == pytest.approx(p.sum(axis=1))
    assert p[0, pu] == pytest.approx(0.5)  # the input is left as it was


def test_the_specialist_is_not_called_without_candidates_and_checks_its_output() -> None:
    p = np.zeros((1, len(DIE_FACES)), np.float32)
    p[0, DIE_FACES.index("wheel")] = 1.0
    model = FakeSpecialist()
    assert ask_specialist(model, SPEC, DIE_FACES, tiny.scene(), boxes()[:1], p) is p and model.calls == []
    empty = np.zeros((0, len(DIE_FACES)), np.float32)
    assert ask_specialist(model, SPEC, DIE_FACES, tiny.scene(), np.zeros((0, 4), np.float32), empty).shape == (0, 16)
    p[0] = 0
    p[0, DIE_FACES.index("プ")] = 1.0
    with pytest.raises(ManifestError, match="specialist gave output"):
        ask_specialist(FakeSpecialist(out_faces=3), SPEC, DIE_FACES, tiny.scene(), boxes()[:1], p)


def test_the_reader_asks_its_specialists_after_the_classifier() -> None:
    manifest = replace(tiny.manifest(), specialists=(SPEC,))
    reader = DiceReader(manifest, tiny.FakeDetector(), tiny.FakeClassifier(), specialists=(FakeSpecialist(),))
    dice = reader.read(tiny.scene()).dice()
    # the blue die the classifier reads as プ (>0.99) is "2" to this specialist; green stays 2
    assert [d.face for d in dice][:2] == ["2", "2"] and dice[0].score == pytest.approx(0.9, abs=0.01)
    assert reader.specialists[0].calls == [(3, 3, 48, 48)]  # blue, green and the grey tie; not the red wheel
    assert reader.info["specialists"][0]["faces"] == ["プ", "2"]
    assert reader.with_vocabulary(None).without_cards().specialists == reader.specialists
    assert reader.without_specialists().specialists == () and tiny.fake_reader().info["specialists"] == []
    with pytest.raises(ManifestError, match="one specialist model goes with each"):
        DiceReader(manifest, tiny.FakeDetector(), tiny.FakeClassifier())
    with pytest.raises(ManifestError, match="one specialist model goes with each"):
        DiceReader(tiny.manifest(), tiny.FakeDetector(), tiny.FakeClassifier(), specialists=(FakeSpecialist(),))
    with pytest.raises(ManifestError, match="two or more of the classifier's faces"):
        replace(tiny.manifest(), specialists=(replace(SPEC, faces=("プ", "X")),))


def test_several_specialists_each_take_their_own_faces_in_turn() -> None:
    wheel = ClassifierSpec(file="dice-specialist-wheel.onnx", size=48, faces=("wheel", "1"))
    manifest = replace(tiny.manifest(), specialists=(SPEC, wheel))
    first, second = FakeSpecialist(), FakeSpecialist()
    dice = DiceReader(manifest, tiny.FakeDetector(), tiny.FakeClassifier(), specialists=(first, second)).read(tiny.scene()).dice()
    assert len(first.calls) == 1 and second.calls == [(2, 3, 48, 48)]  # the red wheel and the grey tie (1/3 wheel)
    red = [d for d in dice if d.colour == "red"]
    assert red and red[0].face == "1"  # the second specialist read it as its second face
    with pytest.raises(ManifestError, match="overlap"):
        replace(tiny.manifest(), specialists=(SPEC, replace(wheel, faces=("2", "wheel"))))


def test_with_views_the_specialist_reads_every_view_and_averages() -> None:
    class ByCall(FakeSpecialist):
        def run(self, x: np.ndarray) -> list[np.ndarray]:
            self.calls.append(tuple(x.shape))
            out = np.zeros((len(x), 2), np.float32)
            out[: len(x) // 3, 0] = 1.0  # the first crop of each die says プ, the two views say 2
            out[len(x) // 3 :, 1] = 1.0
            return [out]

    p = np.zeros((2, len(DIE_FACES)), np.float32)
    p[:, DIE_FACES.index("プ")] = 1.0
    model = ByCall()
    out = ask_specialist(model, SPEC, DIE_FACES, tiny.scene(), boxes()[:2], p, views=PHOTO_VIEWS)
    assert model.calls == [(2 * (1 + len(PHOTO_VIEWS)), 3, 48, 48)]
    assert np.allclose(out[:, [DIE_FACES.index("プ"), DIE_FACES.index("2")]], [[1 / 3, 2 / 3]] * 2)


def test_a_specialist_cuts_its_own_crops_at_its_own_size() -> None:
    big = replace(SPEC, size=80)  # the classifier reads 48 px crops; this specialist reads 80 px ones
    assert tiny.manifest().classifier.size != big.size
    p = np.zeros((2, len(DIE_FACES)), np.float32)
    p[:, DIE_FACES.index("プ")] = 1.0
    model = FakeSpecialist()
    ask_specialist(model, big, DIE_FACES, tiny.scene(), boxes()[:2], p, views=PHOTO_VIEWS)
    assert model.calls == [(2 * (1 + len(PHOTO_VIEWS)), 3, 80, 80)]
    reader = DiceReader(replace(tiny.manifest(), specialists=(big,)), tiny.FakeDetector(), tiny.FakeClassifier(),
                        specialists=(model,))
    model.calls.clear()
    reader.read(tiny.scene())
    assert model.calls and all(c[2:] == (80, 80) for c in model.calls)


class TopHeavy:
    """Reads face 0 surely when a crop's top half is brighter than its bottom half, face 1
    when darker, and a tie when they match: it sees which way up a crop is."""

    backend, version = "numpy", "test"

    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.calls.append(tuple(x.shape))
        h = x.shape[2] // 2
        lead = (x[:, :, :h].mean(axis=(1, 2, 3)) - x[:, :, h:].mean(axis=(1, 2, 3))) * 50.0
        p0 = 1.0 / (1.0 + np.exp(-lead))
        faces = np.stack([p0, 1.0 - p0], axis=1).astype(np.float32)
        return [faces, np.full((len(x), 2), 0.5, np.float32)]


def test_quarter_turns_average_the_readings_of_a_turned_crop() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    image[20:50, 20:80] = 255  # the box's top half is white: upright, it reads face 0
    box = np.array([[20, 20, 80, 80]], np.float32)
    spec = ClassifierSpec(size=32, expand=1.0, faces=("up", "down"), colours=("a", "b"))
    model = TopHeavy()
    once, _ = classify_crops(model, spec, image, box)
    assert once[0, 0] > 0.99 and model.calls == [(1, 3, 32, 32)]
    two, _ = classify_crops(model, spec, image, box, turns=2)  # upright (face 0) + sideways (a tie)
    assert two[0].tolist() == pytest.approx([0.75, 0.25], abs=1e-3) and model.calls[-1] == (2, 3, 32, 32)
    turned = replace(spec, turns=4)  # the default comes from the manifest
    four, colours = classify_crops(model, turned, image, np.repeat(box, 3, axis=0))
    assert model.calls[-1] == (12, 3, 32, 32)  # one batched call for every turn of every box
    assert four.shape == (3, 2) and colours.shape == (3, 2)
    assert four[0].tolist() == pytest.approx([0.5, 0.5], abs=1e-3)  # up, tie, down, tie
    three, _ = classify_crops(model, spec, image, box, turns=3)  # 0, 90 and 180 degrees: 1, 1/2, 0
    assert three[0, 0] == pytest.approx(0.5, abs=1e-3)
    with pytest.raises(ValueError, match="quarter turns"):
        classify_crops(model, spec, image, box, turns=5)
    assert classify_crops(model, turned, image, box[:0])[0].shape == (0, 2)


def test_a_classifier_spec_keeps_its_turns_in_the_manifest() -> None:
    from vision.read.manifest import DetectorSpec, ReaderManifest

    plain = ReaderManifest(DetectorSpec(), ClassifierSpec())
    assert "turns" not in plain.to_json()["classifier"]  # older manifests stay byte for byte
    turned = ReaderManifest(DetectorSpec(), ClassifierSpec(turns=4))
    assert turned.to_json()["classifier"]["turns"] == 4
    assert ReaderManifest.from_json(turned.to_json()).classifier.turns == 4
    assert ReaderManifest.from_json(plain.to_json()).classifier.turns == 1
    with pytest.raises(ManifestError, match="turns must be 1 to 4"):
        ClassifierSpec(turns=0)


class CloseUpDetector:
    """A detector that, like the real one, finds a die only when its side at the input is
    14-70 px: ``dice`` are ``(box in frame pixels, score at the full input or larger, score
    at half)``."""

    backend, version = "numpy", "test"

    def __init__(self, frame_shape: tuple[int, int], dice: list[tuple[tuple[float, ...], float, float]]) -> None:
        self.frame_shape, self.dice, self.shapes = frame_shape, dice, []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        from vision.read.boxes import letterbox

        self.shapes.append(tuple(x.shape))
        half = len(self.shapes) > 1 and x.shape[3] < self.shapes[0][3]
        size = max(x.shape[2:]) - (16 if half else 0)  # 416 -> (320, 416); 208 -> (160, 224); 832 -> (640, 832)
        lb = letterbox(np.zeros((*self.frame_shape, 3), np.uint8), size)
        rows = []
        for (x0, y0, x1, y1), full, halved in self.dice:
            score = halved if half else full
            w, h = (x1 - x0) * lb.scale, (y1 - y0) * lb.scale
            if score > 0 and 14 <= max(w, h) <= 70:
                rows.append([(x0 + x1) / 2 * lb.scale + lb.pad_x, (y0 + y1) / 2 * lb.scale + lb.pad_y, w, h, score])
        return [np.array(rows, np.float32).reshape(-1, 5).T[None]]


def zoom_spec(above: int | None = 48) -> DetectorSpec:
    return DetectorSpec(imgsz=416, zoom_out_above=above)


def test_dice_too_large_for_the_detector_are_found_again_at_half_size() -> None:
    big = [((20, 20, 170, 170), 0.0, 0.9), ((220, 40, 370, 190), 0.0, 0.8), ((300, 250, 400, 350), 0.7, 0.9)]
    model = CloseUpDetector((480, 640), big)  # 150 px dice are 98 px at 416: only the 100 px one is found
    one = detect_boxes(model, zoom_spec(), np.zeros((480, 640, 3), np.uint8))
    found = detect_zoomed_out(model, zoom_spec(), np.zeros((480, 640, 3), np.uint8))
    assert len(one.boxes) == 1
    assert len(found.boxes) == 3  # the 100 px die is in both passes and kept once
    assert np.allclose(sorted(found.boxes[:, 0]), [20, 220, 300], atol=1.5)
    assert [s for s in model.shapes] == [(1, 3, 320, 416), (1, 3, 320, 416), (1, 3, 160, 224)]


def test_dice_of_the_trained_size_are_detected_once() -> None:
    model = CloseUpDetector((480, 640), [((100, 100, 140, 140), 0.9, 0.9), ((300, 200, 345, 245), 0.8, 0.8)])
    found = detect_zoomed_out(model, zoom_spec(), np.zeros((480, 640, 3), np.uint8))
    assert len(found.boxes) == 2 and model.shapes == [(1, 3, 320, 416)]


def test_the_half_size_pass_adds_only_large_sure_boxes() -> None:
    dice = [
        ((20, 20, 120, 120), 0.9, 0.9),  # 65 px at 416: the first pass finds it and triggers the second
        ((200, 20, 350, 170), 0.0, 0.4),  # large but unsure at half size: not added
        ((400, 300, 480, 380), 0.0, 0.9),  # sure, but 52 px at 416 (under 4/3 x 48): not added
        ((450, 20, 600, 170), 0.0, 0.8),  # large and sure: added
    ]
    model = CloseUpDetector((480, 640), dice)
    found = detect_zoomed_out(model, zoom_spec(), np.zeros((480, 640, 3), np.uint8))
    assert np.allclose(sorted(found.boxes[:, 0]), [20, 450], atol=1.5)


def test_no_second_pass_without_the_setting_or_without_dice() -> None:
    big = [((20, 20, 120, 120), 0.9, 0.9), ((200, 20, 350, 170), 0.0, 0.9)]
    model = CloseUpDetector((480, 640), big)
    assert len(detect_zoomed_out(model, zoom_spec(None), np.zeros((480, 640, 3), np.uint8)).boxes) == 1
    assert len(model.shapes) == 1
    empty = CloseUpDetector((480, 640), [((200, 20, 350, 170), 0.0, 0.9)])
    assert len(detect_zoomed_out(empty, zoom_spec(), np.zeros((480, 640, 3), np.uint8)).boxes) == 0
    assert len(empty.shapes) == 1  # a live frame with no die found (a card table) is not looked at again


def test_a_photo_of_one_large_die_is_looked_at_again() -> None:
    lone = CloseUpDetector((480, 640), [((200, 20, 400, 220), 0.0, 0.9)])  # 130 px at 416, 65 at 208
    found = detect_zoomed_out(lone, zoom_spec(), np.zeros((480, 640, 3), np.uint8), photo=True)
    assert np.allclose(found.boxes, [[200, 20, 400, 220]], atol=1.5)


def test_a_large_box_of_the_half_size_pass_on_a_card_is_left_out_before_nms() -> None:
    from vision.read.detections import Detection

    # The first pass finds a large die; at half size a fan of cards around it reads as one
    # sure die whose box would suppress it in NMS. That box holds a card's index: left out.
    dice = [((100, 100, 200, 200), 0.7, 0.0), ((90, 90, 215, 215), 0.0, 0.95)]
    model = CloseUpDetector((480, 640), dice)
    index = Detection(kind="card", face="7D", colour=None, box=(200, 190, 212, 212), score=1.0)
    frame = np.zeros((480, 640, 3), np.uint8)
    fan = detect_zoomed_out(model, zoom_spec(), frame)
    assert np.allclose(fan.boxes, [[90, 90, 215, 215]], atol=1.5)  # without the card, the fan wins
    found = detect_zoomed_out(model, zoom_spec(), frame, cards=[index])
    assert np.allclose(found.boxes, [[100, 100, 200, 200]], atol=1.5)


def test_a_box_holding_a_small_card_index_is_a_card_not_a_die() -> None:
    from tests.vision.tiny_reader import FakeClassifier
    from vision.read.detections import Detection

    # A whole card found as a 100 px "die", the index in its corner 20 px; a die of 40 px.
    model = CloseUpDetector((480, 640), [((100, 100, 180, 200), 0.9, 0.0), ((300, 300, 340, 340), 0.9, 0.0)])
    m = tiny.manifest()
    reader = DiceReader(replace(m, detector=replace(m.detector, imgsz=416)), model, FakeClassifier())
    frame = np.zeros((480, 640, 3), np.uint8)
    index = Detection(kind="card", face="4S", colour=None, box=(105, 105, 117, 125), score=0.97)

    def lefts(cards: list[Detection]) -> list[int]:
        return sorted(round(b[0]) for b in reader.detect(frame, cards).boxes)

    assert lefts([]) == [100, 300]
    assert lefts([index]) == [300]
    assert lefts([index, replace(index, uncertain=True)]) == [300]  # its card, flagged as a face seen twice
    unsure = replace(index, score=0.2, uncertain=True)
    assert lefts([unsure, unsure]) == [100, 300]  # one unsure index (listed again as its card) may be the die's own pips
    assert lefts([unsure, replace(unsure, box=(160, 175, 172, 195))]) == [300]  # two corners: a card
    assert lefts([replace(index, box=(290, 290, 310, 310))]) == [100, 300]  # half of it in the die's box: beside it


@pytest.mark.skipif(not (Path(__file__).parents[3] / "models" / "card-reader.json").is_file(), reason="no card models")
def test_the_committed_reader_reads_no_die_on_a_card_table_it_sees_whole() -> None:
    """A 2560x1920 render of cards only (validation seed 71, scene 108): at the dice
    detector's photo size a card is a die's size, and one is found as a sure 4. The card
    reader finds its indices inside that box, so no die is read."""
    from vision.read.reader import load_reader
    from vision.synth.card_scene import CardSceneConfig, render_card_scene
    from vision.synth.writer import scene_rng

    scene = render_card_scene(scene_rng(71, 108), CardSceneConfig(width=2560, height=1920))
    reader = load_reader(cards=True).in_mode(Mode.PHOTO)
    reading, indices = reader.read_detailed(scene.image)
    assert [o.face for o in reading.objects if o.kind == "die"] == []
    assert {o.face for o in reading.objects if o.kind == "card" and not o.uncertain} <= {"2C", "4S", "6D"}
    stray = reader.detect(scene.image).boxes  # without the cards found
    assert len(stray) and any(holds_a_card_index(stray, indices))


def test_zoom_out_is_kept_in_the_manifest_only_when_set_and_must_fit_the_input() -> None:
    m = tiny.manifest()
    assert "zoom_out_above" not in m.to_json()["detector"]
    zoomed = replace(m, detector=replace(m.detector, zoom_out_above=48))
    assert ReaderManifest.from_json(zoomed.to_json()).detector.zoom_out_above == 48
    for bad in (0, 10_000):
        with pytest.raises(ManifestError, match="zoom_out_above"):
            DetectorSpec(imgsz=416, zoom_out_above=bad)


def test_the_committed_reader_zooms_out_for_close_ups() -> None:
    import json
    from pathlib import Path

    detector = json.loads((Path(__file__).parents[3] / "models" / "dice-reader.json").read_text())["detector"]
    assert detector["zoom_out_above"] == 48  # chosen on validation close-ups
    assert detector["zoom_in_below"] == 32  # chosen on the yardstick, the tray, close-ups and wide photos
    assert detector["imgsz"] == 512 and "mirror" not in detector  # the mirrored pass is gone
    assert "vouch_floor" not in detector and detector["conf_threshold"] == 0.25  # no box under it is a die


def test_a_wide_photo_whose_dice_are_too_small_is_detected_again_at_twice_the_size() -> None:
    # 2400 px across: 60 px dice are 10 px at 416 (missed) and 21 px at 832 (found).
    dice = [((100, 100, 160, 160), 0.9, 0.0), ((400, 100, 460, 160), 0.9, 0.0), ((700, 100, 760, 160), 0.9, 0.0),
            ((1000, 100, 1090, 190), 0.9, 0.0)]  # 90 px: 16 px at 416, found by the first pass
    model = CloseUpDetector((1800, 2400), dice)
    photo = np.zeros((1800, 2400, 3), np.uint8)
    spec = DetectorSpec(imgsz=416, zoom_in_below=24)
    first = detect_boxes(model, spec, photo)
    assert len(first.boxes) == 1
    found = detect_zoomed_in(model, spec, photo, first)
    assert np.allclose(sorted(found.boxes[:, 0]), [100, 400, 700, 1000], atol=3)
    assert model.shapes[-1] == (1, 3, 640, 832)


def test_no_closer_look_at_dice_of_the_trained_size_small_photos_or_unsure_boxes() -> None:
    spec = DetectorSpec(imgsz=416, zoom_in_below=24)
    big = CloseUpDetector((1800, 2400), [((100, 100, 260, 260), 0.9, 0.0)])  # 28 px at 416
    photo = np.zeros((1800, 2400, 3), np.uint8)
    detect_zoomed_in(big, spec, photo, detect_boxes(big, spec, photo))
    assert len(big.shapes) == 1
    small = CloseUpDetector((960, 1280), [((100, 100, 130, 130), 0.9, 0.0)])  # a webcam frame: never
    frame = np.zeros((960, 1280, 3), np.uint8)
    assert len(detect_zoomed_in(small, spec, frame, detect_boxes(small, spec, frame)).boxes) == 0
    assert len(small.shapes) == 1
    unsure = CloseUpDetector((1800, 2400), [((100, 100, 160, 160), 0.4, 0.0)])
    assert len(detect_zoomed_in(unsure, spec, photo, detect_boxes(unsure, spec, photo)).boxes) == 0
    assert len(unsure.shapes) == 2  # looked, but a box under the sure threshold is not added


def test_a_webcam_photo_with_small_dice_is_enlarged_only_when_the_reader_asks() -> None:
    # 640x480 at 640: a 12 px die is missed, at 1.5x (960) it is 18 px and found; a 20 px die
    # is found by the first pass and says the dice are small (under 24 input px).
    dice = [((100, 100, 112, 112), 0.9, 0.0), ((300, 100, 320, 120), 0.9, 0.0)]
    spec = DetectorSpec(imgsz=640, zoom_in_below=24)
    frame = np.zeros((480, 640, 3), np.uint8)
    model = CloseUpDetector((480, 640), dice)
    first = detect_boxes(model, spec, frame)
    assert len(first.boxes) == 1
    assert len(detect_zoomed_in(model, spec, frame, first).boxes) == 1 and len(model.shapes) == 1  # cards: never
    found = detect_zoomed_in(model, spec, frame, first, enlarge=1.5)
    assert np.allclose(sorted(found.boxes[:, 0]), [100, 300], atol=2)
    assert max(model.shapes[-1][2:]) == 960
    none_found = CloseUpDetector((480, 640), [((100, 100, 112, 112), 0.9, 0.0)])
    assert len(detect_zoomed_in(none_found, spec, frame, detect_boxes(none_found, spec, frame), 1.5).boxes) == 0
    assert len(none_found.shapes) == 1  # a photo with nothing found (a Doubt table's) is not enlarged


def test_only_a_photo_is_looked_at_closer() -> None:
    from tests.vision.tiny_reader import FakeClassifier

    m = tiny.manifest()
    spec = replace(m.detector, imgsz=416, zoom_in_below=24)
    model = CloseUpDetector((1800, 2400), [((100, 100, 160, 160), 0.9, 0.0)])
    live = DiceReader(replace(m, detector=spec), model, FakeClassifier())
    photo = np.zeros((1800, 2400, 3), np.uint8)
    assert len(live.detect(photo).boxes) == 0 and len(model.shapes) == 1
    assert len(live.in_mode(Mode.PHOTO).detect(photo).boxes) == 1


def test_zoom_in_is_kept_in_the_manifest_only_when_set() -> None:
    m = tiny.manifest()
    assert "zoom_in_below" not in m.to_json()["detector"]
    zoomed = replace(m, detector=replace(m.detector, zoom_in_below=24))
    assert ReaderManifest.from_json(zoomed.to_json()).detector.zoom_in_below == 24
    with pytest.raises(ManifestError, match="zoom_in_below"):
        DetectorSpec(imgsz=416, zoom_in_below=0)


def test_a_photo_looks_zoomed_out_for_a_die_cut_into_pieces() -> None:
    # The first pass finds only two pips of a 180 px die (30 px each, 20 input px); at half
    # size the die is 59 px at the input, found at 0.9.
    dice = [((200, 100, 380, 280), 0.0, 0.9), ((230, 130, 260, 160), 0.6, 0.0), ((320, 220, 350, 250), 0.5, 0.0)]
    spec = replace(zoom_spec(), zoom_out_photo_score=0.8)
    frame = np.zeros((480, 640, 3), np.uint8)
    live = detect_zoomed_out(CloseUpDetector((480, 640), dice), spec, frame)
    assert len(live.boxes) == 2  # a live frame does not pay for the pass
    plain = detect_zoomed_out(CloseUpDetector((480, 640), dice), zoom_spec(), frame, photo=True)
    assert len(plain.boxes) == 2  # without the setting, the median says these are webcam dice
    found = detect_zoomed_out(CloseUpDetector((480, 640), dice), spec, frame, photo=True)
    assert np.allclose(sorted(found.boxes[:, 0]), [200, 230, 320], atol=1.5)  # the die and its pieces
    doubted = [((200, 100, 380, 280), 0.0, 0.7), *dice[1:]]  # sure, but under the photo score
    assert len(detect_zoomed_out(CloseUpDetector((480, 640), doubted), spec, frame, photo=True).boxes) == 2


def test_zoom_out_photo_score_is_a_score_and_needs_zoom_out_above() -> None:
    m = tiny.manifest()
    assert "zoom_out_photo_score" not in m.to_json()["detector"]
    scored = replace(m, detector=replace(m.detector, zoom_out_above=48, zoom_out_photo_score=0.8))
    assert ReaderManifest.from_json(scored.to_json()).detector.zoom_out_photo_score == 0.8
    with pytest.raises(ManifestError, match="zoom_out_photo_score must be a score"):
        DetectorSpec(imgsz=416, zoom_out_above=48, zoom_out_photo_score=1.5)
    with pytest.raises(ManifestError, match="needs zoom_out_above"):
        DetectorSpec(imgsz=416, zoom_out_photo_score=0.8)


def test_an_index_holds_a_die_only_when_the_die_is_sure_and_four_fifths_inside() -> None:
    from vision.read.stages import holds_a_die

    die = Detection(kind="die", face="3", colour="white", box=(100, 100, 130, 130), score=0.9)
    index = np.array([[90, 90, 140, 170]], np.float32)
    assert holds_a_die(index, [die]).tolist() == [True]
    assert holds_a_die(index, [replace(die, box=(100, 70, 130, 100))]).tolist() == [False]  # beside it, touching
    assert holds_a_die(index, [replace(die, box=(100, 84, 130, 114))]).tolist() == [True]  # 24 of its 30 rows inside
    assert holds_a_die(index, [replace(die, box=(100, 85, 130, 115))]).tolist() == [True]
    assert holds_a_die(index, [replace(die, box=(100, 83, 130, 113))]).tolist() == [False]  # 23 of 30 rows
    assert holds_a_die(index, [replace(die, uncertain=True)]).tolist() == [False]
    assert holds_a_die(index, []).tolist() == [False]
    assert holds_a_die(np.zeros((0, 4), np.float32), [die]).tolist() == []
    card = Detection(kind="card", face="7S", colour=None, box=(100, 100, 130, 130), score=0.99)
    assert holds_a_die(index, [card]).tolist() == [False]


def test_doctests() -> None:
    import doctest

    import vision.read.card_reader
    import vision.read.stages

    for module in (vision.read.stages, vision.read.card_reader):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
