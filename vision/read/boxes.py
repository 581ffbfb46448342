"""Box geometry in numpy: letterboxing, IoU, containment, non-maximum suppression, and the
square crops around boxes that the classifiers read.

Boxes are ``(N, 4)`` float arrays of ``[x1, y1, x2, y2]`` pixel corners.

>>> import numpy as np
>>> lb = letterbox(np.zeros((480, 640, 3), np.uint8), 416)
>>> lb.image.shape, lb.scale, (lb.pad_x, lb.pad_y)
((320, 416, 3), 0.65, (0, 4))
>>> lb.to_original(np.array([[0.0, 4.0, 416.0, 316.0]])).round(1).tolist()
[[0.0, 0.0, 640.0, 480.0]]
>>> boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], float)
>>> nms(boxes, np.array([0.9, 0.8, 0.7]), iou_threshold=0.5).tolist()
[0, 2]

A crop is the square of side ``expand * max(w, h)`` centred on the box, taken from the
full-resolution frame (never the letterboxed detector input: the marks that tell ブ from
フ are only 2-3 px wide on a small die), with replicated borders where it leaves the
frame, resized to ``size x size``: the classifier's input, shared by training and runtime.

>>> img = np.zeros((100, 100, 3), np.uint8); img[40:60, 40:60] = 255
>>> c = square_crop(img, (40, 40, 60, 60), size=20, expand=1.0)
>>> c.shape, int(c.min()), int(c.max())
((20, 20, 3), 255, 255)
>>> square_crop(img, (90, 90, 110, 110), size=8).shape
(8, 8, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

PAD_VALUE = 114  # Ultralytics' letterbox grey, so the detector sees what it was trained on


@dataclass(frozen=True)
class Letterboxed:
    """An image resized to fit the network input and padded to a multiple of ``stride``.

    ``scale`` maps original pixels to input pixels; ``pad_x``/``pad_y`` is the left/top border.
    """

    image: np.ndarray
    scale: float
    pad_x: int
    pad_y: int
    source_width: int
    source_height: int

    def to_original(self, boxes: np.ndarray) -> np.ndarray:
        """Map ``[x1, y1, x2, y2]`` boxes from input pixels back to the original image, clipped."""
        out = np.array(boxes, dtype=np.float32, copy=True).reshape(-1, 4)
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        out[:, [0, 2]] = out[:, [0, 2]].clip(0, self.source_width)
        out[:, [1, 3]] = out[:, [1, 3]].clip(0, self.source_height)
        return out


def letterbox_shape(height: int, width: int, size: int, stride: int = 32, square: bool = False) -> tuple[int, int]:
    """``(rows, cols)`` of the letterboxed input for a ``height x width`` frame.

    >>> letterbox_shape(720, 1280, 416)
    (256, 416)
    """
    if square:
        return size, size
    scale = size / max(height, width)
    nw, nh = max(1, round(width * scale)), max(1, round(height * scale))
    return int(np.ceil(nh / stride) * stride), int(np.ceil(nw / stride) * stride)


def letterbox(image: np.ndarray, size: int, stride: int = 32, square: bool = False) -> Letterboxed:
    """Resize so the long side is ``size`` and pad (centred) to a multiple of ``stride``.

    With ``square=True`` the result is ``size x size`` (for fixed-shape models); otherwise
    the short side gets only the padding it needs, which is what Ultralytics' predict does
    for rectangular frames and saves a quarter of the work on a 4:3 frame.
    """
    h, w = image.shape[:2]
    if h == 0 or w == 0:
        raise ValueError("empty image")
    scale = size / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    th, tw = letterbox_shape(h, w, size, stride, square)
    resized = image if (nw, nh) == (w, h) else cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR)
    px, py = (tw - nw) // 2, (th - nh) // 2
    padded = cv2.copyMakeBorder(
        resized, py, th - nh - py, px, tw - nw - px, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )
    return Letterboxed(padded, scale, px, py, w, h)


def xywh_to_xyxy(xywh: np.ndarray) -> np.ndarray:
    """Centre/size boxes to corner boxes.

    >>> xywh_to_xyxy(np.array([[10.0, 10.0, 4.0, 2.0]])).tolist()
    [[8.0, 9.0, 12.0, 11.0]]
    """
    xywh = np.asarray(xywh, dtype=np.float32).reshape(-1, 4)
    half = xywh[:, 2:] / 2
    return np.concatenate([xywh[:, :2] - half, xywh[:, :2] + half], axis=1)


AREA_FLOOR = 1e-6
"""The least area a box is divided by, so that a box of no area shares nothing rather than
dividing by zero (:func:`contained_share`)."""


def area(boxes: np.ndarray) -> np.ndarray:
    """Area of each box, ``(N,)``; a box with a negative side has none.

    >>> area(np.array([[0, 0, 4, 3], [5, 5, 4, 9]])).tolist()
    [12.0, 0.0]
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    return (boxes[:, 2] - boxes[:, 0]).clip(0) * (boxes[:, 3] - boxes[:, 1]).clip(0)


