"""``models/dice-reader.json``: what the runtime needs to know about the two ONNX models.

The manifest names the files, their input sizes and class lists, the reporting
thresholds, and when the models were last trained. Training writes it; the reader
only reads it. How they were trained (data, seeds, options, the runs they continued
from, the calibration) is the *training record*, a free-form JSON object in its own
file beside the manifest (:func:`training_record_path`: ``dice-reader.training.json``):
the runtime never needs it, so it never loads it.

>>> m = ReaderManifest(DetectorSpec(), ClassifierSpec(colours=("white", "red")))
>>> ReaderManifest.from_json(m.to_json()) == m
True
>>> m.classifier.faces[6]
'wheel'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vision.read.detections import DIE_FACES, NOT_AN_INDEX

MANIFEST_NAME = "dice-reader.json"
DETECTOR_NAME = "dice-detector.onnx"
CLASSIFIER_NAME = "dice-classifier.onnx"
SPECIALIST_NAME = "dice-specialist.onnx"  # the first specialist's file; others name their own
SECOND_OPINION_NAME = "dice-second-opinion.onnx"  # the second classifier asked about unsure dice
CARD_BODY_NAME = "card-body.onnx"  # the card reader's body classifier (vision.read.card_body)
# The card reader has the same two-stage shape: a corner-index detector, then a classifier
# whose two heads are the rank (``faces``) and the suit (``colours``).
CARD_MANIFEST_NAME = "card-reader.json"
CARD_DETECTOR_NAME = "card-detector.onnx"
CARD_CLASSIFIER_NAME = "card-classifier.onnx"
FORMAT = 1


QUARTER_TURNS = 4  # the most ways a crop is read (ClassifierSpec.turns): 0, 90, 180 and 270 degrees


class ManifestError(ValueError):
    """The manifest is missing, unreadable or inconsistent with the model files."""


@dataclass(frozen=True)
class DetectorSpec:
    """Single-class die detector (Ultralytics YOLOv8 layout exported to ONNX).

    ``conf_threshold``: boxes below it are not dice at all and are dropped.
    ``sure_threshold``: boxes below it are kept but flagged uncertain.
    ``photo_imgsz``: the input size a still photo is detected at (``tableref read``,
    ``tableref eval``), when it differs from ``imgsz``, the live frame's: a larger input
    finds smaller objects, at a cost the live frame budget does not leave room for.
    ``zoom_out_above``: when the boxes found have a median side of this many input pixels
    or more, the dice are larger than the detector was trained on (a close-up photo), and
    the frame is detected again at half the input size; the boxes of that pass at least a
    third larger still, and sure, are added (:func:`vision.read.stages.detect_zoomed_out`).
    None: no such pass.
    ``zoom_out_photo_score``: a photo whose dice look the usual size is detected at half
    the input size too, and the large boxes of that pass (as above) scoring this much or
    more are added: a die too large for the detector is often cut into pieces it reads as
    small dice, which hide it from ``zoom_out_above``'s median. A live frame never is. None:
    only ``zoom_out_above`` looks zoomed out.
    ``zoom_in_below``: on a photo, when a tenth or more of the boxes found are under this
    many input pixels, the dice are smaller than the detector was trained on, and it is
    detected again closer: at twice the input size on a photo four times the input or more
    on its long side (also when none was found), and for the dice reader at
    its policy's ``enlarge`` (:class:`vision.read.policy.DiceKnobs`) times it on a smaller photo
    (:func:`vision.read.stages.detect_zoomed_in`). None: no such pass.

    >>> DetectorSpec(imgsz=512, photo_imgsz=700)
    Traceback (most recent call last):
    ...
    vision.read.manifest.ManifestError: detector dice-detector.onnx: photo_imgsz must be a positive multiple of the stride 32, got 700
    """

    file: str = DETECTOR_NAME
    imgsz: int = 416
    stride: int = 32
    conf_threshold: float = 0.25
    sure_threshold: float = 0.5
    iou_threshold: float = 0.5
    max_det: int = 100
    sha256: str = ""
    photo_imgsz: int | None = None
    zoom_out_above: int | None = None
    zoom_in_below: int | None = None
    zoom_out_photo_score: float | None = None

    def __post_init__(self) -> None:
        for name in ("zoom_out_above", "zoom_in_below"):
            side = getattr(self, name)
            if side is not None and not 0 < side <= self.imgsz:
                raise ManifestError(f"detector {self.file}: {name} must be a side in input pixels, 1 to "
                                    f"{self.imgsz}, got {side}")
        if self.zoom_out_photo_score is not None:
            if not 0.0 <= self.zoom_out_photo_score <= 1.0:
                raise ManifestError(f"detector {self.file}: zoom_out_photo_score must be a score from 0 to 1, "
                                    f"got {self.zoom_out_photo_score}")
            if self.zoom_out_above is None:
                raise ManifestError(f"detector {self.file}: zoom_out_photo_score needs zoom_out_above, the side "
                                    "that makes a box large")
        if self.photo_imgsz is not None and (self.photo_imgsz <= 0 or self.photo_imgsz % self.stride):
            raise ManifestError(f"detector {self.file}: photo_imgsz must be a positive multiple of the stride "
                                f"{self.stride}, got {self.photo_imgsz}")

    @property
    def still_imgsz(self) -> int:
        """The input size for a still photo: ``photo_imgsz``, or ``imgsz`` when there is none."""
        return self.imgsz if self.photo_imgsz is None else self.photo_imgsz


def _detector_json(spec: DetectorSpec) -> dict[str, Any]:
    out = asdict(spec)
    for optional in ("photo_imgsz", "zoom_out_above", "zoom_in_below", "zoom_out_photo_score"):
        if out[optional] is None:
            del out[optional]  # manifests written before these existed stay as they were
    return out


@dataclass(frozen=True)
class ClassifierSpec:
    """Up-face + body-colour classifier on square crops (BGR, values in [0, 1])."""

    file: str = CLASSIFIER_NAME
    size: int = 48
    expand: float = 1.25
    faces: tuple[str, ...] = DIE_FACES
    colours: tuple[str, ...] = ()
    sha256: str = ""
    # Read each crop this many ways, a quarter turn apart, and average: only for a
    # classifier trained on crops at every angle (card indices). 1: the crop as cut.
    turns: int = 1
    # Each head's probabilities are tempered by these before any use (vision.read.calibration:
    # fitted by ``tableref calibrate``); 1 leaves them as the network gives them.
    temperature: float = 1.0
    colour_temperature: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.turns <= QUARTER_TURNS:
            raise ManifestError(f"classifier {self.file}: turns must be 1 to {QUARTER_TURNS} quarter turns, got {self.turns}")
        for name in ("temperature", "colour_temperature"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0.05 <= value <= 20.0):
                raise ManifestError(f"classifier {self.file}: {name} must be a number from 0.05 to 20, got {value!r}")


def _spec_json(spec: ClassifierSpec) -> dict[str, Any]:
    out = asdict(spec)
    out["faces"], out["colours"] = list(spec.faces), list(spec.colours)
    for key in ("turns", "temperature", "colour_temperature"):
        if out[key] == 1:
            del out[key]  # only what differs from the network as it is gets written
    return out


def _spec_of(obj: Mapping[str, Any]) -> ClassifierSpec:
    c = dict(obj)
    c["faces"] = tuple(str(f) for f in c["faces"])
    c["colours"] = tuple(str(x) for x in c.get("colours", ()))
    return ClassifierSpec(**c)


@dataclass(frozen=True)
class ReaderManifest:
    """The two models, the reporting threshold, when they were trained, and any
    *specialists*: more classifiers on the same crops, each for a few faces the first one
    confuses (its ``faces``; ``colours`` empty), e.g. ブ and プ, or the six pip counts.
    Their groups of faces do not overlap. Only the dice reader asks specialists (the card
    reader refuses a manifest that names one).

    >>> kana = ClassifierSpec(file=SPECIALIST_NAME, faces=("ブ", "プ"))
    >>> m = ReaderManifest(DetectorSpec(), ClassifierSpec(), specialists=(kana,))
    >>> [s.faces for s in ReaderManifest.from_json(m.to_json()).specialists]
    [('ブ', 'プ')]
    """

    detector: DetectorSpec
    classifier: ClassifierSpec
    threshold: float = 0.5  # face confidence below which a reading is flagged uncertain
    specialists: tuple[ClassifierSpec, ...] = ()
    # A second classifier asked about the dice the first one reads under ``second_opinion_below``,
    # whenever a look is taken (photos, settled live reveals): its reading is averaged in.
    second_opinion: ClassifierSpec | None = None
    second_opinion_below: float = 0.9
    # The card reader's classifier of whole card bodies, warped upright from their outlines
    # (vision.read.card_body): a third view of a card beside its two corner indices.
    body: ClassifierSpec | None = None
    # When the last training run wrote this manifest (ISO 8601, UTC): the reader's ``info``
    # shows it as ``trained``. None: never trained (a manifest made by hand or by a test).
    created: str | None = None

    def __post_init__(self) -> None:
        if self.second_opinion is not None:
            other = self.second_opinion
            faces = self.classifier.faces
            real = faces[:-1] if faces[-1:] == (NOT_AN_INDEX,) else faces
            if other.faces not in (faces, real) or other.colours != self.classifier.colours:
                raise ManifestError(f"the second opinion {other.file} must read the classifier's faces and colours")
            if not 0.0 < self.second_opinion_below <= 1.0:
                raise ManifestError(f"second_opinion_below must be in (0, 1], got {self.second_opinion_below}")
        seen: set[str] = set()
        for spec in self.specialists:
            missing = [f for f in spec.faces if f not in self.classifier.faces]
            if len(set(spec.faces)) < 2 or missing:
                raise ManifestError(f"a specialist must name two or more of the classifier's faces; "
                                    f"got {list(spec.faces)}")
            if seen & set(spec.faces):
                raise ManifestError(f"specialists' faces overlap: {sorted(seen & set(spec.faces))}")
            seen |= set(spec.faces)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT}
        if self.created is not None:
            out["created"] = self.created
        out |= {
            "detector": _detector_json(self.detector),
            "classifier": _spec_json(self.classifier),
            "threshold": self.threshold,
        }
        if self.specialists:
            out["specialists"] = [_spec_json(spec) for spec in self.specialists]
        if self.second_opinion is not None:
            out["second_opinion"] = _spec_json(self.second_opinion)
            out["second_opinion_below"] = self.second_opinion_below
        if self.body is not None:
            out["body"] = _spec_json(self.body)
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ReaderManifest":
        """The manifest in ``obj``. A manifest written before the training record had its own
        file holds it under ``"training"``: only its ``created`` time is taken from it.

        >>> old = {"format": FORMAT, "detector": {}, "classifier": {"faces": ["1", "2"]},
        ...        "training": {"created": "2026-11-29T02:44:06+00:00", "detector": {"epochs": 100}}}
        >>> ReaderManifest.from_json(old).created
        '2026-11-29T02:44:06+00:00'
        """
        try:
            if obj.get("format") != FORMAT:
                raise ManifestError(f"unsupported manifest format {obj.get('format')!r} (expected {FORMAT})")
            return cls(
                detector=DetectorSpec(**dict(obj["detector"])),
                classifier=_spec_of(obj["classifier"]),
                threshold=float(obj.get("threshold", 0.5)),
                specialists=tuple(_spec_of(spec) for spec in obj.get("specialists", ())),
                second_opinion=_spec_of(obj["second_opinion"]) if obj.get("second_opinion") else None,
                second_opinion_below=float(obj.get("second_opinion_below", 0.9)),
                body=_spec_of(obj["body"]) if obj.get("body") else None,
                created=_created_of(obj),
            )
        except (KeyError, TypeError) as exc:
            raise ManifestError(f"malformed manifest: {exc}") from None

    @classmethod
    def load(cls, path: Path) -> "ReaderManifest":
        return cls.from_json(_json_object(path, "model manifest"))

    def save(self, path: Path) -> None:
        _write_json(path, self.to_json())


def _created_of(obj: Mapping[str, Any]) -> str | None:
    """The manifest's ``created`` time, or an old manifest's, which its ``"training"`` held."""
    created = obj.get("created")
    if created is None and isinstance(obj.get("training"), Mapping):
        created = obj["training"].get("created")
    return None if created is None else str(created)


def _json_object(path: Path, what: str) -> dict[str, Any]:
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"no {what} at {path}") from None
    except (OSError, ValueError) as exc:
        raise ManifestError(f"cannot read {path}: {exc}") from None
    if not isinstance(obj, dict):
        raise ManifestError(f"{path}: expected a JSON object")
    return obj


def _write_json(path: Path, obj: Mapping[str, Any]) -> None:
    Path(path).write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def training_record_path(manifest_path: Path) -> Path:
    """The training record's file beside a manifest: ``<stem>.training.json``.

    >>> training_record_path(Path("models/card-reader.json")).as_posix()
    'models/card-reader.training.json'
    """
    path = Path(manifest_path)
    return path.with_name(f"{path.stem}.training.json")


def load_training_record(manifest_path: Path) -> dict[str, Any]:
    """The training record of the manifest at ``manifest_path``, for a run that adds to it:
    its own file's; else the ``"training"`` an old manifest still holds (the next save moves
    it into the record file); else empty (no record yet, or no manifest). Raises
    :class:`ManifestError` when the record file is there but unreadable: a run that went on
    would overwrite the record of every earlier one."""
    record_path = training_record_path(manifest_path)
    if record_path.is_file():
        return _json_object(record_path, "training record")
    try:
        old = _json_object(manifest_path, "model manifest")
    except ManifestError:
        return {}
    training = old.get("training")
    return dict(training) if isinstance(training, Mapping) else {}


def save_training_record(manifest_path: Path, record: Mapping[str, Any]) -> None:
    """Write ``record`` to the training record's file beside the manifest at ``manifest_path``."""
    _write_json(training_record_path(manifest_path), record)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
