"""Run an ONNX model on the CPU through OpenVINO or onnxruntime, behind one small interface.

OpenVINO is preferred when installed: on the 2-core development machine it ran the
slim detector about twice as fast as onnxruntime (``models/MODEL_CARD.md``, *Speed*). Neither
backend ever imports torch.

>>> BACKENDS
('openvino', 'onnxruntime')
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import cv2
import numpy as np

if TYPE_CHECKING:
    import openvino

BACKENDS = ("openvino", "onnxruntime")


class BackendUnavailable(RuntimeError):
    """The requested inference backend is not installed (or none is)."""


class Model(Protocol):
    """A loaded network: feed one float32 array, get its outputs in graph order.

    A backend may also take a detector's image itself (``run_image`` and ``prepare_image``,
    as :class:`OpenVinoModel` does); :func:`run_image` and :func:`prepare_image` use them where
    they exist and the blob elsewhere."""

    backend: str
    version: str
    precision: str

    def run(self, x: np.ndarray) -> list[np.ndarray]: ...

    def prepare(self, shape: tuple[int, ...]) -> None:
        """Get ready for inputs of ``shape`` (compile for it, if the backend does that)."""
        ...


def image_blob(image: np.ndarray) -> np.ndarray:
    """A BGR ``uint8`` image as the detectors were trained to see it: ``(1, 3, H, W)``
    float32 RGB in [0, 1].

    >>> blob = image_blob(np.full((2, 3, 3), (0, 51, 255), np.uint8))  # B, G, R
    >>> blob.shape, [round(float(v), 3) for v in blob[0, :, 0, 0]]
    ((1, 3, 2, 3), [1.0, 0.2, 0.0])
    """
    return cv2.dnn.blobFromImage(image, 1 / 255, swapRB=True)


def run_image(model: Model, image: np.ndarray) -> list[np.ndarray]:
    """``model``'s outputs for one BGR ``uint8`` image (``H x W x 3``), fed as
    :func:`image_blob` makes it. A model that takes the image itself (``run_image``: OpenVINO,
    which converts it inside the compiled graph) is given it; any other gets the blob."""
    direct = getattr(model, "run_image", None)
    return direct(image) if direct is not None else model.run(image_blob(image))


def prepare_image(model: Model, height: int, width: int) -> None:
    """Get ``model`` ready for :func:`run_image` on ``height x width`` images."""
    direct = getattr(model, "prepare_image", None)
    if direct is not None:
        direct(height, width)
        return
    prepare = getattr(model, "prepare", None)
    if prepare is not None:
        prepare((1, 3, height, width))


def available_backends() -> tuple[str, ...]:
    return tuple(b for b in BACKENDS if importlib.util.find_spec(b) is not None)


def default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


_CORE: openvino.Core | None = None
_CORE_LOCK = threading.Lock()


def openvino_core() -> openvino.Core:
    """The process's one OpenVINO ``Core``, made on first use and never released.

    OpenVINO's CPU plugin points the signal stack (``sigaltstack``) of the thread that loads it
    at memory of its own, and frees that memory when the ``Core`` that loaded it goes.
    CPython runs its signal handlers on the signal stack, so once a reader had been dropped,
    the next signal with a Python handler (Ctrl-C, SIGTERM, torch's SIGCHLD watch over data
    loading workers) killed the process with a segmentation fault. One ``Core`` that lives as
    long as the process, as OpenVINO itself recommends, loads the plugin once and keeps it.
    """
    global _CORE
    with _CORE_LOCK:
        if _CORE is None:
            import openvino as ov

            _CORE = ov.Core()
        return _CORE


BATCH_BUCKETS = (1, 2, 4, 6, 8, 12, 16, 20, 24, 32)
"""The batch sizes a model of any batch size is compiled for in OpenVINO (see :class:`OpenVinoModel`)."""


def batch_bucket(n: int) -> int:
    """The smallest of :data:`BATCH_BUCKETS` that holds ``n`` inputs (the largest over it).

    >>> [batch_bucket(n) for n in (1, 3, 8, 13, 32, 40)]
    [1, 4, 8, 16, 32, 32]
    """
    return next((b for b in BATCH_BUCKETS if b >= n), BATCH_BUCKETS[-1])


class OpenVinoModel:
    """OpenVINO CPU model.

    With ``static=True`` it is compiled once per distinct input shape (a camera has one,
    and a static shape runs faster than a dynamic one). Otherwise the batch, which changes
    with every frame (a classifier's dice), is padded up to the next of :data:`BATCH_BUCKETS`
    and compiled once per bucket (a batch over the largest runs in chunks of it): the dice
    classifier reads 15 crops in about two thirds of the time a graph compiled for any
    batch size takes, with the same outputs, and no frame compiles more than a few buckets.
    The last ``max_shapes`` compiled shapes are kept: a photo alone takes four (its own
    input, the half-size pass, the closer pass, and the live frame's between photos), and
    compiling again costs a hundred milliseconds or more.
    """

    backend = "openvino"

    def __init__(self, path: Path, threads: int, static: bool = True, precision: str = "auto", max_shapes: int = 8) -> None:
        # OpenVINO's telemetry lives in its conversion tools, which we never call; CI=true
        # is its documented opt-out should any part of it look, and we set it only if unset.
        os.environ.setdefault("CI", "true")
        import openvino as ov

        self.version = str(ov.get_version())
        self._core = openvino_core()
        self._model = self._core.read_model(str(path))
        self._config: dict[str, object] = {
            "INFERENCE_NUM_THREADS": int(threads),
            "PERFORMANCE_HINT": "LATENCY",
            "NUM_STREAMS": 1,
        }
        # "auto" keeps OpenVINO's choice: bf16 on CPUs with bf16 units (2-3x faster here,
        # probabilities within ~0.02 of f32), f32 elsewhere. "f32" forces full precision.
        if precision != "auto":
            self._config["INFERENCE_PRECISION_HINT"] = precision
        hint = self._core.get_property("CPU", "INFERENCE_PRECISION_HINT")
        self.precision = getattr(hint, "get_type_name", lambda: str(hint))() if precision == "auto" else precision
        self._compiled: OrderedDict[tuple[int, ...], object] = OrderedDict()
        self._max_shapes = max_shapes if static else max(max_shapes, len(BATCH_BUCKETS))
        self._static = static

    def _request(self, shape: tuple[int, ...], image: bool = False):
        key = (*shape, "image") if image else shape
        req = self._compiled.get(key)
        if req is None:
            model = self._model.clone()
            if image:
                model.reshape({model.inputs[0].get_any_name(): [1, 3, *shape]})
                model = _takes_rgb_bytes(model)
            elif shape:
                model.reshape({model.inputs[0].get_any_name(): list(shape)})
            req = self._core.compile_model(model, "CPU", self._config).create_infer_request()
            self._compiled[key] = req
            if len(self._compiled) > self._max_shapes:
                self._compiled.popitem(last=False)
        else:
            self._compiled.move_to_end(key)
        return req

    def prepare(self, shape: tuple[int, ...]) -> None:
        shape = tuple(int(v) for v in shape)
        self._request(shape if self._static else (batch_bucket(shape[0]), *shape[1:]))

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        x = np.ascontiguousarray(x, dtype=np.float32)
        if self._static:
            return self._infer(x)
        step = BATCH_BUCKETS[-1]
        # an empty batch runs one padded input, so its outputs still have their shapes
        parts = [self._infer_padded(x[i : i + step]) for i in range(0, len(x), step)] or [self._infer_padded(x)]
        return parts[0] if len(parts) == 1 else [np.concatenate(outs) for outs in zip(*parts)]

    def _infer_padded(self, x: np.ndarray) -> list[np.ndarray]:
        n = len(x)
        bucket = batch_bucket(n)
        if bucket != n:
            x = np.concatenate([x, np.zeros((bucket - n, *x.shape[1:]), x.dtype)])
        return [out[:n] for out in self._infer(x)]

    def _infer(self, x: np.ndarray) -> list[np.ndarray]:
        req = self._request(tuple(int(v) for v in x.shape))
        req.infer({0: x})
        return [np.array(req.get_output_tensor(i).data, copy=True) for i in range(len(req.model_outputs))]

    def prepare_image(self, height: int, width: int) -> None:
        self._request((height, width), image=True)

    def run_image(self, image: np.ndarray) -> list[np.ndarray]:
        """The outputs for one BGR ``uint8`` image, given to the network as :func:`image_blob`
        makes it, to the bit: only the channels are put in RGB order and in front here (0.2 ms
        at 512x384), and the compiled graph scales the bytes itself. Up to 3 ms less a 640x480
        detector pass than feeding the float blob, on a slow day. Compiled once per image size, whatever
        ``static`` says."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError(f"run_image takes an H x W x 3 uint8 image, got {image.shape} {image.dtype}")
        req = self._request(image.shape[:2], image=True)
        req.infer({0: np.ascontiguousarray(image[..., ::-1].transpose(2, 0, 1))[None]})
        return [np.array(req.get_output_tensor(i).data, copy=True) for i in range(len(req.model_outputs))]


def _takes_rgb_bytes(model: openvino.Model) -> openvino.Model:
    """``model`` (input NCHW float32 RGB in [0, 1]) taking the same NCHW RGB pixels as ``uint8``.

    The pixels are multiplied by a float32 1/255, the very float operation of
    :func:`image_blob`, so the outputs are the blob's to the bit (120 frames of both detectors
    at five sizes, in bf16). The channels are reordered and put in front before, not in the
    graph: given the BGR image as it lies (NHWC), OpenVINO ran the first layer otherwise, and
    bf16 rounded it otherwise: scores moved by up to 0.013 with its ``scale(255)``, and 15 of
    72 outputs differed in their last bits with this product."""
    import openvino as ov
    import openvino.opset13 as ops
    from openvino.preprocess import PrePostProcessor

    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_element_type(ov.Type.u8)
    ppp.input().preprocess().convert_element_type(ov.Type.f32).custom(
        lambda node: ops.multiply(node, ops.constant(np.array(1 / 255, np.float32))).output(0))
    return ppp.build()


class OnnxRuntimeModel:
    """onnxruntime CPU session."""

    backend = "onnxruntime"
    precision = "f32"

    def __init__(self, path: Path, threads: int) -> None:
        import onnxruntime as ort

        self.version = str(ort.__version__)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        # The reader alternates two sessions; spinning idle threads of one stole the CPU from
        # the other (a 640x480 read took 80 ms instead of 46 on 2 cores).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0].name

    def prepare(self, shape: tuple[int, ...]) -> None:
        pass  # one session serves every shape

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        return list(self._session.run(None, {self._input: np.ascontiguousarray(x, dtype=np.float32)}))


PRECISIONS = ("auto", "f32", "bf16", "f16")


def load_model(
    path: Path, backend: str = "auto", threads: int | None = None, static: bool = True, precision: str = "auto"
) -> Model:
    """Load ``path`` with ``backend`` (``"auto"`` = the first installed of :data:`BACKENDS`).

    ``static`` asks OpenVINO to specialise the model to each input shape it sees;
    ``precision`` is OpenVINO's inference precision (onnxruntime always computes in f32).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    threads = default_threads() if threads is None else threads
    if backend == "auto":
        installed = available_backends()
        if not installed:
            raise BackendUnavailable("neither openvino nor onnxruntime is installed")
        backend = installed[0]
    if backend == "openvino":
        if importlib.util.find_spec("openvino") is None:
            raise BackendUnavailable("openvino is not installed")
        return OpenVinoModel(Path(path), threads, static=static, precision=precision)
    if backend == "onnxruntime":
        if importlib.util.find_spec("onnxruntime") is None:
            raise BackendUnavailable("onnxruntime is not installed")
        return OnnxRuntimeModel(Path(path), threads)
    raise BackendUnavailable(f"unknown backend {backend!r}; choose from auto, {', '.join(BACKENDS)}")
