"""Every decision threshold of the read path, in one place: :class:`ReadPolicy`.

The manifests (``models/dice-reader.json``, ``models/card-reader.json``) stay the file
format that training writes; :meth:`ReadPolicy.from_manifests` takes their thresholds
once, beside the knobs chosen by hand on validation data, and checks them all in one
place (:class:`PolicyError`). The readers, the settler and the live pipeline read their
knobs from a policy; an option that overrides one (``tableref read --threshold``) makes a
new policy with :func:`dataclasses.replace`.

A frame is read in one of three modes (:class:`Mode`): a live frame, a still photo
(``tableref read``), or the closer look a settled live reveal gets once. Whatever the
mode, whether an object is *uncertain* is decided by one rule, :func:`judge`.

Geometry constants of the finders (how a card's outline or edges are traced, how small a
box is a sliver: :data:`vision.read.stages.MIN_BOX_SIDE`, :mod:`vision.read.card_outline`,
:mod:`vision.read.card_edges`, the corner-grouping spans of :mod:`vision.read.card_reader`) are not
decisions about what was read, and stay beside the code that traces.

>>> policy = ReadPolicy()
>>> policy.dice.threshold, policy.cards.threshold, policy.look(Mode.LIVE) is None
(0.5, 0.5, True)
>>> replace(policy, dice=replace(policy.dice, threshold=0.8)).dice.threshold
0.8
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.read.boxes import Sharpen
from vision.read.manifest import DetectorSpec, ManifestError, ReaderManifest

__all__ = [
    "AlternativeKnobs", "CardKnobs", "DetectorKnobs", "DiceKnobs", "Judged", "Look", "Mode", "PolicyError",
    "ReadPolicy", "SettleConfig", "View", "judge",
]


class PolicyError(ValueError):
    """A read-path knob is out of its range, or inconsistent with another."""


def _score(owner: str, name: str, value: Any, low: float = 0.0, high: float = 1.0, *, open_low: bool = False) -> None:
    """Refuse ``value`` unless it is a number from ``low`` to ``high`` (above ``low`` with ``open_low``)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
        low < value <= high if open_low else low <= value <= high)
    if not ok:
        bound = f"above {low} and up to {high}" if open_low else f"from {low} to {high}"
        raise PolicyError(f"{owner}: {name} must be a number {bound}, got {value!r}")


class Mode(enum.Enum):
    """How a frame is read.

    ``LIVE``: a live frame, read many times a second and voted over by the settler: one crop
    per die, no box left out as no die (a die left out of some frames would blink), no
    extra detector pass, no second opinion.
    ``PHOTO``: a still photo (``tableref read``, ``tableref eval``): the detector at its
    photo size with its zoomed passes, the second opinion asked for the dice read under its
    bound, the specialist's dice read from three crops (:attr:`ReadPolicy.photo_views`),
    boxes of no die left out.
    ``CLOSER``: the closer look a settled live reveal gets once: read as a photo, with
    more crops of every die not read surely (:attr:`ReadPolicy.closer_look`).
    """

    LIVE = "live"
    PHOTO = "photo"
    CLOSER = "closer"


View = tuple[float, float, float]
"""An extra crop: (expand change, x shift, y shift), each a fraction of the box side."""


