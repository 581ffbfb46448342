"""The inference backends: one OpenVINO Core per process, and signals still handled after a reader goes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.vision import tiny_reader as tiny

REPO = Path(__file__).resolve().parents[2]

# Loads a reader through OpenVINO, reads a frame, drops the reader, then raises a signal that
# has a Python handler, as Ctrl-C, SIGTERM or torch's SIGCHLD watch over data-loading workers do.
DROP_THEN_SIGNAL = textwrap.dedent("""
    import gc, os, signal, sys, time
    import numpy as np
    from vision.reader import load_reader

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
    from vision.backends import OpenVinoModel, openvino_core

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
