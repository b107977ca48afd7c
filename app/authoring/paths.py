"""Which files of a course a browser may write: a lesson, and every file of an exercise.

Why a list: a path is checked against the course's own layout, so nothing outside `lessons/`
and `exercises/<slug>/` (course.yaml, assessments, anything the app reads as its own) can be
written. Content code (`reference.py`, `cases.py`, `properties.py`, declared mistakes) runs
inside the grader's sandbox (issue 50 point 7), so an editor account is not code execution.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from app.errors import DomainError

MAX_BYTES = 512 * 1024
REFUSED = (
    "This file is not part of a lesson or an exercise, so it cannot be edited in the browser; "
    "edit it in the course folder and run `python -m app validate`."
)
NOT_IN_COURSE = "There is no such file in this course."
BAD_PATH = "A file path is relative to the course folder and may not contain '..'."
TOO_BIG = "The file is over 512 KB; split it or edit it in the course folder."
SLUG = r"[a-z0-9][a-z0-9-]{0,80}"
LESSON = re.compile(rf"lessons/({SLUG})\.md")
EXERCISE_TEXT = re.compile(
    rf"exercises/({SLUG})/(statement\.md|discussion\.md|hints/[1-9][0-9]?\.md)"
)
FRAMEWORK = r"(numpy|torch|jax)"
EXERCISE_FILE = re.compile(
    rf"exercises/({SLUG})/(exercise\.yaml|mistakes\.yaml|reference\.py|cases\.py|properties\.py"
    rf"|solutions/{FRAMEWORK}\.py|starter/{FRAMEWORK}\.py)"
)
KNOWN_TOPS = ("lessons", "exercises", "assessments", "course.yaml")


def clean(path: str) -> str:
    """The path as stored, or 422 when it is absolute or climbs out with '..'."""
    parts = path.split("/")
    if "\\" in path or any(p in ("", ".", "..") for p in parts):
        raise DomainError(422, BAD_PATH)
    return str(PurePosixPath(*parts))


def writable(path: str) -> str:
    """The cleaned path when a browser may write it; 403 for other course files, 404 otherwise."""
    path = clean(path)
    if LESSON.fullmatch(path) or EXERCISE_TEXT.fullmatch(path) or EXERCISE_FILE.fullmatch(path):
        return path
    if path.split("/")[0] in KNOWN_TOPS:
        raise DomainError(403, REFUSED)
    raise DomainError(404, NOT_IN_COURSE)


def check_size(text: str) -> None:
    """413 when a paste is too big to be a lesson."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise DomainError(413, TOO_BIG)


def item_of(path: str) -> tuple[str, str]:
    """(kind, slug) of the lesson or exercise a writable path belongs to."""
    lesson = LESSON.fullmatch(path)
    if lesson:
        return "lesson", lesson.group(1)
    return "exercise", path.split("/")[1]
