"""Which paths a browser may write: lessons and every file of an exercise; the rest in words."""

from __future__ import annotations

import pytest

from app.authoring.paths import BAD_PATH, NOT_IN_COURSE, REFUSED, writable
from app.errors import DomainError


@pytest.mark.parametrize(
    "path",
    [
        "lessons/first-steps.md",
        "exercises/split-heads/statement.md",
        "exercises/split-heads/discussion.md",
        "exercises/split-heads/hints/2.md",
        "exercises/split-heads/exercise.yaml",
        "exercises/split-heads/mistakes.yaml",
        "exercises/split-heads/reference.py",
        "exercises/split-heads/cases.py",
        "exercises/split-heads/properties.py",
        "exercises/split-heads/solutions/numpy.py",
        "exercises/split-heads/starter/jax.py",
    ],
)
def test_text_files_are_writable(path: str) -> None:
    assert writable(path) == path


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("lessons/../course.yaml", 422, BAD_PATH),
        ("../other-course/lessons/a.md", 422, BAD_PATH),
        ("/etc/passwd", 422, BAD_PATH),
        ("lessons/./a.md", 422, BAD_PATH),
        ("exercises/split-heads/solutions/cobol.py", 403, REFUSED),
        ("exercises/split-heads/helpers.py", 403, REFUSED),
        ("exercises/Split_Heads/statement.md", 403, REFUSED),
        ("assessments/midterm.yaml", 403, REFUSED),
        ("course.yaml", 403, REFUSED),
        ("lessons/notes.txt", 403, REFUSED),
        ("var/app.db", 404, NOT_IN_COURSE),
    ],
)
def test_everything_else_is_refused_with_a_sentence(path: str, status: int, message: str) -> None:
    with pytest.raises(DomainError) as refused:
        writable(path)
    assert (refused.value.status, refused.value.message) == (status, message)
