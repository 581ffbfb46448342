"""Teaching a reader profile from labelled photos of one table's set (``docs/teach.md``).

Each taught photo is read by the base reader as ``tableref read`` reads it: the detector's
boxes, then the classifier's face and colour probabilities for each. A labelled die is
matched to the reader's box over it (labels need not be tight); a labelled die the
detector missed is read from its label's box; a box no label matches is taught as no die
(when the classifier has that class). Those probabilities and the true classes fit the
profile's :class:`~vision.read.profile.Recalibration` of faces and of body colours.

The photos themselves are kept in the profile folder (:mod:`vision.teach.store`), so a
profile can be taught again from them for new base models.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, replace

import numpy as np

from vision.read.boxes import greedy_match
from vision.read.card_reader import CardReader
from vision.read.detections import CARD_RANKS, NOT_AN_INDEX, Card
from vision.teach.labels import LabelledImage
from vision.read.profile import Profile, Recalibration
from vision.read.reader import DiceReader, as_bgr

# A label's box is matched to the reader's box over the same die at this IoU: labels are
# drawn by hand or projected from a render, so they need not be tight.
MATCH_IOU = 0.3
# The pulls towards the base reading a profile chooses among (see Recalibration.fit), and
# how: by this many cross-validation folds, one die read surely wrong costing as much as
# WRONG_COST read surely right; below MIN_TO_CHOOSE photos there is nothing to choose by.
PULLS = (2.0, 8.0, 32.0)
FOLDS = 5
WRONG_COST = 20
MIN_TO_CHOOSE = 3


@dataclass(frozen=True)
class TaughtDice:
    """The base reader's probabilities for a set's dice, and what each truly is."""

    face_p: np.ndarray  # N x faces (with "none" last when the classifier has it)
    faces: np.ndarray  # N true face indices
    colour_p: np.ndarray  # N x colours
    colours: np.ndarray  # N true colour indices, -1 where unknown

    @classmethod
    def empty(cls, n_faces: int, n_colours: int) -> TaughtDice:
        return cls(np.zeros((0, n_faces), np.float32), np.zeros(0, np.int64),
                   np.zeros((0, n_colours), np.float32), np.zeros(0, np.int64))

    @classmethod
    def join(cls, parts: Sequence[TaughtDice], n_faces: int, n_colours: int) -> TaughtDice:
        if not parts:
            return cls.empty(n_faces, n_colours)
        return cls(np.concatenate([p.face_p for p in parts]), np.concatenate([p.faces for p in parts]),
                   np.concatenate([p.colour_p for p in parts]), np.concatenate([p.colours for p in parts]))


def taught_dice(reader: DiceReader, photo: LabelledImage, image: np.ndarray) -> TaughtDice:
    """The examples one labelled photo gives (``image``: its pixels, BGR)."""
    faces, colours = reader.manifest.classifier.faces, reader.manifest.classifier.colours
    base = reader.with_profile(None)
    image = as_bgr(image)
    base.prepare(*image.shape[:2])
    dice = [(o, photo.is_readable(k)) for k, o in enumerate(photo.objects) if o.kind == "die"]
    labelled = [o for o, readable in dice if readable]
    found = base.detect(image)
    truth = np.array([d.box for d in labelled], np.float32).reshape(-1, 4)
    pairs = greedy_match(truth, found.boxes, MATCH_IOU)
    matched_truth = {g for g, _ in pairs}
    matched_found = {p for _, p in pairs}
    # a box on a die that cannot be read (under a hand, on its edge) is neither taught a face nor "no die"
    hidden = np.array([o.box for o, readable in dice if not readable], np.float32).reshape(-1, 4)
    matched_found |= {p for _, p in greedy_match(hidden, found.boxes, MATCH_IOU)}
    boxes: list[np.ndarray] = []
    targets: list[int] = []
    colour_targets: list[int] = []
    for g, p in pairs:
        boxes.append(found.boxes[p])
        targets.append(faces.index(labelled[g].face))
        colour_targets.append(colours.index(labelled[g].colour) if labelled[g].colour in colours else -1)
    for g, die in enumerate(labelled):
        if g not in matched_truth:
            boxes.append(truth[g])
            targets.append(faces.index(die.face))
            colour_targets.append(colours.index(die.colour) if die.colour in colours else -1)
    if reader.rejects and not photo.cards():
        # A box no die's label matches is not a die; near a card it may be a card's pip,
        # which the card reader decides, so only photos without cards teach this.
        for p in range(len(found.boxes)):
            if p not in matched_found:
                boxes.append(found.boxes[p])
                targets.append(faces.index(NOT_AN_INDEX))
                colour_targets.append(-1)
    if not boxes:
        return TaughtDice.empty(len(faces), len(colours))
    face_p, colour_p = base.classify(image, np.stack(boxes).astype(np.float32))
    return TaughtDice(np.asarray(face_p, np.float32), np.array(targets, np.int64),
                      np.asarray(colour_p, np.float32), np.array(colour_targets, np.int64))


@dataclass(frozen=True)
class TaughtIndices:
    """The base card reader's rank and suit probabilities for a deck's corner indices, and
    what each truly is (suit -1 for a box that is no index)."""

    rank_p: np.ndarray
    ranks: np.ndarray
    suit_p: np.ndarray
    suits: np.ndarray


def taught_indices(cards: CardReader, photo: LabelledImage, image: np.ndarray) -> TaughtIndices | None:
    """The corner indices one labelled photo gives: every index box the base card reader finds
    inside a labelled card (its whole box) is that card's rank and suit; one inside no card
    and on no die is no index (when the classifier has that class). None: the photo labels no card."""
    labelled = [o for k, o in enumerate(photo.objects) if o.kind == "card" and photo.is_readable(k) and o.face]
    if not labelled:
        return None
    image = as_bgr(image)
    cards.prepare(*image.shape[:2])
    found = cards.detect(image, photo=True)
    if not len(found.boxes):
        return None
    rank_p, suit_p = cards.classify_base(image, found.boxes)
    ranks, suits = [], []
    others = [o.box for o in photo.objects if o not in labelled]
    for box in found.boxes:
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        inside = [c for c in labelled if c.box[0] <= cx <= c.box[2] and c.box[1] <= cy <= c.box[3]]
        if len(inside) == 1:
            face = inside[0].face
            ranks.append(Card.parse(face).rank_index)
            suits.append(Card.parse(face).suit_index)
        elif not inside and cards.rejects and not any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in others):
            ranks.append(len(CARD_RANKS))  # the classifier's "no index"
            suits.append(-1)
        else:  # on two overlapping cards, or on a die or a face-down card: not taught
            ranks.append(-2)
            suits.append(-1)
    keep = np.array(ranks) >= 0
    return TaughtIndices(rank_p[keep], np.array(ranks)[keep], suit_p[keep], np.array(suits)[keep])


def fit_deck(cards: CardReader, taught: Sequence[TaughtIndices], pull: float | None = None
             ) -> tuple[Recalibration | None, Recalibration | None]:
    """The rank and suit recalibrations of a deck (None, None without a taught index)."""
    if not taught or not sum(len(t.ranks) for t in taught):
        return None, None
    spec = cards.manifest.classifier
    rank_p = np.concatenate([t.rank_p for t in taught])
    ranks = np.concatenate([t.ranks for t in taught])
    suit_p = np.concatenate([t.suit_p for t in taught])
    suits = np.concatenate([t.suits for t in taught])
    rank_fit = Recalibration.fit(spec.faces, rank_p, ranks, pull)
    known = suits >= 0
    suit_fit = Recalibration.fit(spec.colours, suit_p[known], suits[known], pull) if known.any() else None
    return rank_fit, suit_fit


def fit_profile(
    reader: DiceReader, examples: TaughtDice, photos: int, counts: Mapping[str, int], pull: float | None = None
) -> Profile:
    """A profile for ``reader``'s base models from the taught examples (``pull``: see
    :meth:`~vision.read.profile.Recalibration.fit`)."""
    spec = reader.manifest.classifier
    faces = Recalibration.fit(spec.faces, examples.face_p, examples.faces, pull)
    colours = None
    known = examples.colours >= 0
    if spec.colours and examples.colour_p.shape[1] == len(spec.colours) and known.any():
        colours = Recalibration.fit(spec.colours, examples.colour_p[known], examples.colours[known], pull)
    return Profile(base=reader.base_models, faces=faces, colours=colours, photos=photos,
                   objects=int(sum(counts.values())), counts=dict(counts))


@dataclass(frozen=True)
class TaughtPhoto:
    """What one labelled photo teaches: its dice, its deck's corner indices (None: no card),
    and the faces it shows (dice and cards, readable ones)."""

    dice: TaughtDice
    deck: TaughtIndices | None
    faces: tuple[str, ...]


def taught_photo(reader: DiceReader, photo: LabelledImage, image: np.ndarray) -> TaughtPhoto:
    """The base reader's examples from one labelled photo (its pixels ``image``, BGR)."""
    faces = tuple(o.face for k, o in enumerate(photo.objects)
                  if o.kind in ("die", "card") and photo.is_readable(k) and o.face)
    deck = None if reader.cards is None else taught_indices(reader.cards, photo, image)
    return TaughtPhoto(taught_dice(reader, photo, image), deck, faces)


