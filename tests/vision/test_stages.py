"""The shared reader stages: the second look at borderline dice."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from dataclasses import replace

from vision.detections import DIE_FACES
from vision.manifest import SPECIALIST_NAME, ClassifierSpec, ManifestError
from vision.reader import DiceReader
from vision.stages import (
    CLOSER_LOOK,
    SECOND_LOOK,
    Look,
    ask_specialist,
    classify_crops,
    second_look,
    view_boxes,
)


def boxes() -> np.ndarray:
    return np.array([b for b, _, _ in tiny.DICE], np.float32)


def test_only_dice_read_inside_the_band_are_looked_at_again() -> None:
    model, spec, image = tiny.FakeClassifier(), tiny.manifest().classifier, tiny.scene()
    face_p, colour_p = classify_crops(model, spec, image, boxes())
    again_f, again_c = second_look(model, spec, image, boxes(), face_p, colour_p, Look((0.3, 0.9), SECOND_LOOK.views))
    grey = 3  # the grey die is a three-way tie (1/3); the coloured ones read > 0.99
    assert model.calls == [(4, 3, 48, 48), (len(SECOND_LOOK.views), 3, 48, 48)]
    unchanged = [i for i in range(4) if i != grey]
    assert np.array_equal(again_f[unchanged], face_p[unchanged])
    assert np.array_equal(again_c[unchanged], colour_p[unchanged])
    assert again_f[grey].sum() == pytest.approx(1.0, abs=1e-5)  # still a distribution
    assert not np.array_equal(again_f[grey], face_p[grey])  # its mean over three crops (black edges show)
    assert face_p[grey].max() < 0.9  # the input is left as it was
    assert SECOND_LOOK.band[0] > 1 / 3  # by default the tie is too unsure to look at again
    second_look(model, spec, image, boxes(), face_p, colour_p)
    assert len(model.calls) == 2


def test_no_call_when_every_die_is_clear() -> None:
    model, spec, image = tiny.FakeClassifier(), tiny.manifest().classifier, tiny.scene()
    face_p, colour_p = classify_crops(model, spec, image, boxes()[:3])
    out = second_look(model, spec, image, boxes()[:3], face_p, colour_p)
    assert out[0] is face_p and len(model.calls) == 1
    empty = second_look(model, spec, image, np.zeros((0, 4), np.float32), face_p[:0], colour_p[:0])
    assert empty[0].shape == (0, face_p.shape[1])


def test_the_reader_looks_twice_only_when_asked() -> None:
    reader = tiny.fake_reader()
    reader.read(tiny.scene())
    assert reader.classifier.calls == [(4, 3, 48, 48)] and reader.info["second_look_band"] is None
    reader = reader.with_look(Look((0.3, 0.9), SECOND_LOOK.views))  # wide enough for the grey tie
    assert reader.without_cards().second_look == Look((0.3, 0.9), SECOND_LOOK.views)
    assert reader.info["second_look_views"] == 2
    grey = [d for d in reader.read(tiny.scene()).dice() if d.colour is None or d.score < 0.9]
    assert reader.classifier.calls[-1] == (len(SECOND_LOOK.views), 3, 48, 48) and len(grey) == 1


def test_a_look_shifts_and_scales_its_extra_crops() -> None:
    b = np.array([[10, 20, 30, 60]], np.float32)
    shifted, expand = view_boxes(b, (0.1, 0.5, -0.25))
    assert expand == 0.1 and shifted.tolist() == [[20, 10, 40, 50]]
    assert b.tolist() == [[10, 20, 30, 60]]  # the input is left as it was
    assert view_boxes(b, (0.0, 0.0, 0.0))[0].tolist() == b.tolist()


def test_the_closer_look_reads_every_unsure_die_from_all_its_views() -> None:
    model, spec, image = tiny.FakeClassifier(), tiny.manifest().classifier, tiny.scene()
    face_p, colour_p = classify_crops(model, spec, image, boxes())
    second_look(model, spec, image, boxes(), face_p, colour_p, CLOSER_LOOK)
    assert model.calls[-1] == (len(CLOSER_LOOK.views), 3, 48, 48)  # the grey tie, six more crops


@pytest.mark.parametrize("band", [(0.9, 0.5), (-0.1, 0.5), (0.5, 1.5)])
def test_a_look_with_a_band_outside_0_1_is_refused(band) -> None:
    with pytest.raises(ValueError, match="band"):
        Look(band, SECOND_LOOK.views)
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


def test_with_a_look_the_specialist_reads_every_view_and_averages() -> None:
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
    out = ask_specialist(model, SPEC, DIE_FACES, tiny.scene(), boxes()[:2], p, look=SECOND_LOOK)
    assert model.calls == [(2 * (1 + len(SECOND_LOOK.views)), 3, 48, 48)]
    assert np.allclose(out[:, [DIE_FACES.index("プ"), DIE_FACES.index("2")]], [[1 / 3, 2 / 3]] * 2)


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
    from vision.manifest import DetectorSpec, ReaderManifest

    plain = ReaderManifest(DetectorSpec(), ClassifierSpec())
    assert "turns" not in plain.to_json()["classifier"]  # older manifests stay byte for byte
    turned = ReaderManifest(DetectorSpec(), ClassifierSpec(turns=4))
    assert turned.to_json()["classifier"]["turns"] == 4
    assert ReaderManifest.from_json(turned.to_json()).classifier.turns == 4
    assert ReaderManifest.from_json(plain.to_json()).classifier.turns == 1
    with pytest.raises(ManifestError, match="turns must be 1 to 4"):
        ClassifierSpec(turns=0)
