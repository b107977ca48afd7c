"""Which of `validate`'s grading checks already passed with exactly these inputs, kept on disk.

A check's verdict depends on its code, its exercise's files, the library versions (all three
in the key, through `graders.judging.spec.content_key`), the grader's own code and the Python
running it. A check that passed is recorded under the hash of all of them, so `make validate`
after `make test` (or a second `make test`) grades only what changed; a check that found a
problem is never recorded, so it is graded again every time. `validate --regrade` ignores the
records.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import graders
from graders import content_key

if TYPE_CHECKING:
    from app.authoring.grading_check import Check

GRADERS_DIR = Path(graders.__file__).resolve().parent


@functools.cache
def grader_fingerprint() -> str:
    """A hash of every file of the grader package and of the Python version."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(GRADERS_DIR.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(GRADERS_DIR)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def check_key(check: Check, exercise_key: str) -> str:
    """The hash of everything the check's verdict depends on (`exercise_key`: its folder's)."""
    digest = hashlib.sha256(grader_fingerprint().encode())
    digest.update(exercise_key.encode())
    for part in (check.kind, check.framework, check.mistake_id or "", check.description):
        digest.update(part.encode() + b"\0")
    digest.update(check.code.encode())
    return digest.hexdigest()


class PassedChecks:
    """The record of passed checks in one folder (the app's data directory by default)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._exercise_keys: dict[Path, str] = {}  # each folder hashed once per validate run

    def key(self, check: Check) -> str:
        """The file name of the check's record."""
        folder = check.exercise.path
        if folder not in self._exercise_keys:
            self._exercise_keys[folder] = content_key(folder)
        return check_key(check, self._exercise_keys[folder])

    def passed(self, check: Check) -> bool:
        """True when this very check, with these very inputs, passed before."""
        return (self.folder / self.key(check)).is_file()

    def record(self, check: Check) -> None:
        """Remember that the check passed (written whole: temporary name, then rename)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(check.label + "\n")
        os.replace(temporary, self.folder / self.key(check))