@dataclass(frozen=True)
class Look:
    """Which dice are read again, and from which extra crops (:func:`vision.read.stages.look_again`).

    A die whose face reads with a probability in ``band`` (low inclusive, high exclusive)
    is cut again once per view, and its reading becomes the mean over the first crop and
    these. Below the band a die stays uncertain anyway; above it, another look hardly
    ever changes the reading.

    >>> Look((0.9, 0.5), ((0.1, 0.0, 0.0),))
    Traceback (most recent call last):
    ...
    vision.read.policy.PolicyError: a look's band must lie in [0, 1], low <= high; got (0.9, 0.5)
    """

    band: tuple[float, float]
    views: tuple[View, ...]

    def __post_init__(self) -> None:
        low, high = self.band
        if not 0.0 <= low <= high <= 1.0 + 1e-9:
            raise PolicyError(f"a look's band must lie in [0, 1], low <= high; got {self.band}")
        if not self.views:
            raise PolicyError("a look needs at least one extra view")

    def to_json(self) -> dict[str, Any]:
        return {"band": list(self.band), "views": [list(v) for v in self.views]}


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, object by object: ``uncertain`` (flagged so, a table asks
    for a re-read unless the faces it may show all give one verdict) and ``face_alone``
    (unsure of its face and of nothing else: the faces it may show are worth listing)."""

    uncertain: np.ndarray
    face_alone: np.ndarray


def judge(scores: Any, below: float, *doubts: Any) -> Judged:
    """The one rule for when a reading is uncertain: its score (a die's face probability, a
    card's rank x suit, a settled vote's confidence) is under ``below``, or any of
    ``doubts`` holds (the detector doubts the box, the colour a game's words depend on is
    read unsurely, the frames' votes split, a card's corners disagree on the suit). Only an
    object unsure of its score alone is unsure of its ``face_alone``: one whose box, colour
    or votes are in doubt may not be what it looks like at all. Scores and doubts are
    scalars or arrays, one entry per object.

    >>> j = judge(np.array([0.9, 0.6, 0.9, 0.6]), 0.8, np.array([False, False, True, True]))
    >>> j.uncertain.tolist(), j.face_alone.tolist()
    ([False, True, True, True], [False, True, False, False])
    >>> bool(judge(0.95, 0.8).uncertain), bool(judge(0.95, 0.8, False, True).uncertain)
    (False, True)
    """
    low = np.asarray(scores, np.float64) < below
    other = np.zeros(low.shape, bool)
    for doubt in doubts:
        other = other | np.asarray(doubt, bool)
    return Judged(low | other, low & ~other)


@dataclass(frozen=True)
class DetectorKnobs:
    """One detector's decisions (the manifest's ``detector`` entry; what each means:
    :class:`vision.read.manifest.DetectorSpec`): boxes under ``conf`` are no object; boxes
    under ``sure`` are kept but doubted; ``iou`` is the NMS overlap; ``photo_imgsz`` and the
    ``zoom_*`` sides and score choose a photo's input size and its extra passes.

    >>> DetectorKnobs(conf=0.3, sure=1.2)
    Traceback (most recent call last):
    ...
    vision.read.policy.PolicyError: detector: sure must be a number from 0.0 to 1.0, got 1.2
    """

    conf: float = 0.25
    sure: float = 0.5
    iou: float = 0.5
    photo_imgsz: int | None = None
    zoom_out_above: int | None = None
    zoom_in_below: int | None = None
    zoom_out_photo_score: float | None = None

    def __post_init__(self) -> None:
        _score("detector", "conf", self.conf)
        _score("detector", "sure", self.sure)
        _score("detector", "iou", self.iou, open_low=True)
        for name in ("photo_imgsz", "zoom_out_above", "zoom_in_below"):
            side = getattr(self, name)
            if side is not None and not (isinstance(side, int) and side > 0):
                raise PolicyError(f"detector: {name} must be a positive number of input pixels, got {side!r}")
        if self.zoom_out_photo_score is not None:
            _score("detector", "zoom_out_photo_score", self.zoom_out_photo_score)
            if self.zoom_out_above is None:
                raise PolicyError("detector: zoom_out_photo_score needs zoom_out_above, the side that makes a box large")

    @classmethod
    def of(cls, spec: DetectorSpec) -> DetectorKnobs:
        """The decisions a manifest's detector entry records."""
        return cls(conf=spec.conf_threshold, sure=spec.sure_threshold, iou=spec.iou_threshold,
                   photo_imgsz=spec.photo_imgsz, zoom_out_above=spec.zoom_out_above,
                   zoom_in_below=spec.zoom_in_below, zoom_out_photo_score=spec.zoom_out_photo_score)

    def on(self, spec: DetectorSpec) -> DetectorSpec:
        """``spec`` (a manifest's detector entry: its file, input size and stride) deciding as
        these knobs do: what a reader hands :mod:`vision.read.stages`. Raises :class:`PolicyError`
        when a side or size does not suit that detector.

        >>> DetectorKnobs(sure=0.6, zoom_in_below=32).on(DetectorSpec(imgsz=512)).sure_threshold
        0.6
        >>> DetectorKnobs(photo_imgsz=700).on(DetectorSpec())
        Traceback (most recent call last):
        ...
        vision.read.policy.PolicyError: detector dice-detector.onnx: photo_imgsz must be a positive multiple of the stride 32, got 700
        """
        try:
            return replace(spec, conf_threshold=self.conf, sure_threshold=self.sure, iou_threshold=self.iou,
                           photo_imgsz=self.photo_imgsz,
                           zoom_out_above=self.zoom_out_above, zoom_in_below=self.zoom_in_below,
                           zoom_out_photo_score=self.zoom_out_photo_score)
        except ManifestError as exc:
            raise PolicyError(str(exc)) from None

    def doubts(self, box_scores: Any) -> np.ndarray:
        """Which boxes the detector doubts: scored under ``sure`` (a doubt for :func:`judge`)."""
        return np.asarray(box_scores) < self.sure


