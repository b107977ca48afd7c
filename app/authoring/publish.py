"""Publish: write edits to the course folder under a lock, check, commit, record, refresh.

The order follows PrairieLearn's `Editor` (lock, write, commit, reload and check, sync), with
the check moved before the write: each file must still be what the edit started from on disk,
the course with the new files (on a copy) must load with no problem the served version lacks,
its exams must still find their items and no lesson or exercise with students' work may go
(else nothing is written and the last good version keeps serving); then each file is replaced
whole, the folder is committed when it is a git repository, a version row keeps each file's
text before and after, and the registry re-reads the course.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session

from app.authoring.check import Found, check_texts, exam_problems, found
from app.authoring.drafts import disk_text, sha
from app.authoring.kept_work import orphaned
from app.authoring.models import ContentVersion
from app.config import get_settings
from app.content.loader import Course
from app.courses.registry import CourseSource
from app.courses.version import content_version
from app.errors import DomainError
from app.users.models import User

GIT_TIMEOUT_S = 20
CHANGED_ON_DISK = "{path} changed on disk since {since}; refused so that neither text is lost."
OUTSIDE = "{path} resolves outside the course folder (a symlink); edit it where it lives."


@dataclass(frozen=True)
class Edit:
    """One file to write: its new text (None deletes it) and the disk hash it must still have."""

    path: str
    text: str | None
    expect_sha: str | None
    since: str = "this draft began"  # what expect_sha is the hash of, in words


class PublishRefused(DomainError):
    """409 with the problems the new version would bring."""

    def __init__(self, message: str, problems: Sequence[Found]) -> None:
        super().__init__(409, message)
        self.problems = list(problems)


@contextmanager
def course_lock(slug: str) -> Iterator[None]:
    """One publish per course at a time, across processes on this machine."""
    folder = get_settings().app_data_dir / "authoring-locks"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{slug}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _target(folder: Path, path: str) -> Path:
    target = folder / path
    root = folder.resolve()
    if not target.resolve().is_relative_to(root):
        raise DomainError(409, OUTSIDE.format(path=path))
    return target


def _write(folder: Path, texts: dict[str, str | None]) -> None:
    """Each file whole or not at all (a grader reading the folder never sees half a file)."""
    for path, text in texts.items():
        target = _target(folder, path)
        if text is None:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.publishing")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, target)


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(folder), *args],
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT_S,
        check=False,
    )


def is_own_repository(folder: Path) -> bool:
    """True when the course folder is the top of a git work tree (never a parent's repository)."""
    top = _git(folder, "rev-parse", "--show-toplevel")
    return top.returncode == 0 and Path(top.stdout.strip()).resolve() == folder.resolve()


def _commit(folder: Path, paths: list[str], *, author: User, message: str) -> str | None:
    if not is_own_repository(folder):
        return None
    _git(folder, "add", "-A", "--", *paths)
    name = author.name or author.email
    done = _git(
        folder,
        "-c", f"user.name={name}",
        "-c", f"user.email={author.email}",
        "commit", "-q", "-m", message, "--", *paths,
    )  # fmt: skip
    if done.returncode != 0:
        return None
    return _git(folder, "rev-parse", "HEAD").stdout.strip() or None


def apply(
    *,
    session: Session,
    source: CourseSource,
    served: Course,
    edits: Sequence[Edit],
    author: User,
    message: str,
    restored_from: int | None = None,
) -> ContentVersion:
    """Check, write, commit and record these edits under the course's lock; 409 when refused.

    The new version is checked on a copy first, so a refused one never touches the folder
    students are served and graded from; a failed write puts the old files back.
    """
    folder = source.folder
    texts = {e.path: e.text for e in edits}
    with course_lock(source.slug):
        before = {e.path: disk_text(folder, e.path) for e in edits}
        for edit in edits:
            _target(folder, edit.path)
            if sha(before[edit.path]) != edit.expect_sha:
                raise PublishRefused(CHANGED_ON_DISK.format(path=edit.path, since=edit.since), [])
        new = _new_problems(session=session, source=source, served=served, texts=texts)
        if new:
            raise PublishRefused(
                "This version has problems the served version does not have; "
                "the last good version keeps serving.",
                new,
            )
        try:
            _write(folder, texts)
        except BaseException:
            _write(folder, before)
            raise
        commit = _commit(folder, [e.path for e in edits], author=author, message=message)
        version = ContentVersion(
            course_slug=source.slug,
            author_id=author.id,
            author=author.name or author.email,
            message=message,
            commit=commit,
            content_version=content_version(folder),
            files=[{"path": e.path, "before": before[e.path], "after": e.text} for e in edits],
            restored_from=restored_from,
        )
        session.add(version)
        session.commit()
        return version


def _new_problems(
    *, session: Session, source: CourseSource, served: Course, texts: dict[str, str | None]
) -> list[Found]:
    """What this version would break that the served one does not: its own problems (exams
    whose items vanish included) and lessons or exercises dropped from under students' work."""
    folder = source.folder
    candidate, problems = check_texts(folder, texts)
    known = {(f.file, f.message) for f in found(served, folder) + exam_problems(served, folder)}
    new = [f for f in problems if (f.file, f.message) not in known]
    return new + orphaned(
        session=session, course_slug=source.slug, folder=folder, served=served, candidate=candidate
    )
