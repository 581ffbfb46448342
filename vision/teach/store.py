"""A profile folder on disk: the fitted profile and the labelled photos it was taught from.

::

    DIR/profile.json     the fitted :class:`~vision.read.profile.Profile` (names its base models)
    DIR/labels.jsonl     every kept photo's labels (``docs/teach.md``), images relative to DIR
    DIR/photos/<sha256 prefix>.<ext>   the kept photos, named by their content

Photos are written before the labels that name them, and each file is replaced whole
(written aside, then renamed), so a crash at any point leaves the previous profile
readable, and never a label without its photo. Teaching the same photo again replaces its
labels (a correction), it does not count it twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from vision.teach.labels import DatasetError, LabelledImage, load_labels
from vision.read.profile import PROFILE_FILE, Profile, ProfileError

LABELS_FILE = "labels.jsonl"
PHOTOS = "photos"


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` whole: written beside it, flushed, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def label_line(photo: LabelledImage, image: str) -> str:
    """``photo``'s labels as one line of the labels file, its image named ``image``."""
    objects = []
    for k, o in enumerate(photo.objects):
        obj = {"kind": o.kind, "face": o.face or None, "colour": o.colour, "box": [round(v, 1) for v in o.box]}
        if not photo.is_readable(k):
            obj["readable"] = False
        objects.append(obj)
    return json.dumps({"image": image, "objects": objects}, ensure_ascii=False)


class ProfileFolder:
    """One profile folder: what it kept, and adding to it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @property
    def exists(self) -> bool:
        return (self.path / PROFILE_FILE).is_file() or (self.path / LABELS_FILE).is_file()

    def kept(self) -> tuple[LabelledImage, ...]:
        """The labelled photos this profile keeps (none for a new folder)."""
        labels = self.path / LABELS_FILE
        if not labels.exists():
            return ()
        try:
            return load_labels(labels)
        except DatasetError as exc:
            raise ProfileError(f"{labels} is damaged: {exc}") from None

    def profile(self) -> Profile:
        return Profile.load(self.path)

    def keep(self, photos: Sequence[LabelledImage]) -> tuple[LabelledImage, ...]:
        """Copy ``photos`` into the folder (by content) and return every kept photo after
        adding them: the labels of a photo taught again replace its old ones. Nothing is
        written to the labels file here (:meth:`commit` does that, with the profile)."""
        by_name: dict[str, LabelledImage] = {p.path.name: p for p in self.kept()}
        folder = self.path / PHOTOS
        for photo in photos:
            data = photo.path.read_bytes()
            name = hashlib.sha256(data).hexdigest()[:20] + photo.path.suffix.lower()
            target = folder / name
            if not target.is_file():
                write_atomic(target, data)
            by_name[name] = replace(photo, path=target)
        return tuple(by_name.values())

    def commit(self, photos: Iterable[LabelledImage], profile: Profile) -> None:
        """Write the kept photos' labels, then the profile fitted on them."""
        lines = [label_line(p, f"{PHOTOS}/{p.path.name}") for p in photos]
        write_atomic(self.path / LABELS_FILE, ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8"))
        write_atomic(self.path / PROFILE_FILE,
                     (json.dumps(profile.to_json(), ensure_ascii=False) + "\n").encode("utf-8"))
