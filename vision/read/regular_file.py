"""Read a named file only when it is a regular file of a bounded size.

A name on the command line can be anything: a symlink to ``/dev/zero`` (endless bytes,
gigabytes in seconds), a named pipe (opening it waits for a writer that never comes),
a directory, a device. So the file's type and size are checked before a byte is read,
on the open file itself (a name swapped between the check and the open is caught),
and no more than the limit is ever read even from a file that grows meanwhile.
Standard library only: ``tableref replay`` uses it too, and loads no OpenCV.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "log.json")
>>> with open(path, "w") as fh:
...     _ = fh.write("{}")
>>> read_regular_file(path, 10, "a test file")
b'{}'
>>> read_regular_file(path, 1, "a test file needs at most 1 byte")
Traceback (most recent call last):
...
vision.read.regular_file.FileRefused: too large: 2 bytes, more than 1 (a test file needs at most 1 byte)
>>> read_regular_file(folder, 10, "")
Traceback (most recent call last):
...
vision.read.regular_file.FileRefused: is a directory
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


class FileRefused(OSError):
    """The file is missing, unreadable, not a regular file or too large; the message says which."""


def read_regular_file(path: Path | str, max_bytes: int, why_limit: str) -> bytes:
    """The bytes of ``path`` (symlinks followed), refused unless it is a regular file of at most
    ``max_bytes``; ``why_limit`` says why the limit is what it is, for the message."""
    try:
        named = os.stat(path)  # before opening: opening a pipe or a device can block or act
        _check(named, max_bytes, why_limit)
        fd = os.open(path, _OPEN_FLAGS)
    except FileRefused:
        raise
    except OSError as exc:
        raise FileRefused(_reason(exc)) from None
    with os.fdopen(fd, "rb") as fh:
        _check(os.fstat(fh.fileno()), max_bytes, why_limit)
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileRefused(f"too large: more than {max_bytes} bytes ({why_limit})")
    return data


def _check(st: os.stat_result, max_bytes: int, why_limit: str) -> None:
    mode = st.st_mode
    if stat.S_ISDIR(mode):
        raise FileRefused("is a directory")
    if not stat.S_ISREG(mode):
        raise FileRefused(f"not a regular file but {_kind(mode)}: only files are read")
    if st.st_size > max_bytes:
        raise FileRefused(f"too large: {st.st_size} bytes, more than {max_bytes} ({why_limit})")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"cannot read file: {exc.strerror or exc}"
