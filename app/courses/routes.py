"""The course list, each course's lessons and exercises, and the refresh every caller shares."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from sqlalchemy.orm import Session

from app.content.loader import Course, Exercise, Lesson, Problem
from app.content.service import visible_exercises, visible_lessons
from app.courses import store
from app.courses.registry import CourseEntry, RefreshResult, Registry
from app.courses.service import course_or_404, request_registry
from app.offerings.standing import staff_of_course
from app.users.deps import OptionalUser
from app.users.models import User
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter()


def _drafts(session: Session, user: User | None, course: str) -> bool:
    """Drafts, versions and problems are for the course's staff (no global role)."""
    return staff_of_course(session=session, user=user, course_slug=course)


def base_url(registry: Registry, slug: str) -> str:
    """Where a course's pages start: the first course keeps the site's root."""
    return "" if slug == registry.first_slug else f"/courses/{slug}"


def lesson_item(les: Lesson, base: str) -> dict[str, Any]:
    """One lesson in the shape of GET /api/lessons."""
    return {
        "slug": les.meta.slug,
        "title": les.meta.title,
        "url": f"{base}/lessons/{les.meta.slug}",
        "order": les.meta.order,
        "summary": les.meta.summary,
        "quiz_questions": len(les.meta.quiz),
        "draft": les.meta.draft,
    }


def exercise_item(ex: Exercise, base: str) -> dict[str, Any]:
    """One exercise in the shape of GET /api/exercises."""
    return {
        "slug": ex.meta.slug,
        "title": ex.meta.title,
        "frameworks": list(ex.meta.frameworks),
        "default_framework": ex.meta.default_framework,
        "url": f"{base}/exercises/{ex.meta.slug}",
        "order": ex.meta.order,
        "summary": ex.meta.summary,
        "lesson": ex.meta.lesson,
        "entry": ex.meta.entry.name,
        "kind": ex.meta.entry.kind,
        "draft": ex.meta.draft,
    }


def problems_json(problems: list[Problem]) -> list[dict[str, Any]]:
    """Problems in the JSON shape the course list and a refresh answer share."""
    return [{"path": p.path, "line": p.line, "message": p.message} for p in problems]


def course_item(registry: Registry, entry: CourseEntry, *, instructor: bool) -> dict[str, Any]:
    """One course in the shape of GET /api/courses (versions and problems for instructors)."""
    content = entry.content or Course()
    base = base_url(registry, entry.slug)
    item: dict[str, Any] = {
        "slug": entry.slug,
        "title": entry.source.meta.title,
        "summary": entry.source.meta.summary,
        "authors": list(entry.source.meta.authors),
        "url": base or "/",
        "lessons": len(visible_lessons(course=content, include_drafts=instructor)),
        "exercises": len(visible_exercises(course=content, include_drafts=instructor)),
        "version": entry.version,
    }
    if instructor:
        item["folder"] = str(entry.source.folder)
        item["problems"] = problems_json(content.problems)
        item["refused"] = (
            {"version": entry.refused.version, "problems": problems_json(entry.refused.problems)}
            if entry.refused
            else None
        )
    return item


@router.get("/api/courses", tags=["courses"], responses=errors())
def api_courses(request: Request, session: SessionDep, user: OptionalUser) -> list[dict[str, Any]]:
    """Every course this site serves, the first course first."""
    registry = request_registry(request)
    return [
        course_item(registry, e, instructor=_drafts(session, user, e.slug))
        for e in registry.entries()
    ]


@router.get("/api/courses/{course}/lessons", tags=["courses"], responses=errors(404, 422))
def api_course_lessons(
    course: str, request: Request, session: SessionDep, user: OptionalUser
) -> list[dict[str, Any]]:
    """A course's lessons in order (the shape of GET /api/lessons)."""
    content = course_or_404(request, course)
    base = base_url(request_registry(request), course)
    lessons = visible_lessons(course=content, include_drafts=_drafts(session, user, course))
    return [lesson_item(les, base) for les in lessons]


@router.get("/api/courses/{course}/exercises", tags=["courses"], responses=errors(404, 422))
def api_course_exercises(
    course: str, request: Request, session: SessionDep, user: OptionalUser
) -> list[dict[str, Any]]:
    """A course's exercises in order (the shape of GET /api/exercises)."""
    content = course_or_404(request, course)
    base = base_url(request_registry(request), course)
    exercises = visible_exercises(course=content, include_drafts=_drafts(session, user, course))
    return [exercise_item(ex, base) for ex in exercises]


def refresh_here(request: Request, session: Any, slug: str) -> RefreshResult:
    """Refresh in this process now, and ask every other process to do the same."""
    registry = request_registry(request)
    if registry.source(slug) is None:
        raise HTTPException(404, f"There is no course called '{slug}'.")
    at = store.request_refresh(session, slug=slug)
    watcher = getattr(request.app.state, "course_watcher", None)
    if watcher is not None:
        watcher.seen(slug, at)  # this process applies it now, not again on its next look
    return registry.refresh(slug)
