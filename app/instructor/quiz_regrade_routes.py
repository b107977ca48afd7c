"""Regrade a quiz after its answer key changed: a JSON API and the quiz page's button."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.content.loader import Course
from app.content.service import CourseDep
from app.instructor.quiz_regrade import regrade_quiz
from app.offerings.access import InstructorUser
from app.offerings.place import PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


def _has_quiz(course: Course, slug: str) -> None:
    lesson = course.lesson(slug)
    if lesson is None or not lesson.meta.quiz:
        raise HTTPException(404, f"There is no quiz in a lesson called '{slug}'.")


@router.post("/api/lessons/{slug}/quiz/regrade", responses=errors(401, 403, 404, 422))
def regrade_quiz_api(
    slug: str, session: SessionDep, course: CourseDep, user: InstructorUser, place: PlaceDep
) -> dict[str, Any]:
    """Score every stored attempt at this quiz in this offering against the current answer
    key, at once (no sandbox is involved). Changed scores reach the gradebook and the LMS;
    handed-in exam attempts holding its questions are regraded too, their scores shown and
    sent at the exam's release as before. Returns counts: `attempts`, `changed`,
    `exam_attempts`, `exam_changed`."""
    _has_quiz(course, slug)
    return regrade_quiz(session=session, course=course, lesson_slug=slug, place=place).as_json()


@router.post("/instructor/quizzes/{slug}/regrade", include_in_schema=False)
def regrade_quiz_form(
    slug: str, session: SessionDep, course: CourseDep, user: InstructorUser, place: PlaceDep
) -> Response:
    """The quiz page's button: regrade, then show the page with what changed."""
    _has_quiz(course, slug)
    done = regrade_quiz(session=session, course=course, lesson_slug=slug, place=place)
    query = f"regraded={done.attempts}&changed={done.changed}&exam={done.exam_changed}"
    return RedirectResponse(f"{place.prefix}/instructor/quizzes/{slug}?{query}", status_code=303)
