"""Content checks behind `python -m app validate`."""

from __future__ import annotations

from typing import Any

from app.content.loader import Problem
from app.content.service import load_from_settings
from app.quiz.grading import check_examples


def validate_course() -> dict[str, Any]:
    """Load and render everything, check every quiz's examples; report counts and problems."""
    course = load_from_settings()
    problems = list(course.problems)
    for lesson in course.lessons:
        for question in lesson.meta.quiz:
            path = str(lesson.path.relative_to(lesson.path.parent.parent))
            problems.extend(Problem(path, message) for message in check_examples(question))
    return {
        "lessons": len(course.lessons),
        "quiz_questions": sum(len(les.meta.quiz) for les in course.lessons),
        "exercises": len(course.exercises),
        "misconceptions": sum(len(ex.mistakes) for ex in course.exercises),
        "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in problems],
    }
