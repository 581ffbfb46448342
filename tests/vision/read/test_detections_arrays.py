"""The array-backed Detections: selection, merge, NMS, classification, a reading held as
Detections and its JSON, and their refusals."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.read.detections import Detection, Detections, Kind, Reading


def three() -> Detections:
    return Detections(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 40, 30]], np.float32),
                      np.array([0.9, 0.8, 0.7], np.float32))


def test_arrays_are_coerced_and_checked():
    d = three()
    assert d.boxes.dtype == np.float32 and d.scores.dtype == np.float32
    assert d.probabilities.shape == (3, 0)
    with pytest.raises(ValueError, match="3 boxes but 2 scores"):
        Detections(d.boxes, d.scores[:2])
    with pytest.raises(ValueError, match="probabilities"):
        Detections(d.boxes, d.scores, classes=("a", "b"), probabilities=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="one row an object"):
        Detections(d.boxes, d.scores, data={"colour_p": np.zeros((2, 4))})


def test_every_array_is_selected_alike():
    d = three().classified(("a", "b"), np.array([[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]]), colour_p=np.eye(3))
    for index in (np.array([True, False, True]), [2, 0], slice(0, 3, 2)):
        picked = d[index]
        rows = np.arange(3)[index]
        assert picked.boxes.tolist() == d.boxes[rows].tolist()
        assert picked.probabilities.tolist() == d.probabilities[rows].tolist()
        assert picked.data["colour_p"].tolist() == np.eye(3)[rows].tolist()
        assert picked.classes == ("a", "b") and all(k is Kind.DIE for k in picked.kinds)
    assert d.without(np.array([False, True, False])).probabilities[:, 0].tolist() == pytest.approx([0.9, 0.5])
    assert d.without(np.zeros(3, bool)) is d


def test_merge_keeps_kind_classes_and_data():
    d = three().classified(("a",), np.ones((3, 1)), extra=np.arange(3))
    both = Detections.merge([d, d[[1]]])
    assert len(both) == 4 and both.data["extra"].tolist() == [0, 1, 2, 1]
    with pytest.raises(ValueError, match="one set of classes"):
        Detections.merge([d, d.classified(("b",), np.ones((3, 1)))])
    with pytest.raises(ValueError, match="unknown kind"):
        replace(d, kinds="chip")
    assert [str(k) for k in Detections.merge([d, replace(d, kinds=Kind.CARD)]).kinds] == ["die"] * 3 + ["card"] * 3
    assert len(Detections.merge([])) == 0


def test_nms_keeps_the_best_of_overlapping_boxes():
    d = three()
    kept = d.with_nms(0.5)
    assert kept.scores.tolist() == pytest.approx([0.9, 0.7])
    assert d.with_nms(0.5, max_det=1).scores.tolist() == pytest.approx([0.9])
    assert len(Detections.empty().with_nms(0.5)) == 0


def objects() -> tuple[Detection, ...]:
    return (Detection("die", "3", "red", (0.04999, 0, 9, 9), 0.91234567, box_score=0.3, alternatives=("3", "5")),
            Detection("card", "QH", None, (20, 0, 29, 15), 0.6, uncertain=True))


def test_a_reading_holds_its_objects_as_detections_and_gives_them_back():
    reading = Reading(objects(), 640, 480, 2.0)
    assert isinstance(reading.objects, Detections) and len(reading.objects) == 2
    assert tuple(reading.objects) == objects() and reading.objects == objects()
    given = objects()
    assert all(a is b for a, b in zip(Reading(given).objects, given))  # the very objects, not copies
    assert reading.objects[1].face == "QH" and reading.objects[1].kind is Kind.CARD
    assert [o.face for o in reading.objects[np.array([False, True])]] == ["QH"]
    assert reading.dice()[0].alternatives == ("3", "5") and reading.dice()[0].box_score == 0.3
    assert reading == Reading(objects(), 640, 480, 2.0) and hash(reading) == hash(Reading(objects(), 640, 480, 2.0))
    assert replace(reading, objects=reading.objects[[0]]).faces() == ("3",)


def test_the_json_contract_is_written_from_the_arrays_as_each_object_writes_itself():
    reading = Reading(objects(), 640, 480, 2.0)
    assert reading.to_json()["objects"] == [o.to_json() for o in objects()]
    assert Reading((), 1, 1).to_json()["objects"] == []


def test_detections_made_from_arrays_read_back_as_the_objects():
    made = Detections.from_objects(objects())
    again = Detections(made.boxes, made.scores, made.kinds, data=made.data)  # no objects kept: rebuilt from columns
    assert tuple(again) == objects()
    assert [o.box_score for o in again] == [0.3, None] and again[0].alternatives == ("3", "5")
    with pytest.raises(ValueError, match="not a reading yet"):
        list(three())
    with pytest.raises(ValueError, match="not a reading yet"):
        three().to_json()
