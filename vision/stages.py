"""The two stages every reader here shares: a single-class YOLO detector on the
letterboxed frame, then one batched two-head classifier call on square crops cut from
the full-resolution frame (see :mod:`vision.crops`). No torch.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.backends import Model
from vision.boxes import letterbox, letterbox_shape, nms, xywh_to_xyxy
from vision.crops import crop_batch
from vision.manifest import ClassifierSpec, DetectorSpec, ManifestError

MIN_BOX_SIDE = 2.0  # px in the original frame; anything thinner is a clipped sliver


@dataclass(frozen=True)
class BoxesFound:
    """Detector output for one frame, in original-image pixels."""

    boxes: np.ndarray  # (N, 4) float32 x1 y1 x2 y2
    scores: np.ndarray  # (N,) float32


def detect_boxes(model: Model, spec: DetectorSpec, image: np.ndarray) -> BoxesFound:
    """Boxes found by a single-class YOLO detector in ``image``, after confidence filtering and NMS."""
    lb = letterbox(image, spec.imgsz, spec.stride)
    x = cv2.dnn.blobFromImage(lb.image, 1 / 255, swapRB=True)  # (1, 3, H, W) RGB float32, as trained
    pred = model.run(x)[0]
    pred = pred[0] if pred.ndim == 3 else pred
    pred = pred.T  # (anchors, 4 + classes)
    conf = pred[:, 4:].max(axis=1)
    keep = conf >= spec.conf_threshold
    if not keep.any():
        return BoxesFound(np.zeros((0, 4), np.float32), np.zeros((0,), np.float32))
    boxes, conf = xywh_to_xyxy(pred[keep, :4]), conf[keep]
    idx = nms(boxes, conf, spec.iou_threshold, spec.max_det)
    boxes = lb.to_original(boxes[idx])
    conf = conf[idx].astype(np.float32)
    ok = ((boxes[:, 2] - boxes[:, 0]) >= MIN_BOX_SIDE) & ((boxes[:, 3] - boxes[:, 1]) >= MIN_BOX_SIDE)
    return BoxesFound(boxes[ok], conf[ok])


def classify_crops(model: Model, spec: ClassifierSpec, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both heads' probabilities (faces, colours) for each box, from one batched classifier call."""
    if len(boxes) == 0:
        return np.zeros((0, len(spec.faces)), np.float32), np.zeros((0, max(1, len(spec.colours))), np.float32)
    outputs = model.run(crop_batch(image, boxes, spec.size, spec.expand))
    face_p = outputs[0]
    colour_p = outputs[1] if len(outputs) > 1 else np.zeros((len(boxes), 0), np.float32)
    if face_p.shape != (len(boxes), len(spec.faces)):
        raise ManifestError(f"classifier gave output {face_p.shape}, manifest lists {len(spec.faces)} classes")
    return face_p, colour_p


SECOND_LOOK_BAND = (0.5, 0.9)
"""Dice whose face reads with a probability in [low, high) are looked at again
(:func:`second_look`): below it a die stays uncertain anyway, above it a second look
hardly ever changes the reading."""

SECOND_LOOK_EXPAND = (-0.1, 0.1)
"""The extra crops: tighter and looser than the first by this much of the box side."""


def second_look(
    model: Model, spec: ClassifierSpec, image: np.ndarray, boxes: np.ndarray,
    face_p: np.ndarray, colour_p: np.ndarray, band: tuple[float, float] = SECOND_LOOK_BAND,
) -> tuple[np.ndarray, np.ndarray]:
    """``face_p`` and ``colour_p`` with every die read inside ``band`` replaced by the mean
    over its crop and two more, one tighter and one looser (one batched call).

    A borderline reading often hinges on where the crop edge falls. On the validation
    renders the mean of three crops made a third fewer wrong readings sure (see the model
    card), for two more crops per borderline die.
    """
    low, high = band
    best = face_p.max(axis=1) if len(face_p) else np.zeros((0,), np.float32)
    redo = np.flatnonzero((best >= low) & (best < high))
    if len(redo) == 0:
        return face_p, colour_p
    b = np.asarray(boxes, np.float32)[redo]
    batch = np.concatenate([crop_batch(image, b, spec.size, spec.expand + d) for d in SECOND_LOOK_EXPAND])
    outputs = model.run(batch)
    views = len(SECOND_LOOK_EXPAND)
    face_p, colour_p = face_p.copy(), colour_p.copy()
    face_p[redo] = (face_p[redo] + outputs[0].reshape(views, len(redo), -1).sum(axis=0)) / (views + 1)
    if len(outputs) > 1 and colour_p.shape[1]:
        colour_p[redo] = (colour_p[redo] + outputs[1].reshape(views, len(redo), -1).sum(axis=0)) / (views + 1)
    return face_p, colour_p


def prepare_detector(model: Model, spec: DetectorSpec, height: int, width: int) -> None:
    prepare = getattr(model, "prepare", None)
    if prepare is not None:
        prepare((1, 3, *letterbox_shape(height, width, spec.imgsz, spec.stride)))
