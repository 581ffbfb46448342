"""The shared reader stages: the second look at borderline dice."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.stages import CLOSER_LOOK, SECOND_LOOK, Look, classify_crops, second_look, view_boxes


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
