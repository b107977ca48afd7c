"""Quiz questions checked on save and publish as `validate` checks them: a numeric question whose
own answer cannot be computed would tell students their right answer cannot be read."""

from __future__ import annotations

import re
from pathlib import Path

from app.content.loader import Course, Problem
from app.quiz.grading import question_problems


def _relative(path: Path, root: Path) -> str:
    """The lesson's path in the course folder (as the editor names files)."""
    for base in (root, root.resolve()):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return path.as_posix()


def _line(text: str, question_id: str, key: str) -> int | None:
    """The line of the question's `key:` (else of its id) in the lesson's text."""
    lines = text.splitlines()
    start = re.compile(rf"^(\s*)-\s*id:\s*['\"]?{re.escape(question_id)}['\"]?\s*$")
    for number, line in enumerate(lines, start=1):
        found = start.match(line)
        if found is None:
            continue
        indent = len(found.group(1))
        for offset, inner in enumerate(lines[number:], start=number + 1):
            if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                break  # the next question, or the end of the quiz
            if inner.strip().startswith(f"{key}:"):
                return offset
        return number
    return None


def quiz_problems(*, course: Course, root: Path) -> list[Problem]:
    """Each question's problems as sentences naming the question and the lesson's file."""
    problems: list[Problem] = []
    for lesson in course.lessons:
        found = [(q.id, m) for q in lesson.meta.quiz for m in question_problems(q)]
        if not found:
            continue
        rel, text = _relative(lesson.path, root), lesson.path.read_text(encoding="utf-8")
        for question_id, message in found:
            line = _line(text, question_id, "answer" if message.startswith("its answer") else "id")
            problems.append(Problem(rel, f"Question '{question_id}' in {rel}: {message}.", line))
    return problems
