"""vision.read.regular_file: only a regular file of bounded size is read, whatever its name points at."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import vision.read.regular_file
from vision.read.regular_file import FileRefused, read_regular_file


def test_doctests() -> None:
    result = doctest.testmod(vision.read.regular_file)
    assert result.attempted >= 3 and result.failed == 0


def test_a_symlink_to_a_regular_file_is_followed(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert read_regular_file(tmp_path / "link.json", 2, "test") == b"{}"


@pytest.mark.parametrize(("name", "reason"), [("missing.json", "no such file"), ("dangling.json", "no such file")])
def test_missing_files_say_so(tmp_path: Path, name: str, reason: str) -> None:
    (tmp_path / "dangling.json").symlink_to(tmp_path / "gone")
    with pytest.raises(FileRefused, match=reason):
        read_regular_file(tmp_path / name, 10, "test")