@dataclass(frozen=True)
class DiceKnobs:
    """The dice reader's decisions.

    ``threshold``: a face read under it is uncertain (the manifest's ``threshold``; also a
    colour, where the game's words depend on it). ``second_opinion_below``: with a look,
    the dice read under it are read again by the second-opinion classifier (the manifest's).
    ``no_die_drop``: with a look, a box read as no die with this probability or more is left
    out; chosen on the validation renders: at 0.5 more wrongly kept boxes went, but three
    times as many dice, a third of them ship's wheels. ``specialist_min_mass``: dice
    whose probability for a specialist's faces adds up to less are not shown to it: however
    it shared that out, the face would not change.
    ``enlarge``: a photo that is not wide and whose dice are small is detected again at this
    many times the input (:func:`vision.read.stages.detect_zoomed_in`). ``index_of_a_card``: a
    die's box holding a whole corner index this much smaller than itself is a card
    (:func:`vision.read.stages.holds_a_card_index`; an index is under a fifth of its card's long
    side). ``foreign_below``: on a table waiting for one game, a die whose face scores under
    this on every face of that game's dice is none of them (:func:`vision.live.pipeline.own_dice`).
    ``sharpen_below`` / ``sharpen_soft_below`` / ``sharpen_amount``: a die's crop cut at under
    this many pixels a side, or out of focus (its :func:`~vision.read.boxes.focus` under this),
    is sharpened by this much before it is resized for the classifiers
    (:class:`~vision.read.boxes.Sharpen`; 0: never). Chosen on the foreign yardstick's ``val``
    split and the real tray's photos: at 32 px it reads 2.3 points more of the yardstick's dice
    surely and right and leaves the tray's photos, whose crops are larger, as they were (at 40 px
    it cost the tray two dice); a focus of 0.1 takes in all but one die of the tray through a lens out
    of focus and none of it, nor of the yardstick, in focus (model card).
    """

    threshold: float = 0.5
    second_opinion_below: float = 0.9
    no_die_drop: float = 0.8
    specialist_min_mass: float = 0.2
    enlarge: float = 1.5
    index_of_a_card: float = 0.25
    foreign_below: float = 0.2
    sharpen_below: float = 32.0
    sharpen_soft_below: float = 0.1
    sharpen_amount: float = 1.0

    @property
    def sharpen(self) -> Sharpen | None:
        """How small or out-of-focus dice crops are sharpened (None: never).

        >>> DiceKnobs().sharpen
        Sharpen(below=32.0, soft_below=0.1, amount=1.0, sigma=1.0)
        >>> DiceKnobs(sharpen_below=0, sharpen_soft_below=0).sharpen is None
        True
        """
        if not (self.sharpen_below or self.sharpen_soft_below):
            return None
        return Sharpen(self.sharpen_below, self.sharpen_soft_below, self.sharpen_amount)

    def __post_init__(self) -> None:
        _score("dice", "sharpen_below", self.sharpen_below, 0.0, 1024.0)
        _score("dice", "sharpen_soft_below", self.sharpen_soft_below)
        _score("dice", "sharpen_amount", self.sharpen_amount, 0.0, 4.0, open_low=True)
        for name in ("threshold", "specialist_min_mass", "foreign_below"):
            _score("dice", name, getattr(self, name))  # 0 is a choice: nothing flagged, foreign
        for name in ("second_opinion_below", "no_die_drop", "index_of_a_card"):
            _score("dice", name, getattr(self, name), open_low=True)  # at 0 the step would be meaningless
        _score("dice", "enlarge", self.enlarge, 1.0, 4.0, open_low=True)