def reading_gain(reader: DiceReader, recalibration: Recalibration | None, taught: TaughtDice) -> int:
    """How well the dice of ``taught`` are read under ``recalibration`` (None: as the base
    reader reads them): each read surely right counts one, each read surely as a wrong face
    (or as a die where there is none) costs :data:`WRONG_COST`. Sure is the reader's rule: a
    face probability at its threshold."""
    p = taught.face_p if recalibration is None else recalibration.apply(taught.face_p)
    if not len(p):
        return 0
    faces = reader.manifest.classifier.faces
    none = faces.index(NOT_AN_INDEX) if NOT_AN_INDEX in faces else None
    face_p = p if none is None else np.delete(p, none, axis=1)
    columns = [i for i in range(len(faces)) if i != none]
    best = np.array(columns)[face_p.argmax(axis=1)]
    sure = face_p.max(axis=1) >= reader.threshold
    is_die = taught.faces != (-1 if none is None else none)
    right = sure & is_die & (best == taught.faces)
    wrong = sure & ~(best == taught.faces)
    return int(right.sum()) - WRONG_COST * int(wrong.sum())


def deck_gain(cards: CardReader, recalibration: tuple[Recalibration | None, Recalibration | None],
              taught: Sequence[TaughtIndices]) -> int:
    """:func:`reading_gain` for a deck's corner indices: an index is sure when its rank and
    suit probabilities' product reaches the card reader's threshold, and a box that is no
    index read surely as one is a mistake."""
    if not taught:
        return 0
    ranks, suits = recalibration
    rank_p = np.concatenate([t.rank_p for t in taught])
    suit_p = np.concatenate([t.suit_p for t in taught])
    if ranks is not None:
        rank_p = ranks.apply(rank_p)
    if suits is not None:
        suit_p = suits.apply(suit_p)
    true_rank = np.concatenate([t.ranks for t in taught])
    true_suit = np.concatenate([t.suits for t in taught])
    r = rank_p[:, :len(CARD_RANKS)].argmax(axis=1)
    s = suit_p.argmax(axis=1)
    sure = rank_p[np.arange(len(r)), r] * suit_p[np.arange(len(s)), s] >= cards.threshold
    right = sure & (r == true_rank) & (s == true_suit)
    return int(right.sum()) - WRONG_COST * int((sure & ~right).sum())


