"""The reader profiles a dashboard keeps: ``DATA/profiles/<id>/``, each a
:class:`~vision.teach.store.ProfileFolder` with a display name.

::

    DATA/profiles/<id>/meta.json       {"name": ..., "created": ...}
    DATA/profiles/<id>/labels.jsonl    the kept photos' labels (docs/teach.md)
    DATA/profiles/<id>/profile.json    the fitted profile
    DATA/profiles/<id>/photos/...      the kept photos, named by their content

Ids are made here (never taken from a request); every file is replaced whole
(:func:`~vision.teach.store.write_atomic`), and a profile is deleted by renaming its
folder aside first, so a crash leaves it there or gone, never half. A profile travels as
a zip of its folder; an imported zip is checked whole before anything is kept: its size,
only the files a profile holds (no other path, no link, no ``..``), each photo named by
its own content and decodable, and every labels line checked as ``tableref teach`` checks
it (:func:`~vision.teach.labels.load_labels`).

>>> import tempfile
>>> lib = ProfileLibrary(Path(tempfile.mkdtemp()))
>>> pid = lib.create("Kitchen table")
>>> [(p["name"], p["photos"]) for p in lib.list()]
[('Kitchen table', 0)]
>>> lib.import_zip(b"not a zip")
Traceback (most recent call last):
...
web.errors.BadProfileFile: This is not a profile file tableref can import: not a zip file.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import secrets
import shutil
import threading
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vision.read.image_io import IMAGE_SUFFIXES, UnreadableImage, decode_image
from vision.teach.labels import DatasetError, LabelsError, load_labels
from vision.read.profile import PROFILE_FILE, Profile, ProfileError
from vision.teach.store import LABELS_FILE, PHOTOS, ProfileFolder, write_atomic
from web.errors import BadProfileFile, BadRequest, ProfileFileTooLarge, ProfileNotFound
from web.store import now

JSON = dict[str, Any]

PROFILE_ID = re.compile(r"^[0-9a-f]{10}$")
META_FILE = "meta.json"
MAX_NAME = 40
#: The largest profile file imported: about 300 photos of 200 kB, far more than a set needs
#: (the dashboard says a profile is ready at 10).
IMPORT_MAX_BYTES = 64 * 1024 * 1024
#: What its files may unpack to (a zip can claim far more than it holds).
IMPORT_MAX_UNPACKED = 256 * 1024 * 1024
IMPORT_MAX_FILES = 1000
_PHOTO_MEMBER = re.compile(r"^" + PHOTOS + r"/([0-9a-f]{20})(\.[a-z]{3,4})$")
_SYMLINK = 0o120000


def check_name(name: Any) -> str:
    """A profile's display name: 1 to :data:`MAX_NAME` printable characters."""
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME or any(
            ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise BadRequest(f"name must be 1 to {MAX_NAME} printable characters", f"名前は1〜{MAX_NAME}文字です")
    return name.strip()


def labels_lines(folder: Path) -> list[str]:
    """The lines of a profile folder's labels file (none when it has none)."""
    try:
        text = (folder / LABELS_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [line for line in text.splitlines() if line.strip()]


def line_image(line: str) -> str | None:
    """The ``image`` a labels line names (None for a line that names none)."""
    try:
        raw = json.loads(line)
    except ValueError:
        return None
    image = raw.get("image") if isinstance(raw, dict) else None
    return image if isinstance(image, str) else None


class ProfileLibrary:
    """Every profile of one server: list, create, rename, delete, export and import.

    Changing one profile's files is serialised by :meth:`lock` (tables sharing a profile
    teach it one photo at a time)."""

    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir) / "profiles"
        self.root.mkdir(parents=True, exist_ok=True)
        for left in self.root.glob(".*-*"):  # an import, a teaching or a deletion a crash cut short
            if left.is_dir() and left.name.split("-", 1)[0] in (".import", ".incoming", ".deleted"):
                shutil.rmtree(left, ignore_errors=True)
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        self._loaded: dict[str, tuple[tuple[int, int], Profile]] = {}

    def lock(self, pid: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(pid, threading.RLock())

    def path(self, pid: Any) -> Path:
        """The folder of profile ``pid``; :class:`ProfileNotFound` unless it is one."""
        if not isinstance(pid, str) or not PROFILE_ID.match(pid) or not (self.root / pid / META_FILE).is_file():
            raise ProfileNotFound(profile=str(pid)[:40])
        return self.root / pid

    def folder(self, pid: Any) -> ProfileFolder:
        return ProfileFolder(self.path(pid))

    def meta(self, pid: str) -> JSON:
        try:
            data = json.loads((self.path(pid) / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        return data if isinstance(data, dict) else {}

    def describe(self, pid: str) -> JSON:
        """``id``, ``name``, ``created``, ``photos`` kept, and the fitted profile's ``objects``
        and face ``counts`` (zero and empty before any teaching)."""
        folder = self.path(pid)
        meta = self.meta(pid)
        out: JSON = {"id": pid, "name": str(meta.get("name", pid)), "created": meta.get("created"),
                     "photos": len(labels_lines(folder)), "objects": 0, "counts": {}}
        try:
            profile = self.loaded(pid)
        except ProfileError:
            profile = None
        if profile is not None:
            out["objects"] = profile.objects
            out["counts"] = dict(profile.counts)
        return out

    def list(self) -> list[JSON]:
        """Every profile, newest first."""
        out = []
        for child in self.root.iterdir():
            if PROFILE_ID.match(child.name) and (child / META_FILE).is_file():
                out.append(self.describe(child.name))
        return sorted(out, key=lambda p: (str(p.get("created") or ""), p["id"]), reverse=True)

    def _write_meta(self, folder: Path, name: str, created: str) -> None:
        write_atomic(folder / META_FILE, (json.dumps({"name": name, "created": created}, ensure_ascii=False) + "\n")
                     .encode("utf-8"))

    def _new_id(self) -> str:
        while True:
            pid = secrets.token_hex(5)
            if not (self.root / pid).exists():
                return pid

    def create(self, name: Any) -> str:
        """A new, empty profile named ``name``; its id."""
        name = check_name(name)
        pid = self._new_id()
        folder = self.root / pid
        folder.mkdir()
        self._write_meta(folder, name, now())
        return pid

    def rename(self, pid: str, name: Any) -> None:
        name = check_name(name)
        folder = self.path(pid)
        with self.lock(pid):
            self._write_meta(folder, name, str(self.meta(pid).get("created") or now()))

    def delete(self, pid: str) -> None:
        """Remove a profile: its folder is renamed aside (one step), then removed."""
        folder = self.path(pid)
        with self.lock(pid):
            aside = self.root / f".deleted-{pid}-{secrets.token_hex(4)}"
            folder.rename(aside)
            shutil.rmtree(aside, ignore_errors=True)
            self._loaded.pop(pid, None)

    def loaded(self, pid: str) -> Profile | None:
        """Profile ``pid`` as fitted (None before any teaching), loaded again only when its
        file changed. :class:`~vision.read.profile.ProfileError` when it is damaged."""
        path = self.path(pid) / PROFILE_FILE
        try:
            st = path.stat()
        except FileNotFoundError:
            self._loaded.pop(pid, None)
            return None
        key = (st.st_mtime_ns, st.st_size)
        cached = self._loaded.get(pid)
        if cached is not None and cached[0] == key:
            return cached[1]
        profile = Profile.load(path.parent)
        self._loaded[pid] = (key, profile)
        return profile

    # --- profile files -------------------------------------------------------------------

    def export(self, pid: str) -> bytes:
        """Profile ``pid`` as a zip: its name, labels, fitted profile and the photos its labels name."""
        folder = self.path(pid)
        out = io.BytesIO()
        with self.lock(pid), zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.write(folder / META_FILE, META_FILE)
            for name in (LABELS_FILE, PROFILE_FILE):
                if (folder / name).is_file():
                    zf.write(folder / name, name)
            for line in labels_lines(folder):
                image = line_image(line)
                if image is not None and _PHOTO_MEMBER.match(image) and (folder / image).is_file():
                    zf.write(folder / image, image, compress_type=zipfile.ZIP_STORED)  # photos are compressed already
        return out.getvalue()

    def import_zip(self, data: bytes, name: Any = None) -> str:
        """A new profile from an exported zip (named ``name``, else as it was); refused with
        :class:`BadProfileFile` or :class:`ProfileFileTooLarge`, keeping nothing, unless
        the whole file is a profile."""
        if len(data) > IMPORT_MAX_BYTES:
            raise ProfileFileTooLarge(limit=IMPORT_MAX_BYTES, unpacked=IMPORT_MAX_UNPACKED)
        if name is not None:
            name = check_name(name)
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError, EOFError):
            raise BadProfileFile("not a zip file", "zipファイルではありません") from None
        with zf:
            members = self._members(zf)
            meta = _json_member(members, META_FILE)
            if not isinstance(meta, Mapping):
                raise BadProfileFile(f"{META_FILE} must be a JSON object", f"{META_FILE}はJSONオブジェクトです")
            if name is None:
                name = check_name(meta.get("name"))
            staging = self.root / f".import-{secrets.token_hex(6)}"
            staging.mkdir()
            try:
                self._stage(members, staging)
                pid = self._new_id()
                self._write_meta(staging, name, now())
                staging.rename(self.root / pid)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        return pid

    def _members(self, zf: zipfile.ZipFile) -> dict[str, bytes]:
        """The zip's files by name, all checked for name, kind and size, read whole."""
        infos = zf.infolist()
        if len(infos) > IMPORT_MAX_FILES:
            raise BadProfileFile(f"it holds more than {IMPORT_MAX_FILES} files", f"ファイルが{IMPORT_MAX_FILES}個を超えています")
        if sum(i.file_size for i in infos) > IMPORT_MAX_UNPACKED:
            raise ProfileFileTooLarge(limit=IMPORT_MAX_BYTES, unpacked=IMPORT_MAX_UNPACKED)
        out: dict[str, bytes] = {}
        for info in infos:
            name = info.filename
            if info.is_dir() and name == PHOTOS + "/":
                continue
            expected = name in (META_FILE, LABELS_FILE, PROFILE_FILE) or bool(_PHOTO_MEMBER.match(name))
            if not expected or (info.external_attr >> 16) & 0o170000 == _SYMLINK:
                raise BadProfileFile(f"unexpected file {name[:80]!r} (a profile holds {META_FILE}, {LABELS_FILE}, "
                                     f"{PROFILE_FILE} and {PHOTOS}/<sha256>.jpg)",
                                     f"想定外のファイル {name[:80]!r} があります")
            if name in out:
                raise BadProfileFile(f"{name!r} is in it twice", f"{name!r}が2回入っています")
            try:
                out[name] = zf.read(info)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError,
                    EOFError, ValueError) as exc:
                raise BadProfileFile(f"{name!r} cannot be unpacked ({exc})", f"{name!r}を展開できません") from None
        for required in (META_FILE, LABELS_FILE):
            if required not in out:
                raise BadProfileFile(f"{required} is missing", f"{required}がありません")
        return out

    def _stage(self, members: Mapping[str, bytes], staging: Path) -> None:
        """Check the profile's files and write them into ``staging``."""
        if PROFILE_FILE in members:
            try:
                Profile.from_json(_json_member(members, PROFILE_FILE))
            except ProfileError as exc:
                raise BadProfileFile(f"{PROFILE_FILE}: {exc}") from None
        try:
            lines = [line for line in members[LABELS_FILE].decode("utf-8").splitlines() if line.strip()]
        except UnicodeDecodeError:
            raise BadProfileFile(f"{LABELS_FILE} is not UTF-8 text", f"{LABELS_FILE}がUTF-8のテキストではありません") from None
        if not lines:
            raise BadProfileFile(f"{LABELS_FILE} lists no photos", f"{LABELS_FILE}に写真がありません")
        named: set[str] = set()
        for n, line in enumerate(lines, 1):
            image = line_image(line)
            if image is None or not _PHOTO_MEMBER.match(image) or image not in members:
                raise BadProfileFile(f"{LABELS_FILE} line {n} must name one of its photos ({PHOTOS}/<sha256>.jpg)",
                                     f"{LABELS_FILE}の{n}行目は同梱の写真を指す必要があります")
            if image in named:
                raise BadProfileFile(f"{LABELS_FILE} line {n} names {image} again", f"{LABELS_FILE}の{n}行目: {image}が重複")
            named.add(image)
        for member, data in members.items():
            found = _PHOTO_MEMBER.match(member)
            if found is None:
                continue
            if member not in named:
                raise BadProfileFile(f"photo {member} has no labels", f"写真{member}にラベルがありません")
            if found.group(2) not in IMAGE_SUFFIXES or hashlib.sha256(data).hexdigest()[:20] != found.group(1):
                raise BadProfileFile(f"photo {member} is not named by its content", f"写真{member}の名前が内容と合いません")
            try:
                decode_image(data)
            except UnreadableImage as exc:
                raise BadProfileFile(f"photo {member} cannot be read ({exc})", f"写真{member}を読めません") from None
            write_atomic(staging / member, data)
        write_atomic(staging / LABELS_FILE, ("\n".join(lines) + "\n").encode("utf-8"))
        try:
            load_labels(staging / LABELS_FILE)
        except LabelsError as exc:
            raise BadProfileFile(f"{LABELS_FILE} line {exc.line}: {exc.reason}",
                                 f"{LABELS_FILE}の{exc.line}行目: {exc.reason}") from None
        except DatasetError as exc:
            raise BadProfileFile(str(exc)) from None
        if PROFILE_FILE in members:
            write_atomic(staging / PROFILE_FILE, members[PROFILE_FILE])


def _json_member(members: Mapping[str, bytes], name: str) -> Any:
    try:
        return json.loads(members[name].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadProfileFile(f"{name} is not JSON", f"{name}がJSONではありません") from None
