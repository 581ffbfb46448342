"""The runtime dice reader: find every die in a frame, read its up face and body colour.

Two ONNX models, run without torch: a single-class die detector on the letterboxed
frame, then one batched call of the face/colour classifier on square crops cut from
the full-resolution frame. Specialists named in the manifest (the ブ/プ one) then re-read
the dice that could show their faces. When ``models/card-reader.json`` is present, the
same pass also reads playing cards (:mod:`vision.read.card_reader`).

    reader = load_reader()                 # models/ beside the package
    reading = reader.read(cv2.imread("table.jpg"))
    [(d.face, d.colour, d.uncertain) for d in reading.dice()]

Every detected die is listed. ``score`` is the classifier's probability for the face it
reports; a die is flagged ``uncertain`` when that is below the reporting threshold, or
when the detector itself is unsure the box is a die. A classifier with a last face class
``none`` (:data:`~vision.read.detections.NOT_AN_INDEX`, learnt from the detector's false
alarms) says when a box holds no die. A photo's reading leaves out the boxes
it reads so with probability ``no_die_drop`` (:class:`~vision.read.policy.DiceKnobs`) or more,
and the others keep their face probabilities as they are (not renormalised), so a box
that may be no die reads unsure. A live frame's reading ignores that class
(its faces renormalised): the settler votes over frames, and the table's count of dice
in play catches a box that is no die.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.alternatives import face_alternatives
from vision.read.backends import Model, default_threads, load_model
from vision.read.card_reader import CardReader, CornerReadings
from vision.read.colourless import colourless
from vision.read.detections import NOT_AN_INDEX, Detection, Detections, Reading
from vision.read.manifest import (
    CARD_MANIFEST_NAME,
    MANIFEST_NAME,
    ClassifierSpec,
    ManifestError,
    ReaderManifest,
    sha256_of,
)
from vision.read.policy import Mode, ReadPolicy, judge
from vision.read.profile import Profile
from vision.read.stages import (
    MIN_BOX_SIDE,
    ask_specialist,
    classify_crops,
    detect_at_scale,
    holds_a_card_index,
    holds_a_die,
    prepare_detector,
    look_again,
)
from vision.read.dice_set import set_colours
from vision.read.vocabulary import Vocabulary, decode_colours, merge_shades, plain_colour

__all__ = ["MIN_BOX_SIDE", "DiceReader", "InvalidImage", "Step", "as_bgr", "load_pair", "load_reader"]

DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[2] / "models"

def defer_no_die(face_p: np.ndarray, none: np.ndarray) -> np.ndarray:
    """Face probabilities of a model with no ``none`` class, given the column ``none`` of
    another that has one: that model's word on "no die" stands, and the faces share the rest.

    >>> [[round(float(p), 2) for p in row] for row in defer_no_die(np.array([[0.5, 0.5]]), np.array([0.2]))]
    [[0.4, 0.4, 0.2]]
    """
    none = np.asarray(none, np.float32).reshape(-1, 1)
    return np.concatenate([np.asarray(face_p, np.float32) * (1.0 - none), none], axis=1)


class Step(Enum):
    """A step of the photo read path that no manifest entry switches, which a reader view can
    leave out (:meth:`DiceReader.without`; what each costs and gains: ``tableref eval --ablate``)."""

    NO_DIE_DROP = "no-die-drop"  # boxes read as no die (DiceKnobs.no_die_drop) left out
    CROSS_CHECKS = "cross-checks"  # a die box holding a card index is a card; an index box holding a die is dice
    SHARPEN_SOFT = "sharpen-soft"  # a small or out-of-focus die's crop sharpened before it is resized (DiceKnobs.sharpen)
    DICE_SET = "dice-set"  # a roll's colours read as different dice of the game's set (vision/read/dice_set.py)


class InvalidImage(ValueError):
    """The array handed to the reader is not an 8-bit image."""


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A 3-channel uint8 view of ``image`` (grey and BGRA are converted)."""
    if not isinstance(image, np.ndarray):
        raise InvalidImage(f"expected a numpy array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise InvalidImage(f"expected uint8 pixels, got {image.dtype}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.ndim == 3 and image.shape[2] == 1:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif not (image.ndim == 3 and image.shape[2] == 3):
        raise InvalidImage(f"expected an HxW or HxWx{{1,3,4}} image, got shape {image.shape}")
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise InvalidImage("empty image")
    return image


class DiceReader:
    """Reads dice (and, with a card model, playing cards) from BGR frames. Build it with :func:`load_reader`.

    Its decisions are its ``policy``'s (:class:`~vision.read.policy.ReadPolicy`; default: the
    manifests' own, :meth:`~vision.read.policy.ReadPolicy.from_manifests`, with the card reader's
    card knobs); ``threshold`` overrides the policy's reporting threshold."""

    def __init__(
        self,
        manifest: ReaderManifest,
        detector: Model,
        classifier: Model,
        threshold: float | None = None,
        model_dir: Path | None = None,
        threads: int | None = None,
        cards: CardReader | None = None,
        vocabulary: Vocabulary | None = None,
        mode: Mode = Mode.LIVE,
        specialists: tuple[Model, ...] = (),
        second_opinion: Model | None = None,
        policy: ReadPolicy | None = None,
    ) -> None:
        if len(specialists) != len(manifest.specialists):
            raise ManifestError("one specialist model goes with each of the manifest's specialist entries")
        if (second_opinion is None) != (manifest.second_opinion is None):
            raise ManifestError("a second-opinion model goes with the manifest's second_opinion entry, and only with it")
        self.specialists = tuple(specialists)
        self.second_opinion = second_opinion
        self.manifest = manifest
        self.mode = mode
        self.cards = cards
        self.detector = detector
        self.classifier = classifier
        if policy is None:
            policy = ReadPolicy.from_manifests(manifest, None if cards is None else cards.manifest)
            if cards is not None:
                policy = replace(policy, cards=cards.policy.cards, card_detector=cards.policy.card_detector)
        if threshold is not None:
            # out of range: a PolicyError (a ValueError)
            policy = replace(policy, dice=replace(policy.dice, threshold=float(threshold)))
        self.policy = policy
        # the manifest's detector deciding as the policy does: what the stages are handed
        self.detector_spec = policy.dice_detector.on(manifest.detector)
        self.model_dir = model_dir
        self.threads = threads
        if vocabulary is not None:
            vocabulary.check(manifest.classifier.faces, manifest.classifier.colours)
        self.vocabulary = vocabulary
        self.skipped: frozenset[Step] = frozenset()
        self.profile: Profile | None = None

    @property
    def info(self) -> dict[str, Any]:
        det, cls, knobs = self.manifest.detector, self.manifest.classifier, self.policy.dice_detector
        return {
            "backend": self.detector.backend,
            "backend_version": self.detector.version,
            "precision": getattr(self.detector, "precision", "f32"),
            "threads": self.threads,
            "model_dir": None if self.model_dir is None else str(self.model_dir),
            "detector": {"file": det.file, "sha256": det.sha256, "imgsz": det.imgsz},
            "classifier": {"file": cls.file, "sha256": cls.sha256, "size": cls.size},
            "specialists": [{"file": s.file, "sha256": s.sha256, "faces": list(s.faces)}
                            for s in self.manifest.specialists],
            "second_opinion": None if self.manifest.second_opinion is None else {
                "file": self.manifest.second_opinion.file, "sha256": self.manifest.second_opinion.sha256,
                "below": self.policy.dice.second_opinion_below},
            "faces": [f for f in cls.faces if f != NOT_AN_INDEX],
            "rejects_boxes": self.rejects,
            "colours": list(cls.colours),
            "threshold": self.threshold,
            "mode": self.mode.value,
            "detector_thresholds": {"conf": knobs.conf, "sure": knobs.sure, "iou": knobs.iou},
            "trained": self.manifest.created,
            "cards": None if self.cards is None else self.cards.info,
            "skipped": sorted(step.value for step in self.skipped),
            "vocabulary": None if self.vocabulary is None else self.vocabulary.to_json(),
        }

    def _view(
        self, cards: CardReader | None, vocabulary: Vocabulary | None, mode: Mode,
        manifest: ReaderManifest | None = None, policy: ReadPolicy | None = None,
    ) -> DiceReader:
        """The same models with these stages (and this ``policy``); a ``manifest`` without
        specialists or without the second opinion drops those models too."""
        manifest = self.manifest if manifest is None else manifest
        view = DiceReader(manifest, self.detector, self.classifier, None, self.model_dir, self.threads,
                          cards, vocabulary, mode, self.specialists if manifest.specialists else (),
                          self.second_opinion if manifest.second_opinion is not None else None,
                          self.policy if policy is None else policy)
        view.profile = self.profile
        view.skipped = self.skipped
        return view

    @property
    def base_models(self) -> dict[str, str]:
        """The dice models whose readings a profile recalibrates: file -> sha256."""
        specs = [self.manifest.detector, self.manifest.classifier, *self.manifest.specialists]
        if self.manifest.second_opinion is not None:
            specs.append(self.manifest.second_opinion)
        return {spec.file: spec.sha256 for spec in specs}

    def with_profile(self, profile: Profile | None) -> DiceReader:
        """The same reader with a table's profile (:mod:`vision.read.profile`) applied to every die's
        face and colour probabilities; :class:`~vision.read.profile.ProfileError` when the profile
        was made for other base models. None: the base reading."""
        if profile is not None:
            profile.check_base(self.base_models)
        cards = self.cards
        if cards is not None:
            if profile is not None:
                profile.check_cards(cards.base_models)
            cards = cards.with_recalibration(None if profile is None else profile.ranks,
                                             None if profile is None else profile.suits)
        view = self._view(cards, self.vocabulary, self.mode)
        view.profile = profile
        return view

    def without_cards(self) -> DiceReader:
        """The same dice models without the card stages (dice-only tables, dice timings)."""
        return self._view(None, self.vocabulary, self.mode)

    def with_vocabulary(self, vocabulary: Vocabulary | None) -> DiceReader:
        """The same models reading dice as a table of one game sees them: only the faces and
        colours of ``vocabulary`` (None: every face and colour the model knows). Raises
        :class:`~vision.read.vocabulary.VocabularyError` if the model lacks one of its names."""
        return self._view(self.cards, vocabulary, self.mode)

    def in_mode(self, mode: Mode) -> DiceReader:
        """The same models, reading frames as ``mode`` asks (:class:`~vision.read.policy.Mode`):
        a live frame, a still photo, or a settled reveal's closer look."""
        return self._view(self.cards, self.vocabulary, mode)

    def with_card_imgsz(self, imgsz: int | None) -> DiceReader:
        """The same models, detecting card indices at input size ``imgsz`` (None: the card
        model's photo size, :attr:`~vision.read.card_reader.CardReader.photo_imgsz`); the same
        reader when it has no card model."""
        if self.cards is None:
            return self
        return self._view(self.cards.at_imgsz(self.cards.photo_imgsz if imgsz is None else imgsz),
                          self.vocabulary, self.mode)

    def without_card_body(self) -> DiceReader:
        """The same models, cards read from their corners alone, without the card body
        classifier (what it costs and gains: ``tableref bench``, ``tableref eval-live``)."""
        if self.cards is None or self.cards.body is None:
            return self
        return self._view(self.cards.without_body(), self.vocabulary, self.mode)

    def without_card_turns(self) -> DiceReader:
        """The same models, each card index read once instead of at the card model's quarter turns."""
        if self.cards is None or self.cards.turns == 1:
            return self
        return self._view(self.cards.with_turns(1), self.vocabulary, self.mode)

    def without_specialists(self) -> DiceReader:
        """The same models without the specialists (what they cost and gain: ``tableref bench``)."""
        if not self.specialists:
            return self
        return self._view(self.cards, self.vocabulary, self.mode, replace(self.manifest, specialists=()))

    def without_second_opinion(self) -> DiceReader:
        """The same models without the second opinion (what it costs and gains: ``tableref bench``)."""
        if self.second_opinion is None:
            return self
        return self._view(self.cards, self.vocabulary, self.mode, replace(self.manifest, second_opinion=None))

    def without_zoom_out(self) -> DiceReader:
        """The same models without the detector's zoomed-out pass (:func:`~vision.read.stages.detect_zoomed_out`)."""
        knobs = self.policy.dice_detector
        if knobs.zoom_out_above is None:
            return self
        return self._view(self.cards, self.vocabulary, self.mode, policy=replace(
            self.policy, dice_detector=replace(knobs, zoom_out_above=None, zoom_out_photo_score=None)))

    def without_zoom_in(self) -> DiceReader:
        """The same models without the detector's zoomed-in pass on wide photos (:func:`~vision.read.stages.detect_zoomed_in`)."""
        knobs = self.policy.dice_detector
        if knobs.zoom_in_below is None:
            return self
        return self._view(self.cards, self.vocabulary, self.mode,
                          policy=replace(self.policy, dice_detector=replace(knobs, zoom_in_below=None)))

    def without(self, step: Step) -> DiceReader:
        """The same reader without ``step`` (:class:`Step`)."""
        view = self._view(self.cards, self.vocabulary, self.mode)
        view.skipped = self.skipped | {step}
        return view

    @property
    def reads_photos(self) -> bool:
        """Whether this reader reads still photos (``tableref read``, ``tableref eval``, a
        settled reveal's closer look): only photos get the detectors' extra passes for a
        frame with nothing found and for a wide photo, the second opinion, and boxes of no
        die left out."""
        return self.mode is not Mode.LIVE

    def detect(self, image: np.ndarray, cards: Sequence[Detection] = ()) -> Detections:
        """Die boxes in ``image`` after confidence filtering and NMS, and a zoomed-out look when
        the dice are too large for the detector (:func:`~vision.read.stages.detect_zoomed_out`;
        on a photo, also when no die was found). That look leaves out
        what holds one of ``cards``, the cards found in the frame. A large photo whose dice
        are too small for the detector is looked at closer
        (:func:`~vision.read.stages.detect_zoomed_in`); a live frame never is. A box that holds a
        sure corner index among ``cards`` (or two unsure ones) four or more times smaller than
        itself is a card, and is left out (:func:`~vision.read.stages.holds_a_card_index`).
        A photo is detected at the manifest's ``photo_imgsz`` (when it has one): a larger input
        than a live frame's finds the small dice of a camera set far from the table."""
        spec = self.detector_spec
        if self.reads_photos and spec.still_imgsz != spec.imgsz:
            spec = replace(spec, imgsz=spec.still_imgsz)
        found = detect_at_scale(self.detector, spec, image, self.reads_photos, cards, self.policy.dice.enlarge)
        if Step.CROSS_CHECKS in self.skipped:
            return found
        return found.without(holds_a_card_index(found.boxes, cards, self.policy.dice.index_of_a_card))

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Face and colour probabilities for each box (:meth:`classify_base`), recalibrated by
        the table's profile when the reader has one."""
        face_p, colour_p = self.classify_base(image, boxes)
        profile = self.profile
        if profile is None or not len(face_p):
            return face_p, colour_p
        face_p = profile.faces.apply(face_p)
        if profile.colours is not None and colour_p.shape[1] == len(profile.colours.classes):
            colour_p = profile.colours.apply(colour_p)
        return face_p, colour_p

    def classify_base(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Face and colour probabilities for each box: one batched classifier call; in a
        settled reveal's closer look (:attr:`~vision.read.policy.Mode.CLOSER`), one more for
        its unsure dice, whose readings are averaged over more crops
        (:func:`~vision.read.stages.look_again`). Then the specialists, when the manifest has
        any, re-read the dice that could show their faces
        (:func:`~vision.read.stages.ask_specialist`; on a photo from three crops,
        :meth:`~vision.read.policy.ReadPolicy.specialist_views`).

        On a photo with a second-opinion model in the manifest, every die still read under
        ``second_opinion_below`` is read again the same way by that second classifier, and
        the two readings are averaged. Live frames never ask it: it costs a classifier call."""
        face_p, colour_p = self._classify_by(self.classifier, self.manifest.classifier, image, boxes)
        spec = self.manifest.second_opinion
        if self.second_opinion is None or spec is None or not self.reads_photos or len(face_p) == 0:
            return face_p, colour_p
        boxes = np.asarray(boxes, np.float32)
        ask = np.flatnonzero(face_p.max(axis=1) < self.policy.dice.second_opinion_below)
        if len(ask):
            other_f, other_c = self._classify_by(self.second_opinion, spec, image, boxes[ask])
            face_p, colour_p = face_p.copy(), colour_p.copy()
            if other_f.shape[1] < face_p.shape[1]:
                other_f = defer_no_die(other_f, face_p[ask, -1])
            face_p[ask] = (face_p[ask] + other_f) / 2
            if colour_p.shape[1]:
                colour_p[ask] = (colour_p[ask] + other_c) / 2
        return face_p, colour_p

    def _classify_by(
        self, model: Model, spec: ClassifierSpec, image: np.ndarray, boxes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        sharpen = None if Step.SHARPEN_SOFT in self.skipped else self.policy.dice.sharpen
        face_p, colour_p = classify_crops(model, spec, image, boxes, sharpen=sharpen)
        look = self.policy.look(self.mode)
        if look is not None:
            face_p, colour_p = look_again(model, spec, image, boxes, face_p, colour_p, look, sharpen)
        views = self.policy.specialist_views(self.mode)
        for specialist, specialist_spec in zip(self.specialists, self.manifest.specialists):
            face_p = ask_specialist(specialist, specialist_spec, spec.faces, image, boxes, face_p,
                                    self.policy.dice.specialist_min_mass, views, sharpen)
        return face_p, colour_p

    def label_dice(
        self, boxes: np.ndarray, face_p: np.ndarray, colour_p: np.ndarray, box_scores: np.ndarray | None = None,
        colourless: bool = False,
    ) -> tuple[Detection, ...]:
        """Dice from the classifier's probabilities for ``boxes``, left to right: face, colour,
        score and ``uncertain`` as :meth:`read` reports them (with this reader's vocabulary).
        ``box_scores`` are the detector's confidences (None: the boxes are known dice); a
        box the detector doubts (under its sure threshold) reads unsure whatever its face.
        On a photo, boxes read as no die are left out. In a ``colourless`` frame
        (:func:`~vision.read.colourless.colourless`) a colour is only the classifier's guess,
        so where the game's words depend on it every die is unsure."""
        colours, vocab = self.manifest.classifier.colours, self.vocabulary
        none, reported, merged = self._faces(face_p)
        if none is not None and self.reads_photos:
            keep = (none < self.policy.dice.no_die_drop if Step.NO_DIE_DROP not in self.skipped
                    else np.ones(len(none), bool))
            boxes, merged, colour_p, none = np.asarray(boxes)[keep], merged[keep], np.asarray(colour_p)[keep], none[keep]
            box_scores = None if box_scores is None else np.asarray(box_scores)[keep]
        best = merged.argmax(axis=1) if len(merged) else np.zeros((0,), np.int64)
        names = [reported[int(f)] for f in best]
        scores = merged[np.arange(len(merged)), best]
        has_colour = bool(colours) and colour_p.shape[1] == len(colours)
        colour_names: list[str | None] = [None] * len(boxes)
        # unsure whatever the face: a box the detector doubts, or (below) a colour read unsurely
        box_doubt = (np.zeros(len(boxes), bool) if box_scores is None
                     else self.policy.dice_detector.doubts(box_scores))
        colour_doubt = np.zeros(len(boxes), bool)
        if has_colour and vocab is not None and vocab.dice and Step.DICE_SET not in self.skipped:
            colour_p = self._as_set(merged, reported, colour_p, ~box_doubt)
        if has_colour:
            if vocab is None:
                colour_names = decode_colours(colour_p, colours)[0]
            else:
                colour_names, colour_scores = vocab.decode_colours(colour_p, colours)
                if vocab.colours is not None:
                    # The table's words depend on colour (Nine Dice): a colour read under the
                    # reporting threshold leaves the die as unsure as a face would.
                    colour_doubt = (np.ones(len(boxes), bool) if colourless
                                    else colour_scores < self.threshold)
        judged = judge(scores, self.threshold, box_doubt, colour_doubt)
        out = []
        for i in np.argsort((boxes[:, 0] + boxes[:, 2]), kind="stable"):
            score = float(scores[i])
            out.append(
                Detection(
                    kind="die",
                    face=names[i],
                    colour=colour_names[i],
                    box=tuple(float(v) for v in boxes[i]),  # type: ignore[arg-type]
                    score=min(1.0, max(0.0, score)),
                    uncertain=bool(judged.uncertain[i]),
                    box_score=None if box_scores is None else round(float(box_scores[i]), 4),
                    alternatives=(face_alternatives(reported, merged[i], self.policy.alternatives)
                                  if judged.face_alone[i] else ()),
                )
            )
        return tuple(out)

    def _as_set(self, merged: np.ndarray, reported: tuple[str, ...], colour_p: np.ndarray, sure: np.ndarray) -> np.ndarray:
        """Model colour probabilities of a frame's boxes read as different dice of the
        vocabulary's set (:func:`~vision.read.dice_set.set_colours`; ``merged``: the reported
        faces' probabilities). Only the ``sure`` boxes (those the detector is sure of) take
        part: a doubted box may be no die at all, and would use up one of the set's dice."""
        vocab = self.vocabulary
        rows = np.flatnonzero(sure)
        if vocab is None or vocab.colours is None or not len(rows):
            return colour_p
        colours = self.manifest.classifier.colours
        plain, probs = merge_shades(colour_p, colours)
        allowed = [j for j, c in enumerate(plain) if c in vocab.colours]
        shared = set_colours(merged[rows], reported, probs[np.ix_(rows, allowed)], [plain[j] for j in allowed], vocab.dice)
        # back onto the model's colours: each allowed plain colour's probability on its first
        # model colour (its shades none), the colours the table does not have as they were
        colour_p = np.array(colour_p, np.float32)
        for k, j in enumerate(allowed):
            cols = [m for m, name in enumerate(colours) if plain_colour(name) == plain[j]]
            colour_p[np.ix_(rows, cols)] = 0.0
            colour_p[rows, cols[0]] = shared[:, k]
        return colour_p

    def _faces(self, face_p: np.ndarray) -> tuple[np.ndarray | None, tuple[str, ...], np.ndarray]:
        """The probability of no die (None for a classifier without ``none``), and the faces
        reported with their probabilities, the vocabulary applied."""
        faces = self.manifest.classifier.faces
        none: np.ndarray | None = None
        if self.rejects:
            none, face_p, faces = np.asarray(face_p)[:, -1], np.asarray(face_p)[:, :-1], faces[:-1]
            if not self.reads_photos:
                # A live frame: a die left out of some frames and not others would blink and
                # hold its reveal back, so the frames' votes read every box as a die.
                face_p = face_p / np.maximum(face_p.sum(axis=1, keepdims=True), 1e-6)
        vocab = self.vocabulary
        if vocab is None:
            return none, tuple(faces), np.asarray(face_p, np.float32)
        reported, merged = vocab.merge_faces(face_p, faces)
        return none, reported, merged

    @property
    def threshold(self) -> float:
        """The face confidence below which a die is flagged uncertain (the policy's)."""
        return self.policy.dice.threshold

    @property
    def rejects(self) -> bool:
        """Whether the classifier can say a box holds no die (a last face class ``none``)."""
        return self.manifest.classifier.faces[-1:] == (NOT_AN_INDEX,)

    def prepare(self, height: int, width: int) -> None:
        """Make the backend ready for frames of this size (OpenVINO compiles once per input
        shape, a few hundred ms). :meth:`read` does it itself, outside its timing: it is
        model loading, not per-frame work."""
        prepare_detector(self.detector, self.detector_spec, height, width)
        if self.cards is not None:
            self.cards.prepare(height, width)

    def read(self, image_bgr: np.ndarray) -> Reading:
        """Every die in the frame, left to right, with face, colour, box and confidence; then
        every playing card (one object per card, its corner indices merged) when a card model
        is loaded. An index whose box holds a die read sure is a cluster of dice, not an
        index, and is left out (:func:`~vision.read.stages.holds_a_die`).

        ``ms`` covers letterbox, all networks, crops and post-processing of this frame.
        """
        return self.read_detailed(image_bgr)[0]

    def read_detailed(self, image_bgr: np.ndarray) -> tuple[Reading, tuple[Detection, ...]]:
        """:meth:`read`, plus the card corner indices as read one by one before merging
        (what ``tableref eval`` scores against corner-index labels)."""
        start = time.perf_counter()
        image = as_bgr(image_bgr)
        paused = time.perf_counter()
        self.prepare(*image.shape[:2])
        start += time.perf_counter() - paused
        corners: CornerReadings | None = None
        indices: tuple[Detection, ...] = ()
        cards: tuple[Detection, ...] = ()
        if self.cards is not None:
            corners = self.cards.read_corners(image, photo=self.reads_photos)
            indices, cards = corners.indices, self.cards.merge(corners, image)
        found = self.detect(image, (*indices, *cards))
        face_p, colour_p = self.classify(image, found.boxes)
        found = found.classified(self.manifest.classifier.faces, face_p, colour_p=colour_p)
        dice = self.label_dice(found.boxes, found.probabilities, found.data["colour_p"], found.scores,
                               colourless(image, self.policy.colourless_within))
        if corners is not None and self.cards is not None and indices and Step.CROSS_CHECKS not in self.skipped:
            index_boxes = np.array([i.box for i in indices], np.float64)
            on_dice = holds_a_die(index_boxes, dice, self.policy.cards.die_in_an_index)
            if on_dice.any():
                corners = corners.without(on_dice)
                indices, cards = corners.indices, self.cards.merge(corners, image)
        objects = [*dice, *cards]
        ms = (time.perf_counter() - start) * 1000.0
        return Reading(objects=tuple(objects), width=int(image.shape[1]), height=int(image.shape[0]), ms=ms), indices


def load_reader(
    model_dir: Path | None = None,
    threshold: float | None = None,
    backend: str = "auto",
    threads: int | None = None,
    precision: str = "auto",
    cards: bool = True,
    card_threshold: float | None = None,
    card_turns: int | None = None,
) -> DiceReader:
    """Load ``dice-reader.json`` and its ONNX models from ``model_dir`` (default ``models/``),
    and the card reader (``card-reader.json``) beside them when it is there and ``cards`` is true.

    Both readers take their decisions from one :class:`~vision.read.policy.ReadPolicy`, made from
    the two manifests; ``threshold`` overrides its reporting threshold (``card_threshold`` the
    card reader's; ``card_turns``: the card reader's quarter turns per index); ``precision`` is passed to
    OpenVINO (``"auto"``: bf16 where the CPU has it, else f32; ``"f32"`` forces f32). Raises :class:`ManifestError`
    when the manifest or a model file is missing, or a file does not match its recorded hash.
    """
    model_dir = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
    manifest = ReaderManifest.load(model_dir / MANIFEST_NAME)
    threads = default_threads() if threads is None else threads
    detector, classifier = load_pair(model_dir, MANIFEST_NAME, manifest, backend, threads, precision)
    specialists = load_specialists(model_dir, MANIFEST_NAME, manifest, detector.backend, threads, precision)
    second_opinion = None
    if manifest.second_opinion is not None:
        second_opinion = load_checked(model_dir, MANIFEST_NAME, "second-opinion", manifest.second_opinion,
                                      detector.backend, threads, precision)
    card_manifest = None
    if cards and (model_dir / CARD_MANIFEST_NAME).is_file():
        card_manifest = ReaderManifest.load(model_dir / CARD_MANIFEST_NAME)
    policy = ReadPolicy.from_manifests(manifest, card_manifest)
    if threshold is not None:
        policy = replace(policy, dice=replace(policy.dice, threshold=float(threshold)))
    if card_threshold is not None:
        policy = replace(policy, cards=replace(policy.cards, threshold=float(card_threshold)))
    card_reader = None
    if card_manifest is not None:
        card_reader = load_card_reader(model_dir, detector.backend, threads, precision, turns=card_turns, policy=policy)
    return DiceReader(manifest, detector, classifier, None, model_dir, threads, card_reader, specialists=specialists,
                      second_opinion=second_opinion, policy=policy)


def load_pair(
    model_dir: Path, manifest_name: str, manifest: ReaderManifest, backend: str, threads: int, precision: str
) -> tuple[Model, Model]:
    """The detector and classifier a manifest names, checked against their recorded hashes."""
    paths = {name: checked_file(model_dir, manifest_name, name, spec.file, spec.sha256)
             for name, spec in (("detector", manifest.detector), ("classifier", manifest.classifier))}
    detector = load_model(paths["detector"], backend, threads, static=True, precision=precision)
    classifier = load_model(paths["classifier"], detector.backend, threads, static=False, precision=precision)
    return detector, classifier


def load_specialists(
    model_dir: Path, manifest_name: str, manifest: ReaderManifest, backend: str, threads: int, precision: str
) -> tuple[Model, ...]:
    """The specialist models a manifest names, in its order, each checked against its hash."""
    return tuple(load_checked(model_dir, manifest_name, "specialist", spec, backend, threads, precision)
                 for spec in manifest.specialists)


def load_card_reader(
    model_dir: Path,
    backend: str = "auto",
    threads: int | None = None,
    precision: str = "auto",
    threshold: float | None = None,
    turns: int | None = None,
    policy: ReadPolicy | None = None,
) -> CardReader:
    """Load ``card-reader.json`` and the card models it names (detector, classifier, body
    classifier) from ``model_dir``; the card part of :func:`load_reader`, deciding as
    ``policy`` does (default: as the card manifest records), ``threshold`` overriding its
    reporting threshold. Raises :class:`ManifestError` as :func:`load_reader` does."""
    threads = default_threads() if threads is None else threads
    manifest = ReaderManifest.load(model_dir / CARD_MANIFEST_NAME)
    detector, classifier = load_pair(model_dir, CARD_MANIFEST_NAME, manifest, backend, threads, precision)
    body = None
    if manifest.body is not None:
        body = load_checked(model_dir, CARD_MANIFEST_NAME, "card body", manifest.body, detector.backend, threads,
                            precision)
    return CardReader(manifest, detector, classifier, threshold, turns, body, policy)


def load_checked(
    model_dir: Path, manifest_name: str, name: str, spec: ClassifierSpec, backend: str, threads: int, precision: str
) -> Model:
    """A classifier the manifest names beside its first one (any batch size), checked against its hash."""
    return load_model(checked_file(model_dir, manifest_name, name, spec.file, spec.sha256), backend, threads,
                      static=False, precision=precision)


def checked_file(model_dir: Path, manifest_name: str, name: str, file: str, sha256: str) -> Path:
    """``model_dir / file``, which must exist and match the manifest's recorded hash."""
    path = model_dir / file
    if not path.is_file():
        raise ManifestError(f"{name} model {path} is missing")
    if sha256 and sha256_of(path) != sha256:
        raise ManifestError(f"{path} does not match the sha256 recorded in {manifest_name}")
    return path