def clears_noise(unchanged: Sequence[int], changed: Sequence[int]) -> bool:
    """Whether a change's cross-validation gains (one per fold, beside the gains of no
    change) beat no change by more than the chance spread: the summed difference must
    exceed its standard error over the folds. A few taught photos hold a few sure
    mistakes, and a pull that undoes the one a fold happens to show wins that fold by
    :data:`WRONG_COST` while it costs sure readings the folds are too small to show.

    >>> clears_noise([1, 0, -18], [0, 0, 1])  # one fold's mistake undone: within the spread
    False
    >>> clears_noise([3, 2, 4, 1, 2], [5, 4, 6, 3, 5])  # every fold gains
    True
    """
    diff = np.asarray(changed, np.float64) - np.asarray(unchanged, np.float64)
    if len(diff) < 2:
        return False
    return bool(diff.sum() > np.sqrt(len(diff)) * diff.std(ddof=1))


def teach_examples(reader: DiceReader, photos: Sequence[TaughtPhoto], pull: float | None = None) -> Profile:
    """A profile from the examples of labelled photos, for ``reader``'s base models.

    ``pull`` None chooses it by cross-validation: for each of :data:`PULLS` and for no
    change at all, every photo's dice are read (:func:`reading_gain`) under a recalibration
    fitted on the other photos (:data:`FOLDS` interleaved parts); the best is then fitted on
    every photo, if it beats no change by more than the folds' spread (:func:`clears_noise`).
    No change wins a tie, and with fewer than :data:`MIN_TO_CHOOSE` photos
    nothing is changed: a profile departs from the base reader only where photos it was not
    taught from say so. A deck's indices count in that choice as the dice do
    (:func:`deck_gain`), and take the same pull."""
    spec = reader.manifest.classifier
    counts = Counter(face for p in photos for face in p.faces)

    def join(rows: Iterable[int]) -> TaughtDice:
        return TaughtDice.join([photos[i].dice for i in rows], len(spec.faces), len(spec.colours))

    def deck(rows: Iterable[int]) -> list[TaughtIndices]:
        return [d for i in rows if (d := photos[i].deck) is not None]

    everything = range(len(photos))
    if pull is None and len(photos) >= MIN_TO_CHOOSE:
        folds = min(FOLDS, len(photos))
        gains: dict[float | None, list[int]] = {}
        for candidate in (None, *PULLS):
            gains[candidate] = []
            for k in range(folds):
                shown = [i for i in everything if i % folds == k]
                rest = [i for i in everything if i % folds != k]
                faces: Recalibration | None = None
                ranks_suits: tuple[Recalibration | None, Recalibration | None] = (None, None)
                if candidate is not None:
                    taught = join(rest)
                    faces = Recalibration.fit(spec.faces, taught.face_p, taught.faces, candidate)
                    if reader.cards is not None:
                        ranks_suits = fit_deck(reader.cards, deck(rest), candidate)
                gain = reading_gain(reader, faces, join(shown))
                if reader.cards is not None:
                    gain += deck_gain(reader.cards, ranks_suits, deck(shown))
                gains[candidate].append(gain)
        best = max(gains, key=lambda c: (sum(gains[c]), c is None))
        pull = best if best is not None and clears_noise(gains[None], gains[best]) else None
    if pull is None:  # no change
        return Profile(base=reader.base_models, faces=Recalibration.identity(spec.faces), colours=None,
                       photos=len(photos), objects=int(sum(counts.values())), counts=dict(counts))
    profile = fit_profile(reader, join(everything), len(photos), counts, pull)
    if reader.cards is not None:
        ranks, suits = fit_deck(reader.cards, deck(everything), pull)
        if ranks is not None:
            profile = replace(profile, ranks=ranks, suits=suits, card_base=reader.cards.base_models)
    return profile


