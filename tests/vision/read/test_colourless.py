"""A frame without colour: found, and its dice's colours and cards' suits left unknown."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision import tiny_card_reader as tc
from tests.vision import tiny_reader as tiny
from vision.read.card_reader import unknown_suits
from vision.read.colourless import colourless
from vision.read.detections import CARD_RANKS
from vision.read.policy import PolicyError, ReadPolicy
from vision.read.reader import DEFAULT_MODEL_DIR, load_reader
from vision.read.vocabulary import Vocabulary, game_vocabulary

WITHIN = ReadPolicy().colourless_within


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def _noisy_scene(seed: int = 0) -> np.ndarray:
    """A colour camera's frame of a grey table with white and black dice: little colour, and noise."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), 128, np.uint8)
    cv2.rectangle(img, (100, 100), (140, 140), (235, 235, 235), -1)
    cv2.rectangle(img, (300, 200), (340, 240), (30, 30, 30), -1)
    noise = rng.normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def test_a_greyscale_frame_holds_no_colour_and_a_colour_camera_s_grey_scene_does() -> None:
    colour = _noisy_scene()
    assert not colourless(colour, WITHIN)  # each channel's own noise moves the chroma
    assert colourless(_grey(colour), WITHIN)
    ok, jpeg = cv2.imencode(".jpg", _grey(colour), [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok and colourless(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), WITHIN)  # stored as a colour JPEG


def test_an_even_tint_is_no_colour_but_a_coloured_die_is() -> None:
    grey = _grey(_noisy_scene())
    tinted = cv2.add(grey, np.full_like(grey, (0, 8, 18)))  # the same cast everywhere
    assert colourless(tinted, WITHIN)
    one_die = grey.copy()
    cv2.rectangle(one_die, (400, 300), (430, 330), (200, 60, 20), -1)  # a blue die, 0.3 % of the frame
    assert not colourless(one_die, WITHIN)


def test_the_policy_refuses_a_tolerance_out_of_range() -> None:
    with pytest.raises(PolicyError, match="colourless_within"):
        ReadPolicy(colourless_within=-1.0)


def test_in_a_colourless_frame_a_colour_game_s_dice_are_unsure() -> None:
    reader = tiny.fake_reader().with_vocabulary(Vocabulary.of({"プ": "プ", "2": "プ"}, ["blue", "green", "red"]))
    boxes = np.array([[0, 0, 20, 20]], np.float32)
    face_p = np.zeros((1, len(reader.manifest.classifier.faces)), np.float32)
    face_p[0, reader.manifest.classifier.faces.index("プ")] = 1.0
    colour_p = np.zeros((1, len(reader.manifest.classifier.colours)), np.float32)
    colour_p[0, reader.manifest.classifier.colours.index("blue")] = 1.0
    (seen,) = reader.label_dice(boxes, face_p, colour_p)
    (blind,) = reader.label_dice(boxes, face_p, colour_p, colourless=True)
    assert not seen.uncertain and blind.uncertain
    assert blind.face == "プ" and blind.colour == "blue"  # the guess is still shown
    plain = tiny.fake_reader().with_vocabulary(Vocabulary.of({"プ": "プ", "2": "プ"}))
    (no_colour_game,) = plain.label_dice(boxes, face_p, colour_p, colourless=True)
    assert not no_colour_game.uncertain  # the game does not read colours


def test_in_a_colourless_frame_every_suit_is_as_likely() -> None:
    reader = tc.fake_card_reader()
    boxes = np.array([[400, 60, 412, 84]], np.float32)
    coloured = tc.paint(tiny.scene())
    _, suits = reader.classify(coloured, boxes)
    assert suits.max() > 0.9
    ranks, suits = reader.classify(_grey(coloured), boxes)
    np.testing.assert_allclose(suits, 0.25)
    assert ranks.shape[1] >= len(CARD_RANKS)
    np.testing.assert_allclose(unknown_suits(np.array([[1.0, 0, 0, 0], [0, 0, 0.5, 0.5]])), 0.25)


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "card-reader.json").is_file(), reason="no trained card models in models/")
def test_the_committed_reader_reads_no_suit_surely_from_a_greyscale_photo() -> None:
    """Rendered rows of cards, made greyscale: no card is sure (its suit is unknown), and a
    card whose rank is clear lists that rank in each suit, so a Doubt verdict, which turns
    on ranks alone, can still be given. (In colour the same scenes read 7 of 8 cards surely.)"""
    from vision.synth.card_scene import CardSceneConfig, render_card_scene
    from vision.synth.writer import scene_rng

    reader = load_reader()
    config = CardSceneConfig(width=1280, height=720, layouts=("row", "single"), occluders=False, camera_effects=False)
    with_alternatives = read = 0
    for i in range(3):
        scene = render_card_scene(scene_rng(99, i), config)
        for card in reader.read(_grey(scene.image)).cards():
            read += 1
            assert card.uncertain
            if card.alternatives:
                with_alternatives += 1
                assert {card.face[:-1] + suit for suit in "SHDC"} <= set(card.alternatives)
    assert read >= 6 and with_alternatives >= 5  # measured: 8 cards, 7 with alternatives


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "dice-reader.json").is_file(), reason="no trained dice models in models/")
def test_the_committed_reader_reads_no_nine_dice_die_surely_from_a_greyscale_photo() -> None:
    from vision.synth.scene import SceneConfig, render_scene
    from vision.synth.writer import scene_rng

    reader = load_reader().without_cards().with_vocabulary(game_vocabulary("nine-dice"))
    scene = render_scene(scene_rng(7, 0), SceneConfig(dice_sets=("nine",)))
    assert any(not d.uncertain for d in reader.read(scene.image).dice())  # in colour some are sure
    assert all(d.uncertain for d in reader.read(_grey(scene.image)).dice())
