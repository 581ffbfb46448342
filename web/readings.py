"""From what the camera (or a person) read to the game's reveal event.

A reading becomes the event the table waits for (``state.expects()``):

- Liar's Dice ``reveal``: the faces of all dice in play;
- Nine Dice ``roll``: every die's face and colour;
- Pin-456 ``reveal``: the faces of the dice just shown;
- Doubt ``reveal``: the faces of the challenged cards.

A reading that cannot be right raises :class:`~referee.errors.Misread` (the
table must re-read; nothing is appended): an uncertain object, a card where
dice were expected (or the reverse), nothing read at all, and whatever the
referee itself refuses as a misread (a count that differs from the dice in
play, a face a die cannot show ...).

>>> r = parse_reading({"objects": [{"face": "3"}, {"face": "wheel"}]}, "liars-dice")
>>> reading_event("liars-dice", "reveal", r.objects)
{'type': 'reveal', 'dice': ['3', 'wheel']}
>>> reading_event("liars-dice", "reveal", parse_reading({"objects": [{"face": "QS", "kind": "card"}]}, "liars-dice").objects)
Traceback (most recent call last):
...
referee.errors.Misread: The reading does not add up (a card was read where only dice belong); please re-read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from referee.errors import MalformedEvent, Misread
from referee.game import Rules, State
from vision.read.boxes import long_sides
from vision.read.detections import Card, Detection, InvalidCard, Kind, Reading

from web.errors import BadRequest, NotFourOfAKind

JSON = dict[str, Any]

#: Event types that are read from the table rather than decided by a player.
READING_EVENTS = ("reveal", "roll")
CARD_GAMES = ("doubt",)
MAX_OBJECTS = 64
MAX_TEXT = 24
MAX_SIDE = 20000
MAX_ALTERNATIVES = 16

#: A camera reading that does not add up, whose dice's boxes are under this many pixels a
#: side (the median die), says the dice are too small in the picture (:func:`size_advice`).
#: On the foreign yardstick's ``val`` scenes the reader is unsure of 48-78 % of the dice it
#: finds with boxes under 24 px, and of 27 % from 24 to 32 px and 18 % above.
SMALL_DIE_PX = 24.0


def object_kind(game: str) -> str:
    return "card" if game in CARD_GAMES else "die"


@dataclass(frozen=True)
class ParsedReading:
    """A validated reading: objects in the ``tableref read --json`` shape, plus the frame size."""

    objects: tuple[JSON, ...]
    width: int = 0
    height: int = 0

    def to_reading(self) -> Reading:
        return Reading(objects=tuple(Detection.from_json(o) for o in self.objects), width=self.width, height=self.height)


def _text(value: Any, what: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise BadRequest(f"{what} must be a non-empty string of at most {MAX_TEXT} characters",
                         f"{what}は{MAX_TEXT}文字以内の文字列です")
    return value


def parse_object(raw: Any, game: str, index: int | str = "") -> JSON:
    """One object of a reading, checked for shape (not for plausibility: that is a misread)."""
    where = f"objects[{index}]"
    if not isinstance(raw, Mapping):
        raise BadRequest(f"{where} must be an object", f"{where}はオブジェクトです")
    kind = raw.get("kind", object_kind(game))
    if kind not in ("die", "card"):
        raise BadRequest(f"{where}.kind must be 'die' or 'card'", f"{where}.kindは'die'か'card'です")
    face = _text(raw.get("face"), f"{where}.face")
    colour = _text(raw.get("colour"), f"{where}.colour", optional=True)
    box = raw.get("box", [0, 0, 0, 0])
    if (not isinstance(box, list) or len(box) != 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= MAX_SIDE for v in box)):
        raise BadRequest(f"{where}.box must be 4 numbers [x1, y1, x2, y2]", f"{where}.boxは4つの数値です")
    score = raw.get("score", 1.0)
    if not isinstance(score, (int, float)) or isinstance(score, bool) or not 0.0 <= score <= 1.0:
        raise BadRequest(f"{where}.score must be a number in [0, 1]", f"{where}.scoreは0〜1の数値です")
    uncertain = raw.get("uncertain", False)
    if not isinstance(uncertain, bool):
        raise BadRequest(f"{where}.uncertain must be true or false", f"{where}.uncertainはtrueかfalseです")
    out: JSON = {"kind": kind, "face": face, "colour": colour, "box": [round(float(v), 1) for v in box],
                 "score": round(float(score), 4)}
    if uncertain:
        out["uncertain"] = True
        alternatives = raw.get("alternatives")
        if alternatives is not None:
            if (not isinstance(alternatives, list) or not 0 < len(alternatives) <= MAX_ALTERNATIVES
                    or face not in alternatives):
                raise BadRequest(f"{where}.alternatives must list the faces it may show, its face among them",
                                 f"{where}.alternativesには読み取った目を含む候補の目を並べます")
            out["alternatives"] = [_text(a, f"{where}.alternatives[{k}]") for k, a in enumerate(alternatives)]
    if raw.get("corrected") is True:
        out["corrected"] = True
    return out


def parse_reading(raw: Any, game: str) -> ParsedReading:
    """A reading sent in a request: ``{"objects": [...], "width": W, "height": H}``.

    ``kind`` defaults to the game's kind of object, ``box`` to zeros (a reading
    typed by hand has no photo), ``score`` to 1.
    """
    if not isinstance(raw, Mapping):
        raise BadRequest("reading must be an object with an 'objects' list", "readingは'objects'リストを持つオブジェクトです")
    objects = raw.get("objects")
    if not isinstance(objects, list) or len(objects) > MAX_OBJECTS:
        raise BadRequest(f"reading.objects must be a list of at most {MAX_OBJECTS} objects",
                         f"reading.objectsは最大{MAX_OBJECTS}個のリストです")
    sizes = []
    for key in ("width", "height"):
        value = raw.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_SIDE:
            raise BadRequest(f"reading.{key} must be a whole number of pixels", f"reading.{key}はピクセル数です")
        sizes.append(value)
    return ParsedReading(tuple(parse_object(o, game, i) for i, o in enumerate(objects)), sizes[0], sizes[1])


def from_reading(reading: Reading, game: str | None = None) -> ParsedReading:
    """A camera :class:`~vision.read.detections.Reading` in the stored shape; with ``game``, only the
    objects that game is played with (the camera reads dice and cards alike, and a deck or a
    die lying beside another game is not part of its reveal).

    >>> from vision.read.detections import Detection
    >>> r = Reading((Detection("die", "3", "red", (0, 0, 9, 9), 0.9), Detection("card", "QS", None, (20, 0, 30, 20), 0.9)))
    >>> [o["face"] for o in from_reading(r, "doubt").objects], len(from_reading(r).objects)
    (['QS'], 2)
    """
    kind = object_kind(game) if game is not None else None
    objects = tuple(_stored(o) for o in reading.objects if kind is None or o.kind == kind)
    return ParsedReading(objects, int(reading.width), int(reading.height))


def size_advice(objects: Sequence[Mapping[str, Any]]) -> tuple[str, str] | None:
    """What to do about a camera reading that did not add up when its dice are small in the
    picture (the median die's box under :data:`SMALL_DIE_PX` a side): bring the camera closer.
    None when they are not, or the reading has no die with a box (one entered by hand).

    >>> size_advice([{"kind": "die", "box": [0, 0, 14, 15]}, {"kind": "die", "box": [30, 0, 48, 16]}])[0]
    'the dice are about 16 px across in the picture, too small to read surely: bring the camera closer to them'
    >>> size_advice([{"kind": "die", "box": [0, 0, 30, 28]}]), size_advice([{"kind": "die", "box": [0, 0, 0, 0]}])
    (None, None)
    """
    boxes = np.array([o.get("box") or (0, 0, 0, 0) for o in objects if o.get("kind") == Kind.DIE], np.float64).reshape(-1, 4)
    boxes = boxes[(boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])]
    if not len(boxes):
        return None
    side = float(np.median(long_sides(boxes)))
    if side >= SMALL_DIE_PX:
        return None
    return (f"the dice are about {side:.0f} px across in the picture, too small to read surely: bring the camera closer to them",
            f"ダイスが画面上で約{side:.0f}ピクセルと小さく、確実に読み取れません。カメラをダイスに近づけてください")


def _stored(obj: Detection) -> JSON:
    """An object as a table stores it: the ``read --json`` shape, and for a die unsure of its
    face alone the faces it may show (:mod:`web.unsure`)."""
    out = obj.to_json()
    if obj.uncertain and obj.alternatives:
        out["alternatives"] = list(obj.alternatives)
    return out


def reading_event(game: str, event_type: str, objects: Sequence[Mapping[str, Any]]) -> JSON:
    """The raw log event for ``objects``, or :class:`Misread` when they cannot be a true reading."""
    if not objects:
        raise Misread("nothing was read", "何も読み取れませんでした")
    unsure = sum(1 for o in objects if o.get("uncertain"))
    if unsure:
        raise Misread(f"{unsure} object(s) could not be read with confidence", f"{unsure}個を確実に読み取れませんでした",
                      uncertain=unsure)
    want = object_kind(game)
    if any(o["kind"] != want for o in objects):
        if want == "die":
            raise Misread("a card was read where only dice belong", "ダイスだけのはずの場所でカードが読み取られました")
        raise Misread("a die was read where only cards belong", "カードだけのはずの場所でダイスが読み取られました")
    if game == "nine-dice":
        if any(not o.get("colour") for o in objects):
            raise Misread("a die's colour could not be read", "ダイスの色を読み取れませんでした")
        return {"type": event_type, "dice": [{"face": o["face"], "colour": o["colour"]} for o in objects]}
    if game == "doubt":
        return {"type": event_type, "cards": [o["face"] for o in objects]}
    return {"type": event_type, "dice": [o["face"] for o in objects]}


def judge_reading(
    rules: Rules, players: Sequence[str], state: State, event_type: str, objects: Sequence[Mapping[str, Any]]
) -> tuple[JSON, State]:
    """The event ``objects`` make (:func:`reading_event`), checked by the game's ``rules``,
    and the state after it; :class:`Misread` when they cannot be a true reading."""
    raw = reading_event(rules.name, event_type, objects)
    try:
        event = rules.parse_event(raw, list(players))
    except MalformedEvent as err:  # built from what was read: a misreading, not a bad request
        raise Misread(err.message("en"), err.message("ja")) from err
    return event.to_json(), state.apply(event)


def discard_event(player: str, objects: Sequence[Mapping[str, Any]]) -> JSON:
    """Doubt's discard that read cards make: four sure cards of one rank, one of each suit;
    else :class:`~web.errors.NotFourOfAKind` naming what was read.

    >>> discard_event("Mina", [{"kind": "card", "face": "Q" + s} for s in "SHDC"])
    {'type': 'discard', 'player': 'Mina', 'rank': 'Q'}
    >>> discard_event("Mina", [{"kind": "card", "face": "QS"}, {"kind": "card", "face": "QH", "uncertain": True}])
    Traceback (most recent call last):
    ...
    web.errors.NotFourOfAKind: The camera read QS, QH? (2 cards), not four cards of one rank: ...
    """
    cards = [o for o in objects if o.get("kind") == Kind.CARD]
    faces = [str(o["face"]) for o in cards]
    sure = not any(o.get("uncertain") for o in cards)
    named = _cards(faces)
    if len(cards) == 4 and sure and named and len({c.rank for c in named}) == 1 and len({c.suit for c in named}) == 4:
        return {"type": "discard", "player": player, "rank": named[0].rank}
    if not cards:
        raise NotFourOfAKind(read="no card", read_ja="カードなし")
    shown = [f + ("?" if o.get("uncertain") else "") for f, o in zip(faces, cards)]
    raise NotFourOfAKind(read=f"{', '.join(shown)} ({len(cards)} card{'s' if len(cards) != 1 else ''})",
                         read_ja=f"{'、'.join(shown)}（{len(cards)}枚）")


def _cards(faces: Sequence[str]) -> list[Card] | None:
    """The cards ``faces`` name; None when one of them is no card (then they are no four of a kind)."""
    try:
        return [Card.parse(f) for f in faces]
    except InvalidCard:
        return None


def apply_changes(objects: Sequence[Mapping[str, Any]], changes: Any, game: str) -> tuple[JSON, ...]:
    """Hand corrections: ``{"index": i, "face": f, "colour": c}``, ``{"index": i, "remove": true}``
    or ``{"add": {object}}``. Changed and added objects are marked ``corrected`` and certain.

    >>> apply_changes([{"kind": "die", "face": "3", "colour": "white", "box": [0, 0, 9, 9], "score": 0.4,
    ...                 "uncertain": True}], [{"index": 0, "face": "5"}], "liars-dice")[0]["face"]
    '5'
    """
    if not isinstance(changes, list) or not changes or len(changes) > MAX_OBJECTS:
        raise BadRequest("changes must be a non-empty list", "changesは空でないリストです")
    out: list[JSON | None] = [dict(o) for o in objects]
    added: list[JSON] = []
    for n, change in enumerate(changes):
        if not isinstance(change, Mapping):
            raise BadRequest(f"changes[{n}] must be an object", f"changes[{n}]はオブジェクトです")
        if "add" in change:
            obj = parse_object(change["add"], game, "add")
            obj.pop("uncertain", None)
            obj.pop("alternatives", None)
            added.append({**obj, "score": 1.0, "corrected": True})
            continue
        index = change.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(out) or out[index] is None:
            raise BadRequest(f"changes[{n}].index must name an object of the reading", f"changes[{n}].indexが正しくありません")
        if change.get("remove") is True:
            out[index] = None
            continue
        current = out[index]
        assert current is not None
        edited = dict(current)
        if "face" in change:
            edited["face"] = _text(change["face"], f"changes[{n}].face")
        if "colour" in change:
            edited["colour"] = _text(change["colour"], f"changes[{n}].colour", optional=True)
        if "face" not in change and "colour" not in change:
            raise BadRequest(f"changes[{n}] must set face, colour or remove", f"changes[{n}]にはface、colour、removeのいずれかが必要です")
        edited.pop("uncertain", None)
        edited.pop("alternatives", None)
        out[index] = {**edited, "score": 1.0, "corrected": True}
    kept = tuple(o for o in out if o is not None) + tuple(added)
    if len(kept) > MAX_OBJECTS:
        raise BadRequest(f"a reading holds at most {MAX_OBJECTS} objects", f"読み取りは最大{MAX_OBJECTS}個です")
    return kept


def with_objects(reading: ParsedReading, objects: Sequence[JSON]) -> ParsedReading:
    return replace(reading, objects=tuple(objects))
