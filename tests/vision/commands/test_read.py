"""``tableref read``: JSON Lines contract, readable summary, per-file errors and exit codes."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision import tiny_reader as tiny
from vision.read.detections import DIE_FACES
from vision.live.overlay import DEFAULT_STYLE
from vision.read.policy import Mode
from vision.commands.read import add_arguments, annotated_path, banner, read_all, summary, with_dice_options
from web.cli import main


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("photos")
    good_jpg = d / "table.jpg"
    cv2.imwrite(str(good_jpg), tiny.scene(), [cv2.IMWRITE_JPEG_QUALITY, 98])
    good_png = d / "table.png"
    cv2.imwrite(str(good_png), tiny.scene())
    data = good_jpg.read_bytes()
    files = {
        "good_jpg": good_jpg,
        "good_png": good_png,
        "empty": d / "empty.jpg",
        "truncated": d / "truncated.jpg",
        "corrupt": d / "corrupt.jpg",
        "text": d / "notes.png",
        "missing": d / "nope.jpg",
        "folder": d / "sub",
    }
    files["empty"].write_bytes(b"")
    files["truncated"].write_bytes(data[: len(data) // 2])
    files["corrupt"].write_bytes(data[:20] + bytes(range(256)) * 8)
    files["text"].write_text("not an image at all\n")
    files["folder"].mkdir()
    return files


def run_json(names: list[str]) -> tuple[int, list[dict], str]:
    out, err = io.StringIO(), io.StringIO()
    status = read_all(tiny.fake_reader(), names, True, out, err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_json_lines_for_good_images(photos):
    names = [str(photos["good_jpg"]), str(photos["good_png"])]
    status, lines, err = run_json(names)
    assert status == 0 and err == ""
    assert [ln["image"] for ln in lines] == names
    for ln in lines:
        assert list(ln) == ["image", "width", "height", "ms", "objects"]
        assert (ln["width"], ln["height"]) == (640, 480)
        assert ln["ms"] >= 0
        assert len(ln["objects"]) == 4
        for obj in ln["objects"]:
            assert obj["kind"] == "die" and obj["face"] in DIE_FACES
            assert len(obj["box"]) == 4 and 0 <= obj["score"] <= 1
            assert obj.get("uncertain", False) in (True, False)
        assert sum(o.get("uncertain", False) for o in ln["objects"]) == 2


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("empty", "empty file"),
        ("truncated", "truncated"),
        ("corrupt", ""),
        ("text", "not a recognised image format"),
        ("missing", "no such file"),
        ("folder", "no photos found in this folder"),
    ],
)
def test_bad_file_gives_an_error_line_and_others_are_still_read(photos, key, reason):
    names = [str(photos["good_jpg"]), str(photos[key]), str(photos["good_png"])]
    status, lines, _ = run_json(names)
    assert status == 1
    assert [ln["image"] for ln in lines] == names
    assert set(lines[1]) == {"image", "error"} and reason in lines[1]["error"]
    assert len(lines[0]["objects"]) == 4 and len(lines[2]["objects"]) == 4


def test_a_folder_is_read_as_the_photos_in_it(photos, tmp_path):
    folder = tmp_path / "reveals"
    (folder / "older").mkdir(parents=True)
    for name in ("b.PNG", "a.jpg", "older/c.jpg"):
        (folder / name).write_bytes(photos["good_png"].read_bytes())
    (folder / "notes.txt").write_text("not a photo\n")
    status, lines, err = run_json([str(folder), str(photos["good_jpg"])])
    assert status == 0 and err == ""
    assert [ln["image"] for ln in lines] == [str(folder / "a.jpg"), str(folder / "b.PNG"), str(photos["good_jpg"])]
    assert all(len(ln["objects"]) == 4 for ln in lines)


def test_plain_mode_summary_and_errors_on_stderr(photos):
    out, err = io.StringIO(), io.StringIO()
    status = read_all(tiny.fake_reader(), [str(photos["good_png"]), str(photos["missing"])], False, out, err)
    assert status == 1
    text = out.getvalue()
    assert "4 dice - 2 x 2, 1 x wheel, 1 x プ" in text  # the grey tie reads as the first tied face, "2"
    assert "(2 uncertain)" in text and text.count("? uncertain") == 2
    assert "nope.jpg: error: no such file" in err.getvalue()


def test_summary_of_an_empty_reading():
    from vision.read.detections import Reading

    assert summary("x.jpg", Reading(width=10, height=5, ms=1.0)) == "x.jpg: 10x5, 1.0 ms, 0 dice"


def test_cli_end_to_end_with_tiny_onnx_models(photos, tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    status = main(["read", "--json", "--models", str(models), str(photos["good_jpg"]), str(photos["truncated"])])
    out = capsys.readouterr().out.splitlines()
    assert status == 1 and len(out) == 2
    first, second = (json.loads(line) for line in out)
    assert [o["face"] for o in first["objects"]][0] == "プ"
    assert "プ" in out[0]  # UTF-8, not \u escapes
    assert second == {"image": str(photos["truncated"]), "error": "truncated image data"}
    assert main(["read", "--models", str(models), "--threshold", "0.2", str(photos["good_png"])]) == 0
    assert "(1 uncertain)" in capsys.readouterr().out


def test_cli_without_models_exits_2(photos, tmp_path, capsys):
    assert main(["read", "--models", str(tmp_path), str(photos["good_jpg"])]) == 2
    assert "cannot load the models" in capsys.readouterr().err


def test_cli_game_reads_dice_as_that_games_dice(photos, tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    assert main(["read", "--json", "--game", "liars-dice", "--models", str(models), str(photos["good_png"])]) == 0
    objects = json.loads(capsys.readouterr().out)["objects"]
    assert {o["face"] for o in objects} <= {"wheel", "2", "3", "4", "5", "6"}
    assert objects[0]["uncertain"] is True  # the プ die: a face Liar's dice do not have
    assert main(["read", "--game", "poker", "--models", str(models), str(photos["good_png"])]) == 2
    assert "--game poker: unknown game" in capsys.readouterr().err
    # the tiny model knows blue, green and red only: Nine Dice needs white, black, blue and green
    assert main(["read", "--game", "nine-dice", "--models", str(models), str(photos["good_png"])]) == 2
    assert "no colour" in capsys.readouterr().err


def test_photos_are_read_as_photos():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    photo = with_dice_options(tiny.fake_reader(), parser.parse_args(["a.jpg"]), "read")
    assert photo is not None and photo.mode is Mode.PHOTO and photo.reads_photos
    with pytest.raises(SystemExit):
        parser.parse_args(["--no-second-look", "a.jpg"])


def test_annotate_writes_each_photo_with_its_reading_drawn_on_it(photos, tmp_path):
    out, err, folder = io.StringIO(), io.StringIO(), tmp_path / "read"
    folder.mkdir()
    names = [str(photos["good_jpg"]), str(photos["truncated"]), str(photos["good_png"])]
    status = read_all(tiny.fake_reader(), names, True, out, err, folder)
    assert status == 1  # the truncated photo; the other two are read and drawn
    assert [json.loads(line)["image"] for line in out.getvalue().splitlines()] == names  # stdout: JSON Lines only
    drawn = cv2.imread(str(folder / "table.read.jpg"))
    second = folder / "table-2.read.jpg"  # table.png: another photo of this run has the name table
    assert sorted(p.name for p in folder.iterdir()) == ["table-2.read.jpg", "table.read.jpg"]
    assert cv2.imread(str(second)).shape == drawn.shape == tiny.scene().shape
    # each die gets a box (its bottom edge clear of the label): green when sure, the warning colour when not
    for (x1, y1, x2, y2), _, _ in (tiny.DICE[0], tiny.DICE[2]):
        edge = drawn[y2 - 2 : y2 + 1, (x1 + x2) // 2].astype(int)
        colour = DEFAULT_STYLE.box if tiny.DICE[0][0] == (x1, y1, x2, y2) else DEFAULT_STYLE.uncertain
        assert (abs(edge - np.array(colour)).sum(axis=1) < 60).any(), (edge, colour)
    assert not np.array_equal(drawn[:40, :200], tiny.scene()[:40, :200])  # the banner


def test_annotate_in_plain_mode_says_where_and_a_write_failure_is_that_file_s_error(photos, tmp_path):
    out, err, folder = io.StringIO(), io.StringIO(), tmp_path / "read"
    folder.mkdir()
    assert read_all(tiny.fake_reader(), [str(photos["good_png"])], False, out, err, folder) == 0
    assert f"  annotated: {folder / 'table.read.jpg'}" in out.getvalue()
    (folder / "table.read.jpg").unlink()
    (folder / "table.read.jpg").mkdir()  # a folder where the file should go
    out, err = io.StringIO(), io.StringIO()
    status = read_all(tiny.fake_reader(), [str(photos["good_png"]), str(photos["good_jpg"])], True, out, err, folder)
    assert status == 1 and len(out.getvalue().splitlines()) == 2  # both still read
    assert "cannot write the annotated photo" in err.getvalue()
    assert (folder / "table-2.read.jpg").is_file()


def test_read_cmd_doctests():
    import doctest

    import vision.commands.read

    assert doctest.testmod(vision.commands.read).failed == 0


def test_annotated_names_and_banner():
    taken: set[Path] = set()
    folder = Path("out")
    assert annotated_path(folder, "a/x.jpg", taken) == folder / "x.read.jpg"
    assert annotated_path(folder, "b/x.png", taken) == folder / "x-2.read.jpg"
    assert annotated_path(folder, "c/x.jpg", taken) == folder / "x-3.read.jpg"
    from vision.read.detections import Detection, Reading

    die = Detection("die", "5", "red", (0, 0, 9, 9), 0.95)
    card = Detection("card", "QH", None, (0, 0, 9, 9), 0.5, uncertain=True)
    assert banner(Reading(width=9, height=9)) == "0 dice"
    assert banner(Reading((die, die), 9, 9)) == "2 dice"
    assert banner(Reading((die, card), 9, 9)) == "1 die, 1 card (1 uncertain)"


def test_cli_annotate_folder_that_cannot_be_made_exits_2(photos, tmp_path, capsys):
    pytest.importorskip("onnx")
    models = tiny.build_onnx(tmp_path / "models")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["read", "--models", str(models), "--annotate", str(blocker / "sub"), str(photos["good_png"])]) == 2
    assert "--annotate" in capsys.readouterr().err
    assert main(["read", "--models", str(models), "--annotate", str(tmp_path / "new" / "dir"), str(photos["good_png"])]) == 0
    assert (tmp_path / "new" / "dir" / "table.read.jpg").is_file()


def test_a_bomb_a_device_and_a_pipe_are_error_lines_and_the_others_are_read(photos, tmp_path):
    """`tableref read --json` on what once read gigabytes or blocked: an error line each (read-json.md)."""
    import os
    import threading

    from PIL import Image

    bomb = tmp_path / "bomb.png"
    Image.new("1", (9400, 9400)).save(bomb, format="PNG")
    names = [str(photos["good_jpg"]), str(bomb)]
    reasons = ["88.4 Mpx, more than the 50 Mpx"]
    if Path("/dev/zero").exists():
        (tmp_path / "zero.jpg").symlink_to("/dev/zero")
        names.append(str(tmp_path / "zero.jpg"))
        reasons.append("not a regular file but a character device")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.jpg")
        names.append(str(tmp_path / "pipe.jpg"))
        reasons.append("not a regular file but a named pipe")
    names.append(str(photos["good_png"]))
    result: list[tuple[int, list[dict], str]] = []
    worker = threading.Thread(target=lambda: result.append(run_json(names)), daemon=True)
    worker.start()
    worker.join(30)
    assert result, "read did not finish in 30 s"
    status, lines, _ = result[0]
    assert status == 1 and [ln["image"] for ln in lines] == names
    for line, reason in zip(lines[1:-1], reasons, strict=True):
        assert set(line) == {"image", "error"} and reason in line["error"], line
    assert len(lines[0]["objects"]) == 4 and len(lines[-1]["objects"]) == 4


def test_a_file_name_that_is_not_utf8_still_prints_one_json_line(photos):
    name = str(photos["missing"]) + "\udcff"  # how Python holds a name's bytes that are not UTF-8
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # as stdout: strict UTF-8
    assert read_all(tiny.fake_reader(), [name], True, out, io.StringIO()) == 1
    lines = raw.getvalue().decode("utf-8").splitlines()
    assert len(lines) == 1 and json.loads(lines[0]) == {"image": name, "error": "no such file"}
