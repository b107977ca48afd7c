"""Content checks behind `python -m app validate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.assessments.loader import load_assessments
from app.authoring.grading_check import Progress, grading_problems
from app.authoring.validate_cache import PassedChecks
from app.config import get_settings
from app.content.loader import Course, Problem, split_front_matter
from app.content.plot_blocks import draw_problems
from app.content.render import plot_fences
from app.content.service import load_from_settings
from app.courses.service import process_registry
from app.grading.service import mistakes_cache_dir, pool_settings
from app.quiz.grading import check_examples


def _course(slug: str | None) -> tuple[Course, Path, Path]:
    """The course to check (`slug`: one the site serves; None: the first), its folder and its
    exercises' folder, as the site serves them."""
    settings = get_settings()
    if slug is None:
        return load_from_settings(), settings.content_dir, settings.exercises_dir
    registry = process_registry()
    source, course = registry.source(slug), registry.content(slug)
    if source is None or course is None:
        known = ", ".join(registry.slugs())
        raise ValueError(f"unknown course '{slug}' (courses: {known})")
    return course, source.folder, source.exercises_dir


def validate_course(
    *,
    grade: bool = True,
    progress: Progress | None = None,
    regrade: bool = False,
    course_slug: str | None = None,
) -> dict[str, Any]:
    """Load and render everything, check quizzes, grade exercises; report counts and problems.

    `course_slug` names a course the site serves (default: the first); its assessments are
    read from its own folder, as the site reads them. Checks that passed before with the same
    files and grader are not graded again (see app/authoring/validate_cache.py) unless `regrade`.
    """
    course, root, exercises_dir = _course(course_slug)
    problems = list(course.problems)
    for lesson in course.lessons:
        for question in lesson.meta.quiz:
            path = str(lesson.path.relative_to(lesson.path.parent.parent))
            problems.extend(Problem(path, message) for message in check_examples(question))
    problems.extend(plot_drawing_problems(course))
    assessments = load_assessments(root, course)
    problems.extend(assessments.problems)
    if grade:
        settings = get_settings()
        problems.extend(
            grading_problems(
                course,
                exercises_dir=exercises_dir,
                pool=pool_settings(warm=True),
                progress=progress,
                passed=None if regrade else PassedChecks(settings.validate_cache_path),
                mistakes_cache_dir=mistakes_cache_dir(),
            )
        )
    return {
        "lessons": len(course.lessons),
        "quiz_questions": sum(len(les.meta.quiz) for les in course.lessons),
        "exercises": len(course.exercises),
        "misconceptions": sum(len(ex.mistakes) for ex in course.exercises),
        "assessments": len(assessments.by_slug),
        "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in problems],
    }


def plot_drawing_problems(course: Course) -> list[Problem]:
    """Draw every well-formed plot once; the loader already reported blocks that do not parse."""
    sources: list[tuple[str, str, int]] = []
    for lesson in course.lessons:
        front, body = split_front_matter(lesson.path.read_text(encoding="utf-8"))
        rel = str(lesson.path.relative_to(lesson.path.parent.parent))
        sources.append((rel, body, front.count("\n") + 2))
    for exercise in course.exercises:
        statement = exercise.path / "statement.md"
        rel = str(statement.relative_to(exercise.path.parent.parent))
        sources.append((rel, statement.read_text(encoding="utf-8"), 0))
    return [
        Problem(rel, message, line + offset)
        for rel, text, offset in sources
        for line, message in draw_problems(plot_fences(text))
    ]
