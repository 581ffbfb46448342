"""A tiny, fully known card reader for tests, beside :mod:`tests.vision.tiny_reader`'s dice.

Detector: always proposes the same corner-index boxes (letterboxed pixels of a 640x480
frame at imgsz 416). Classifier: the crop's mean colour picks rank and suit. Blue reads
"Q" of hearts, green "7" of spades, red "K" of diamonds; a greyish crop leaning red
reads KD with about 0.6 x 0.6 confidence (an uncertain reading).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from tests.vision.tiny_reader import FRAME_H, FRAME_W, IMGSZ, _softmax, _to_input, write_pair
from vision.read.card_reader import CardReader
from vision.read.detections import CARD_RANKS, CARD_SUITS
from vision.read.manifest import CARD_CLASSIFIER_NAME, CARD_DETECTOR_NAME, CARD_MANIFEST_NAME, ClassifierSpec, DetectorSpec, ReaderManifest, sha256_of

GAIN = 30.0
CHANNEL_CARD = (("Q", "H"), ("7", "S"), ("K", "D"))  # B, G, R dominant

# Corner indices in frame pixels: box, BGR colour (what the classifier keys on), detector confidence.
INDICES = (
    ((400, 60, 412, 84), (255, 0, 0), 0.92),  # QH, top-left corner
    ((470, 160, 482, 184), (255, 0, 0), 0.60),  # QH again, the card's far corner: merged
    ((40, 400, 52, 424), (0, 255, 0), 0.90),  # 7S
    ((580, 420, 592, 444), (100, 100, 110), 0.85),  # nearly a tie, leaning to KD: uncertain
)


def detector_output() -> np.ndarray:
    rows = [_to_input(b) + [c] for b, _, c in INDICES]
    rows += [[0.0, 0.0, 4.0, 4.0, 0.0]] * 2
    return np.array(rows, dtype=np.float32).T[None]


def classifier_weights() -> tuple[np.ndarray, np.ndarray]:
    rank_w = np.zeros((3, len(CARD_RANKS)), np.float32)
    suit_w = np.zeros((3, len(CARD_SUITS)), np.float32)
    for ch, (rank, suit) in enumerate(CHANNEL_CARD):
        rank_w[ch, CARD_RANKS.index(rank)] = GAIN
        suit_w[ch, CARD_SUITS.index(suit)] = GAIN
    return rank_w, suit_w


class FakeCardDetector:
    backend, version = "numpy", "test"

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        return [detector_output()]


class FakeCardClassifier:
    backend, version = "numpy", "test"

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        mean = x.mean(axis=(2, 3))
        rank_w, suit_w = classifier_weights()
        return [_softmax(mean @ rank_w), _softmax(mean @ suit_w)]


def manifest(det_sha: str = "", cls_sha: str = "") -> ReaderManifest:
    return ReaderManifest(
        DetectorSpec(file=CARD_DETECTOR_NAME, imgsz=IMGSZ, sha256=det_sha),
        ClassifierSpec(file=CARD_CLASSIFIER_NAME, size=40, expand=1.25, faces=CARD_RANKS, colours=CARD_SUITS, sha256=cls_sha),
        threshold=0.6,
        created="test",
    )


def fake_card_reader(threshold: float | None = None) -> CardReader:
    return CardReader(manifest(), FakeCardDetector(), FakeCardClassifier(), threshold)


def paint(img: np.ndarray) -> np.ndarray:
    """Draw the indices' colours into a 640x480 frame (e.g. the dice scene)."""
    assert img.shape[:2] == (FRAME_H, FRAME_W)
    for (x1, y1, x2, y2), colour, _ in INDICES:
        cx, cy, side = (x1 + x2) // 2, (y1 + y2) // 2, 20  # the crop is square: fill it
        cv2.rectangle(img, (cx - side, cy - side), (cx + side, cy + side), colour, -1)
    return img


def build_onnx(folder: Path) -> Path:
    """Write the tiny card models and ``card-reader.json`` into ``folder`` (needs ``onnx``)."""
    write_pair(folder, detector_output(), classifier_weights(), 40, (CARD_DETECTOR_NAME, CARD_CLASSIFIER_NAME), ("rank_prob", "suit_prob"))
    m = manifest(sha256_of(folder / CARD_DETECTOR_NAME), sha256_of(folder / CARD_CLASSIFIER_NAME))
    (folder / CARD_MANIFEST_NAME).write_text(json.dumps(m.to_json(), ensure_ascii=False), encoding="utf-8")
    return folder


def build_body(folder: Path) -> Path:
    """Add a tiny card body classifier to the card models in ``folder`` (after
    :func:`build_onnx`): every body reads as a seven of hearts, sure, and it is named under
    ``body`` in the card manifest."""
    from dataclasses import replace

    from vision.read.card_body import BODY_RANKS
    from vision.read.manifest import CARD_BODY_NAME

    rank_w = np.zeros((3, len(BODY_RANKS)), np.float32)
    rank_w[:, BODY_RANKS.index("7")] = GAIN
    suit_w = np.zeros((3, len(CARD_SUITS)), np.float32)
    suit_w[:, CARD_SUITS.index("H")] = GAIN
    write_pair(folder, detector_output(), (rank_w, suit_w), 32, ("body-unused-detector.onnx", CARD_BODY_NAME),
               ("rank_prob", "suit_prob"))
    (folder / "body-unused-detector.onnx").unlink()
    m = ReaderManifest.load(folder / CARD_MANIFEST_NAME)
    body = ClassifierSpec(file=CARD_BODY_NAME, size=32, expand=1.12, faces=BODY_RANKS, colours=CARD_SUITS,
                          sha256=sha256_of(folder / CARD_BODY_NAME))
    replace(m, body=body).save(folder / CARD_MANIFEST_NAME)
    return folder
