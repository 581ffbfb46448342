"""Hard negatives for the classifiers: where a detector fires but nothing of its kind is labelled.

The corner-index detector reports some boxes that are no readable index: a suit pip, a
detail of court artwork, a die's pips in a mixed scene, an index mostly under a finger or
another card (labels need 85 % of an index in view). The classifier then reads a rank and
suit there anyway, often surely. Cut like any index and labelled :data:`NOT_AN_INDEX`,
these boxes teach the classifier one more rank class, so the reader can drop them.

The dice detector does the same with red chips, the squares of a gingham cloth, a card's
back, a box over two dice or a die mostly hidden (labels need most of the up face in view):
those teach the dice classifier a face class ``none`` (:data:`NOT_AN_INDEX` too).

A found box is a negative when it overlaps every labelled index by less than ``max_iou``;
boxes between that and a match are left out, since a loose box on a real index is
neither an index crop nor a false alarm.

>>> import numpy as np
>>> found = np.array([[0, 0, 10, 20], [100, 100, 110, 120], [2, 0, 12, 20]], np.float32)
>>> false_alarms(found, np.array([[0, 0, 10, 20]], np.float32)).tolist()
[[100.0, 100.0, 110.0, 120.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.read.backends import default_threads
from vision.read.boxes import iou_matrix
from vision.teach.labels import LabelledImage
from vision.read.manifest import CARD_MANIFEST_NAME, MANIFEST_NAME, ManifestError, ReaderManifest
from vision.read.reader import load_pair
from vision.read.stages import detect_at_scale, detect_boxes

DEFAULT_MAX_IOU = 0.1
DEFAULT_CONF = 0.1  # under the runtime floor (0.25), so a lower floor can be tried with the same classifier


def false_alarms(found: np.ndarray, labelled: np.ndarray, max_iou: float = DEFAULT_MAX_IOU) -> np.ndarray:
    """The rows of ``found`` (N, 4 xyxy) that overlap no box of ``labelled`` by ``max_iou`` or more."""
    found = np.asarray(found, np.float32).reshape(-1, 4)
    labelled = np.asarray(labelled, np.float32).reshape(-1, 4)
    if len(found) == 0 or len(labelled) == 0:
        return found
    return found[iou_matrix(found, labelled).max(axis=1) < max_iou]


def _detector(model_dir: Path, manifest_name: str, kind: str, conf: float, threads: int | None):
    """The detector named by ``manifest_name`` in ``model_dir``, and its spec at confidence ``conf``."""
    path = Path(model_dir) / manifest_name
    if not path.is_file():
        raise ManifestError(f"no {manifest_name} in {model_dir}: it names the {kind} detector to mine negatives with")
    manifest = ReaderManifest.load(path)
    detector, _ = load_pair(Path(model_dir), manifest_name, manifest, "auto",
                            default_threads() if threads is None else threads, "auto")
    return detector, replace(manifest.detector, conf_threshold=float(conf))


def card_detector(model_dir: Path, conf: float = DEFAULT_CONF, threads: int | None = None) -> tuple[Callable[[np.ndarray], np.ndarray], dict[str, object]]:
    """The card-index detector of ``model_dir`` as a function of a BGR frame (boxes from
    confidence ``conf``), and a record of which detector it is."""
    detector, spec = _detector(model_dir, CARD_MANIFEST_NAME, "card", conf, threads)
    record = {"detector": spec.file, "sha256": spec.sha256, "imgsz": spec.imgsz, "conf": float(conf)}
    return (lambda image: detect_boxes(detector, spec, image).boxes), record


def dice_detector(model_dir: Path, conf: float = DEFAULT_CONF, threads: int | None = None) -> tuple[Callable[[np.ndarray], np.ndarray], dict[str, object]]:
    """The dice detector of ``model_dir`` as a function of a BGR frame, and a record of which
    detector it is: the boxes from confidence ``conf`` of every pass a photo gets (the
    zoomed-out and zoomed-in looks), so the classifier learns the false alarms the reader can meet."""
    detector, spec = _detector(model_dir, MANIFEST_NAME, "dice", conf, threads)

    def detect(image: np.ndarray) -> np.ndarray:
        return detect_at_scale(detector, spec, image, True, ()).boxes

    record = {"detector": spec.file, "sha256": spec.sha256, "imgsz": spec.imgsz, "conf": float(conf),
              "passes": "photo"}
    return detect, record


def mine(
    images: Sequence[tuple[str, LabelledImage]],
    detect: Callable[[np.ndarray], np.ndarray],
    max_iou: float = DEFAULT_MAX_IOU,
    kind: str = "card",
    unlabelled: Mapping[Path, Sequence[Sequence[float]]] | None = None,
) -> dict[Path, np.ndarray]:
    """Each image's false alarms (image path -> (N, 4) boxes), for the images that have any:
    boxes that overlap no labelled object of ``kind`` ("card": corner indices, or "die"),
    nor any box ``unlabelled`` gives for that image: real objects the labels leave out (in a
    set with a reader's boxes, those the reader did not find), which are no false alarms."""
    out: dict[Path, np.ndarray] = {}
    for _, item in _unique(images):
        image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if image is None:
            continue  # collect_crops reports unreadable images
        labelled = np.array([o.box for o in item.objects if o.kind == kind], np.float32).reshape(-1, 4)
        if unlabelled and item.path in unlabelled:
            labelled = np.concatenate([labelled, np.asarray(unlabelled[item.path], np.float32).reshape(-1, 4)])
        boxes = false_alarms(detect(image), labelled, max_iou)
        if len(boxes):
            out[item.path] = boxes
    return out


def _unique(images: Sequence[tuple[str, LabelledImage]]) -> list[tuple[str, LabelledImage]]:
    """Each image once: the real photos are listed several times (``--real-repeat``)."""
    seen: set[Path] = set()
    out = []
    for source, item in images:
        if item.path not in seen:
            seen.add(item.path)
            out.append((source, item))
    return out
