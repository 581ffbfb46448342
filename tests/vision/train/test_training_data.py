"""Training-side helpers: augmentation, crops, splits, the detector's dataset view.

Everything here runs without torch; the one test that trains needs the training venv
(``pip install -e '.[train]'``) and is marked slow.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.train.augment import CONTEXT, AugmentConfig, augment, center_view, context_crop, context_size
from vision.read.boxes import square_crop
from vision.evaluate.datasets import LabelledImage
from vision.read.detections import DIE_FACES, NOT_AN_INDEX, Detection
from vision.train.classifier import IGNORE, collect_crops, face_counts
from vision.train.detector import is_val, write_dataset_view


def smooth_scene() -> tuple[np.ndarray, tuple[float, float, float, float]]:
    img = np.full((120, 160, 3), 40, np.uint8)
    cv2.circle(img, (70, 60), 15, (200, 220, 240), -1)
    return cv2.GaussianBlur(img, (0, 0), 2), (55.0, 45.0, 85.0, 75.0)


def test_context_crop_centre_is_the_runtime_crop():
    img, box = smooth_scene()
    ctx = context_crop(img, box, 48, 1.25)
    assert ctx.shape == (context_size(48), context_size(48), 3) == (77, 77, 3)
    diff = np.abs(center_view(ctx, 48).astype(int) - square_crop(img, box, 48, 1.25).astype(int))
    assert diff.mean() < 4


def test_augment_is_seeded_and_varied():
    img, box = smooth_scene()
    ctx = context_crop(img, box, 48, 1.25)
    a = augment(ctx, np.random.default_rng(7), 48)
    b = augment(ctx, np.random.default_rng(7), 48)
    c = augment(ctx, np.random.default_rng(8), 48)
    assert a.shape == (48, 48, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_white_balance_off_draws_the_views_older_runs_drew():
    """With white balance off no random number is spent on it, so a seed gives the same
    view as before the option existed (and a run's recipe still reproduces)."""
    img, box = smooth_scene()
    ctx = context_crop(img, box, 48, 1.25)
    off = AugmentConfig(white_balance=1.0, p_white_balance=1.0)
    for seed in range(5):
        a = augment(ctx, np.random.default_rng(seed), 48)
        assert np.array_equal(a, augment(ctx, np.random.default_rng(seed), 48, off))


def test_white_balance_moves_red_against_blue_both_ways():
    """A grey card through a wrong white balance turns warm in some views and cool in
    others, never more than the ratio apart (in linear light), and keeps its brightness."""
    ctx = np.full((context_size(48), context_size(48), 3), 128, np.uint8)
    cfg = AugmentConfig(white_balance=2.5, p_white_balance=1.0, p_lowres=0, p_blur=0, p_noise=0, p_jpeg=0,
                        contrast=(1, 1), brightness=0, channel_gain=0, gamma=(1, 1))
    ratios = []
    for seed in range(40):
        out = augment(ctx, np.random.default_rng(seed), 48, cfg).reshape(-1, 3).mean(axis=0)
        b, g, r = (out / 255.0) ** 2.2
        ratios.append(r / b)
        assert abs(np.sqrt(r * b) - (128 / 255) ** 2.2) < 0.01
    assert min(ratios) < 0.7 and max(ratios) > 1.4
    assert 1 / 2.5 - 0.02 < min(ratios) and max(ratios) < 2.5 + 0.05


def test_a_classifier_run_names_its_camera_augmentation():
    """--cls-white-balance and --cls-jpeg-min reach the crops' augmentation; nonsense is refused."""
    import argparse

    from vision.train.command import add_arguments
    from vision.train.classifier import ClassifierConfig

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--cls-white-balance", "2.5", "--cls-jpeg-min", "20"])
    aug = ClassifierConfig(white_balance=args.cls_white_balance, jpeg_min=args.cls_jpeg_min).augmentation()
    assert aug.white_balance == 2.5 and aug.jpeg_quality == (20, 95)
    assert ClassifierConfig().augmentation() == AugmentConfig()
    assert ClassifierConfig(blur_max=parser.parse_args(["--cls-blur", "2.4"]).cls_blur).augmentation().blur_sigma == (0.3, 2.4)
    assert parser.parse_args([]).cls_blur == AugmentConfig().blur_sigma[1]
    assert ClassifierConfig(motion=parser.parse_args(["--cls-motion", "0.15"]).cls_motion).augmentation().p_motion == 0.15
    for bad in (["--cls-white-balance", "0.5"], ["--cls-jpeg-min", "0"], ["--cls-jpeg-min", "99"],
                ["--cls-blur", "0.1"], ["--cls-blur", "20"], ["--cls-motion", "1.5"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


def test_a_wider_blur_range_blurs_more_and_draws_as_many_numbers():
    """--cls-blur widens only the range of the Gaussian blur: the views are softer (less
    Laplacian energy) and every other random choice stays as it was."""
    img, box = smooth_scene()
    ctx = context_crop(img, box, 48, 1.25)
    only_blur = dict(p_lowres=0, p_blur=1.0, p_noise=0, p_jpeg=0)
    narrow, wide = AugmentConfig(**only_blur), AugmentConfig(**only_blur, blur_sigma=(0.3, 3.0))

    def sharpness(view: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var())

    soft = [sharpness(augment(ctx, np.random.default_rng(s), 48, wide)) for s in range(12)]
    sharp = [sharpness(augment(ctx, np.random.default_rng(s), 48, narrow)) for s in range(12)]
    assert all(a <= b + 1e-6 for a, b in zip(soft, sharp)) and sum(soft) < 0.8 * sum(sharp)
    rngs = np.random.default_rng(3), np.random.default_rng(3)
    augment(ctx, rngs[0], 48, narrow), augment(ctx, rngs[1], 48, wide)
    assert rngs[0].random() == rngs[1].random()


def test_motion_blur_smears_a_pip_along_one_line_and_is_off_by_default():
    """--cls-motion draws a line blur: a round pip comes out long one way and thin the
    other. At 0 no number is drawn for it, so older recipes draw the views they drew."""
    ctx = np.zeros((context_size(56), context_size(56), 3), np.uint8)
    cv2.circle(ctx, (ctx.shape[1] // 2, ctx.shape[0] // 2), 3, (255, 255, 255), -1)
    still = dict(rotation=0.0, scale=(1.0, 1.0), shift=0.0, perspective=0.0, p_lowres=0, p_blur=0, p_noise=0,
                 p_jpeg=0, contrast=(1, 1), brightness=0, channel_gain=0, gamma=(1, 1))

    def spread(view: np.ndarray) -> tuple[float, float]:
        w = view[..., 0].astype(np.float64)
        ys, xs = np.mgrid[: w.shape[0], : w.shape[1]]
        m = w.sum()
        cx, cy = (w * xs).sum() / m, (w * ys).sum() / m
        cov = np.cov(np.stack([xs.ravel() - cx, ys.ravel() - cy]), aweights=w.ravel())
        lo, hi = np.linalg.eigvalsh(cov)
        return float(lo), float(hi)

    lo0, hi0 = spread(augment(ctx, np.random.default_rng(0), 56, AugmentConfig(**still)))
    for seed in range(6):
        cfg = AugmentConfig(**still, p_motion=1.0, motion_length=(6.0, 8.0))
        lo, hi = spread(augment(ctx, np.random.default_rng(seed), 56, cfg))
        assert hi > hi0 + 2.0 and hi > 1.8 * lo and abs(lo - lo0) < 1.0
    assert AugmentConfig().p_motion == 0.0

    class Counting:
        """A generator that counts the coin flips (``random()``) the augmentation asks for."""

        def __init__(self, seed: int) -> None:
            self.rng, self.flips = np.random.default_rng(seed), 0

        def random(self) -> float:
            self.flips += 1
            return float(self.rng.random())

        def __getattr__(self, name: str) -> object:
            return getattr(self.rng, name)

    off, on = Counting(5), Counting(5)
    augment(ctx, off, 56)  # type: ignore[arg-type]
    augment(ctx, on, 56, AugmentConfig(p_motion=0.15))  # type: ignore[arg-type]
    assert off.flips == 4  # low resolution, blur, noise, JPEG: as before the option existed
    assert on.flips == 5


def test_augment_keeps_the_die_near_the_centre():
    img, box = smooth_scene()
    ctx = context_crop(img, box, 48, 1.25)
    rng = np.random.default_rng(0)
    for _ in range(20):
        out = augment(ctx, rng, 48).astype(float).mean(axis=2)
        centre, corner = out[18:30, 18:30].mean(), np.mean([out[:6, :6].mean(), out[-6:, -6:].mean()])
        assert centre > corner  # the bright die stays in the middle whatever the rotation


def test_is_val_is_stable_and_near_the_fraction():
    names = [f"real/IMG_{i}.jpg" for i in range(2000)]
    first = [is_val(n, 0.1, 0) for n in names]
    assert first == [is_val(n, 0.1, 0) for n in names]
    assert 150 < sum(first) < 250
    assert first != [is_val(n, 0.1, 1) for n in names]


def test_real_repeat_repeats_only_real_training_photos(tmp_path):
    import argparse

    from vision.train.command import add_arguments, gather, recipe

    real = tmp_path / "tray"
    (real / "images" / "train").mkdir(parents=True)
    (real / "labels" / "train").mkdir(parents=True)
    for i in range(40):
        cv2.imwrite(str(real / "images" / "train" / f"r{i}.jpg"), np.zeros((20, 20, 3), np.uint8))
        (real / "labels" / "train" / f"r{i}.txt").write_text("0 0.5 0.5 0.5 0.5\n")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    once = gather(parser.parse_args(["--real", str(real), "--val-fraction", "0.25"]))
    args = parser.parse_args(["--real", str(real), "--val-fraction", "0.25", "--real-repeat", "3"])
    thrice = gather(args)
    n_val = sum(v for *_, v in once)
    assert 0 < n_val < 40
    assert sum(v for *_, v in thrice) == n_val  # validation photos are never repeated
    assert sum(not v for *_, v in thrice) == 3 * (40 - n_val)
    assert recipe(args, thrice)["real_repeat"] == 3
    init = parser.parse_args(["--init", "runs/detector/train/weights/best.pt"]).init
    assert init == Path("runs/detector/train/weights/best.pt")


def test_synth_repeat_repeats_only_its_own_sets_training_images(tmp_path):
    import argparse

    from vision.train.command import add_arguments, gather, recipe

    sets = []
    for name in ("a", "b"):
        d = tmp_path / name
        (d / "images").mkdir(parents=True)
        lines = []
        for i in range(30):
            cv2.imwrite(str(d / "images" / f"{name}{i}.png"), np.zeros((20, 20, 3), np.uint8))
            lines.append(json.dumps({"image": f"images/{name}{i}.png", "objects": [
                {"kind": "die", "face": "3", "box": [2, 2, 12, 12]}]}))
        (d / "labels.jsonl").write_text("\n".join(lines) + "\n")
        sets.append(str(d))
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    base = ["--no-real", "--synth", sets[0], "--synth", sets[1], "--val-fraction", "0.2"]
    once = gather(parser.parse_args(base))
    args = parser.parse_args([*base, "--synth-repeat", "1", "--synth-repeat", "4"])
    more = gather(args)

    def count(items, source, val):
        return sum(1 for s, _, v in items if s == source and v == val)

    assert count(more, "synth0", False) == count(once, "synth0", False)
    assert count(more, "synth1", False) == 4 * count(once, "synth1", False) > 0
    assert count(more, "synth1", True) == count(once, "synth1", True)  # validation images stay single
    assert recipe(args, more)["synth_repeat"] == {"synth0": 1, "synth1": 4}
    with pytest.raises(SystemExit):
        gather(parser.parse_args([*base, "--synth-repeat", "1", "--synth-repeat", "1", "--synth-repeat", "2"]))
    with pytest.raises(SystemExit):
        gather(parser.parse_args([*base, "--synth-repeat", "0"]))


def make_images(tmp_path: Path) -> list[tuple[str, LabelledImage, bool]]:
    items = []
    for i, (face, colour) in enumerate([("1", None), ("プ", "blue"), ("wheel", "red")]):
        path = tmp_path / f"im{i}.jpg"
        img, box = smooth_scene()
        cv2.imwrite(str(path), img)
        dice = (Detection("die", face, colour, box, 1.0), Detection("die", face, colour, (-5, -5, 10, 10), 1.0))
        items.append(("real" if colour is None else "synth0", LabelledImage(path, dice, 160, 120), i == 2))
    return items


def test_dataset_view_writes_single_class_labels_and_symlinks(tmp_path):
    items = make_images(tmp_path)
    counts = write_dataset_view(items, tmp_path / "view", log=lambda _: None)
    assert counts == {"train": 2, "val": 1, "train_dice": 4, "val_dice": 2}
    label = (tmp_path / "view" / "labels" / "train" / "real__im0.txt").read_text().splitlines()
    assert label[0] == "0 0.437500 0.500000 0.187500 0.250000"
    cls, cx, cy, w, h = (float(v) for v in label[1].split())  # clipped to the image
    assert cls == 0 and cx - w / 2 == pytest.approx(0, abs=1e-5) and cy - h / 2 == pytest.approx(0, abs=1e-5)
    link = tmp_path / "view" / "images" / "val" / "synth0__im2.jpg"
    assert link.is_symlink() and link.resolve() == (tmp_path / "im2.jpg").resolve()
    assert "names:\n  0: die" in (tmp_path / "view" / "data.yaml").read_text()


def test_dataset_view_links_a_repeated_photo_under_a_second_name(tmp_path):
    items = make_images(tmp_path)
    counts = write_dataset_view([items[0], items[0], items[2]], tmp_path / "view", log=lambda _: None)
    assert counts["train"] == 2
    names = sorted(p.name for p in (tmp_path / "view" / "images" / "train").iterdir())
    assert names == ["real__im0.jpg", "real__im0__2.jpg"]
    assert (tmp_path / "view" / "labels" / "train" / "real__im0__2.txt").is_file()


def test_dataset_view_puts_each_real_training_photo_through_other_cameras_once(tmp_path):
    items = make_images(tmp_path)  # real train, synth0 train, synth0 val
    view = tmp_path / "view"
    counts = write_dataset_view([items[0], items[0], items[1], items[2]], view, log=lambda _: None,
                                other_cameras={"real": 2}, seed=5)
    assert counts["train"] == 5 and counts["val"] == 1 and counts["other_camera_copies"] == 2
    train = view / "images" / "train"
    copies = sorted(p.name for p in train.iterdir() if "camera" in p.name)
    assert copies == ["real__im0__camera0.png", "real__im0__camera1.png"]  # not again for the repeat
    original = cv2.imread(str(items[0][1].path))
    pictures = [cv2.imread(str(train / name)) for name in copies]
    assert not any(p.is_symlink() for p in train.glob("*camera*"))
    assert all(p.shape == original.shape and np.abs(p.astype(int) - original).mean() > 1 for p in pictures)
    assert not np.array_equal(pictures[0], pictures[1])
    labels = view / "labels" / "train"
    assert (labels / "real__im0__camera1.txt").read_text() == (labels / "real__im0.txt").read_text()
    again = write_dataset_view([items[0], items[2]], tmp_path / "again", log=lambda _: None,
                               other_cameras={"real": 1}, seed=5)
    assert again["other_camera_copies"] == 1
    assert np.array_equal(cv2.imread(str(tmp_path / "again" / "images" / "train" / copies[0])), pictures[0])
    other_seed = write_dataset_view([items[0], items[2]], tmp_path / "seed6", log=lambda _: None,
                                    other_cameras={"real": 1}, seed=6)
    assert other_seed["other_camera_copies"] == 1
    assert not np.array_equal(cv2.imread(str(tmp_path / "seed6" / "images" / "train" / copies[0])), pictures[0])
    plain = write_dataset_view(items, tmp_path / "plain", log=lambda _: None)
    assert "other_camera_copies" not in plain


def test_real_cameras_is_for_the_dice_detector_and_its_real_photos(tmp_path, capsys):
    import argparse

    from vision.train.command import add_arguments, recipe, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for bad in ("17", "-1", "two"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--real-cameras", bad])
    assert "a number of copies, from 0 (off) to 16" in capsys.readouterr().err
    for argv in (["--cards"], ["--no-real"], ["--stage", "classifier"], ["--stage", "second-opinion"]):
        args = parser.parse_args(["--real-cameras", "3", "--out", str(tmp_path / "models"), *argv])
        assert run(args) == 2, argv
        assert "--real-cameras puts the real tray's photos through other cameras" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()
    args = parser.parse_args(["--real-cameras", "3", "--no-real"])
    assert recipe(args, [])["real_cameras"] == 0
    args = parser.parse_args(["--real-cameras", "3", "--real", str(tmp_path)])
    assert recipe(args, [])["real_cameras"] == 3


def test_collect_crops_labels_and_colour_mask(tmp_path):
    items = make_images(tmp_path)
    colours = ["blue", "red"]
    crops = collect_crops([(s, it) for s, it, _ in items], colours, 48, 1.25, context=True, log=lambda _: None)
    assert crops.crops.shape == (6, 77, 77, 3)
    assert [DIE_FACES[f] for f in crops.faces] == ["1", "1", "プ", "プ", "wheel", "wheel"]
    assert crops.colours.tolist() == [IGNORE, IGNORE, 0, 0, 1, 1]  # real crops carry no colour
    assert face_counts(crops) == {"1": 2, "wheel": 2, "プ": 2}
    val = collect_crops([(s, it) for s, it, _ in items], colours, 48, 1.25, context=False, log=lambda _: None)
    assert val.crops.shape == (6, 48, 48, 3)
    assert CONTEXT > 1


def training_and_validation_crops(items):
    """Context crops to train on and exact runtime crops to validate on, of the same dice."""
    both = [(s, it) for s, it, _ in items]
    return (collect_crops(both, ["blue", "red"], 48, 1.25, True, lambda _: None),
            collect_crops(both, ["blue", "red"], 48, 1.25, False, lambda _: None))


@pytest.mark.slow
def test_loader_workers_forked_after_opencv_cut_the_crops_do_not_hang(tmp_path):
    """OpenCV's thread pool does not survive a fork: workers forked after the parent's pool
    cut the crops hung before the trainer shrank the pool first. An alarm turns a hang into
    a failure."""
    pytest.importorskip("torch")
    import signal

    from vision.train.classifier import ClassifierConfig, train_classifier

    items = make_images(tmp_path)
    before = cv2.getNumThreads()
    cv2.setNumThreads(2)
    cv2.resize(np.zeros((256, 256, 3), np.uint8), (512, 512))  # the pool's threads now run
    crops, val = training_and_validation_crops(items)
    cfg = ClassifierConfig(epochs=2, samples_per_epoch=64, batch=32, workers=2)

    def hung(*_):
        raise TimeoutError("the loader's workers hung")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    try:
        result = train_classifier(crops, val, ["blue", "red"], cfg, tmp_path / "run", resume=False, log=lambda _: None)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        threads_after = cv2.getNumThreads()
        cv2.setNumThreads(before)
    assert len(result["history"]) == 2
    assert threads_after == 2  # the parent's pool is given back


@pytest.mark.slow
def test_a_time_budget_fixes_the_epoch_count_after_the_first_epoch(tmp_path):
    """--cls-minutes: a budget smaller than one epoch trains one; the count it fixed is kept
    on resume (not the cap), and a large budget stops at the cap."""
    pytest.importorskip("torch")
    from vision.train.classifier import ClassifierConfig, train_classifier

    crops, val = training_and_validation_crops(make_images(tmp_path))
    said: list[str] = []
    tight = ClassifierConfig(epochs=50, samples_per_epoch=64, batch=32, workers=0, minutes=1e-6)
    result = train_classifier(crops, val, ["blue", "red"], tight, tmp_path / "run", resume=False, log=said.append)
    assert result["epochs"] == 1 and len(result["history"]) == 1
    assert any("epochs" in line and "minutes at" in line for line in said)
    again = train_classifier(crops, val, ["blue", "red"], tight, tmp_path / "run", resume=True, log=lambda _: None)
    assert again["epochs"] == 1 and len(again["history"]) == 1  # resumed: the fixed count, not the cap of 50
    roomy = dataclasses.replace(tight, epochs=2, minutes=600.0)
    assert len(train_classifier(crops, val, ["blue", "red"], roomy, tmp_path / "run2", resume=False,
                                log=lambda _: None)["history"]) == 2


@pytest.mark.slow
def test_tiny_training_run_exports_a_readable_reader(tmp_path):
    """Two classifier epochs on a handful of crops, exported and loaded by the runtime reader."""
    pytest.importorskip("torch")
    from vision.read.reader import load_reader
    from vision.train.classifier import ClassifierConfig, export_classifier, train_classifier

    items = make_images(tmp_path)
    crops, val = training_and_validation_crops(items)
    cfg = ClassifierConfig(epochs=2, samples_per_epoch=64, batch=32, workers=0)
    result = train_classifier(crops, val, ["blue", "red"], cfg, tmp_path / "run", resume=False, log=lambda _: None)
    assert len(result["history"]) == 2
    again = train_classifier(crops, val, ["blue", "red"], cfg, tmp_path / "run", resume=True, log=lambda _: None)
    assert len(again["history"]) == 2  # already finished: resume trains nothing more
    said: list[str] = []
    more = dataclasses.replace(cfg, epochs=1, init=str(tmp_path / "run" / "best.pt"))
    cont = train_classifier(crops, val, ["blue", "red"], more, tmp_path / "run2", resume=False, log=said.append)
    assert len(cont["history"]) == 1 and any("continuing from" in line for line in said)
    # a run may continue from the mean of two runs' weights (tableref train --average)
    from vision.train.classifier import average_checkpoints

    average_checkpoints([tmp_path / "run" / "best.pt", tmp_path / "run2" / "best.pt"], tmp_path / "avg" / "best.pt")
    said.clear()
    from_avg = dataclasses.replace(more, init=str(tmp_path / "avg" / "best.pt"))
    assert len(train_classifier(crops, val, ["blue", "red"], from_avg, tmp_path / "run3", resume=False, log=said.append)["history"]) == 1
    assert any("(the mean of 2 runs, 48 px crops)" in line for line in said)
    # the weights fit any crop size, so a new schedule may continue at a larger one; a resume may not
    big = collect_crops([(s, it) for s, it, _ in items], ["blue", "red"], 56, 1.25, True, lambda _: None)
    big_val = collect_crops([(s, it) for s, it, _ in items], ["blue", "red"], 56, 1.25, False, lambda _: None)
    said.clear()
    grown = train_classifier(big, big_val, ["blue", "red"], dataclasses.replace(more, size=56), tmp_path / "run4", resume=False, log=said.append)
    assert len(grown["history"]) == 1 and any("48 px crops) with a new schedule at 56 px" in line for line in said)
    with pytest.raises(ValueError, match="crop size"):
        train_classifier(big, big_val, ["blue", "red"], dataclasses.replace(cfg, size=56, epochs=3), tmp_path / "run", resume=True, log=lambda _: None)
    with pytest.raises(ValueError, match="other classes"):  # a resume must keep the classes
        train_classifier(crops, val, ["blue", "green"], cfg, tmp_path / "run", resume=True, log=lambda _: None)
    # a specialist: the same network for two faces, its features taken from the full classifier
    pair = collect_crops([(s, it) for s, it, _ in items], [], 48, 1.25, True, lambda _: None, faces=("プ", "wheel"))
    pair_val = collect_crops([(s, it) for s, it, _ in items], [], 48, 1.25, False, lambda _: None, faces=("プ", "wheel"))
    assert pair.faces.tolist() == [0, 0, 1, 1] and (pair.colours == IGNORE).all()
    said.clear()
    spec = train_classifier(pair, pair_val, [], more, tmp_path / "run5", resume=False, log=said.append, faces=("プ", "wheel"))
    assert len(spec["history"]) == 1 and any("its features only" in line for line in said)
    spec_export = export_classifier(tmp_path / "run5" / "best.pt", tmp_path / "dice-specialist.onnx", 48)
    assert spec_export["max_abs_err_vs_torch"] < 1e-4
    export = export_classifier(tmp_path / "run" / "best.pt", tmp_path / "dice-classifier.onnx", 48)
    assert export["max_abs_err_vs_torch"] < 1e-4
    # pair it with the tiny detector to read a frame through the real exported classifier
    pytest.importorskip("onnx")
    from tests.vision import tiny_reader as tiny
    from vision.read.manifest import ClassifierSpec, ReaderManifest, sha256_of

    models = tiny.build_onnx(tmp_path / "models")
    (models / "dice-classifier.onnx").write_bytes((tmp_path / "dice-classifier.onnx").read_bytes())
    m = ReaderManifest.load(models / "dice-reader.json")
    m = ReaderManifest(m.detector, ClassifierSpec(colours=("blue", "red"), sha256=sha256_of(models / "dice-classifier.onnx")))
    m.save(models / "dice-reader.json")
    reading = load_reader(models).read(tiny.scene())
    assert len(reading.dice()) == 4 and all(d.colour in ("blue", "red") for d in reading.dice())
    json.dumps(reading.to_json())


def test_train_cli_gathers_real_train_split_and_synth(tmp_path):
    import argparse

    from vision.train.command import add_arguments, gather, recipe

    real = tmp_path / "tray"
    for split in ("train", "test"):
        (real / "images" / split).mkdir(parents=True)
        (real / "labels" / split).mkdir(parents=True)
        for i in range(3):
            cv2.imwrite(str(real / "images" / split / f"{split}{i}.jpg"), np.zeros((20, 20, 3), np.uint8))
            (real / "labels" / split / f"{split}{i}.txt").write_text("0 0.5 0.5 0.5 0.5\n")
    synth = tmp_path / "synth"
    (synth / "images").mkdir(parents=True)
    cv2.imwrite(str(synth / "images" / "000000.jpg"), np.zeros((20, 20, 3), np.uint8))
    line = {"image": "images/000000.jpg", "width": 20, "height": 20,
            "objects": [{"kind": "die", "face": "カ", "colour": "green", "box": [2, 2, 12, 12], "score": 1.0}]}
    (synth / "annotations.jsonl").write_text(json.dumps(line) + "\n")

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--real", str(real), "--synth", str(synth), "--val-fraction", "0.5"])
    items = gather(args)
    names = sorted(it.path.name for _, it, _ in items)
    assert names == ["000000.jpg", "train0.jpg", "train1.jpg", "train2.jpg"]  # never the test split
    r = recipe(args, items)
    assert sum(c["train_images"] + c["val_images"] for c in r["counts"].values()) == 4
    assert r["renderers"] == {"synth0": None}  # no meta.json: not known to be a tableref synth set
    (synth / "meta.json").write_text(json.dumps({"version": "1.0", "renderer": 2, "rng": "..."}))
    assert recipe(args, items)["renderers"] == {"synth0": 2}
    assert args.device == "auto" and args.stage == "all" and not args.resume


def test_a_training_run_keeps_the_records_it_did_not_make():
    import doctest

    import vision.train.command as train_mod
    from vision.train.command import updated_record

    assert doctest.testmod(train_mod).failed == 0
    old = {"created": "t0", "classifier": {"epochs": 24, "trained": "t0"}, "threshold": {"value": 0.8}}
    new = updated_record(old, {"classifier": {"epochs": 12}}, "t1", {"trained": "t1"})
    assert new == {"created": "t1", "classifier": {"epochs": 12, "trained": "t1"}, "threshold": {"value": 0.8}}
    assert old["created"] == "t0"  # the old record is left as it was


def test_a_new_specialist_replaces_its_own_file_and_may_not_overlap_another():
    import argparse

    from vision.read.manifest import ClassifierSpec, DetectorSpec, ReaderManifest
    from vision.train.command import add_arguments, other_specialists

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    kana = ClassifierSpec(file="dice-specialist.onnx", faces=("ブ", "プ"))
    pips = ClassifierSpec(file="dice-specialist-pips.onnx", faces=("1", "2", "3", "4", "5", "6"))
    manifest = ReaderManifest(DetectorSpec(), ClassifierSpec(), specialists=(kana, pips))
    assert other_specialists(parser.parse_args([]), manifest) == (pips,)  # ブ,プ into dice-specialist.onnx again
    args = parser.parse_args(["--specialist-faces", "ガ,カ", "--specialist-file", "dice-specialist-ga.onnx"])
    assert other_specialists(args, manifest) == (kana, pips)
    args = parser.parse_args(["--specialist-faces", "ブ,フ", "--specialist-file", "dice-specialist-fu.onnx"])
    with pytest.raises(SystemExit, match="dice-specialist.onnx already reads ブ, プ"):
        other_specialists(args, manifest)
    for bad in ("sub/x.onnx", "x.pt", "dice-classifier.onnx"):
        with pytest.raises(SystemExit, match="plain file name"):
            other_specialists(parser.parse_args(["--specialist-file", bad]), manifest)


def test_specialist_faces_are_checked():
    import argparse

    from vision.train.command import SPECIALIST_FACES, add_arguments, specialist_faces

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert specialist_faces(parser.parse_args([])) == SPECIALIST_FACES == ("ブ", "プ")
    assert specialist_faces(parser.parse_args(["--specialist-faces", "ガ, カ"])) == ("ガ", "カ")
    for bad in ("ブ", "ブ,ブ", "ブ,X", ""):
        with pytest.raises(SystemExit, match="two or more distinct die faces"):
            specialist_faces(parser.parse_args(["--specialist-faces", bad]))
    with pytest.raises(SystemExit, match="two or more distinct die faces"):  # suits were a card specialist's
        specialist_faces(parser.parse_args(["--specialist-faces", "S,C"]))


def test_train_refuses_a_card_specialist_before_reading_anything(tmp_path, capsys):
    """``tableref train --cards --stage specialist``: the card reader has no specialists,
    so the run stops at once with exit 2 and says so, writing no model, manifest or run."""
    from web.cli import main

    models, runs = tmp_path / "models", tmp_path / "runs"
    assert main(["train", "--cards", "--stage", "specialist", "--synth", str(tmp_path / "nowhere"),
                 "--out", str(models), "--runs", str(runs)]) == 2
    assert "the card reader has no specialists" in capsys.readouterr().err
    assert not models.exists() and not runs.exists()


def test_a_specialist_file_defaults_to_the_dice_one_and_may_not_be_a_card_model():
    import argparse

    from vision.read.manifest import ClassifierSpec, DetectorSpec, ReaderManifest
    from vision.train.command import add_arguments, other_specialists, specialist_file

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert specialist_file(parser.parse_args([])) == "dice-specialist.onnx"
    manifest = ReaderManifest(DetectorSpec(), ClassifierSpec())
    for bad in ("card-classifier.onnx", "card-detector.onnx"):  # both live in the same models/ folder
        with pytest.raises(SystemExit, match="plain file name"):
            other_specialists(parser.parse_args(["--specialist-file", bad]), manifest)


def make_card_images(tmp_path: Path) -> list[tuple[str, LabelledImage, bool]]:
    img, box = smooth_scene()
    path = tmp_path / "cards.jpg"
    cv2.imwrite(str(path), img)
    objects = (
        Detection("card", "10H", None, box, 1.0),
        Detection("card", "QS", None, (10, 10, 20, 30), 1.0),
        Detection("die", "3", "red", (100, 80, 120, 100), 1.0),
    )
    return [("synth0", LabelledImage(path, objects, 160, 120), False), ("synth0", LabelledImage(path, objects[2:], 160, 120), True)]


def test_dataset_view_of_cards_labels_only_card_indices(tmp_path):
    counts = write_dataset_view(make_card_images(tmp_path), tmp_path / "view", log=lambda _: None, kind="card")
    assert counts == {"train": 1, "val": 1, "train_cards": 2, "val_cards": 0}  # the die is background for the card detector
    assert "names:\n  0: card" in (tmp_path / "view" / "data.yaml").read_text()


def test_collect_crops_of_cards_labels_rank_and_suit(tmp_path):
    from vision.read.detections import CARD_RANKS, CARD_SUITS

    items = [(s, it) for s, it, _ in make_card_images(tmp_path)]
    crops = collect_crops(items, list(CARD_SUITS), 40, 1.25, context=False, log=lambda _: None, kind="card")
    assert len(crops) == 2 and crops.crops.shape == (2, 40, 40, 3)
    assert [CARD_RANKS[f] for f in crops.faces] == ["10", "Q"]
    assert [CARD_SUITS[c] for c in crops.colours] == ["H", "S"]
    assert face_counts(crops, CARD_RANKS) == {"10": 1, "Q": 1}


def test_collect_crops_cuts_nothing_for_a_card_labelled_face_down(tmp_path):
    from vision.read.detections import CARD_SUITS

    source, item, _ = make_card_images(tmp_path)[0]
    down = Detection("card", "", None, (30, 30, 60, 80), 1.0)  # in play, no face to learn
    item = dataclasses.replace(item, objects=(*item.objects, down))
    crops = collect_crops([(source, item)], list(CARD_SUITS), 40, 1.25, context=False, log=lambda _: None, kind="card")
    assert crops.faces.tolist() == [9, 11] and crops.colours.tolist() == [1, 0]


def test_collect_crops_marks_illegible_card_indices_unreadable(tmp_path):
    from vision.read.detections import CARD_SUITS

    items = [(s, it) for s, it, _ in make_card_images(tmp_path)]
    legible = {items[0][1].path: (True, False)}  # the QS is a smudge
    crops = collect_crops(items[:1], list(CARD_SUITS), 40, 1.25, context=False, log=lambda _: None, kind="card", legible=legible)
    assert crops.unreadable_mask().tolist() == [False, True]
    assert crops.faces.tolist() == [9, 11]  # the labels stay: only the training target changes
    plain = collect_crops(items[:1], list(CARD_SUITS), 40, 1.25, context=False, log=lambda _: None, kind="card")
    assert plain.unreadable is None and plain.unreadable_mask().tolist() == [False, False]
    with pytest.raises(ValueError, match="1 legibility flags for 2 labelled cards"):
        collect_crops(items[:1], list(CARD_SUITS), 40, 1.25, context=False, log=lambda _: None, kind="card",
                      legible={items[0][1].path: (True,)})


def test_unsure_loss_is_least_at_even_odds_and_the_usual_loss_without_unreadable_crops():
    torch = pytest.importorskip("torch")
    from torch import nn

    from vision.train.classifier import _unsure_loss

    face_loss, colour_loss = nn.CrossEntropyLoss(), nn.CrossEntropyLoss(ignore_index=IGNORE)
    f, c = torch.tensor([2, 5]), torch.tensor([1, IGNORE])
    even, peaked = torch.zeros(2, 14), torch.zeros(2, 14)
    peaked[:, 2] = 6.0
    cl = torch.zeros(2, 4)
    unreadable = torch.tensor([True, True])
    low = _unsure_loss(even, cl, f, c, unreadable, face_loss, colour_loss, 1.0, 13)
    high = _unsure_loss(peaked, cl, f, c, unreadable, face_loss, colour_loss, 1.0, 13)
    assert low < high
    # even odds over the 13 ranks: an unreadable index is still an index, not the 14th class "none"
    none_heavy = even.clone()
    none_heavy[:, 13] = 6.0
    assert _unsure_loss(none_heavy, cl, f, c, unreadable, face_loss, colour_loss, 1.0, 13) > low
    even_ranks = even.clone()
    even_ranks[:, 13] = -30.0
    assert _unsure_loss(even_ranks, cl, f, c, unreadable, face_loss, colour_loss, 1.0, 13) < low
    mixed = torch.tensor([False, True])
    expected = (face_loss(peaked[:1], f[:1]) + (-torch.log_softmax(peaked[1], 0)[:13].mean())) / 2
    col = (colour_loss(cl[:1], c[:1]) + (-torch.log_softmax(cl[1], 0).mean())) / 2
    got = _unsure_loss(peaked, cl, f, c, mixed, face_loss, colour_loss, 0.5, 13)
    assert float(got) == pytest.approx(float(expected + 0.5 * col), rel=1e-5)


def test_train_refuses_illegible_targets_without_cards_or_scene_records(tmp_path):
    import argparse

    from vision.train.command import add_arguments, legibility_flags

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert legibility_flags(parser.parse_args(["--cards"]), []) == ({}, None)
    for argv in (["--cls-illegible", "unsure"], ["--stage", "specialist", "--cls-illegible", "unsure"]):
        with pytest.raises(SystemExit, match="--cards"):
            legibility_flags(parser.parse_args(argv), [])
    (tmp_path / "annotations.jsonl").write_text(json.dumps(
        {"image": "a.jpg", "width": 10, "height": 10, "objects": [{"kind": "card", "face": "AS", "box": [0, 0, 5, 5]}]}) + "\n")
    args = parser.parse_args(["--cards", "--cls-illegible", "unsure", "--synth", str(tmp_path)])
    with pytest.raises(SystemExit, match="has no scenes.jsonl"):
        legibility_flags(args, [])
    (tmp_path / "scenes.jsonl").write_text(json.dumps({"image": "a.jpg", "cards": []}) + "\n")
    with pytest.raises(SystemExit, match="no record of some card index of a.jpg"):
        legibility_flags(args, [])


def test_card_target_defaults(tmp_path):
    import argparse

    from vision.train.command import CARDS, DICE, add_arguments, gather, target_of

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--cards", "--synth", str(tmp_path)])
    assert target_of(args) is CARDS and target_of(parser.parse_args([])) is DICE
    assert (CARDS.imgsz, CARDS.crop, CARDS.rotation, CARDS.detector_pt) == (512, 40, 180.0, "card-detector.pt")
    (tmp_path / "annotations.jsonl").write_text(json.dumps(
        {"image": "a.jpg", "width": 10, "height": 10, "objects": [{"kind": "card", "face": "AS", "box": [0, 0, 5, 5]}]}) + "\n")
    items = gather(args)  # no real tray photos for cards, even though --no-real was not given
    assert [source for source, *_ in items] == ["synth0"]


def test_average_makes_only_a_classifier(tmp_path, capsys):
    import argparse

    from vision.train.command import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--stage", "detector", "--average", "a.pt", "--average", "b.pt",
                              "--out", str(tmp_path / "models"), "--runs", str(tmp_path / "runs")])
    assert run(args) == 2
    assert "give --stage classifier" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()
    args = parser.parse_args(["--stage", "classifier", "--average", str(tmp_path / "a.pt"), "--average",
                              str(tmp_path / "b.pt"), "--out", str(tmp_path / "models")])
    with pytest.raises(SystemExit, match="no such checkpoint: .*a.pt, .*b.pt"):
        run(args)


def test_averaged_classifier_is_the_mean_of_the_runs_weights(tmp_path):
    """``tableref train --average``: the soup's weights are the runs' mean, exported and recorded."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    import argparse

    from vision.read.manifest import (ClassifierSpec, DetectorSpec, ReaderManifest, load_training_record,
                                 save_training_record, sha256_of)
    from vision.train.command import add_arguments, run
    from vision.train.classifier import build_model

    def checkpoint(name: str, seed: int, width: float = 1.0, size: int = 48, faces: tuple[str, ...] = DIE_FACES) -> Path:
        torch.manual_seed(seed)
        net = build_model(len(faces), 2, width)
        for m in net.modules():  # BatchNorm statistics as a trained run has them, not the defaults
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
        path = tmp_path / name
        torch.save({"model": net.state_dict(), "faces": list(faces), "colours": ["blue", "red"], "epoch": 3,
                    "best": 0.5, "config": {"size": size, "expand": 1.25, "width": width}}, path)
        return path

    a, b = checkpoint("a.pt", 1), checkpoint("b.pt", 2, size=56)
    models = tmp_path / "models"
    models.mkdir()
    old = {"classifier": {"epochs": 24, "previous_runs": [{"epochs": 12}]}, "threshold": {"value": 0.8}}
    ReaderManifest(DetectorSpec(sha256="d" * 64), ClassifierSpec(), 0.8).save(models / "dice-reader.json")
    save_training_record(models / "dice-reader.json", old)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--stage", "classifier", "--average", str(a), "--average", str(b),
                              "--out", str(models), "--runs", str(tmp_path / "runs")])
    assert run(args) == 0

    soup = torch.load(tmp_path / "runs" / "classifier-average" / "best.pt", weights_only=False)
    wa, wb = (torch.load(p, weights_only=False)["model"] for p in (a, b))
    for k, v in soup["model"].items():
        want = (wa[k] + wb[k]) / 2 if v.is_floating_point() else wa[k]
        assert torch.equal(v, want), k
    m = ReaderManifest.load(models / "dice-reader.json")
    assert m.detector.sha256 == "d" * 64 and m.threshold == 0.8  # the rest of the reader is kept
    assert m.classifier.size == 48 and m.classifier.colours == ("blue", "red")  # the first run's crop size
    assert m.classifier.sha256 == sha256_of(models / "dice-classifier.onnx")
    training = load_training_record(models / "dice-reader.json")
    record = training["classifier"]
    assert [r["sha256"] for r in record["averaged_from"]] == [sha256_of(a), sha256_of(b)]
    assert record["previous_runs"] == [{"epochs": 24}, {"epochs": 12}]
    assert record["export"]["max_abs_err_vs_torch"] < 1e-4 and training["threshold"] == {"value": 0.8}
    assert m.created == training["created"] == record["trained"]

    wide = checkpoint("wide.pt", 3, width=1.5)
    args = parser.parse_args(["--stage", "classifier", "--average", str(a), "--average", str(wide),
                              "--out", str(models), "--runs", str(tmp_path / "runs")])
    with pytest.raises(SystemExit, match="another network"):
        run(args)
    args = parser.parse_args(["--stage", "classifier", "--average", str(a), "--out", str(models)])
    with pytest.raises(SystemExit, match="two or more"):
        run(args)
    assert ReaderManifest.load(models / "dice-reader.json").classifier == m.classifier  # untouched by the refusals

    # runs trained with --cls-negatives read a last class, "none" (no die), and average as well
    with_none = (*DIE_FACES, NOT_AN_INDEX)
    n1, n2 = checkpoint("n1.pt", 4, faces=with_none), checkpoint("n2.pt", 5, faces=with_none)
    args = parser.parse_args(["--stage", "classifier", "--average", str(n1), "--average", str(n2),
                              "--out", str(models), "--runs", str(tmp_path / "runs")])
    assert run(args) == 0
    assert ReaderManifest.load(models / "dice-reader.json").classifier.faces == with_none
    p1, p2 = checkpoint("p1.pt", 6, faces=DIE_FACES[:6]), checkpoint("p2.pt", 7, faces=DIE_FACES[:6])
    args = parser.parse_args(["--stage", "classifier", "--average", str(p1), "--average", str(p2),
                              "--out", str(models), "--runs", str(tmp_path / "runs")])
    with pytest.raises(SystemExit, match="not the die classifier's classes"):
        run(args)


def test_averaged_exported_classifiers_are_the_mean_of_their_graphs_weights(tmp_path):
    """``tableref train --average A.onnx --average B.onnx``: a committed model whose checkpoint
    is gone averages with a run that started from it; the soup's every weight is the mean of
    theirs, it reads as an ONNX classifier, and the manifest and record name both."""
    torch = pytest.importorskip("torch")
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import argparse

    from onnx import numpy_helper

    from vision.read.manifest import (ClassifierSpec, DetectorSpec, ReaderManifest, load_training_record,
                                      save_training_record, sha256_of)
    from vision.train.classifier import build_model, export_classifier
    from vision.train.command import add_arguments, run

    def exported(folder: str, seed: int, faces: tuple[str, ...] = DIE_FACES, size: int = 48) -> Path:
        torch.manual_seed(seed)
        net = build_model(len(faces), 2, 1.0)
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
        out = tmp_path / folder
        out.mkdir()
        torch.save({"model": net.state_dict(), "faces": list(faces), "colours": ["blue", "red"], "epoch": 1, "best": 0.5,
                    "config": {"size": size, "expand": 1.25, "width": 1.0}}, out / "best.pt")
        export_classifier(out / "best.pt", out / "dice-classifier.onnx", size)
        spec = ClassifierSpec(size=size, faces=faces, colours=("blue", "red"), sha256=sha256_of(out / "dice-classifier.onnx"))
        ReaderManifest(DetectorSpec(sha256="d" * 64), spec, 0.8).save(out / "dice-reader.json")
        return out / "dice-classifier.onnx"

    a, b = exported("a", 1), exported("b", 2)
    models = tmp_path / "models"
    models.mkdir()
    ReaderManifest(DetectorSpec(sha256="d" * 64), ClassifierSpec(), 0.8).save(models / "dice-reader.json")
    save_training_record(models / "dice-reader.json", {"classifier": {"epochs": 4}, "threshold": {"value": 0.8}})
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--stage", "classifier", "--average", str(a), "--average", str(b),
                              "--out", str(models), "--runs", str(tmp_path / "runs")])
    assert run(args) == 0

    def weights(path: Path) -> dict[str, np.ndarray]:
        return {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}

    wa, wb, soup = weights(a), weights(b), weights(models / "dice-classifier.onnx")
    assert soup.keys() == wa.keys()
    floats = [k for k, v in soup.items() if v.dtype.kind == "f"]
    assert floats and any(not np.array_equal(wa[k], wb[k]) for k in floats)
    for k in floats:
        np.testing.assert_allclose(soup[k], (wa[k].astype(np.float64) + wb[k]) / 2, rtol=1e-6, atol=1e-7)
    crops = np.random.default_rng(0).random((3, 3, 48, 48), np.float32)
    session = ort.InferenceSession(str(models / "dice-classifier.onnx"), providers=["CPUExecutionProvider"])
    faces_p = session.run(None, {session.get_inputs()[0].name: crops})[0]
    assert faces_p.shape == (3, len(DIE_FACES)) and np.allclose(faces_p.sum(axis=1), 1, atol=1e-4)
    m = ReaderManifest.load(models / "dice-reader.json")
    assert m.classifier.size == 48 and m.classifier.colours == ("blue", "red") and m.threshold == 0.8
    assert m.classifier.sha256 == sha256_of(models / "dice-classifier.onnx")
    record = load_training_record(models / "dice-reader.json")["classifier"]
    assert [r["sha256"] for r in record["averaged_from"]] == [sha256_of(a), sha256_of(b)]
    assert record["previous_runs"] == [{"epochs": 4}] and "BatchNorm folded" in record["architecture"]
    assert "training" not in record["averaged_from"][0]  # no training record beside a
    save_training_record(tmp_path / "b" / "dice-reader.json", {"classifier": {"epochs": 3, "run": "B"}})
    assert run(args) == 0  # b's record beside it rides along with its ingredient
    assert load_training_record(models / "dice-reader.json")["classifier"]["averaged_from"][1]["training"]["run"] == "B"

    before = (models / "dice-classifier.onnx").read_bytes()
    pt = tmp_path / "a" / "best.pt"
    for given, refusal in (([a, pt], "not both"), ([a], "two or more"),
                           ([a, exported("c", 3, faces=DIE_FACES[:6])], "another network"),
                           ([a, exported("d", 4, size=56)], "another network")):
        args = parser.parse_args(["--stage", "classifier", *[x for p in given for x in ("--average", str(p))],
                                  "--out", str(models), "--runs", str(tmp_path / "runs")])
        with pytest.raises(SystemExit, match=refusal):
            run(args)
    assert (models / "dice-classifier.onnx").read_bytes() == before  # refused before anything is written


def test_detector_trains_in_float32_so_no_mixed_precision_check_goes_online(tmp_path, monkeypatch):
    import sys
    import types

    from vision.train.detector import DetectorConfig, train_detector

    calls: list[dict] = []

    class FakeYOLO:
        def __init__(self, model: str) -> None:
            self.model = model

        def train(self, **kwargs) -> None:
            calls.append(kwargs)
            weights = Path(kwargs["project"]) / kwargs["name"] / "weights"
            weights.mkdir(parents=True)
            (weights / "best.pt").write_bytes(b"w")

    package = types.ModuleType("ultralytics")
    package.YOLO = FakeYOLO
    utils = types.ModuleType("ultralytics.utils")
    torch_utils = types.ModuleType("ultralytics.utils.torch_utils")
    torch_utils.NUM_THREADS = 1
    package.utils, utils.torch_utils = utils, torch_utils
    for name, module in (("ultralytics", package), ("ultralytics.utils", utils), ("ultralytics.utils.torch_utils", torch_utils)):
        monkeypatch.setitem(sys.modules, name, module)

    cfg = DetectorConfig(device="0", init=str(tmp_path / "m.pt"), epochs=2)
    lines: list[str] = []
    result = train_detector(cfg, tmp_path / "data.yaml", tmp_path / "run", resume=False, log=lines.append)
    assert calls[0]["amp"] is False and calls[0]["device"] == "0"
    assert result["best"].endswith("best.pt")
    # Under "auto" Ultralytics ignores lr0 for its own choice, and the log must say so.
    assert calls[0]["optimizer"] == "auto" and any("lr0 is not used" in line for line in lines)
    first_lines = list(lines)

    named = DetectorConfig(init=str(tmp_path / "m.pt"), epochs=2, optimizer="SGD", init_lr0=0.001)
    lines.clear()
    train_detector(named, tmp_path / "data.yaml", tmp_path / "run2", resume=False, log=lines.append)
    assert calls[1]["optimizer"] == "SGD" and calls[1]["lr0"] == 0.001
    assert "detector: SGD at lr0 0.001" in lines
    import vision.train.detector as td

    monkeypatch.setattr(td, "write_model_yaml", lambda path, cfg: path)  # the real one reads Ultralytics' own YAML
    fresh = DetectorConfig(epochs=2, optimizer="AdamW", lr0=0.004)
    train_detector(fresh, tmp_path / "data.yaml", tmp_path / "run3", resume=False, log=lines.append)
    assert calls[2]["optimizer"] == "AdamW" and calls[2]["lr0"] == 0.004 and not calls[2]["pretrained"]

    # Ultralytics' default turns mosaic off for the last 10 epochs: a 2-epoch fine-tune never
    # sees one unless asked, and the log says which it got.
    assert calls[0]["close_mosaic"] == 10
    assert "detector: mosaic augmentation in 0 of 2 epochs (none: --det-close-mosaic 0 keeps it on)" in first_lines
    lines.clear()
    kept_on = DetectorConfig(init=str(tmp_path / "m.pt"), epochs=2, close_mosaic=0)
    train_detector(kept_on, tmp_path / "data.yaml", tmp_path / "run4", resume=False, log=lines.append)
    assert calls[3]["close_mosaic"] == 0 and "detector: mosaic augmentation in 2 of 2 epochs" in lines


@pytest.mark.parametrize("argv, says", [
    (["--det-lr0", "0.001"], "--det-lr0 needs --det-optimizer SGD or AdamW"),
    (["--det-optimizer", "SGD", "--stage", "classifier"], "--stage classifier trains no detector"),
    (["--det-optimizer", "AdamW", "--det-lr0", "0.001", "--stage", "specialist"], "trains no detector"),
    (["--det-close-mosaic", "0", "--stage", "classifier"], "--stage classifier trains no detector"),
])
def test_detector_optimizer_options_that_would_do_nothing_are_refused(tmp_path, capsys, argv, says):
    import argparse

    from vision.train.command import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([*argv, "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")])
    assert run(args) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["0", "-0.01", "0.5", "fast"])
def test_a_detector_learning_rate_out_of_range_is_refused(text):
    import argparse

    from vision.train.command import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--det-optimizer", "SGD", "--det-lr0", text])


@pytest.mark.parametrize("text", ["-1", "2.5", "many"])
def test_a_mosaic_epoch_count_that_is_not_a_count_is_refused(text):
    import argparse

    from vision.train.command import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--det-close-mosaic", text])
    assert parser.parse_args(["--det-close-mosaic", "0"]).det_close_mosaic == 0


def test_a_second_opinion_is_refused_for_cards_and_for_other_classes_than_the_classifier(tmp_path, capsys):
    import argparse

    pytest.importorskip("onnx")
    from tests.vision import tiny_reader as tiny
    from vision.train.command import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "annotations.jsonl").write_text(json.dumps(
        {"image": "a.jpg", "width": 10, "height": 10, "objects": [{"kind": "card", "face": "AS", "box": [0, 0, 5, 5]}]}) + "\n")
    cv2.imwrite(str(cards / "a.jpg"), np.zeros((10, 10, 3), np.uint8))
    assert run(parser.parse_args(["--cards", "--stage", "second-opinion", "--synth", str(cards),
                                  "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")])) == 2
    assert "leave out --cards" in capsys.readouterr().err
    dice = tmp_path / "dice"
    (dice / "images").mkdir(parents=True)
    cv2.imwrite(str(dice / "images" / "0.jpg"), np.zeros((20, 20, 3), np.uint8))
    (dice / "annotations.jsonl").write_text(json.dumps(
        {"image": "images/0.jpg", "width": 20, "height": 20,
         "objects": [{"kind": "die", "face": "カ", "colour": "teal", "box": [2, 2, 12, 12]}]}) + "\n")
    models = tiny.build_onnx(tmp_path / "models")  # its classifier reads blue, green and red
    before = (models / "dice-reader.json").read_text()
    assert run(parser.parse_args(["--stage", "second-opinion", "--no-real", "--synth", str(dice),
                                  "--out", str(models), "--runs", str(tmp_path / "runs")])) == 2
    assert "a second opinion must read the same" in capsys.readouterr().err
    assert (models / "dice-reader.json").read_text() == before and not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_a_fine_tune_records_the_file_it_started_from_even_when_it_replaces_it(tmp_path):
    """``--cls-init models/dice-specialist.onnx --out models``: the run overwrites its own
    starting point, so the manifest keeps that file's sha256 in the training record."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import shutil

    from vision.read.manifest import ReaderManifest, load_training_record, sha256_of
    from vision.read.reader import DEFAULT_MODEL_DIR
    from web.cli import main

    assert main(["synth", "--out", str(tmp_path / "nine"), "--n", "4", "--seed", "5", "--dice-sets", "nine",
                 "--workers", "1", "--quiet"]) == 0
    out = tmp_path / "models"
    shutil.copytree(DEFAULT_MODEL_DIR, out, ignore=shutil.ignore_patterns("*.pt", "card-*", "MODEL_CARD.md"))
    before = sha256_of(out / "dice-specialist.onnx")
    assert main(["train", "--stage", "specialist", "--no-real", "--synth", str(tmp_path / "nine"),
                 "--cls-init", str(out / "dice-specialist.onnx"), "--cls-epochs", "1", "--cls-samples", "64",
                 "--cls-batch", "32", "--cls-lr", "1e-5", "--workers", "0",
                 "--runs", str(tmp_path / "runs"), "--out", str(out)]) == 0
    manifest = ReaderManifest.load(out / "dice-reader.json")
    [spec] = manifest.specialists
    assert spec.sha256 == sha256_of(out / "dice-specialist.onnx") != before
    assert load_training_record(out / "dice-reader.json")["dice-specialist"]["init_sha256"] == before


def _fake_detector_training(tmp_path: Path, monkeypatch, weights: bytes):
    """A one-die training set and ``tableref train``'s parser, with Ultralytics' training and
    export replaced by writing ``weights`` as the run's best.pt and a stand-in ONNX."""
    import argparse

    from vision.train import command as train
    from vision.train import detector as train_detector

    scenes = tmp_path / "set"
    scenes.mkdir()
    (scenes / "annotations.jsonl").write_text(json.dumps(
        {"image": "a.jpg", "width": 10, "height": 10, "objects": [{"kind": "die", "face": "3", "box": [0, 0, 5, 5]}]}) + "\n")
    best = tmp_path / "best.pt"
    best.write_bytes(weights)
    monkeypatch.setattr(train, "resolve_device", lambda name: ("cpu", "cpu"))
    monkeypatch.setattr(train, "hardware", lambda device: {"device": device})
    monkeypatch.setattr(train_detector, "setup_ultralytics", lambda folder: None)
    monkeypatch.setattr(train_detector, "write_dataset_view", lambda *a, **k: {"train": 1, "val": 1})
    monkeypatch.setattr(train_detector, "train_detector", lambda *a: {"best": str(best)})
    monkeypatch.setattr(train_detector, "export_detector", lambda pt, onnx, imgsz: onnx.write_bytes(b"a new detector"))
    parser = argparse.ArgumentParser()
    train.add_arguments(parser)
    return scenes, parser


@pytest.mark.parametrize("from_committed", [True, False], ids=["from-the-committed-pt", "from-other-weights"])
def test_a_detector_fine_tuned_from_the_committed_weights_keeps_their_record_as_continued_from(
    tmp_path, monkeypatch, from_committed
):
    """A detector run whose ``--init`` is the very ``.pt`` beside the manifest continues that
    detector: its record keeps the earlier entry as ``continued_from``; from other weights it
    does not."""
    import shutil

    from vision.train import command as train
    from vision.read.manifest import load_training_record, sha256_of
    from vision.read.reader import DEFAULT_MODEL_DIR

    out = tmp_path / "models"
    shutil.copytree(DEFAULT_MODEL_DIR, out, ignore=shutil.ignore_patterns("*.pt", "card-*", "MODEL_CARD.md"))
    (out / "dice-detector.pt").write_bytes(b"the committed detector")
    init = tmp_path / "init.pt"
    init.write_bytes(b"the committed detector" if from_committed else b"other weights")
    earlier = load_training_record(out / "dice-reader.json")
    scenes, parser = _fake_detector_training(tmp_path, monkeypatch, b"new weights")
    args = parser.parse_args(["--stage", "detector", "--no-real", "--synth", str(scenes), "--imgsz", "512",
                              "--init", str(init), "--out", str(out), "--runs", str(tmp_path / "runs")])
    assert train.run(args) == 0
    record = load_training_record(out / "dice-reader.json")["detector"]
    assert record["init_sha256"] == sha256_of(init)
    assert (out / "dice-detector.pt").read_bytes() == b"new weights"
    if from_committed:
        assert record["continued_from"] == earlier["detector"]
    else:
        assert "continued_from" not in record


@pytest.mark.parametrize("old_manifest", [False, True], ids=["record-beside", "record-in-old-manifest"])
def test_a_retrained_detector_keeps_the_read_time_settings_of_the_reader_it_replaces(
    tmp_path, monkeypatch, capsys, old_manifest
):
    """``tableref train --stage detector --out models``: the new file and its hash go in, the
    thresholds and passes chosen for reading stay (a reader that loses its zoomed pass finds
    half the dice of wide photos). The run's record joins the earlier ones in the training
    record beside the manifest, also when an old manifest still held them under ``"training"``."""
    import shutil

    from vision.train import command as train
    from vision.read.manifest import ReaderManifest, load_training_record, sha256_of, training_record_path
    from vision.read.reader import DEFAULT_MODEL_DIR

    out = tmp_path / "models"
    shutil.copytree(DEFAULT_MODEL_DIR, out, ignore=shutil.ignore_patterns("*.pt", "card-*", "MODEL_CARD.md"))
    earlier = load_training_record(out / "dice-reader.json")
    assert {"created", "detector", "classifier"} <= set(earlier)
    if old_manifest:
        doc = json.loads((out / "dice-reader.json").read_text(encoding="utf-8"))
        (out / "dice-reader.json").write_text(json.dumps({**doc, "training": earlier}), encoding="utf-8")
        training_record_path(out / "dice-reader.json").unlink()
    before = ReaderManifest.load(out / "dice-reader.json").detector
    assert before.zoom_out_above is not None and before.photo_imgsz is not None  # something to keep
    scenes, parser = _fake_detector_training(tmp_path, monkeypatch, b"weights")
    args = parser.parse_args(["--stage", "detector", "--no-real", "--synth", str(scenes), "--imgsz", str(before.imgsz),
                              "--out", str(out), "--runs", str(tmp_path / "runs")])
    assert train.run(args) == 0
    after = ReaderManifest.load(out / "dice-reader.json").detector
    assert after.sha256 == sha256_of(out / "dice-detector.onnx") != before.sha256
    assert dataclasses.replace(after, sha256=before.sha256) == before
    assert "read-time settings kept from the manifest" in capsys.readouterr().out
    doc = json.loads((out / "dice-reader.json").read_text(encoding="utf-8"))
    record = load_training_record(out / "dice-reader.json")
    assert "training" not in doc and doc["created"] == record["created"] == record["detector"]["trained"]
    assert record["detector"] != earlier["detector"] and record["detector"]["data"]["val_fraction"] == 0.1
    assert {k: v for k, v in record.items() if k not in ("created", "detector")} == \
        {k: v for k, v in earlier.items() if k not in ("created", "detector")}
