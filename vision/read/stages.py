"""The two stages every reader here shares: a single-class YOLO detector on the
letterboxed frame, then one batched two-head classifier call on square crops cut from
the full-resolution frame (see :mod:`vision.read.boxes`). No torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.read.backends import Model, prepare_image, run_image
from vision.read.boxes import Sharpen, crop_batch, held_by, letterbox, letterbox_shape, long_sides, nms, xywh_to_xyxy
from vision.read.calibration import tempered
from vision.read.detections import Detection, Detections
from vision.read.manifest import QUARTER_TURNS, ClassifierSpec, DetectorSpec, ManifestError
from vision.read.policy import CardKnobs, DiceKnobs, Look, View

# px in the original frame; anything thinner is a clipped sliver (geometry, not a read
# decision: the decisions are the read policy's, vision.read.policy)
MIN_BOX_SIDE = 2.0


def detect_boxes(model: Model, spec: DetectorSpec, image: np.ndarray) -> Detections:
    """Boxes found by a single-class YOLO detector in ``image``, after confidence filtering
    (from ``spec.conf_threshold``) and NMS."""
    lb = letterbox(image, spec.imgsz, spec.stride)
    pred = run_image(model, lb.image)[0]
    pred = pred[0] if pred.ndim == 3 else pred
    pred = pred.T  # (anchors, 4 + classes)
    conf = pred[:, 4:].max(axis=1)
    keep = conf >= spec.conf_threshold
    if not keep.any():
        return Detections.empty()
    boxes, conf = xywh_to_xyxy(pred[keep, :4]), conf[keep]
    idx = nms(boxes, conf, spec.iou_threshold, spec.max_det)
    boxes = lb.to_original(boxes[idx])
    conf = conf[idx].astype(np.float32)
    ok = ((boxes[:, 2] - boxes[:, 0]) >= MIN_BOX_SIDE) & ((boxes[:, 3] - boxes[:, 1]) >= MIN_BOX_SIDE)
    return Detections(boxes[ok], conf[ok])


def at_imgsz(spec: DetectorSpec, imgsz: int) -> DetectorSpec:
    """``spec`` at another input size, for a zoomed-out or zoomed-in pass (which makes no
    further pass of its own; the letterbox pads the input to the stride).

    >>> at_imgsz(DetectorSpec(imgsz=416, zoom_out_above=48), 208).zoom_out_above is None
    True
    """
    return replace(spec, imgsz=imgsz, photo_imgsz=None, zoom_out_above=None, zoom_in_below=None,
                   zoom_out_photo_score=None)


def _half(spec: DetectorSpec) -> int:
    return max(spec.stride, spec.imgsz // 2)


def detect_zoomed_out(
    model: Model, spec: DetectorSpec, image: np.ndarray, photo: bool = False, cards: Sequence[Detection] = (),
) -> Detections:
    """:func:`detect_boxes`, and a second pass at half the input size when the dice found
    are too large for the detector (``spec.zoom_out_above``), or, on a ``photo``, when
    none was found at all, or whenever ``spec.zoom_out_photo_score`` is set.

    The detector was trained on dice up to about 70 px at its input. In a close-up photo
    (dice an eighth of the frame or more) it misses many of them or cuts them up. Halved,
    they are the size it knows. Only boxes of the second pass that are at least a third
    larger than ``zoom_out_above`` (in the first pass's input pixels) and sure
    (``sure_threshold``) are added, then both passes go through NMS together: at that size
    the first pass is what errs, while smaller boxes of the second pass are mostly specks
    (measured on validation close-ups). A second-pass box that holds
    the middle of one of ``cards`` (cards or card indices found in the frame) is left out:
    a die never does, while a fan of pip cards at half size looks like one large die.

    A large die cut into pieces (its pips, a face) can leave the first pass's median at
    a webcam die's size, so a photo looks again whatever the median when
    ``zoom_out_photo_score`` is set; a large box is then added only when it scores that
    much, since the photo gave no other sign of being a close-up; the pieces, read as no
    die or unsure, are the reader's to leave out or doubt.
    A live frame without dice is an empty table, or a card table, where the second pass
    would only find cards, and one with dice of the usual size does not pay for a pass
    that seldom finds anything.
    """
    first = detect_boxes(model, spec, image)
    dice = _dice(spec, first)
    if spec.zoom_out_above is None or (len(dice) == 0 and not photo):
        return first
    per_px = spec.imgsz / max(image.shape[:2])
    large = len(dice) == 0 or float(np.median(long_sides(dice))) * per_px >= spec.zoom_out_above
    if not large and (not photo or spec.zoom_out_photo_score is None):
        return first
    second = detect_boxes(model, at_imgsz(spec, _half(spec)), image)
    least = spec.sure_threshold if large else max(spec.sure_threshold, spec.zoom_out_photo_score or 0.0)
    add = (long_sides(second.boxes) * per_px >= spec.zoom_out_above * 4 / 3) & (second.scores >= least)
    return _merged(spec, first, second, add & ~holds_a_card(second.boxes, cards))


def detect_zoomed_in(
    model: Model, spec: DetectorSpec, image: np.ndarray, found: Detections, enlarge: float | None = None,
) -> Detections:
    """``found`` (the boxes of a photo), and the sure boxes of a second, closer pass when a
    tenth or more of the boxes found are under ``spec.zoom_in_below`` input px (or, on a
    photo four times the input or more on its long side, none was found); both go through
    NMS together.

    A wide photo from a phone (4000 px across, say) shows each die in 60-150 px, but
    letterboxed to 640 px they are 10-25 px, under what the detector finds reliably. It is
    detected again at twice the input, where the dice are the size it knows and the photo
    still has the pixels. With ``enlarge`` (the dice reader's: :class:`~vision.read.policy.DiceKnobs`),
    a photo with fewer pixels, from a webcam set far from the table, is detected again at
    that many times the input: the enlarged dice fill more of the detector's cells, and on
    the foreign yardstick 82 % of the dice are found instead of 78 %, no box lost on close-ups, wide photos or the real tray. It costs
    about 2.3-4 times the first pass, so only photos take it, never a live frame.
    """
    if spec.zoom_in_below is None:
        return found
    wide = max(image.shape[:2]) >= 4 * spec.imgsz
    per_px = spec.imgsz / max(image.shape[:2])
    # Not the median, as for zooming out: where most dice are missed, the few found are
    # the largest, so a tenth of small boxes already says the photo is wide.
    dice = _dice(spec, found)
    if len(dice) and float(np.quantile(long_sides(dice), 0.1)) * per_px >= spec.zoom_in_below:
        return found
    if not wide and (enlarge is None or not len(dice)):
        return found
    size = 2 * spec.imgsz if wide else int(round(enlarge * spec.imgsz / spec.stride)) * spec.stride
    closer = detect_boxes(model, at_imgsz(spec, size), image)
    return _merged(spec, found, closer, closer.scores >= spec.sure_threshold)


def detect_at_scale(
    model: Model, spec: DetectorSpec, image: np.ndarray, photo: bool, cards: Sequence[Detection] = (),
    enlarge: float | None = None,
) -> Detections:
    """What a reader's detector finds: :func:`detect_zoomed_out`, which on a ``photo`` also
    looks again when nothing was found, then, on a photo only, :func:`detect_zoomed_in`
    (``enlarge``: its closer pass on photos that are not wide). The dice and card readers
    both detect this way, each with its own ``spec``; only the dice reader enlarges."""
    found = detect_zoomed_out(model, spec, image, photo=photo, cards=cards)
    return detect_zoomed_in(model, spec, image, found, enlarge) if photo else found


def _dice(spec: DetectorSpec, found: Detections) -> np.ndarray:
    """The boxes of ``found`` that count as dice before any reading: none under
    ``spec.conf_threshold``."""
    return found.boxes[found.scores >= spec.conf_threshold]


def _merged(spec: DetectorSpec, found: Detections, other: Detections, add: np.ndarray) -> Detections:
    """``found`` and the ``add`` boxes of another pass, through NMS together."""
    if not add.any():
        return found
    return Detections.merge([found, other[add]]).with_nms(spec.iou_threshold, spec.max_det)


def holds_a_card(boxes: np.ndarray, cards: Sequence[Detection]) -> np.ndarray:
    """Which ``boxes`` hold the middle of one of ``cards``.

    >>> card = Detection(kind="card", face="7D", colour=None, box=(40, 40, 60, 60), score=1.0)
    >>> holds_a_card(np.array([[0, 0, 100, 100], [200, 0, 300, 100]], np.float32), [card]).tolist()
    [True, False]
    """
    out = np.zeros(len(boxes), bool)
    for c in cards:
        cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
        out |= (boxes[:, 0] <= cx) & (cx <= boxes[:, 2]) & (boxes[:, 1] <= cy) & (cy <= boxes[:, 3])
    return out


def holds_a_card_index(
    boxes: np.ndarray, cards: Sequence[Detection], smaller: float = DiceKnobs().index_of_a_card,
) -> np.ndarray:
    """Which ``boxes`` hold nine tenths or more of a sure corner index (or card) among
    ``cards``, or of two unsure ones, whose side is under ``smaller`` times their own.

    Such a box is a whole card that the dice detector took for a die: in a wide photo of a
    card table a card shrinks to a die's size at the detector's input, and a pip card looks
    like a die's face. A real die never holds a real index that small: one lying on an index
    hides it, and one beside it holds at most part of it. But the card reader can take a
    die's own pips for an index, unsure of it (a 6 held a 2S read at 0.13 on validation
    renders), so one unsure index is not enough. A card found at two corners spans the
    card: no die holds it.

    >>> sure = Detection(kind="card", face="7D", colour=None, box=(110, 110, 120, 124), score=0.9)
    >>> boxes = np.array([[100, 100, 180, 200], [105, 105, 135, 135]], np.float32)
    >>> holds_a_card_index(boxes, [sure]).tolist()  # a card; a box not four times the index
    [True, False]
    >>> unsure = replace(sure, score=0.2, uncertain=True)
    >>> other_corner = replace(unsure, box=(160, 176, 170, 190))
    >>> holds_a_card_index(boxes, [unsure]).tolist(), holds_a_card_index(boxes, [unsure, other_corner]).tolist()
    ([False, False], [True, False])
    """
    # A card seen at one corner is that index again, unsure when its face is seen twice.
    seen: dict[tuple[float, ...], bool] = {}
    for c in cards:
        seen[c.box] = seen.get(c.box, False) or not c.uncertain
    if not len(boxes) or not seen:
        return np.zeros(len(boxes), bool)
    index = np.array(list(seen), np.float64)
    sure = np.array(list(seen.values()))
    held = held_by(index, boxes, 0.9).T & (
        long_sides(index)[None] < smaller * long_sides(boxes)[:, None])
    return held[:, sure].any(axis=1) | (held[:, ~sure].sum(axis=1) >= 2)


def holds_a_die(
    index_boxes: np.ndarray, dice: Sequence[Detection], held: float = CardKnobs().die_in_an_index,
) -> np.ndarray:
    """Which ``index_boxes`` (corner indices the card reader found) hold ``held`` or more of
    the box of a die among ``dice`` read sure.

    Such a box is no corner index but a cluster of dice: two or three dice in a row look like
    a rank over its suit to the card detector, which saw dice only as rendered (over a third of
    the real dice tray's photos, read as photos, showed such an "index"). A real index cannot
    hold a whole die: one lying on it hides it. An unsure die may be an index's glyph that the
    dice detector took for a die, so it does not count.

    >>> die = Detection(kind="die", face="4", colour="red", box=(10, 10, 30, 30), score=0.95)
    >>> boxes = np.array([[5, 5, 40, 60], [25, 5, 60, 60]], np.float32)
    >>> holds_a_die(boxes, [die]).tolist(), holds_a_die(boxes, [replace(die, uncertain=True)]).tolist()
    ([True, False], [False, False])
    """
    sure = np.array([d.box for d in dice if d.kind == "die" and not d.uncertain], np.float64).reshape(-1, 4)
    if not len(index_boxes) or not len(sure):
        return np.zeros(len(index_boxes), bool)
    return held_by(sure, index_boxes, held).any(axis=0)


def classify_crops(
    model: Model, spec: ClassifierSpec, image: np.ndarray, boxes: np.ndarray, turns: int | None = None,
    sharpen: Sharpen | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Both heads' probabilities (faces, colours) for each box, from one batched classifier call,
    each tempered by its temperature in ``spec`` (:mod:`vision.read.calibration`).

    With ``turns`` > 1 (default: ``spec.turns``) each crop is also read turned by 1 ..
    ``turns`` - 1 quarter turns, and the readings are averaged. Only for a classifier
    trained on crops at every angle, like the card-index one; a die's up face is read the
    right way up, above its side faces. ``sharpen``: how small crops are sharpened
    (:class:`~vision.read.boxes.Sharpen`; None: never).
    """
    turns = spec.turns if turns is None else turns
    if not 1 <= turns <= QUARTER_TURNS:
        raise ValueError(f"turns must be 1 to {QUARTER_TURNS} quarter turns, got {turns}")
    if len(boxes) == 0:
        return np.zeros((0, len(spec.faces)), np.float32), np.zeros((0, max(1, len(spec.colours))), np.float32)
    crops = crop_batch(image, boxes, spec.size, spec.expand, sharpen)
    if turns > 1:
        crops = np.ascontiguousarray(np.concatenate([np.rot90(crops, k, axes=(2, 3)) for k in range(turns)]))
    outputs = model.run(crops)
    face_p = outputs[0]
    colour_p = outputs[1] if len(outputs) > 1 else np.zeros((len(crops), 0), np.float32)
    if face_p.shape != (len(crops), len(spec.faces)):
        raise ManifestError(f"classifier gave output {face_p.shape}, manifest lists {len(spec.faces)} classes")
    if turns > 1:
        face_p = face_p.reshape(turns, len(boxes), -1).mean(axis=0)
        colour_p = colour_p.reshape(turns, len(boxes), -1).mean(axis=0)
    if colour_p.shape[1]:
        colour_p = tempered(colour_p, spec.colour_temperature)
    return tempered(face_p, spec.temperature), colour_p


def view_boxes(boxes: np.ndarray, view: View) -> tuple[np.ndarray, float]:
    """``boxes`` shifted as ``view`` asks, and the change to the crop's expand factor."""
    expand, dx, dy = view
    b = np.array(boxes, np.float32).reshape(-1, 4)
    if dx or dy:
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        b[:, [0, 2]] += (dx * w)[:, None]
        b[:, [1, 3]] += (dy * h)[:, None]
    return b, expand


def view_crops(
    image: np.ndarray, boxes: np.ndarray, spec: ClassifierSpec, views: tuple[View, ...], sharpen: Sharpen | None = None,
) -> list[np.ndarray]:
    """One batch of crops of ``boxes`` per view, cut as ``spec`` cuts them, shifted and scaled."""
    crops = []
    for view in views:
        shifted, expand = view_boxes(boxes, view)
        crops.append(crop_batch(image, shifted, spec.size, spec.expand + expand, sharpen))
    return crops


def look_again(
    model: Model, spec: ClassifierSpec, image: np.ndarray, boxes: np.ndarray,
    face_p: np.ndarray, colour_p: np.ndarray, look: Look, sharpen: Sharpen | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``face_p`` and ``colour_p`` with every die read inside ``look.band`` replaced by the
    mean over its crop and the look's extra views (one batched call): the closer look a
    settled live reveal takes (:attr:`~vision.read.policy.ReadPolicy.closer_look`).

    An unsure reading often hinges on where the crop edge falls; the mean over shifted and
    scaled crops of a still reveal reads more of them surely (see the model card).
    """
    low, high = look.band
    best = face_p.max(axis=1) if len(face_p) else np.zeros((0,), np.float32)
    redo = np.flatnonzero((best >= low) & (best < high))
    if len(redo) == 0:
        return face_p, colour_p
    crops = view_crops(image, np.asarray(boxes, np.float32)[redo], spec, look.views, sharpen)
    outputs = model.run(np.concatenate(crops))
    views = len(look.views)
    face_p, colour_p = face_p.copy(), colour_p.copy()
    face_p[redo] = (face_p[redo] + outputs[0].reshape(views, len(redo), -1).sum(axis=0)) / (views + 1)
    if len(outputs) > 1 and colour_p.shape[1]:
        colour_p[redo] = (colour_p[redo] + outputs[1].reshape(views, len(redo), -1).sum(axis=0)) / (views + 1)
    return face_p, colour_p


def ask_specialist(
    model: Model, spec: ClassifierSpec, faces: Sequence[str], image: np.ndarray, boxes: np.ndarray,
    face_p: np.ndarray, min_mass: float = DiceKnobs().specialist_min_mass, views: tuple[View, ...] = (),
    sharpen: Sharpen | None = None,
) -> np.ndarray:
    """``face_p`` (columns: ``faces``) with the probability the classifier gives the
    specialist's faces (``spec.faces``, e.g. ブ and プ) shared out again as the specialist
    reads them, for every die where that probability is at least ``min_mass``. The total
    stays, so a die the classifier reads as another face keeps that face's probability;
    only the choice within the group is the specialist's. One batched call; with
    ``views``, the specialist's reading is the mean over the crop and those views.

    On the validation renders it told ブ from プ right 91.5 % of the time instead of 87.0 %
    (see the model card).
    """
    group = [faces.index(f) for f in spec.faces]
    mass = face_p[:, group].sum(axis=1) if len(face_p) else np.zeros((0,), np.float32)
    ask = np.flatnonzero(mass >= min_mass)
    if len(ask) == 0:
        return face_p
    b = np.asarray(boxes, np.float32)[ask]
    crops = [crop_batch(image, b, spec.size, spec.expand, sharpen),
             *view_crops(image, b, spec, views, sharpen)]
    out = model.run(np.concatenate(crops))[0]
    if out.shape != (len(crops) * len(ask), len(group)):
        raise ManifestError(f"specialist gave output {out.shape[1:]} per crop, manifest lists {len(group)} faces")
    shares = out.reshape(len(crops), len(ask), len(group)).mean(axis=0)
    face_p = face_p.copy()
    face_p[np.ix_(ask, group)] = mass[ask, None] * shares
    return face_p


def prepare_detector(model: Model, spec: DetectorSpec, height: int, width: int) -> None:
    prepare_image(model, *letterbox_shape(height, width, spec.imgsz, spec.stride))
    # The other passes' shapes are compiled now, not on the first close-up or wide photo.
    if spec.zoom_out_above is not None:
        prepare_image(model, *letterbox_shape(height, width, _half(spec), spec.stride))
    if spec.zoom_in_below is not None and max(height, width) >= 4 * spec.imgsz:
        prepare_image(model, *letterbox_shape(height, width, 2 * spec.imgsz, spec.stride))
