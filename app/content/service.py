"""The loaded course, kept per process and reloadable without a restart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request

from app.config import get_settings
from app.content.loader import Course, Exercise, Lesson, load_course


def load_from_settings() -> Course:
    """Load the course from the folders the settings name."""
    settings = get_settings()
    course = load_course(settings.lessons_dir, settings.exercises_dir)
    course.root = settings.content_dir  # its slug and version: the registry's
    return course


async def get_course(request: Request) -> Course:
    """FastAPI dependency: the request's course, from the app's course registry.

    Under /courses/{course}/ it is that course (app/courses/prefix.py), else the first course;
    the registry is wired by the app (it sits above content): `courses.service.course_or_404`.
    """
    lookup: Callable[[Request, str | None], Course] = request.app.state.course_lookup
    return lookup(request, request.scope.get("course"))


CourseDep = Annotated[Course, Depends(get_course)]


def visible_lessons(*, course: Course, include_drafts: bool) -> list[Lesson]:
    """Lessons in course order; drafts only for instructors."""
    return [les for les in course.lessons if include_drafts or not les.meta.draft]


def visible_exercises(*, course: Course, include_drafts: bool) -> list[Exercise]:
    """Exercises in course order; drafts only for instructors."""
    return [ex for ex in course.exercises if include_drafts or not ex.meta.draft]
