"""The read policy: every knob checked in one place, the committed manifests' values, the one sureness rule."""

from __future__ import annotations

import doctest
from dataclasses import replace

import numpy as np
import pytest

import vision.read.policy as policy_mod
from vision.read.manifest import CARD_MANIFEST_NAME, MANIFEST_NAME, ReaderManifest
from vision.read.policy import (
    AlternativeKnobs,
    CardKnobs,
    DetectorKnobs,
    DiceKnobs,
    Mode,
    PolicyError,
    ReadPolicy,
    SettleConfig,
    judge,
)
from vision.read.reader import DEFAULT_MODEL_DIR


def test_doctests() -> None:
    assert doctest.testmod(policy_mod).failed == 0


def committed() -> ReadPolicy:
    return ReadPolicy.from_manifests(ReaderManifest.load(DEFAULT_MODEL_DIR / MANIFEST_NAME),
                                     ReaderManifest.load(DEFAULT_MODEL_DIR / CARD_MANIFEST_NAME))


def test_from_manifests_takes_the_committed_models_thresholds() -> None:
    dice = ReaderManifest.load(DEFAULT_MODEL_DIR / MANIFEST_NAME)
    cards = ReaderManifest.load(DEFAULT_MODEL_DIR / CARD_MANIFEST_NAME)
    p = committed()
    assert p.dice.threshold == dice.threshold and p.cards.threshold == cards.threshold
    assert p.dice.second_opinion_below == dice.second_opinion_below
    for knobs, spec in ((p.dice_detector, dice.detector), (p.card_detector, cards.detector)):
        assert (knobs.conf, knobs.sure, knobs.iou) == (spec.conf_threshold, spec.sure_threshold, spec.iou_threshold)
        assert knobs.photo_imgsz == spec.photo_imgsz
        assert (knobs.zoom_out_above, knobs.zoom_in_below, knobs.zoom_out_photo_score) == (
            spec.zoom_out_above, spec.zoom_in_below, spec.zoom_out_photo_score)
    # the knobs no manifest records keep the values chosen on validation data
    assert p.dice.no_die_drop == DiceKnobs().no_die_drop and p.alternatives == AlternativeKnobs()


def test_without_a_card_manifest_the_card_knobs_are_the_defaults() -> None:
    p = ReadPolicy.from_manifests(ReaderManifest.load(DEFAULT_MODEL_DIR / MANIFEST_NAME))
    assert p.cards == CardKnobs() and p.card_detector == DetectorKnobs()


def test_a_settled_faint_object_is_one_the_dice_detector_doubts() -> None:
    p = committed()
    assert p.settle.faint_below == p.dice_detector.sure


def test_only_the_closer_look_reads_dice_again_and_each_mode_gives_its_specialist_views() -> None:
    p = ReadPolicy()
    assert [p.look(m) for m in Mode] == [None, None, p.closer_look]
    assert [p.specialist_views(m) for m in Mode] == [(), p.photo_views, p.closer_look.views]
    wider = replace(p, photo_views=((0.2, 0.0, 0.0),))
    assert wider.specialist_views(Mode.PHOTO) == ((0.2, 0.0, 0.0),)
    with pytest.raises(PolicyError, match="photo_views"):
        replace(p, photo_views=((0.2, 0.0),))


@pytest.mark.parametrize("make, name", [
    (lambda: DiceKnobs(threshold=1.5), "threshold"),
    (lambda: DiceKnobs(threshold=-0.1), "threshold"),
    (lambda: DiceKnobs(no_die_drop=0.0), "no_die_drop"),
    (lambda: DiceKnobs(enlarge=1.0), "enlarge"),
    (lambda: DiceKnobs(second_opinion_below=0.0), "second_opinion_below"),
    (lambda: CardKnobs(threshold=2), "threshold"),
    (lambda: CardKnobs(closer_max=0), "closer_max"),
    (lambda: CardKnobs(no_index_drop="half"), "no_index_drop"),
    (lambda: DetectorKnobs(sure=-0.5), "sure"),
    (lambda: DetectorKnobs(conf=1.5), "conf"),
    (lambda: DetectorKnobs(iou=0.0), "iou"),
    (lambda: DetectorKnobs(zoom_out_photo_score=0.8), "zoom_out_photo_score"),
    (lambda: DetectorKnobs(zoom_in_below=-4), "zoom_in_below"),
    (lambda: AlternativeKnobs(mass=1.2), "mass"),
    (lambda: DiceKnobs(sharpen_below=-1.0), "sharpen_below"),
    (lambda: DiceKnobs(sharpen_amount=0.0), "sharpen_amount"),
    (lambda: DiceKnobs(sharpen_soft_below=1.5), "sharpen_soft_below"),
    (lambda: DiceKnobs(sharpen_amount=5.0), "sharpen_amount"),
    (lambda: SettleConfig(faint_memory=-1), "faint_memory"),
    (lambda: SettleConfig(stable_frames=8, flicker_frames=4), "flicker_frames"),
    (lambda: SettleConfig(flicker_window=0), "flicker_window"),
    (lambda: SettleConfig(flicker_present=0.0), "flicker_present"),
    (lambda: SettleConfig(average_above=0.0), "average_above"),
    (lambda: ReadPolicy(dice=CardKnobs()), "dice"),
])
def test_a_knob_out_of_range_is_refused(make: object, name: str) -> None:
    with pytest.raises(PolicyError, match=name):
        make()  # type: ignore[operator]