@dataclass(frozen=True)
class CardKnobs:
    """The card reader's decisions.

    ``threshold``: a card (rank x suit) read under it is uncertain (the card manifest's
    ``threshold``). ``no_index_drop``: a box the classifier finds this likely no index at all
    is dropped; not "when no index is the likeliest class": an unclear index spreads its
    probability over several ranks, and on validation renders that rule dropped 17 found
    indices against 4, for 69 false ones against 43 (model card, classifier run G).
    ``die_in_an_index``: a corner index holding this share of a sure die's box is a cluster
    of dice, no index (:func:`vision.read.stages.holds_a_die`). ``closer_max``: the largest input
    the card detector gets in a settled reveal's closer look: a 1280x720 frame's own size,
    read where the live 640 halves its indices (:func:`vision.live.pipeline.card_closer_imgsz`).
    """

    threshold: float = 0.5
    no_index_drop: float = 0.5
    die_in_an_index: float = 0.8
    closer_max: int = 1280

    def __post_init__(self) -> None:
        _score("cards", "threshold", self.threshold)
        _score("cards", "no_index_drop", self.no_index_drop, open_low=True)
        _score("cards", "die_in_an_index", self.die_in_an_index, open_low=True)
        if not (isinstance(self.closer_max, int) and self.closer_max > 0):
            raise PolicyError(f"cards: closer_max must be a positive number of input pixels, got {self.closer_max!r}")


@dataclass(frozen=True)
class AlternativeKnobs:
    """The faces an unsure die (or card) may show (:mod:`vision.read.alternatives`): any face the
    classifier gives at least ``floor``, when those faces hold at least ``mass`` together
    (else it has none, and asks for a re-read). Chosen on validation photos: of 722 dice
    unsure of their face alone, 689 kept alternatives and the true face was outside them for 3.
    """

    floor: float = 0.02
    mass: float = 0.8

    def __post_init__(self) -> None:
        _score("alternatives", "floor", self.floor, open_low=True)
        _score("alternatives", "mass", self.mass, open_low=True)


