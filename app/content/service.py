"""The loaded course, kept per process and reloadable without a restart."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request

from app.config import get_settings
from app.content.loader import Course, Exercise, Lesson, load_course
from app.web import heap

_lock = threading.Lock()


def load_from_settings() -> Course:
    """Load the course from the folders the settings name."""
    settings = get_settings()
    course = load_course(settings.lessons_dir, settings.exercises_dir)
    course.root = settings.content_dir  # its slug: the registry's, or main's at start-up
    return course


def reload_course(*, request_app: object) -> Course:
    """Re-read content from disk and swap it in atomically."""
    course = load_from_settings()
    with _lock:
        course.slug = getattr(getattr(request_app, "state", None), "course", course).slug
        request_app.state.course = course  # type: ignore[attr-defined]
    heap.set_aside_again()
    return course


async def get_course(request: Request) -> Course:
    """FastAPI dependency: the course loaded at start-up (async: no trip to a thread).

    Under /courses/{course}/ it is that course's content (app/courses/prefix.py).
    """
    slug = request.scope.get("course")
    if slug is not None:  # the registry, wired by the app (it sits above content)
        lookup: Callable[[Request, str], Course] = request.app.state.course_lookup
        return lookup(request, slug)
    course: Course = request.app.state.course
    return course


CourseDep = Annotated[Course, Depends(get_course)]


def visible_lessons(*, course: Course, include_drafts: bool) -> list[Lesson]:
    """Lessons in course order; drafts only for instructors."""
    return [les for les in course.lessons if include_drafts or not les.meta.draft]


def visible_exercises(*, course: Course, include_drafts: bool) -> list[Exercise]:
    """Exercises in course order; drafts only for instructors."""
    return [ex for ex in course.exercises if include_drafts or not ex.meta.draft]
