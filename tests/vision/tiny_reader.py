"""A tiny, fully known dice reader for tests: hand-built ONNX graphs and their numpy twins.

Detector: ignores the picture and always proposes the same boxes (given in letterboxed
input pixels for a 640x480 frame at imgsz 416), so the test knows exactly what NMS,
thresholds and the mapping back to frame pixels must give.

Classifier: average colour of the crop -> face and colour. A crop dominated by the
blue channel reads "プ"/"blue", green "2"/"green", red "wheel"/"red"; a grey crop is a
three-way tie, so its face score is about 1/3 (an uncertain reading).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.read.detections import DIE_FACES, NOT_AN_INDEX
from vision.read.manifest import ClassifierSpec, DetectorSpec, ReaderManifest, sha256_of
from vision.read.reader import DiceReader

FRAME_W, FRAME_H = 640, 480
IMGSZ = 416
SCALE = IMGSZ / FRAME_W  # 0.65
PAD_Y = (320 - round(FRAME_H * SCALE)) // 2  # 416x312 padded to 416x320 -> 4 px on top

COLOURS = ("blue", "green", "red")  # BGR channel order
CHANNEL_FACE = ("プ", "2", "wheel")
GAIN = 30.0

# Dice in frame pixels: (x1, y1, x2, y2), BGR body colour, detector confidence.
DICE = (
    ((100, 100, 140, 140), (255, 0, 0), 0.95),  # blue  -> プ
    ((300, 200, 330, 230), (0, 255, 0), 0.90),  # green -> 2
    ((500, 380, 536, 416), (0, 0, 255), 0.40),  # red   -> wheel, but the detector is unsure
    ((200, 300, 236, 336), (128, 128, 128), 0.88),  # grey -> a tie: uncertain face
)
DUPLICATE = ((102, 101, 141, 141), 0.70)  # overlaps the first die: NMS must drop it
NOISE = ((10, 10, 30, 30), 0.10)  # below the detector's confidence floor


def _to_input(box: tuple[float, float, float, float]) -> list[float]:
    x1, y1, x2, y2 = (v * SCALE for v in box)
    y1, y2 = y1 + PAD_Y, y2 + PAD_Y
    return [(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1]


def detector_output() -> np.ndarray:
    rows = [_to_input(b) + [c] for b, _, c in DICE]
    rows += [_to_input(DUPLICATE[0]) + [DUPLICATE[1]], _to_input(NOISE[0]) + [NOISE[1]]]
    rows += [[0.0, 0.0, 4.0, 4.0, 0.0]] * 3  # empty anchors
    return np.array(rows, dtype=np.float32).T[None]  # (1, 5, N) like Ultralytics


def classifier_weights() -> tuple[np.ndarray, np.ndarray]:
    face_w = np.zeros((3, len(DIE_FACES)), np.float32)
    for ch, face in enumerate(CHANNEL_FACE):
        face_w[ch, DIE_FACES.index(face)] = GAIN
    colour_w = np.eye(3, dtype=np.float32) * GAIN
    return face_w, colour_w


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class FakeDetector:
    backend, version = "numpy", "test"

    def __init__(self) -> None:
        self.inputs: list[tuple[tuple[int, ...], str, float, float]] = []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.inputs.append((tuple(x.shape), x.dtype.name, float(x.min()), float(x.max())))
        return [detector_output()]


class FakeClassifier:
    backend, version = "numpy", "test"

    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.calls.append(tuple(x.shape))
        mean = x.mean(axis=(2, 3))
        face_w, colour_w = classifier_weights()
        return [_softmax(mean @ face_w), _softmax(mean @ colour_w)]


def manifest(det_sha: str = "", cls_sha: str = "") -> ReaderManifest:
    return ReaderManifest(
        DetectorSpec(imgsz=IMGSZ, sha256=det_sha),
        ClassifierSpec(size=48, expand=1.25, colours=COLOURS, sha256=cls_sha),
        threshold=0.5,
        created="test",
    )


def fake_reader(threshold: float | None = None) -> DiceReader:
    return DiceReader(manifest(), FakeDetector(), FakeClassifier(), threshold=threshold)


def scene() -> np.ndarray:
    """The 640x480 frame the tiny models are built for: coloured squares on black."""
    img = np.zeros((FRAME_H, FRAME_W, 3), np.uint8)
    for (x1, y1, x2, y2), colour, _ in DICE:
        cv2.rectangle(img, (x1, y1), (x2 - 1, y2 - 1), colour, -1)
    return img


def write_pair(
    folder: Path,
    boxes: np.ndarray,
    weights: tuple[np.ndarray, np.ndarray],
    crop: int,
    names: tuple[str, str],
    outputs: tuple[str, str] = ("face_prob", "colour_prob"),
) -> None:
    """Write a constant-boxes detector and a mean-colour two-head classifier as ONNX files
    ``names`` in ``folder`` (needs ``onnx``)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    folder.mkdir(parents=True, exist_ok=True)
    det = helper.make_graph(
        [
            helper.make_node("ReduceMean", ["images"], ["m"], axes=[1, 2, 3], keepdims=0),
            helper.make_node("Mul", ["m", "zero"], ["z"]),
            helper.make_node("Add", ["boxes", "z"], ["output0"]),
        ],
        "tiny_detector",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, "height", "width"])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(boxes.shape))],
        [numpy_helper.from_array(boxes, "boxes"), numpy_helper.from_array(np.zeros((1,), np.float32), "zero")],
    )
    first_w, second_w = weights
    cls = helper.make_graph(
        [
            helper.make_node("GlobalAveragePool", ["crops"], ["pooled"]),
            helper.make_node("Flatten", ["pooled"], ["feat"], axis=1),
            helper.make_node("MatMul", ["feat", "first_w"], ["first_logits"]),
            helper.make_node("Softmax", ["first_logits"], [outputs[0]], axis=1),
            helper.make_node("MatMul", ["feat", "second_w"], ["second_logits"]),
            helper.make_node("Softmax", ["second_logits"], [outputs[1]], axis=1),
        ],
        "tiny_classifier",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, crop, crop])],
        [
            helper.make_tensor_value_info(outputs[0], TensorProto.FLOAT, ["n", first_w.shape[1]]),
            helper.make_tensor_value_info(outputs[1], TensorProto.FLOAT, ["n", second_w.shape[1]]),
        ],
        [numpy_helper.from_array(first_w, "first_w"), numpy_helper.from_array(second_w, "second_w")],
    )
    for graph, name in zip((det, cls), names):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, str(folder / name))