@dataclass(frozen=True)
class SettleConfig:
    """How still and how long before a live reading counts (:class:`vision.live.settle.Settler`).

    ``move_frac``: centre displacement, as a fraction of the box size (mean of width and
    height), above which an object is moving. ``min_iou``: boxes of the same still
    object must overlap at least this much. ``stable_frames`` / ``min_still_s``: length
    of the still run that settles. ``min_share``: a winning face with a smaller vote
    share is marked uncertain, as is one whose confidence is under ``uncertain_below``.
    ``min_objects``: an empty table never settles. ``faint_below``: a detector confidence
    under which an object is *faint*, a speck the detector doubts (the committed die
    detector's own sure threshold); faint objects may blink in and out where one was seen
    in the last ``faint_memory`` frames without counting as motion. ``regroup_cards``: a
    card read as one object in one frame and as its two corner indices in the next (the
    reader paired them, then did not) is not motion either (:meth:`vision.live.settle.Settler._follow`).
    ``card_suits_agree``: a card is sure only when every read of its winning rank over the
    still run names one suit. Frames that disagree on a small index's suit are the same
    evidence as two corners that disagree (see :meth:`vision.read.card_reader.CardReader.read`).
    ``flicker_frames`` / ``flicker_s``: when the frames are given and the picture itself has
    not moved (no cell of :func:`~vision.live.stillness.thumbnail` changed by more than
    ``image_still_tol`` grey levels) for this many frames spanning this long, and the
    readings have not settled in that time because they flicker, the scene settles all the
    same (:meth:`vision.live.settle.Settler.update`, step 5 of its module's list); None: never.
    It votes over the still picture's latest ``flicker_window`` frames, and an object seen in
    fewer than ``flicker_present`` of them is uncertain (:func:`vision.live.settle.flicker_vote`).
    ``average_above``: the dice's closer look at a settled reveal reads the mean of the still
    picture's latest ``stable_frames`` frames when their sensor noise
    (:func:`vision.live.averaging.temporal_noise`) is this many grey levels or more, else the
    newest frame; None: always the newest frame. Chosen on live clips of tables never trained
    on (model card): through a dim camera (noise 4-8) 93 -> 96 of 120 reveals right and
    2 -> 1 wrong with the classifier E96N (85 -> 93 with W1); the demo's clean frames (2.3)
    are read as they are, since their mean read small dice worse.
    """

    stable_frames: int = 5
    min_still_s: float = 0.4
    move_frac: float = 0.15
    min_iou: float = 0.3
    min_share: float = 0.6
    uncertain_below: float = 0.5
    min_objects: int = 1
    faint_below: float = 0.5
    faint_memory: int = 30
    regroup_cards: bool = True
    card_suits_agree: bool = True
    image_still_tol: float = 8.0
    flicker_frames: int | None = 12
    flicker_s: float = 0.8
    flicker_window: int = 45
    flicker_present: float = 0.8
    average_above: float | None = 3.5

    def __post_init__(self) -> None:
        if self.stable_frames < 1:
            raise PolicyError("settle: stable_frames must be at least 1")
        if self.flicker_frames is not None and self.flicker_frames < self.stable_frames:
            raise PolicyError("settle: flicker_frames must be at least stable_frames (or None: never)")
        if self.image_still_tol <= 0:
            raise PolicyError("settle: image_still_tol must be positive")
        if self.average_above is not None and not self.average_above > 0:
            raise PolicyError("settle: average_above must be a positive noise level in grey levels (or None: never)")
        if not 0 < self.move_frac:
            raise PolicyError("settle: move_frac must be positive")
        if self.faint_memory < 0:
            raise PolicyError("settle: faint_memory must be 0 or more frames")
        if self.flicker_window < 1:
            raise PolicyError("settle: flicker_window must be at least 1 frame")
        _score("settle", "flicker_present", self.flicker_present, open_low=True)


