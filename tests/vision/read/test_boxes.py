"""Letterbox, IoU, NMS and crop geometry on hand-made cases."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.read.boxes import (
    PAD_VALUE, Sharpen, contained_share, crop_batch, cut_square, focus, held_by, iou, iou_matrix, letterbox, nms,
    square_crop, square_region, xywh_to_xyxy,
)


@pytest.mark.parametrize(
    ("h", "w", "size", "expect_shape", "scale", "pad"),
    [
        (480, 640, 416, (320, 416), 0.65, (0, 4)),
        (720, 1280, 416, (256, 416), 0.325, (0, 11)),  # 1280x720 -> 416x234, padded to 256
        (640, 640, 416, (416, 416), 0.65, (0, 0)),
        (640, 480, 416, (416, 320), 0.65, (4, 0)),  # portrait
        (100, 200, 416, (224, 416), 2.08, (0, 8)),  # enlarged
    ],
)
def test_letterbox_shape_scale_and_padding(h, w, size, expect_shape, scale, pad):
    lb = letterbox(np.zeros((h, w, 3), np.uint8), size)
    assert lb.image.shape[:2] == expect_shape
    assert lb.scale == pytest.approx(scale)
    assert (lb.pad_x, lb.pad_y) == pad
    assert lb.image.shape[0] % 32 == 0 and lb.image.shape[1] % 32 == 0


def test_letterbox_square_mode_and_pad_colour():
    lb = letterbox(np.full((480, 640, 3), 7, np.uint8), 416, square=True)
    assert lb.image.shape == (416, 416, 3)
    assert lb.pad_y == 52
    assert (lb.image[0, 0] == PAD_VALUE).all() and (lb.image[-1, -1] == PAD_VALUE).all()
    assert (lb.image[208, 208] == 7).all()


def test_letterbox_places_content_where_to_original_says():
    img = np.zeros((480, 640, 3), np.uint8)
    img[100:140, 200:260] = 255  # a bright block, frame pixels
    lb = letterbox(img, 416)
    ys, xs = np.nonzero(lb.image[:, :, 0] > 128)
    found = lb.to_original(np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32))[0]
    assert found == pytest.approx([200, 100, 260, 140], abs=2)


def test_to_original_clips_to_frame():
    lb = letterbox(np.zeros((480, 640, 3), np.uint8), 416)
    out = lb.to_original(np.array([[-20.0, -20.0, 500.0, 500.0]]))
    assert out.tolist() == [[0.0, 0.0, 640.0, 480.0]]


def test_letterbox_rejects_empty():
    with pytest.raises(ValueError):
        letterbox(np.zeros((0, 5, 3), np.uint8), 416)


def test_xywh_to_xyxy():
    assert xywh_to_xyxy(np.array([[5, 5, 10, 4]])).tolist() == [[0, 3, 10, 7]]


def test_iou_known_values():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [10, 10, 20, 20], [2, 2, 4, 4]])
    assert iou_matrix(a, b)[0] == pytest.approx([1.0, 50 / 150, 0.0, 4 / 100])
    assert iou_matrix(np.zeros((0, 4)), b).shape == (0, 4)
    assert [iou(a[0], box) for box in b] == iou_matrix(a, b)[0].tolist()


def test_containment_is_the_inner_box_share_and_its_threshold():
    card = np.array([[0, 0, 100, 150]])
    corner, half_out, far = [5, 5, 20, 30], [90, 0, 110, 20], [200, 200, 210, 210]
    inner = np.array([corner, half_out, far])
    assert contained_share(inner, card)[:, 0].tolist() == [1.0, 0.5, 0.0]
    assert contained_share(card, inner)[0].tolist() == pytest.approx([375 / 15000, 200 / 15000, 0.0])
    assert held_by(inner, card, 0.5)[:, 0].tolist() == [True, True, False]
    assert held_by(inner, card, 0.51)[:, 0].tolist() == [True, False, False]
    assert contained_share(np.zeros((0, 4)), card).shape == (0, 1)
    assert contained_share(np.array([[3, 3, 3, 9]]), card).tolist() == [[0.0]]  # no area: shares nothing
    assert held_by(card, np.zeros((0, 4)), 0.8).shape == (1, 0)


def test_nms_keeps_best_of_each_cluster_in_score_order():
    boxes = np.array(
        [
            [0, 0, 10, 10],  # 0 cluster A
            [1, 0, 11, 10],  # 1 cluster A, better score
            [50, 50, 60, 60],  # 2 alone
            [0, 0, 10, 5],  # 3 inside A but IoU 0.5 with 0 -> not suppressed at > 0.5 only
            [100, 0, 110, 10],  # 4 alone, lowest
        ],
        float,
    )
    scores = np.array([0.8, 0.9, 0.7, 0.6, 0.1])
    keep = nms(boxes, scores, iou_threshold=0.5)
    # 1 suppresses 0 (IoU 0.82); 3 vs 1: IoU 45/105 = 0.43 -> kept
    assert keep.tolist() == [1, 2, 3, 4]
    assert nms(boxes, scores, iou_threshold=0.4).tolist() == [1, 2, 4]
    assert nms(boxes, scores, max_det=2).tolist() == [1, 2]


def test_nms_empty_and_mismatch():
    assert nms(np.zeros((0, 4)), np.zeros((0,))).tolist() == []
    with pytest.raises(ValueError):
        nms(np.zeros((2, 4)), np.zeros((3,)))


def test_nms_ties_are_stable():
    boxes = np.array([[0, 0, 10, 10], [0, 0, 10, 10]], float)
    assert nms(boxes, np.array([0.5, 0.5])).tolist() == [0]


def test_square_region_and_crop_replicates_outside_pixels():
    assert square_region((10, 10, 30, 20), 1.0) == (10, 5, 20)
    img = np.zeros((50, 50, 3), np.uint8)
    img[:, 0] = 200  # left column
    patch = cut_square(img, -5, 10, 10)
    assert patch.shape == (10, 10, 3)
    assert (patch[:, :6] == 200).all() and (patch[:, 6:] == 0).all()
    far = cut_square(img, 500, 500, 4)
    assert far.shape == (4, 4, 3)


def test_crop_batch_layout_and_values():
    img = np.zeros((100, 100, 3), np.uint8)
    img[20:40, 20:40] = (255, 0, 0)  # blue die (BGR)
    img[60:80, 60:80] = (0, 0, 255)  # red die
    batch = crop_batch(img, np.array([[20, 20, 40, 40], [60, 60, 80, 80]]), size=16, expand=1.0)
    assert batch.shape == (2, 3, 16, 16) and batch.dtype == np.float32
    assert batch[0, 0].min() == pytest.approx(1.0) and batch[0, 2].max() == 0.0
    assert batch[1, 2].min() == pytest.approx(1.0) and batch[1, 0].max() == 0.0
    assert square_crop(img, (20, 20, 40, 40), 64).shape == (64, 64, 3)


def _dot_patch(side: int) -> np.ndarray:
    patch = np.full((side, side, 3), 90, np.uint8)
    patch[side // 2 - 1:side // 2 + 1, side // 2 - 1:side // 2 + 1] = 170
    return patch


def test_sharpen_lifts_a_small_crops_marks_and_leaves_flat_ground_alone() -> None:
    s = Sharpen(below=32, soft_below=0.1, amount=1.0)
    small = _dot_patch(20)
    out = s.apply(small)
    assert out.dtype == np.uint8 and out.shape == small.shape
    assert int(out[10, 10, 0]) > 170  # the mark stands out more
    assert int(out[1, 1, 0]) == 90  # flat ground away from it is unchanged
    assert int(out[10, 12, 0]) < 90  # a dark rim round the mark: an unsharp mask's halo


def test_sharpen_leaves_crops_in_focus_from_its_size_up_untouched() -> None:
    s = Sharpen(below=32, soft_below=0.1, amount=1.0)
    assert s.applies(_dot_patch(31)) and not s.applies(_dot_patch(32))
    big = _dot_patch(32)
    assert s.apply(big) is big


def test_sharpen_takes_in_a_large_crop_out_of_focus() -> None:
    img = np.zeros((80, 80, 3), np.uint8)
    cv2.circle(img, (40, 40), 25, (230, 230, 230), -1)
    for x, y in ((30, 30), (50, 50), (40, 40)):
        cv2.circle(img, (x, y), 4, (20, 20, 20), -1)
    soft = cv2.GaussianBlur(img, (0, 0), 2.5)
    s = Sharpen(below=32, soft_below=0.1, amount=1.0)
    assert focus(img) > 0.15 and focus(soft) < 0.1
    assert s.apply(img) is img
    assert not np.array_equal(s.apply(soft), soft)
    assert not Sharpen(below=32, soft_below=0.0, amount=1.0).applies(soft)  # 0: focus never asked


def test_crop_batch_sharpens_only_small_boxes() -> None:
    img = np.full((200, 200, 3), 90, np.uint8)
    img[48:52, 48:52] = 170  # a mark inside a small box
    img[148:152, 148:152] = 170  # and inside a large one
    boxes = np.array([[40, 40, 60, 60], [110, 110, 190, 190]], np.float32)
    s = Sharpen(below=32, soft_below=0.1, amount=1.0)
    plain = crop_batch(img, boxes, 56)
    sharp = crop_batch(img, boxes, 56, sharpen=s)
    assert sharp[0].max() > plain[0].max()  # the 25 px crop of the 20 px box is sharpened
    np.testing.assert_array_equal(sharp[1], plain[1])  # the 100 px crop is not
    np.testing.assert_array_equal(square_crop(img, boxes[0], 56, sharpen=None), square_crop(img, boxes[0], 56))


@pytest.mark.parametrize("seed", range(6))
def test_nms_by_the_iou_matrix_keeps_what_the_pairwise_loop_keeps(seed, monkeypatch):
    """The all-pairs path (a frame's candidates) and the box-by-box loop (over
    ``NMS_MATRIX_MAX``) keep the same boxes in the same order, ``max_det`` included."""
    import vision.read.boxes as boxes_mod

    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 200, (300, 2))
    wh = rng.uniform(5, 40, (300, 2))
    boxes = np.hstack([xy, xy + wh])
    scores = rng.choice([0.3, 0.5, 0.9], 300) if seed % 2 else rng.uniform(0, 1, 300)
    for max_det in (300, 7):
        fast = boxes_mod.nms(boxes, scores, 0.45, max_det)
        monkeypatch.setattr(boxes_mod, "NMS_MATRIX_MAX", 0)
        slow = boxes_mod.nms(boxes, scores, 0.45, max_det)
        monkeypatch.undo()
        assert fast.tolist() == slow.tolist() and 0 < len(fast) <= max_det