def long_sides(boxes: np.ndarray) -> np.ndarray:
    """Each ``x1 y1 x2 y2`` box's longer side.

    >>> long_sides(np.array([[0, 0, 10, 4], [5, 5, 8, 12]])).tolist()
    [10, 7]
    """
    boxes = np.asarray(boxes)
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def intersection_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise areas of overlap, shape ``(len(a), len(b))``.

    >>> intersection_matrix(np.array([[0, 0, 2, 2]]), np.array([[1, 1, 3, 3], [5, 5, 6, 6]])).tolist()
    [[1.0, 0.0]]
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    return (x2 - x1).clip(0) * (y2 - y1).clip(0)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU, shape ``(len(a), len(b))``.

    >>> iou_matrix(np.array([[0, 0, 2, 2]]), np.array([[1, 1, 3, 3], [5, 5, 6, 6]])).round(3).tolist()
    [[0.143, 0.0]]
    """
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    inter = intersection_matrix(a, b)
    union = area(a)[:, None] + area(b)[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """IoU of one ``[x1, y1, x2, y2]`` box with another (:func:`iou_matrix` of one pair).

    >>> iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    """
    return float(iou_matrix(np.asarray(a), np.asarray(b))[0, 0])


def contained_share(inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """Pairwise share of each ``inner`` box's area that lies inside each ``outer`` box,
    shape ``(len(inner), len(outer))``: 1 for a box wholly inside another, whatever the
    other's size (IoU would call a corner inside a whole card a poor match).

    >>> contained_share(np.array([[5, 5, 20, 30], [90, 0, 110, 20]]), np.array([[0, 0, 100, 150]])).tolist()
    [[1.0], [0.5]]
    """
    return intersection_matrix(inner, outer) / np.maximum(area(inner)[:, None], AREA_FLOOR)


def held_by(inner: np.ndarray, outer: np.ndarray, share: float) -> np.ndarray:
    """Pairwise: whether ``share`` or more of each ``inner`` box's area lies inside each
    ``outer`` box, shape ``(len(inner), len(outer))``. Compared as ``intersection >= share *
    area`` (no division), so a box of no area is held by any box.

    >>> held_by(np.array([[10, 10, 30, 30]]), np.array([[5, 5, 40, 60], [25, 5, 60, 60]]), 0.8).tolist()
    [[True, False]]
    """
    return intersection_matrix(inner, outer) >= share * area(inner)[:, None]


def greedy_match(
    gt: np.ndarray, pred: np.ndarray, iou_threshold: float = 0.5,
    overlap: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> list[tuple[int, int]]:
    """``(gt_index, pred_index)`` pairs, highest IoU first, each index used at most once;
    ``overlap`` (rows ``gt``, columns ``pred``) in place of IoU where given.

    >>> greedy_match(np.array([[0, 0, 10, 10], [10, 0, 20, 10]]), np.array([[9, 0, 19, 10], [0, 0, 9, 10]]))
    [(0, 1), (1, 0)]
    """
    ious = (iou_matrix if overlap is None else overlap)(gt, pred)
    if ious.size == 0:
        return []
    gi, pi = np.nonzero(ious >= iou_threshold)
    order = np.lexsort((pi, gi, -ious[gi, pi]))
    used_g: set[int] = set()
    used_p: set[int] = set()
    pairs = []
    for k in order:
        g, p = int(gi[k]), int(pi[k])
        if g not in used_g and p not in used_p:
            used_g.add(g)
            used_p.add(p)
            pairs.append((g, p))
    return pairs


NMS_MATRIX_MAX = 1000
"""Up to this many boxes (a frame's candidates seldom reach it), :func:`nms` computes every
pair's IoU in one go, 8 MB of pairs at most; beyond it, box by box."""


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.5, max_det: int = 300) -> np.ndarray:
    """Indices of the boxes kept by greedy non-maximum suppression, best score first.

    >>> nms(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]]), np.array([0.8, 0.9, 0.7])).tolist()
    [1, 2]
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    if len(boxes) != len(scores):
        raise ValueError(f"{len(boxes)} boxes but {len(scores)} scores")
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    if len(boxes) <= NMS_MATRIX_MAX:
        # every pair's IoU at once (a frame's few hundred candidates), then the greedy pass
        over = iou_matrix(boxes, boxes) > iou_threshold
        dropped = np.zeros(len(boxes), bool)
        for i in order.tolist():
            if dropped[i]:
                continue
            keep.append(i)
            if len(keep) == max_det:
                break
            dropped |= over[i]
        return np.array(keep, dtype=np.int64)
    while order.size and len(keep) < max_det:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        order = rest[iou_matrix(boxes[i], boxes[rest])[0] <= iou_threshold]
    return np.array(keep, dtype=np.int64)


def square_region(box: Sequence[float], expand: float) -> tuple[int, int, int]:
    """``(x0, y0, side)`` of the integer square crop around ``box``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(2, int(round(max(x2 - x1, y2 - y1) * expand)))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    return int(round(cx - side / 2)), int(round(cy - side / 2)), side