@dataclass(frozen=True)
class ReadPolicy:
    """Every decision the read path makes, grouped by what it governs: the dice detector
    (``dice_detector``) and reader (``dice``), the card detector (``card_detector``) and
    reader (``cards``), the faces an unsure object may show (``alternatives``), settling
    live frames into reveals (``settle``), the crops a settled reveal's closer look reads
    its unsure dice from (``closer_look``; a still photo and a live frame take none:
    :meth:`look`), and the extra crops a photo's specialist reads (``photo_views``). Build
    it from the models' manifests with :meth:`from_manifests`.

    ``colourless_within``: a frame whose chroma lies this close to its median nearly
    everywhere holds no colour (:func:`vision.read.colourless.colourless`): its dice's colours
    are in doubt where the game's words depend on them, and its cards' suits are unknown.

    ``closer_look``: the look a settled live reveal gets once
    (:func:`vision.live.pipeline.look_closer`): two scales and four shifts of every die not
    read at 0.9 or more; it costs a few ms once per reveal, not per frame. ``photo_views``: a
    tighter and a looser crop, from which (with the first) a photo's specialist reads the
    dice that may show its faces; a live frame's specialist reads one crop, and the closer
    look's reads the closer look's crops (:meth:`specialist_views`).

    >>> p = ReadPolicy()
    >>> p.closer_look.band, len(p.closer_look.views), len(p.photo_views)
    ((0.0, 0.9), 6, 2)
    """

    dice: DiceKnobs = field(default_factory=DiceKnobs)
    dice_detector: DetectorKnobs = field(default_factory=DetectorKnobs)
    cards: CardKnobs = field(default_factory=CardKnobs)
    card_detector: DetectorKnobs = field(default_factory=DetectorKnobs)
    alternatives: AlternativeKnobs = field(default_factory=AlternativeKnobs)
    settle: SettleConfig = field(default_factory=SettleConfig)
    photo_views: tuple[View, ...] = ((-0.1, 0.0, 0.0), (0.1, 0.0, 0.0))
    closer_look: Look = Look(
        band=(0.0, 0.9),
        views=((-0.1, 0.0, 0.0), (0.1, 0.0, 0.0), (0.0, 0.06, 0.0), (0.0, -0.06, 0.0), (0.0, 0.0, 0.06),
               (0.0, 0.0, -0.06)),
    )

    colourless_within: float = 1.0

    def __post_init__(self) -> None:
        _score("policy", "colourless_within", self.colourless_within, 0.0, 255.0)
        kinds = (("dice", DiceKnobs), ("dice_detector", DetectorKnobs), ("cards", CardKnobs),
                 ("card_detector", DetectorKnobs), ("alternatives", AlternativeKnobs), ("settle", SettleConfig),
                 ("closer_look", Look))
        for name, kind in kinds:
            if not isinstance(getattr(self, name), kind):
                raise PolicyError(f"{name} must be a {kind.__name__}, got {type(getattr(self, name)).__name__}")
        if not all(isinstance(v, tuple) and len(v) == 3 for v in self.photo_views):
            raise PolicyError(f"photo_views: each view is (expand change, x shift, y shift), got {self.photo_views!r}")

    @classmethod
    def from_manifests(cls, dice: ReaderManifest | None, cards: ReaderManifest | None = None) -> ReadPolicy:
        """The policy the models' manifests record (``dice``: the dice reader's; ``cards``: the
        card reader's, when there is one), every other knob at its chosen value; a settled object is faint where the dice
        detector doubts its box. Raises :class:`PolicyError` when a
        value is out of its range.

        >>> from vision.read.manifest import ClassifierSpec
        >>> m = ReaderManifest(DetectorSpec(sure_threshold=0.6), ClassifierSpec(), threshold=0.8)
        >>> p = ReadPolicy.from_manifests(m)
        >>> p.dice.threshold, p.dice_detector.sure, p.cards == CardKnobs()
        (0.8, 0.6, True)
        """
        policy = cls()
        if dice is not None:
            policy = replace(policy, dice=DiceKnobs(threshold=dice.threshold, second_opinion_below=dice.second_opinion_below),
                             dice_detector=DetectorKnobs.of(dice.detector))
            policy = replace(policy, settle=replace(policy.settle, faint_below=policy.dice_detector.sure))
        if cards is not None:
            policy = replace(policy, cards=replace(policy.cards, threshold=cards.threshold),
                             card_detector=DetectorKnobs.of(cards.detector))
        return policy

    def look(self, mode: Mode) -> Look | None:
        """The extra crops a frame read in ``mode`` takes of its unsure dice (None: one crop
        per die): only the closer look at a settled reveal takes any."""
        return self.closer_look if mode is Mode.CLOSER else None

    def specialist_views(self, mode: Mode) -> tuple[View, ...]:
        """The extra crops a specialist reads its dice from in ``mode``, besides the first."""
        return {Mode.LIVE: (), Mode.PHOTO: self.photo_views, Mode.CLOSER: self.closer_look.views}[mode]
