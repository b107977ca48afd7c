"""The course a benchmark serves: the configured content with every exam window moved to 2099.

A benchmark's students practise the shipped exercises and quizzes. While a real exam that asks
them is open, the platform rightly refuses that practice (409: the item is part of the exam), so
a run on exam day would measure refusals. The mirror links the course's folders (read, never
written) and copies only the assessment files, each window moved whole (its length, time limit
and a dated release kept) to open on QUIET_OPENS.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from app.assessments.loader import ASSESSMENTS_DIR
from app.config import get_settings
from app.courses.registry import COURSES_DIR

QUIET_OPENS = dt.datetime(2099, 12, 14, 9, tzinfo=dt.UTC)
DATED = ("opens", "closes", "release")  # an assessment's own times (top-level keys)
COURSE_PARTS = ("course.yaml", "lessons", "exercises")


def quiet_content(source: Path, into: Path) -> Path:
    """Mirror SOURCE's courses into INTO (a new folder) with every exam window in 2099."""
    _mirror_course(source.resolve(), into)
    further = source / COURSES_DIR
    if further.is_dir():
        for course in sorted(p for p in further.iterdir() if p.is_dir()):
            _mirror_course(course.resolve(), into / COURSES_DIR / course.name)
    return into


@contextlib.contextmanager
def quiet_environment() -> Iterator[Path]:
    """CONTENT_DIR pointed at a quiet mirror for this process and what it starts; undone after."""
    before = os.environ.get("CONTENT_DIR")
    source = Path(before) if before else get_settings().content_dir
    with tempfile.TemporaryDirectory(prefix="bench-content-") as folder:
        os.environ["CONTENT_DIR"] = str(quiet_content(source, Path(folder) / "content"))
        get_settings.cache_clear()
        try:
            yield Path(os.environ["CONTENT_DIR"])
        finally:
            if before is None:
                os.environ.pop("CONTENT_DIR", None)
            else:
                os.environ["CONTENT_DIR"] = before
            get_settings.cache_clear()


def _mirror_course(source: Path, into: Path) -> None:
    """One course: its folders linked, its assessment files copied with quiet windows."""
    into.mkdir(parents=True)
    for name in COURSE_PARTS:
        if (source / name).exists():
            (into / name).symlink_to((source / name).resolve())
    assessments = source / ASSESSMENTS_DIR
    if not assessments.is_dir():
        return
    (into / ASSESSMENTS_DIR).mkdir()
    for path in sorted(assessments.iterdir()):
        if path.suffix == ".yaml" and path.is_file():
            (into / ASSESSMENTS_DIR / path.name).write_text(
                _quiet(path.read_text(encoding="utf-8")), encoding="utf-8"
            )
        elif path.is_file():
            shutil.copy2(path, into / ASSESSMENTS_DIR / path.name)


def _quiet(text: str) -> str:
    """The assessment's own times moved together, so that it opens on QUIET_OPENS."""
    found = {key: _when(text, key) for key in DATED}
    opens = found["opens"]
    if opens is None:
        return text  # not an assessment the loader would accept: leave it to say so
    shift = QUIET_OPENS - opens
    for key, when in found.items():
        if when is not None:
            moved = (when + shift).astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            text = re.sub(rf"^{key}:.*$", f"{key}: {moved}", text, count=1, flags=re.MULTILINE)
    return text


def _when(text: str, key: str) -> dt.datetime | None:
    """The top-level KEY's time with a zone, or None (absent, a word such as `after_close`)."""
    match = re.search(rf"^{key}:[ \t]*(.*?)[ \t]*(#.*)?$", text, flags=re.MULTILINE)
    if match is None:
        return None
    try:
        when = dt.datetime.fromisoformat(match.group(1).strip("'\""))
    except ValueError:
        return None
    return when if when.tzinfo is not None else None