def teach(
    reader: DiceReader, photos: Iterable[tuple[LabelledImage, np.ndarray]], pull: float | None = None
) -> Profile:
    """A profile taught by labelled photos with their pixels (:func:`teach_examples`)."""
    return teach_examples(reader, [taught_photo(reader, photo, image) for photo, image in photos], pull)


@dataclass(frozen=True)
class HeldOut:
    """How a profile reads photos of the set it was not taught from (dice counted by label)."""

    dice: int
    found: int
    sure_right: int
    sure_wrong: int
    cards: int = 0
    cards_sure_right: int = 0
    cards_sure_wrong: int = 0
    colours: int = 0  # dice found whose colour is labelled
    colours_right: int = 0  # of those, read in that colour

    @property
    def accuracy(self) -> float | None:
        """Dice read surely and right, over all labelled dice."""
        return None if not self.dice else self.sure_right / self.dice

    @property
    def confidently_wrong(self) -> float | None:
        return None if not self.dice else self.sure_wrong / self.dice

    def __add__(self, other: HeldOut) -> HeldOut:
        return HeldOut(*(a + b for a, b in zip(astuple(self), astuple(other))))

    def to_json(self) -> dict[str, float | int | None]:
        out: dict[str, float | int | None] = {
            "dice": self.dice, "found": self.found, "sure_right": self.sure_right, "sure_wrong": self.sure_wrong,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 4),
            "confidently_wrong": None if self.confidently_wrong is None else round(self.confidently_wrong, 4)}
        if self.cards:
            out.update(cards=self.cards, cards_sure_right=self.cards_sure_right,
                       cards_sure_wrong=self.cards_sure_wrong,
                       card_accuracy=round(self.cards_sure_right / self.cards, 4),
                       cards_confidently_wrong=round(self.cards_sure_wrong / self.cards, 4))
        if self.colours:
            out.update(colours=self.colours, colours_right=self.colours_right,
                       colour_accuracy=round(self.colours_right / self.colours, 4))
        return out