def test_an_override_is_checked_like_the_manifest() -> None:
    p = committed()
    lower = replace(p, dice=replace(p.dice, threshold=0.6))
    assert lower.dice.threshold == 0.6 and lower.cards == p.cards
    with pytest.raises(PolicyError, match="threshold"):
        replace(p, cards=replace(p.cards, threshold=1.01))


def test_a_policy_error_is_a_value_error() -> None:
    # callers that refused a bad threshold as a ValueError before the policy still do
    assert issubclass(PolicyError, ValueError)


def test_the_one_rule_flags_a_low_score_or_any_doubt() -> None:
    scores = np.array([0.95, 0.5, 0.95, 0.5, 0.8])
    box = DetectorKnobs(sure=0.5).doubts(np.array([0.9, 0.9, 0.3, 0.3, 0.5]))
    colour = np.array([False, False, False, False, True])
    j = judge(scores, 0.8, box, colour)
    assert j.uncertain.tolist() == [False, True, True, True, True]
    assert j.face_alone.tolist() == [False, True, False, False, False]  # the score at the bar is sure


def test_the_one_rule_takes_scalars() -> None:
    j = judge(0.7, 0.8)
    assert bool(j.uncertain) and bool(j.face_alone)
    assert not bool(judge(0.8, 0.8, False).uncertain)


def test_a_detector_knob_overridden_in_the_policy_reaches_the_detector() -> None:
    from tests.vision import tiny_reader as tiny
    from vision.read.reader import DiceReader

    fake = tiny.fake_reader()
    assert fake.read(tiny.scene()).dice()
    strict = replace(fake.policy, dice_detector=replace(fake.policy.dice_detector, conf=0.99))
    reader = DiceReader(fake.manifest, fake.detector, fake.classifier, policy=strict)
    assert reader.detector_spec.conf_threshold == 0.99 and reader.read(tiny.scene()).objects == ()
    assert reader.info["detector_thresholds"]["conf"] == 0.99


def test_a_reader_threshold_override_makes_a_new_policy() -> None:
    from tests.vision import tiny_reader as tiny
    from vision.read.reader import DiceReader

    fake = tiny.fake_reader()
    lenient = DiceReader(fake.manifest, fake.detector, fake.classifier, threshold=0.2)
    assert lenient.threshold == lenient.policy.dice.threshold == 0.2 and fake.policy.dice.threshold == 0.5
    assert lenient.without_cards().policy is lenient.policy  # a view decides as its reader
    with pytest.raises(PolicyError, match="threshold"):
        DiceReader(fake.manifest, fake.detector, fake.classifier, threshold=1.5)


def test_leaving_out_a_zoomed_pass_is_a_policy_change() -> None:
    from tests.vision import tiny_reader as tiny
    from vision.read.reader import DiceReader

    fake = tiny.fake_reader()
    zooming = replace(fake.policy, dice_detector=replace(fake.policy.dice_detector, zoom_out_above=48,
                                                         zoom_in_below=16))
    reader = DiceReader(fake.manifest, fake.detector, fake.classifier, policy=zooming)
    assert reader.detector_spec.zoom_out_above == 48
    assert reader.without_zoom_out().detector_spec.zoom_out_above is None
    assert reader.without_zoom_in().policy.dice_detector.zoom_in_below is None
    assert reader.without_zoom_in().detector_spec.zoom_out_above == 48