def build_onnx(folder: Path) -> Path:
    """Write the two tiny ONNX models and their manifest into ``folder`` (needs ``onnx``)."""
    write_pair(folder, detector_output(), classifier_weights(), 48, ("dice-detector.onnx", "dice-classifier.onnx"))
    m = manifest(sha256_of(folder / "dice-detector.onnx"), sha256_of(folder / "dice-classifier.onnx"))
    (folder / "dice-reader.json").write_text(json.dumps(m.to_json(), ensure_ascii=False), encoding="utf-8")
    return folder


SPECIALIST_FACES = ("プ", "2")


def build_specialist(folder: Path) -> Path:
    """Add a tiny specialist to the models in ``folder`` (after :func:`build_onnx`): it
    tells プ from 2 by the crop's red channel and so reads a blue die as 2 (for the test,
    not for sense), and it is recorded in the manifest."""
    from vision.read.manifest import SPECIALIST_NAME

    first_w = np.zeros((3, 2), np.float32)
    first_w[2, 0] = GAIN  # a red crop -> プ
    first_w[0, 1] = first_w[1, 1] = GAIN  # a blue or green crop -> 2
    write_pair(folder, detector_output(), (first_w, np.zeros((3, 1), np.float32)), 48,
               ("specialist-unused-detector.onnx", SPECIALIST_NAME))
    (folder / "specialist-unused-detector.onnx").unlink()
    m = ReaderManifest.load(folder / "dice-reader.json")
    spec = ClassifierSpec(file=SPECIALIST_NAME, size=48, faces=SPECIALIST_FACES, sha256=sha256_of(folder / SPECIALIST_NAME))
    replace(m, specialists=(spec,)).save(folder / "dice-reader.json")
    return folder


SECOND_OPINION_FACE = "3"


def build_second_opinion(folder: Path, below: float = 0.9) -> Path:
    """Add a tiny second-opinion classifier to the models in ``folder`` (after
    :func:`build_onnx`): it reads every die as 3, sure (for the test, not for sense), with
    no view on colour, and is recorded in the manifest to be asked under ``below``."""
    from dataclasses import replace

    from vision.read.manifest import SECOND_OPINION_NAME as name
    first_w = np.zeros((3, len(DIE_FACES)), np.float32)
    first_w[:, DIE_FACES.index(SECOND_OPINION_FACE)] = GAIN
    write_pair(folder, detector_output(), (first_w, np.zeros((3, len(COLOURS)), np.float32)), 56,
               ("second-opinion-unused-detector.onnx", name))
    (folder / "second-opinion-unused-detector.onnx").unlink()
    m = ReaderManifest.load(folder / "dice-reader.json")
    spec = replace(m.classifier, file=name, size=56, sha256=sha256_of(folder / name))
    replace(m, second_opinion=spec, second_opinion_below=below).save(folder / "dice-reader.json")
    return folder


class RejectingClassifier(FakeClassifier):
    """:class:`FakeClassifier` with a last face class ``none``: a crop whose red channel
    leads (the red die) is no die with probability ``red_none``, every other with 0.01."""

    def __init__(self, red_none: float) -> None:
        super().__init__()
        self.red_none = red_none

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        face_p, colour_p = super().run(x)
        mean = x.mean(axis=(2, 3))
        none = np.where(mean.argmax(axis=1) == 2, self.red_none, 0.01).astype(np.float32)[:, None]
        return [np.concatenate([face_p * (1 - none), none], axis=1), colour_p]


def rejecting_reader(red_none: float, threshold: float | None = None) -> DiceReader:
    """The fake reader with a classifier that can say a box holds no die."""
    m = manifest()
    m = replace(m, classifier=replace(m.classifier, faces=(*DIE_FACES, NOT_AN_INDEX)))
    return DiceReader(m, FakeDetector(), RejectingClassifier(red_none), threshold=threshold)
