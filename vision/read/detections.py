"""Plain value types for what the camera saw (the shape of ``tableref read --json``).

>>> d = Detection(kind="die", face="wheel", colour="white", box=(412.0, 233.5, 455.2, 279.0), score=0.97)
>>> d.to_json()["face"], d.kind is Kind.DIE
('wheel', True)
>>> Reading(objects=(d,), width=1280, height=720, ms=11.8).faces()
('wheel',)

A card's face is ``<rank><suit>`` on the wire ("10H"); :class:`Card` is the one place
that splits it:

>>> Detection.from_json({"kind": "card", "face": "10H", "box": [0, 0, 9, 9]}).card
Card(rank='10', suit='H')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, overload

import numpy as np

from vision.read.boxes import nms

DIE_FACES = ("1", "2", "3", "4", "5", "6", "wheel", "プ", "ラ", "ス", "ベ", "ガ", "ブ", "レ", "フ", "カ")
CARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_SUITS = ("S", "H", "D", "C")
# A card classifier may have one more rank class: "this box is no corner index" (a detector
# false alarm: a pip, a court figure's detail, an index mostly hidden), and a dice classifier
# one more face class: "this box is no die" (a chip, a card's back, a die mostly hidden).
# Such boxes are dropped.
NOT_AN_INDEX = "none"

Box = tuple[float, float, float, float]


class DetectionError(ValueError):
    """A value that cannot be part of a reading."""


class UnknownKind(DetectionError):
    """An object that is neither a die nor a card."""

    def __init__(self, kind: object) -> None:
        super().__init__(f"unknown kind of object {kind!r}: a reading holds only 'die' and 'card'")
        self.kind = kind


class InvalidCard(DetectionError):
    """A card face that is not a rank of :data:`CARD_RANKS` followed by a suit of :data:`CARD_SUITS`."""

    def __init__(self, text: object) -> None:
        super().__init__(f"{text!r} is not a card: give a rank A 2-10 J Q K, then a suit S H D C, e.g. '10H'")
        self.text = text


class Kind(str, Enum):
    """What an object on the table is. A str enum, so it equals its JSON string and JSON
    writes it as that string; ``str``, f-strings and ``repr`` give the string too, so a
    :class:`Detection` prints as it did when its kind was a plain string (and its repr
    still builds an equal one).

    >>> Kind.parse("card") is Kind.CARD, Kind.DIE == "die", f"{Kind.DIE}s", [Kind.CARD]
    (True, True, 'dies', ['card'])
    >>> Kind.parse("chip")
    Traceback (most recent call last):
    ...
    vision.read.detections.UnknownKind: unknown kind of object 'chip': a reading holds only 'die' and 'card'
    """

    DIE = "die"
    CARD = "card"

    @classmethod
    def parse(cls, value: object) -> "Kind":
        """``value`` as a kind; :class:`UnknownKind` for anything but "die" and "card"."""
        try:
            return cls(value)
        except (ValueError, TypeError):
            raise UnknownKind(value) from None

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class Card:
    """A playing card: a rank of :data:`CARD_RANKS` and a suit of :data:`CARD_SUITS`.
    Readings, labels and game logs carry it as the string ``<rank><suit>``: :meth:`parse`
    reads that string, ``str`` writes it.

    >>> card = Card.parse("10H")
    >>> card.rank, card.suit, str(card), card.rank_index, card.suit_index
    ('10', 'H', '10H', 9, 1)
    >>> Card.parse("1H")
    Traceback (most recent call last):
    ...
    vision.read.detections.InvalidCard: '1H' is not a card: give a rank A 2-10 J Q K, then a suit S H D C, e.g. '10H'
    """

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in CARD_RANKS or self.suit not in CARD_SUITS:
            raise InvalidCard(f"{self.rank}{self.suit}")

    @classmethod
    def parse(cls, text: object) -> "Card":
        """The card ``text`` names ("10H"); :class:`InvalidCard` for anything else."""
        if isinstance(text, str) and text[:-1] in CARD_RANKS and text[-1:] in CARD_SUITS:
            return cls(text[:-1], text[-1:])
        raise InvalidCard(text)

    @property
    def rank_index(self) -> int:
        """The rank's position in :data:`CARD_RANKS` (a classifier's rank class)."""
        return CARD_RANKS.index(self.rank)

    @property
    def suit_index(self) -> int:
        """The suit's position in :data:`CARD_SUITS` (a classifier's suit class)."""
        return CARD_SUITS.index(self.suit)

    def __str__(self) -> str:
        return self.rank + self.suit


@dataclass(frozen=True)
class Detection:
    """One die or card: its up face (or ``<rank><suit>``), body colour, pixel box, confidence.
    ``kind`` may be given as its string; it is kept as a :class:`Kind` (:class:`UnknownKind`
    for any other)."""

    kind: Kind
    face: str
    colour: str | None
    box: Box
    score: float
    uncertain: bool = False
    # The reader's confidence that this box is a die at all: the detector's.
    # None: not known, e.g. cards or hand-made readings. Not part of the JSON contract; the
    # settler uses it to tell a speck the detector doubts from a die.
    box_score: float | None = field(default=None, compare=False, repr=False)
    # A die unsure of its face alone (its box sure, and its colour where the game reads
    # one): every face it may show, likeliest first. Empty for a sure die and for one whose
    # box or colour is in doubt. Not part of the JSON contract; the table uses it to give a
    # verdict that holds whatever such a die shows (web.unsure).
    alternatives: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind.parse(self.kind))

    @property
    def card(self) -> Card | None:
        """The card shown: None for a die, and for a card whose face is not read (face
        down, face ""); :class:`InvalidCard` when a card's face is no card.

        >>> Detection("card", "QS", None, (0, 0, 9, 9), 0.9).card.rank, Detection("die", "3", "red", (0, 0, 9, 9), 0.9).card
        ('Q', None)
        """
        if self.kind is not Kind.CARD or not self.face:
            return None
        return Card.parse(self.face)

    @property
    def centre(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2.0, (y1 + y2) / 2.0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind.value,
            "face": self.face,
            "colour": self.colour,
            "box": [round(float(v), 1) for v in self.box],
            "score": round(float(self.score), 4),
        }
        if self.uncertain:
            out["uncertain"] = True
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Detection":
        """A detection from its ``read --json`` object; :class:`UnknownKind` for a kind
        other than "die" and "card"."""
        x1, y1, x2, y2 = (float(v) for v in obj["box"])
        return cls(
            kind=Kind.parse(obj["kind"]),
            face=str(obj["face"]),
            colour=None if obj.get("colour") is None else str(obj["colour"]),
            box=(x1, y1, x2, y2),
            score=float(obj.get("score", 1.0)),
            uncertain=bool(obj.get("uncertain", False)),
            alternatives=tuple(str(f) for f in obj.get("alternatives") or ()),
        )


@dataclass(frozen=True)
class Reading:
    """Everything read from one frame: its ``objects`` (a :class:`Detections`, built from
    :class:`Detection` values when given them; iterating it gives them back), the frame's
    size and the ms the reading took."""

    objects: Detections = field(default_factory=lambda: Detections.from_objects(()))
    width: int = 0
    height: int = 0
    ms: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.objects, Detections):  # a sequence of Detection values
            object.__setattr__(self, "objects", Detections.from_objects(self.objects))

    def dice(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind is Kind.DIE)

    def cards(self) -> tuple[Detection, ...]:
        return tuple(o for o in self.objects if o.kind is Kind.CARD)

    def faces(self) -> tuple[str, ...]:
        return tuple(o.face for o in self.objects)

    @property
    def uncertain(self) -> bool:
        return any(o.uncertain for o in self.objects)

    def to_json(self, image: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if image is not None:
            out["image"] = image
        out.update(width=self.width, height=self.height, ms=round(self.ms, 2), objects=self.objects.to_json())
        return out


Index = np.ndarray | slice | Sequence[int]
"""Which objects of a :class:`Detections`: a boolean mask, integer indices or a slice."""

# The per-object columns of a reading in :attr:`Detections.data` (:meth:`Detections.from_objects`).
FACE, COLOUR, UNCERTAIN, BOX_SCORE, ALTERNATIVES = "face", "colour", "uncertain", "box_score", "alternatives"
READ_COLUMNS = (FACE, COLOUR, UNCERTAIN, BOX_SCORE, ALTERNATIVES)


def _column(values: Sequence[Any]) -> np.ndarray:
    """An object array holding ``values`` one per row (tuples and None included)."""
    out = np.empty(len(values), object)
    for i, value in enumerate(values):
        out[i] = value
    return out


def _floats(values: Any) -> np.ndarray:
    """Float64 arrays stay float64 (a reading's exact boxes); anything else becomes float32."""
    arr = np.asarray(values)
    return arr if arr.dtype == np.float64 else arr.astype(np.float32)


@dataclass(frozen=True, eq=False, repr=False)
class Detections:
    """The objects of one frame, as arrays: what the read path hands from the detector to the
    classifiers, into the :class:`Reading` that the settler votes over and that the JSON
    contract is written from, in the manner of supervision's ``Detections``.

    ``boxes``: ``(N, 4)`` pixel corners ``x1 y1 x2 y2`` in the original image (float32 from
    a detector, float64 in a reading); ``scores``: ``(N,)``, the detector's confidence in each
    box, or in a reading each object's score; ``kinds``: what each object is (one
    :class:`Kind` for all, or one each); ``classes``: the names of the columns of
    ``probabilities`` (``(N, K)`` float32, a classifier's reading of each box; ``(N, 0)``
    until one read them); ``data``: further per-object arrays, each ``N`` long in its first
    axis: a classifier's second head (``"colour_p"``), or a reading's columns
    (:data:`READ_COLUMNS`: face, colour, uncertain, box score, alternatives).

    Indexing with a boolean mask, integer indices or a slice selects objects, every array
    alike; an integer gives one :class:`Detection`, and iterating gives them all, as a
    reading's objects. :meth:`merge` joins the passes of one frame and :meth:`with_nms` keeps
    the best of overlapping boxes.

    >>> d = Detections(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]]), np.array([0.9, 0.8, 0.7]))
    >>> len(d), d.with_nms(0.5).boxes[:, 0].tolist()
    (3, [0.0, 20.0])
    >>> d[d.scores >= 0.75].boxes.tolist()
    [[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0]]
    >>> read = d.classified(("1", "2"), np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]]))
    >>> read.classes, read[[1, 0]].probabilities.argmax(axis=1).tolist()
    (('1', '2'), [1, 0])
    >>> Detections.empty().without(np.zeros(0, bool)).boxes.shape
    (0, 4)
    >>> two = Detections.from_objects([Detection("die", "3", "red", (0, 0, 9, 9), 0.9),
    ...                                Detection("card", "QH", None, (20, 0, 29, 15), 0.6, uncertain=True)])
    >>> [str(k) for k in two.kinds], two[1].face, two.data["uncertain"].tolist()
    (['die', 'card'], 'QH', [False, True])
    >>> two.to_json()[1]
    {'kind': 'card', 'face': 'QH', 'colour': None, 'box': [20.0, 0.0, 29.0, 15.0], 'score': 0.6, 'uncertain': True}
    """

    boxes: np.ndarray
    scores: np.ndarray
    kinds: Kind | Sequence[Kind] | np.ndarray = Kind.DIE
    classes: tuple[str, ...] = ()
    probabilities: np.ndarray | None = None
    data: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        boxes = _floats(self.boxes).reshape(-1, 4)
        scores = _floats(self.scores).reshape(-1)
        n = len(boxes)
        if len(scores) != n:
            raise ValueError(f"{n} boxes but {len(scores)} scores")
        if isinstance(self.kinds, (str, Kind)):
            kinds = _column([Kind.parse(self.kinds)] * n)
        else:
            kinds = _column([k if isinstance(k, Kind) else Kind.parse(k) for k in self.kinds])
            if len(kinds) != n:
                raise ValueError(f"{n} boxes but {len(kinds)} kinds")
        probabilities = (np.zeros((n, len(self.classes)), np.float32) if self.probabilities is None
                         else np.asarray(self.probabilities, np.float32))
        if probabilities.shape != (n, len(self.classes)):
            raise ValueError(f"expected {n} x {len(self.classes)} probabilities (one column a class), "
                             f"got {probabilities.shape}")
        data = {str(k): np.asarray(v) for k, v in self.data.items()}
        for key, values in data.items():
            if values.ndim == 0 or len(values) != n:
                raise ValueError(f"data {key!r} must hold one row an object ({n}), got shape {values.shape}")
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "classes", tuple(self.classes))
        object.__setattr__(self, "probabilities", probabilities)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "_objects", None)

    @classmethod
    def empty(cls, kind: Kind = Kind.DIE) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros((0,), np.float32), kind)

    @classmethod
    def from_objects(cls, objects: Sequence[Detection]) -> Detections:
        """A reading's objects as arrays (boxes and scores in float64, as the objects hold
        them). Iterating the result gives back these very objects."""
        objects = tuple(objects)
        made = cls(np.array([o.box for o in objects], np.float64).reshape(-1, 4),
                   np.array([o.score for o in objects], np.float64), [o.kind for o in objects],
                   data={FACE: _column([o.face for o in objects]), COLOUR: _column([o.colour for o in objects]),
                         UNCERTAIN: np.array([o.uncertain for o in objects], bool),
                         BOX_SCORE: np.array([np.nan if o.box_score is None else o.box_score for o in objects],
                                             np.float64),
                         ALTERNATIVES: _column([o.alternatives for o in objects])})
        object.__setattr__(made, "_objects", objects)
        return made

    def _read(self) -> tuple[Detection, ...]:
        """Each object as a :class:`Detection` (a reading's: its columns in ``data``)."""
        cached = self._objects  # type: ignore[attr-defined]
        if cached is None:
            missing = [k for k in READ_COLUMNS if k not in self.data]
            if missing:
                raise ValueError(f"these detections are not a reading yet (no {', '.join(missing)})")
            d = self.data
            cached = tuple(
                Detection(kind=self.kinds[i], face=str(d[FACE][i]), colour=d[COLOUR][i],
                          box=tuple(float(v) for v in self.boxes[i]),  # type: ignore[arg-type]
                          score=float(self.scores[i]), uncertain=bool(d[UNCERTAIN][i]),
                          box_score=None if np.isnan(d[BOX_SCORE][i]) else float(d[BOX_SCORE][i]),
                          alternatives=tuple(d[ALTERNATIVES][i]))
                for i in range(len(self)))
            object.__setattr__(self, "_objects", cached)
        return cached

    def __len__(self) -> int:
        return len(self.boxes)

    def __iter__(self) -> Iterator[Detection]:
        return iter(self._read())

    @overload
    def __getitem__(self, index: int) -> Detection: ...

    @overload
    def __getitem__(self, index: Index) -> Detections: ...

    def __getitem__(self, index: int | Index) -> Detection | Detections:
        """One object (an integer), or the objects ``index`` selects (a boolean mask, integer
        indices or a slice)."""
        if isinstance(index, (int, np.integer)):
            return self._read()[index]
        if not isinstance(index, slice):
            index = np.asarray(index)
            if index.dtype != bool:
                index = index.astype(np.int64).reshape(-1)
        picked = Detections(self.boxes[index], self.scores[index], self.kinds[index], self.classes,
                            self.probabilities[index], {k: v[index] for k, v in self.data.items()})
        cached = self._objects  # type: ignore[attr-defined]
        if cached is not None:
            object.__setattr__(picked, "_objects", tuple(cached[int(i)] for i in np.arange(len(cached))[index]))
        return picked

    def __eq__(self, other: object) -> bool:
        """The same objects, as :class:`Detection` values compare (a tuple of them compares too)."""
        if isinstance(other, (Detections, tuple, list)):
            return self._read() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._read())

    def __repr__(self) -> str:
        if self._objects is not None or all(k in self.data for k in READ_COLUMNS):  # type: ignore[attr-defined]
            return f"Detections({list(self._read())!r})"
        return f"Detections({len(self)} boxes, classes={self.classes!r})"

    def without(self, drop: np.ndarray) -> Detections:
        """These objects but those ``drop`` (a boolean mask) marks."""
        drop = np.asarray(drop, bool)
        return self[~drop] if drop.any() else self

    def classified(self, classes: Sequence[str], probabilities: np.ndarray, **data: np.ndarray) -> Detections:
        """These boxes as a classifier read them: its classes, its probabilities (one row a
        box) and any further outputs (``data``, added to what the objects hold)."""
        return Detections(self.boxes, self.scores, self.kinds, tuple(classes), probabilities, {**self.data, **data})

    @classmethod
    def merge(cls, parts: Sequence[Detections]) -> Detections:
        """The objects of ``parts`` (one set of classes and data keys) together."""
        if not parts:
            return cls.empty()
        first = parts[0]
        for other in parts[1:]:
            if (other.classes, sorted(other.data)) != (first.classes, sorted(first.data)):
                raise ValueError("only detections of one set of classes and data merge")
        return Detections(np.concatenate([p.boxes for p in parts]), np.concatenate([p.scores for p in parts]),
                          np.concatenate([p.kinds for p in parts]), first.classes,
                          np.concatenate([p.probabilities for p in parts]),
                          {k: np.concatenate([p.data[k] for p in parts]) for k in first.data})

    def with_nms(self, iou_threshold: float, max_det: int = 300) -> Detections:
        """The best-scoring of overlapping boxes (IoU above ``iou_threshold``), best first."""
        if not len(self):
            return self
        return self[nms(self.boxes, self.scores, iou_threshold, max_det)]

    def to_json(self) -> list[dict[str, Any]]:
        """The objects as ``read --json`` writes them (``../shared/docs/read-json.md``)."""
        d = self.data
        missing = [k for k in (FACE, COLOUR, UNCERTAIN) if k not in d]
        if missing:
            raise ValueError(f"these detections are not a reading yet (no {', '.join(missing)})")
        out = []
        boxes, scores, uncertain = self.boxes.tolist(), self.scores.tolist(), d[UNCERTAIN].tolist()
        for i, (kind, face, colour) in enumerate(zip(self.kinds, d[FACE], d[COLOUR])):
            obj: dict[str, Any] = {"kind": kind.value, "face": str(face), "colour": colour,
                                   "box": [round(v, 1) for v in boxes[i]], "score": round(scores[i], 4)}
            if uncertain[i]:
                obj["uncertain"] = True
            out.append(obj)
        return out
