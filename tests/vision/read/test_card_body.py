"""vision.read.card_body: a card warped upright from its outline, read both ways up, and its
reading joined to the corners' (CardReader.merge)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.read.test_card_edges import blotchy_table
from tests.vision.read.test_card_outline import draw_card
from tests.vision.tiny_card_reader import manifest as card_manifest
from vision.read.card_body import BODY_RANKS, COURT, as_index_ranks, body_crop, check_spec, read_bodies, upright
from vision.read.card_outline import CardOutline, outline_at
from vision.read.card_reader import CardReader, CornerReadings, cards_by_outline, same_quad
from vision.read.detections import CARD_RANKS, CARD_SUITS, Detection
from vision.read.manifest import CARD_BODY_NAME, ClassifierSpec, ManifestError, ReaderManifest

BODY = ClassifierSpec(file=CARD_BODY_NAME, size=32, expand=1.12, faces=BODY_RANKS, colours=CARD_SUITS)


def card_frame() -> tuple[np.ndarray, np.ndarray, tuple[float, float, float, float], tuple[float, float, float, float]]:
    """A white card (70 x 100 px, turned 20 degrees) on a dark green table, a red mark at its
    top, with a small dark index at two opposite corners; its corners as printed, and the two
    index boxes. (On a grey table the frame would hold no colour, and its suits none.)"""
    img = np.full((480, 640, 3), (44, 56, 48), np.uint8)
    centre, (w, h), angle = (320.0, 240.0), (70.0, 100.0), 20.0
    rect = cv2.boxPoints((centre, (w, h), angle))  # bottom left first, clockwise on screen
    corners = upright(rect)
    cv2.fillConvexPoly(img, rect.astype(np.int32), (235, 235, 235))
    top = corners[0] + 0.5 * (corners[1] - corners[0]) + 0.15 * (corners[3] - corners[0])
    cv2.circle(img, tuple(int(v) for v in top), 6, (0, 0, 220), -1)
    boxes = []
    for c, inward in ((corners[0], corners[2]), (corners[2], corners[0])):
        p = c + 0.12 * (inward - c)
        cv2.rectangle(img, (int(p[0]) - 3, int(p[1]) - 5), (int(p[0]) + 3, int(p[1]) + 5), (30, 30, 30), -1)
        boxes.append((p[0] - 5.0, p[1] - 7.0, p[0] + 5.0, p[1] + 7.0))
    return img, corners, boxes[0], boxes[1]


def test_upright_is_clockwise_from_a_short_side_whatever_the_order_given():
    _, corners, _, _ = card_frame()
    for start in range(4):
        for order in (corners, corners[::-1]):
            q = upright(np.roll(order, start, axis=0))
            sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
            assert sides[0] < sides[1]
            # the same card, starting at its top left or (a half turn) its bottom right
            assert any(np.allclose(q, np.roll(corners, -k, axis=0)) for k in (0, 2))


def test_body_crop_puts_the_card_upright_in_the_middle():
    img, corners, _, _ = card_frame()
    crop = body_crop(img, corners, 64)
    assert crop.shape == (64, 64, 3)
    assert crop[32, 32].min() > 200  # the card's paper fills the middle
    assert crop[1, 1].max() < 80 and crop[62, 62].max() < 80  # the table frames it
    mark = np.argwhere((crop[..., 2] > 150) & (crop[..., 1] < 100))
    assert len(mark) and mark[:, 0].mean() < 32  # the red mark at the top stays at the top
    flipped = body_crop(img, np.roll(corners, -2, axis=0), 64)
    mark = np.argwhere((flipped[..., 2] > 150) & (flipped[..., 1] < 100))
    assert mark[:, 0].mean() > 32


def test_body_crop_of_a_large_card_is_shrunk_without_aliasing():
    img = np.zeros((1200, 1200, 3), np.uint8)
    img[::2] = 255  # one-pixel stripes average to grey, they must not alias into bands
    quad = np.array([[200, 100], [900, 100], [900, 1100], [200, 1100]], np.float32)
    crop = body_crop(img, quad, 32).astype(float)
    assert 100 < crop.mean() < 155 and crop.std() < 25


def test_context_crop_holds_the_plain_crop_at_its_centre():
    img, corners, _, _ = card_frame()
    plain = body_crop(img, corners, 40)
    ctx = body_crop(img, corners, 40, context=1.6)
    assert ctx.shape == (64, 64, 3)
    assert np.abs(ctx[12:52, 12:52].astype(int) - plain.astype(int)).mean() < 12


def test_court_probability_goes_to_each_court_rank():
    p = np.zeros(len(BODY_RANKS))
    p[BODY_RANKS.index(COURT)] = 1.0
    mapped = as_index_ranks(p)
    assert mapped.shape == (len(CARD_RANKS),)
    assert [CARD_RANKS[i] for i in np.flatnonzero(mapped)] == ["J", "Q", "K"]


def test_a_body_model_must_read_body_ranks_and_suits():
    check_spec(BODY)
    with pytest.raises(ManifestError):
        check_spec(ClassifierSpec(file=CARD_BODY_NAME, faces=CARD_RANKS, colours=CARD_SUITS))


class FixedBody:
    """A body model that reads every crop as ``rank`` of ``suit`` at ``p``, and records its inputs."""

    backend, version = "numpy", "test"

    def __init__(self, rank: str, suit: str, p: float, suit_p: float | None = None) -> None:
        self.rank, self.suit, self.p, self.inputs = rank, suit, p, []
        self.suit_p = p if suit_p is None else suit_p

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        self.inputs.append(x)
        ranks = np.full((len(x), len(BODY_RANKS)), (1 - self.p) / (len(BODY_RANKS) - 1), np.float32)
        ranks[:, BODY_RANKS.index(self.rank)] = self.p
        suits = np.full((len(x), len(CARD_SUITS)), (1 - self.suit_p) / 3, np.float32)
        suits[:, CARD_SUITS.index(self.suit)] = self.suit_p
        return [ranks, suits]


def test_read_bodies_reads_each_card_both_ways_up_in_one_call():
    img, corners, _, _ = card_frame()
    model = FixedBody("7", "H", 0.9)
    ranks, suits = read_bodies(model, BODY, img, [corners, corners])
    assert ranks.shape == (2, len(BODY_RANKS)) and suits.shape == (2, 4)
    assert len(model.inputs) == 1 and model.inputs[0].shape == (4, 3, 32, 32)
    assert ranks[0].argmax() == BODY_RANKS.index("7")


def reader(body: FixedBody | None) -> CardReader:
    m = card_manifest()
    m = replace(m, threshold=0.8, body=BODY if body else None)
    return CardReader(m, None, None, body=body)  # type: ignore[arg-type]  # merge needs no detector


def one_corner(rank: str, suit: str, p: float, box) -> CornerReadings:
    rank_p = np.full((1, len(CARD_RANKS)), (1 - p) / (len(CARD_RANKS) - 1), np.float32)
    rank_p[0, CARD_RANKS.index(rank)] = p
    suit_p = np.full((1, 4), 0.02, np.float32)
    suit_p[0, CARD_SUITS.index(suit)] = 0.94
    score = p * 0.94
    index = Detection("card", rank + suit, None, box, score, uncertain=score < 0.8)
    return CornerReadings((index,), rank_p, suit_p)


def test_a_sure_body_makes_an_unsure_corner_sure_when_they_agree():
    img, _, box, _ = card_frame()
    corner = one_corner("7", "H", 0.5, box)
    without = reader(None).merge(corner, img)
    assert [(c.face, c.uncertain) for c in without] == [("7H", True)]
    body = FixedBody("7", "H", 0.97)
    with_body = reader(body).merge(corner, img)
    assert body.inputs, "the card's outline is found, so its body is read"
    assert [(c.face, c.uncertain) for c in with_body] == [("7H", False)]


def test_a_body_unsure_of_the_suit_does_not_make_unsure_corners_sure():
    img, _, a, b = card_frame()
    corners = two_corners("7H", 0.6, a, b)  # two unsure corners that agree
    assert not reader(FixedBody("7", "H", 0.97)).merge(corners, img)[0].uncertain
    assert reader(FixedBody("7", "H", 0.97, suit_p=0.7)).merge(corners, img)[0].uncertain


def test_a_body_that_disagrees_leaves_the_card_uncertain():
    img, _, box, _ = card_frame()
    got = reader(FixedBody("4", "H", 0.97)).merge(one_corner("7", "H", 0.95, box), img)
    assert len(got) == 1 and got[0].uncertain


def test_a_court_body_does_not_choose_between_jack_queen_and_king():
    img, _, box, _ = card_frame()
    got = reader(FixedBody(COURT, "S", 0.99)).merge(one_corner("Q", "S", 0.6, box), img)
    assert got[0].face == "QS" and got[0].uncertain


def test_no_outline_no_body_reading():
    img, _, box, _ = card_frame()
    flat = np.full_like(img, 235)  # the table is the card's colour: no outline is found
    body = FixedBody("7", "H", 0.97)
    got = reader(body).merge(one_corner("7", "H", 0.5, box), flat)
    assert got[0].uncertain and not body.inputs


def test_a_card_body_model_needs_its_manifest_entry():
    m = card_manifest()
    with pytest.raises(ManifestError):
        CardReader(m, None, None, body=FixedBody("7", "H", 0.9))  # type: ignore[arg-type]
    with pytest.raises(ManifestError):
        CardReader(ReaderManifest(m.detector, m.classifier, body=BODY), None, None)  # type: ignore[arg-type]


def outline(x0: float, y0: float, w: float = 60.0, h: float = 90.0, index: float = 10.0) -> CardOutline:
    corners = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)
    return CardOutline(corners=corners, long_side=h, short_side=w, index_length=index)


def index_at(x: float, y: float, face: str = "7H") -> Detection:
    return Detection("card", face, None, (x - 4, y - 6, x + 4, y + 6), 0.5, uncertain=True)


def test_indices_on_a_found_outline_are_that_cards_and_its_pips_are_left_out():
    card = outline(100, 100)
    indices = (index_at(106, 108), index_at(130, 145, "8S"), index_at(154, 182, "2H"))  # corner, a pip, far corner
    groups, found = cards_by_outline([[0], [1], [2]], [card, None, None], indices)
    assert groups == [[0, 2]] and found == [card]


def test_a_group_outside_the_outline_stays_a_card_of_its_own():
    card = outline(100, 100)
    indices = (index_at(106, 108), index_at(300, 300))
    groups, found = cards_by_outline([[0], [1]], [card, None], indices)
    assert groups == [[0], [1]] and found == [card, None]


def test_an_outline_holding_another_cards_outline_is_two_cards_and_no_outline():
    big, small = outline(100, 100, 120, 150), outline(160, 110, 55, 80)
    assert not same_quad(big, small) and same_quad(small, outline(161, 111, 55, 80))
    indices = (index_at(106, 108), index_at(166, 118))
    groups, found = cards_by_outline([[0], [1]], [big, small], indices)
    assert groups == [[0], [1]] and found == [None, small]


def test_outlines_are_the_cards_a_body_model_would_read(monkeypatch):
    img, corners, box, far = card_frame()
    plain = reader(None)  # outlines are found whether or not a body model is loaded
    monkeypatch.setattr(plain, "read_corners", lambda image, photo=False: two_corners("7H", 0.5, box, far))
    [quad] = plain.outlines(img)  # the card's two corners make one card, one outline
    assert same_quad(CardOutline(quad, 100.0, 70.0, 10.0), CardOutline(corners, 100.0, 70.0, 10.0))


def joined(*readings: CornerReadings) -> CornerReadings:
    return CornerReadings(sum((r.indices for r in readings), ()), np.vstack([r.rank_p for r in readings]),
                          np.vstack([r.suit_p for r in readings]))


def two_corners(face: str, p: float, a, b) -> CornerReadings:
    return joined(one_corner(face[:-1], face[-1], p, a), one_corner(face[:-1], face[-1], p, b))


def test_a_card_its_two_sure_corners_decide_is_not_read_from_its_body(monkeypatch):
    img, _, box, far = card_frame()
    looked = []
    monkeypatch.setattr("vision.read.card_reader.outline_at", lambda image, b: looked.append(b))
    body = FixedBody("4", "S", 0.99)
    got = reader(body).merge(two_corners("7H", 0.99, box, far), img)
    assert [(c.face, c.uncertain) for c in got] == [("7H", False)]
    assert not looked and not body.inputs  # no outline looked for, no body read


def test_a_sure_pair_with_another_index_on_the_card_is_still_outlined():
    img, corners, box, far = card_frame()
    middle = corners.mean(axis=0)
    pip = one_corner("8", "S", 0.5, (middle[0] - 4, middle[1] - 6, middle[0] + 4, middle[1] + 6))
    readings = joined(two_corners("7H", 0.99, box, far), pip)
    body = FixedBody("7", "H", 0.97)
    got = reader(body).merge(readings, img)
    assert body.inputs, "only the card's outline tells the pip from a card's index"
    assert [(c.face, c.uncertain) for c in got] == [("7H", False)]  # the pip is the card's print, left out


def test_outlines_for_training_include_cards_their_corners_decide(monkeypatch):
    img, corners, box, far = card_frame()
    plain = reader(None)
    monkeypatch.setattr(plain, "read_corners", lambda image, photo=False: two_corners("7H", 0.99, box, far))
    [quad] = plain.outlines(img)
    assert same_quad(CardOutline(quad, 100.0, 70.0, 10.0), CardOutline(corners, 100.0, 70.0, 10.0))


def test_indices_chained_to_a_group_from_another_card_stay_a_card_of_their_own():
    # Two cards side by side; a misread corner of the right one reads like the left one's
    # two, so the three are one group, whose outline is found around that misread corner.
    right = outline(200, 100)
    indices = (index_at(106, 108, "8C"), index_at(206, 108, "4S"), index_at(154, 182, "8C"),
               index_at(254, 182, "8C"))
    groups, found = cards_by_outline([[0, 2, 3], [1]], [right, right], indices)
    assert groups == [[0, 2], [1, 3]] and found == [None, right]


def test_a_sure_body_settles_the_suit_its_sure_corner_reads():
    img, _, a, b = card_frame()
    corners = joined(one_corner("7", "H", 0.95, a), one_corner("7", "D", 0.6, b))  # a sure 7H, an unsure 7D
    assert [(c.face, c.uncertain) for c in reader(None).merge(corners, img)] == [("7H", True)]
    assert [(c.face, c.uncertain) for c in reader(FixedBody("7", "H", 0.97)).merge(corners, img)] == [("7H", False)]
    # The body siding with the unsure corner, or unsure of the suit itself, leaves it open.
    assert [(c.face, c.uncertain) for c in reader(FixedBody("7", "D", 0.97)).merge(corners, img)] == [("7D", True)]
    assert reader(FixedBody("7", "H", 0.7)).merge(corners, img)[0].uncertain


def test_a_body_sure_of_pip_rank_and_suit_settles_a_suit_only_unsure_corners_dispute():
    img, _, a, b = card_frame()
    corners = joined(one_corner("7", "D", 0.6, a), one_corner("7", "H", 0.6, b))  # two unsure corners, 7D and 7H
    assert reader(None).merge(corners, img)[0].uncertain
    assert [(c.face, c.uncertain) for c in reader(FixedBody("7", "D", 0.97)).merge(corners, img)] == [("7D", False)]
    # A court body cannot say which court card: the suit stays open.
    court = joined(one_corner("Q", "D", 0.6, a), one_corner("Q", "H", 0.6, b))
    assert reader(FixedBody(COURT, "D", 0.97)).merge(court, img)[0].uncertain
    # Neither corner reads the suit the body is sure of: it stays open.
    assert reader(FixedBody("7", "S", 0.97)).merge(corners, img)[0].uncertain
    # A sure corner reading another suit still vetoes it.
    vetoed = joined(one_corner("7", "D", 0.6, a), one_corner("7", "H", 0.95, b))
    assert reader(FixedBody("7", "D", 0.97)).merge(vetoed, img)[0].uncertain


def test_the_body_is_read_from_an_outline_the_corners_infer_where_the_paper_does_not_stand_out():
    img = blotchy_table(0)
    a, b = draw_card(img, (160, 120), 110, angle=25)
    assert outline_at(img, a) is None and outline_at(img, b) is None
    body = FixedBody("7", "H", 0.97)
    got = reader(body).merge(two_corners("7H", 0.6, a, b), img)
    assert body.inputs, "the card's outline is inferred from its two corners"
    assert [(c.face, c.uncertain) for c in got] == [("7H", False)]
    # Corners of two ranks may be two cards: no outline is inferred between them.
    body = FixedBody("7", "H", 0.97)
    reader(body).merge(joined(one_corner("7", "H", 0.6, a), one_corner("4", "H", 0.6, b)), img)
    assert not body.inputs


def faint_corner(rank: str, suit: str, p: float, box) -> CornerReadings:
    """A corner read ``rank`` of ``suit`` whose box the detector doubts (unsure, whatever its reading)."""
    got = one_corner(rank, suit, p, box)
    return CornerReadings((replace(got.indices[0], uncertain=True, box_score=0.3),), got.rank_p, got.suit_p)


def test_a_sure_court_body_settles_corners_of_one_court_card_unsure_only_for_a_faint_box():
    img, _, a, b = card_frame()
    corners = joined(faint_corner("Q", "D", 0.99, a), one_corner("Q", "D", 0.7, b))
    assert reader(None).merge(corners, img)[0].uncertain
    assert [(c.face, c.uncertain) for c in reader(FixedBody(COURT, "D", 0.97)).merge(corners, img)] == [("QD", False)]
    # The body unsure of the suit, or sure of another, leaves it open; so does a pip body.
    for body in (FixedBody(COURT, "D", 0.97, suit_p=0.7), FixedBody(COURT, "H", 0.97), FixedBody("9", "D", 0.97)):
        assert reader(body).merge(corners, img)[0].uncertain
    # Every corner unsure of its reading, or corners of two faces: open too.
    for pair in (joined(one_corner("Q", "D", 0.7, a), one_corner("Q", "D", 0.7, b)),
                 joined(faint_corner("Q", "D", 0.99, a), one_corner("K", "D", 0.7, b))):
        assert reader(FixedBody(COURT, "D", 0.97)).merge(pair, img)[0].uncertain


def test_a_body_vouches_only_for_the_card_it_reads():
    img, _, a, b = card_frame()
    # Unsure corners that outweigh a sure pip body make a card the body does not read: not sure.
    corners = joined(one_corner("Q", "D", 0.85, a), one_corner("Q", "D", 0.85, b))  # each 0.85 x 0.94 = 0.799: unsure
    got = reader(FixedBody("9", "D", 0.97)).merge(corners, img)
    assert [(c.face, c.uncertain) for c in got] == [("QD", True)]
    assert not reader(FixedBody("9", "D", 0.97)).merge(joined(one_corner("9", "D", 0.75, a), one_corner("9", "D", 0.75, b)), img)[0].uncertain