def score_reading(reader: DiceReader, photos: Iterable[tuple[LabelledImage, np.ndarray]]) -> HeldOut:
    """Read each photo with ``reader`` and count its readable labelled dice found, read
    surely right and read surely wrong (a die is matched to the reading's box at IoU 0.5),
    and how many of the found dice whose colour is labelled are read in that colour."""
    dice = found = right = wrong = cards = cards_right = cards_wrong = colours = colours_right = 0
    for photo, image in photos:
        labelled = [o for k, o in enumerate(photo.objects) if o.kind == "die" and photo.is_readable(k)]
        reading = reader.read(image)
        read = reading.dice()
        for card in (o for k, o in enumerate(photo.objects) if o.kind == "card" and photo.is_readable(k) and o.face):
            # a card is read where a card reading's centre lies on it (the reading's box may be one corner)
            on = [c for c in reading.cards() if card.box[0] <= c.centre[0] <= card.box[2]
                  and card.box[1] <= c.centre[1] <= card.box[3]]
            cards += 1
            if on and not on[0].uncertain:
                cards_right += on[0].face == card.face
                cards_wrong += on[0].face != card.face
        pairs = greedy_match(np.array([o.box for o in labelled], np.float32).reshape(-1, 4),
                             np.array([d.box for d in read], np.float32).reshape(-1, 4), 0.5)
        dice += len(labelled)
        found += len(pairs)
        for g, p in pairs:
            if labelled[g].colour is not None:
                colours += 1
                colours_right += read[p].colour == labelled[g].colour
            if not read[p].uncertain:
                if read[p].face == labelled[g].face:
                    right += 1
                else:
                    wrong += 1
    return HeldOut(dice, found, right, wrong, cards, cards_right, cards_wrong, colours, colours_right)


def held_out(
    reader: DiceReader, photos: Sequence[tuple[LabelledImage, np.ndarray]], folds: int = 5
) -> HeldOut | None:
    """How well a profile taught from these photos reads photos it was not taught from:
    each of ``folds`` interleaved parts is read by a profile taught on the others, and the
    counts are summed. None with fewer than two photos."""
    if len(photos) < 2:
        return None
    folds = min(folds, len(photos))
    examples = [taught_photo(reader, photo, image) for photo, image in photos]  # each photo read once
    total = HeldOut(0, 0, 0, 0)
    for k in range(folds):
        taught = [e for i, e in enumerate(examples) if i % folds != k]
        shown = [p for i, p in enumerate(photos) if i % folds == k]
        total = total + score_reading(reader.with_profile(teach_examples(reader, taught)), shown)
    return total