def cut_square(image: np.ndarray, x0: int, y0: int, side: int) -> np.ndarray:
    """The ``side x side`` window at ``(x0, y0)``, replicating edge pixels outside the image."""
    h, w = image.shape[:2]
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(w, x0 + side), min(h, y0 + side)
    if cx1 <= cx0 or cy1 <= cy0:
        # Entirely outside: nothing to replicate from but the nearest edge pixel.
        px = min(max(x0, 0), w - 1)
        py = min(max(y0, 0), h - 1)
        return np.broadcast_to(image[py, px], (side, side) + image.shape[2:]).copy()
    window = image[cy0:cy1, cx0:cx1]
    top, left = cy0 - y0, cx0 - x0
    bottom, right = side - top - (cy1 - cy0), side - left - (cx1 - cx0)
    if top or left or bottom or right:
        window = cv2.copyMakeBorder(window, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return window


def resize_square(patch: np.ndarray, size: int) -> np.ndarray:
    """Area-average when shrinking (no aliasing of fine marks), bilinear when enlarging."""
    side = patch.shape[0]
    if side == size:
        return np.ascontiguousarray(patch)
    interp = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


def focus(patch: np.ndarray) -> float:
    """How sharp a crop's edges are: the mean absolute Laplacian of its grey over its mean
    gradient magnitude. A die in focus measures about 0.15-0.4 (a 2-3 px edge), one out of
    focus under 0.1, whatever its size or contrast; flat ground measures 0.

    >>> ring = np.zeros((40, 40, 3), np.uint8); ring[10:30, 10:30] = 200
    >>> round(focus(ring), 2) > 0.15, focus(cv2.GaussianBlur(ring, (0, 0), 2.0)) < 0.1
    (True, True)
    >>> focus(np.full((8, 8, 3), 90, np.uint8))
    0.0
    """
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
    grey = grey.astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    gradient = float(np.sqrt(gx * gx + gy * gy).mean())
    if gradient < 1e-3:
        return 0.0
    return float(np.abs(cv2.Laplacian(grey, cv2.CV_32F, ksize=1)).mean() / gradient)


@dataclass(frozen=True)
class Sharpen:
    """Unsharp masking of a soft crop at the frame's own resolution, before it is resized.

    The classifiers learnt dice from renders that draw their marks crisply. A die a few
    pixels across is enlarged two or three times into the classifier's input, and a soft
    camera leaves its marks as faint smudges; a camera out of focus blurs dice of any size.
    A crop cut at under ``below`` pixels a side, or whose :func:`focus` is under
    ``soft_below``, is sharpened by ``amount`` (``patch + amount * (patch - blur)``, the blur
    Gaussian of ``sigma`` px); other crops are left as they are. What it earns, and on which
    photos, is in the model card (``tableref eval --ablate sharpen-soft``).

    >>> patch = np.full((9, 9, 3), 100, np.uint8); patch[4, 4] = 160
    >>> s = Sharpen(below=16, soft_below=0.1, amount=1.0)
    >>> int(s.apply(patch)[4, 4, 0]) > 160, int(s.apply(patch)[0, 0, 0])
    (True, 100)
    >>> big = np.full((20, 20, 3), 100, np.uint8); big[8:12, 8:12] = 160
    >>> bool((s.apply(big) == big).all()), s.applies(cv2.GaussianBlur(big, (0, 0), 2.0))
    (True, True)
    """

    below: float
    soft_below: float
    amount: float
    sigma: float = 1.0

    def applies(self, patch: np.ndarray) -> bool:
        """Whether ``patch`` (a crop as cut from the frame) is sharpened: it is small, or out of focus."""
        return patch.shape[0] < self.below or (self.soft_below > 0 and focus(patch) < self.soft_below)

    def apply(self, patch: np.ndarray) -> np.ndarray:
        """``patch`` (``uint8``, square) sharpened when :meth:`applies`, else ``patch`` itself."""
        if not self.applies(patch):
            return patch
        blur = cv2.GaussianBlur(patch, (0, 0), self.sigma)
        return cv2.addWeighted(patch, 1.0 + self.amount, blur, -self.amount, 0)


def square_crop(
    image: np.ndarray, box: Sequence[float], size: int, expand: float = 1.25, sharpen: Sharpen | None = None,
) -> np.ndarray:
    """The classifier crop for one box (``uint8``, ``size x size x C``); with ``sharpen``, a
    small or soft crop is sharpened at the frame's resolution before it is resized."""
    x0, y0, side = square_region(box, expand)
    patch = cut_square(image, x0, y0, side)
    if sharpen is not None:
        patch = sharpen.apply(patch)
    return resize_square(patch, size)


def crop_batch(
    image: np.ndarray, boxes: np.ndarray, size: int, expand: float = 1.25, sharpen: Sharpen | None = None,
) -> np.ndarray:
    """All crops of one frame as an ``(N, 3, size, size)`` float32 tensor in [0, 1], BGR order
    (``sharpen``: as :func:`square_crop`)."""
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    out = np.empty((len(boxes), size, size, 3), dtype=np.uint8)
    for i, b in enumerate(boxes):
        out[i] = square_crop(image, b, size, expand, sharpen)
    return to_tensor(out)


def to_tensor(crops: np.ndarray) -> np.ndarray:
    """``(N, H, W, 3)`` uint8 -> ``(N, 3, H, W)`` float32 in [0, 1]."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)
