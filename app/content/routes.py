"""Course pages and the read-only content API; thin: lookups and templates only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import PlainTextResponse
from starlette.responses import Response

from app.content.loader import Course
from app.content.render import pygments_css
from app.content.service import CourseDep, visible_exercises, visible_lessons
from app.users.deps import OptionalUser
from app.users.models import Role, User
from app.web.templating import render

router = APIRouter()
FRAMEWORK_LABELS = {"numpy": "NumPy", "torch": "PyTorch", "jax": "JAX / Flax"}


def _is_instructor(user: User | None) -> bool:
    return user is not None and user.role == Role.instructor


def _neighbours(items: list[Any], index: int) -> tuple[Any, Any]:
    prev = items[index - 1] if index > 0 else None
    nxt = items[index + 1] if index + 1 < len(items) else None
    return prev, nxt


@router.get("/", include_in_schema=False)
def home(request: Request, course: CourseDep, user: OptionalUser) -> Response:
    """Course outline: lessons and exercises in order."""
    drafts = _is_instructor(user)
    return render(
        request,
        "home.html",
        user=user,
        lessons=visible_lessons(course=course, include_drafts=drafts),
        exercises=visible_exercises(course=course, include_drafts=drafts),
        problems=course.problems if drafts else [],
    )


@router.get("/lessons/{slug}", include_in_schema=False)
def lesson_page(slug: str, request: Request, course: CourseDep, user: OptionalUser) -> Response:
    """One lesson, rendered."""
    lessons = visible_lessons(course=course, include_drafts=_is_instructor(user))
    index = next((i for i, les in enumerate(lessons) if les.meta.slug == slug), None)
    if index is None:
        raise HTTPException(404, f"There is no lesson called '{slug}'.")
    prev, nxt = _neighbours(lessons, index)
    practice = [ex for ex in course.exercises if ex.meta.lesson == slug and not ex.meta.draft]
    return render(
        request,
        "lesson.html",
        user=user,
        lesson=lessons[index],
        prev=prev,
        next=nxt,
        practice=practice,
    )


@router.get("/exercises/{slug}", include_in_schema=False)
def exercise_page(
    slug: str,
    request: Request,
    course: CourseDep,
    user: OptionalUser,
    framework: str | None = None,
) -> Response:
    """One exercise: statement and starter code for the chosen framework."""
    exercise = _find_exercise(course, slug, user)
    chosen = framework or exercise.meta.default_framework
    if chosen not in exercise.meta.frameworks:
        offered = ", ".join(exercise.meta.frameworks)
        raise HTTPException(404, f"This exercise is not offered in '{chosen}'; try: {offered}.")
    return render(
        request,
        "exercise.html",
        user=user,
        exercise=exercise,
        framework=chosen,
        starter=exercise.starters[chosen],
        labels=FRAMEWORK_LABELS,
    )


def _find_exercise(course: Course, slug: str, user: User | None) -> Any:
    exercise = course.exercise(slug)
    if exercise is None or (exercise.meta.draft and not _is_instructor(user)):
        raise HTTPException(404, f"There is no exercise called '{slug}'.")
    return exercise


@router.get("/styles/code.css", include_in_schema=False)
def code_css() -> Response:
    """Pygments colours for highlighted code."""
    return PlainTextResponse(
        pygments_css(), media_type="text/css", headers={"cache-control": "public, max-age=86400"}
    )


@router.get("/healthz", tags=["meta"])
def healthz() -> dict[str, str]:
    """Liveness probe used by scripts and compose health checks."""
    return {"status": "ok"}


@router.get("/api/lessons", tags=["content"])
def api_lessons(course: CourseDep, user: OptionalUser) -> list[dict[str, Any]]:
    """Lessons in course order."""
    return [
        {
            "slug": les.meta.slug,
            "title": les.meta.title,
            "url": f"/lessons/{les.meta.slug}",
            "order": les.meta.order,
            "summary": les.meta.summary,
            "quiz_questions": len(les.meta.quiz),
            "draft": les.meta.draft,
        }
        for les in visible_lessons(course=course, include_drafts=_is_instructor(user))
    ]


@router.get("/api/exercises", tags=["content"])
def api_exercises(course: CourseDep, user: OptionalUser) -> list[dict[str, Any]]:
    """Exercises in course order with the frameworks each offers."""
    return [
        {
            "slug": ex.meta.slug,
            "title": ex.meta.title,
            "frameworks": list(ex.meta.frameworks),
            "default_framework": ex.meta.default_framework,
            "url": f"/exercises/{ex.meta.slug}",
            "order": ex.meta.order,
            "summary": ex.meta.summary,
            "lesson": ex.meta.lesson,
            "entry": ex.meta.entry.name,
            "draft": ex.meta.draft,
        }
        for ex in visible_exercises(course=course, include_drafts=_is_instructor(user))
    ]
