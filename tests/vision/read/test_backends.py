"""The inference backends: one OpenVINO Core per process, and signals still handled after a reader goes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision import tiny_reader as tiny

REPO = Path(__file__).resolve().parents[3]

# Loads a reader through OpenVINO, reads a frame, drops the reader, then raises a signal that
# has a Python handler, as Ctrl-C, SIGTERM or torch's SIGCHLD watch over data-loading workers do.
DROP_THEN_SIGNAL = textwrap.dedent("""
    import gc, os, signal, sys, time
    import numpy as np
    from vision.read.reader import load_reader

    reader = load_reader(sys.argv[1], backend="openvino")
    reader.read(np.zeros((480, 640, 3), np.uint8))
    del reader
    gc.collect()
    got = []
    signal.signal(signal.SIGUSR1, lambda *_: got.append(True))
    os.kill(os.getpid(), signal.SIGUSR1)
    time.sleep(0.05)
    print("handled" if got else "not handled")
""")


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory) -> Path:
    pytest.importorskip("onnx")
    pytest.importorskip("openvino")
    return tiny.build_onnx(tmp_path_factory.mktemp("models"))


def test_openvino_models_share_one_core(tiny_models):
    from vision.read.backends import OpenVinoModel, openvino_core

    a = OpenVinoModel(tiny_models / "dice-detector.onnx", threads=1)
    b = OpenVinoModel(tiny_models / "dice-classifier.onnx", threads=1, precision="f32")
    assert a._core is b._core is openvino_core()
    assert b.precision == "f32"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_signal_after_a_reader_was_dropped_is_handled_not_a_crash(tiny_models):
    """With a Core per model, dropping the reader freed the signal stack OpenVINO's CPU plugin
    had set, and this process died of SIGSEGV (exit -11) when the signal came."""
    done = subprocess.run([sys.executable, "-c", DROP_THEN_SIGNAL, str(tiny_models)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "handled"


def _identity_onnx(path: Path) -> Path:
    """A graph that returns its NCHW float input unchanged, so an output shows exactly what the
    backend fed the network."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Mul", ["images", "one"], ["output0"])],
        "identity",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, "height", "width"])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 3, "height", "width"])],
        [onnx.numpy_helper.from_array(np.ones((1,), np.float32), "one")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _image() -> np.ndarray:
    image = np.zeros((5, 7, 3), np.uint8)
    image[..., 0], image[..., 1], image[..., 2] = 255, 51, np.arange(7, dtype=np.uint8) * 30  # B, G, R
    return image


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_a_model_is_fed_an_image_as_the_detectors_were_trained(tmp_path, backend):
    """RGB, in [0, 1], channels first: the same input whether the backend converts the image
    inside its graph (OpenVINO) or is given the blob (onnxruntime)."""
    pytest.importorskip("onnx")
    pytest.importorskip(backend)
    from vision.read.backends import image_blob, load_model, prepare_image, run_image

    model = load_model(_identity_onnx(tmp_path / "identity.onnx"), backend, threads=1, precision="f32")
    image = _image()
    prepare_image(model, *image.shape[:2])
    seen = run_image(model, image)[0]
    assert seen.shape == (1, 3, 5, 7)
    np.testing.assert_allclose(seen[0, 0, 0], np.arange(7) * 30 / 255, atol=1e-6)  # red first
    np.testing.assert_allclose(seen[0, 1], 0.2, atol=1e-6)
    np.testing.assert_allclose(seen[0, 2], 1.0, atol=1e-6)
    np.testing.assert_allclose(seen, image_blob(image), atol=1e-6)
    other = image[:3, :4].copy()  # another size is compiled for, not refused
    np.testing.assert_allclose(run_image(model, other)[0], image_blob(other), atol=1e-6)


def test_a_model_without_its_own_image_input_is_given_the_blob():
    from vision.read.backends import image_blob, prepare_image, run_image

    class Plain:
        def __init__(self) -> None:
            self.shapes: list[tuple[int, ...]] = []

        def run(self, x: np.ndarray) -> list[np.ndarray]:
            return [x * 2]

        def prepare(self, shape: tuple[int, ...]) -> None:
            self.shapes.append(shape)

    plain, image = Plain(), _image()
    prepare_image(plain, 5, 7)
    assert plain.shapes == [(1, 3, 5, 7)]
    np.testing.assert_allclose(run_image(plain, image)[0], image_blob(image) * 2)


def test_openvino_refuses_an_image_that_is_not_8_bit_colour(tmp_path):
    pytest.importorskip("onnx")
    pytest.importorskip("openvino")
    from vision.read.backends import OpenVinoModel

    model = OpenVinoModel(_identity_onnx(tmp_path / "identity.onnx"), threads=1, precision="f32")
    with pytest.raises(ValueError, match="uint8 image"):
        model.run_image(_image().astype(np.float32))
    with pytest.raises(ValueError, match="uint8 image"):
        model.run_image(_image()[..., 0])


def test_module_doctests_pass():
    import doctest

    from vision.read import backends

    result = doctest.testmod(backends)
    assert result.failed == 0 and result.attempted >= 2


def test_openvino_prepares_the_image_input_that_run_image_then_uses(tmp_path):
    """A camera's first frame must not wait for a compile: prepare_image compiles the graph that
    takes the image, and running that size compiles nothing more."""
    pytest.importorskip("onnx")
    pytest.importorskip("openvino")
    from vision.read.backends import OpenVinoModel, prepare_image, run_image

    model = OpenVinoModel(_identity_onnx(tmp_path / "identity.onnx"), threads=1, precision="f32")
    prepare_image(model, 5, 7)
    compiled = list(model._compiled)
    run_image(model, _image())
    assert list(model._compiled) == compiled == [(5, 7, "image")]


@pytest.mark.parametrize("name", ["dice-detector.onnx", "card-detector.onnx"])
def test_openvino_reads_an_image_as_it_reads_its_blob_to_the_bit(name):
    """Feeding the detectors the image instead of the blob is a speed change only: in the
    precision OpenVINO picks here (bf16 where the CPU has it) the outputs are the same to the
    bit, so every score measured with the blob still holds."""
    pytest.importorskip("openvino")
    from vision.read.backends import image_blob, load_model

    model = load_model(REPO / "models" / name, "openvino", threads=1)
    rng = np.random.default_rng(66)
    image = cv2.GaussianBlur(rng.integers(0, 256, (192, 256, 3), dtype=np.uint8), (0, 0), 1.0)
    image[40:120, 60:140] = (250, 250, 245)  # a bright patch with edges, as a card or a die shows
    np.testing.assert_array_equal(model.run_image(image)[0], model.run(image_blob(image))[0])


@pytest.mark.parametrize("n", [1, 3, 5, 13, 32, 45])
def test_any_batch_is_padded_to_a_bucket_and_trimmed(tiny_models, n):
    """A classifier's batch runs padded up to its bucket (chunks of the largest above it), and
    each crop's reading is what the crop alone gives: padding and chunking change no output."""
    from vision.read.backends import BATCH_BUCKETS, OpenVinoModel, batch_bucket

    model = OpenVinoModel(tiny_models / "dice-classifier.onnx", threads=1, static=False, precision="f32")
    x = np.random.default_rng(n).random((n, 3, 48, 48), dtype=np.float32)
    got = model.run(x)
    want = tiny.FakeClassifier().run(x)
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=1e-5)
    alone = model.run(x[-1:])
    for g, a in zip(got, alone):
        np.testing.assert_allclose(g[-1:], a, atol=1e-6)
    compiled = {key[0] for key in model._compiled}
    assert compiled <= set(BATCH_BUCKETS) and batch_bucket(min(n, BATCH_BUCKETS[-1])) in compiled


def test_an_empty_batch_gives_empty_outputs(tiny_models):
    from vision.read.backends import OpenVinoModel

    model = OpenVinoModel(tiny_models / "dice-classifier.onnx", threads=1, static=False, precision="f32")
    want = tiny.FakeClassifier().run(np.zeros((1, 3, 48, 48), np.float32))
    got = model.run(np.zeros((0, 3, 48, 48), np.float32))
    assert [g.shape for g in got] == [(0, *w.shape[1:]) for w in want]
