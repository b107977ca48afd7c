"""Quiz submission: an HTML form post and a JSON API; thin, grading lives in service.py."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.content.loader import Course, Lesson
from app.content.service import CourseDep
from app.courses.first import course_slug_of
from app.courses.service import graded_in
from app.offerings.place import PlaceDep
from app.offerings.standing import staff_of_course
from app.progress.models import QuizAttempt
from app.progress.service import quiz_attempts
from app.quiz import service
from app.users.deps import CurrentUser, OptionalUser
from app.users.models import User
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["quiz"])
MAX_BODY_BYTES = 64 * 1024

ShortStr = Annotated[str, StringConstraints(max_length=service.MAX_ANSWER_CHARS)]
AnswerIn = ShortStr | int | float | Annotated[list[ShortStr], Field(max_length=service.MAX_PICKS)]


class QuizAnswersIn(BaseModel):
    """Body of POST /api/lessons/{slug}/quiz."""

    model_config = ConfigDict(extra="forbid")

    answers: dict[Annotated[str, StringConstraints(max_length=100)], AnswerIn] = Field(
        max_length=200,
        description=(
            "Question id → answer: an option id (single), a list of option ids (multiple), "
            "or the typed text (numeric, shape)."
        ),
    )


def _lesson(
    request: Request, session: Session, course: Course, slug: str, user: User | None
) -> Lesson:
    """The lesson with a quiz; a draft only for staff of this course (no query otherwise)."""
    lesson = course.lesson(slug)
    if lesson is not None and lesson.meta.draft:
        here = course_slug_of(request.scope.get("course"))
        if not staff_of_course(session=session, user=user, course_slug=here):
            lesson = None
    if lesson is None:
        raise HTTPException(404, f"There is no lesson called '{slug}'.")
    if not lesson.meta.quiz:
        raise HTTPException(404, f"The lesson '{slug}' has no quiz.")
    return lesson


async def _body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise HTTPException(
            413, f"The answers are too large (the limit is {MAX_BODY_BYTES} bytes)."
        )
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise HTTPException(
            413, f"The answers are too large (the limit is {MAX_BODY_BYTES} bytes)."
        )
    return body


async def _submit(**kwargs: Any) -> tuple[QuizAttempt, service.GradedQuiz]:
    """Grade and store off the event loop; a refused late attempt is a 409 saying why."""
    try:
        return await run_in_threadpool(service.submit_attempt, **kwargs)
    except service.QuizRefused as exc:
        raise HTTPException(409, str(exc)) from exc


@router.post("/lessons/{slug}/quiz", include_in_schema=False)
async def submit_form(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    place: PlaceDep,
    user: OptionalUser,
) -> Response:
    """Grade the posted form, store the attempt, and show it on the lesson page."""
    lesson = _lesson(request, session, course, slug, user)
    if user is None:
        return RedirectResponse(f"/login?next=/lessons/{slug}%23quiz", status_code=303)
    await _body(request)
    form = await request.form()
    answers = service.answers_from_form(lesson.meta.quiz, form)
    await _submit(
        session=session,
        lesson_slug=slug,
        questions=lesson.meta.quiz,
        answers=answers,
        user_id=user.id,
        graded_in=graded_in(request),
        due=lesson.meta.due,
        place=place,
    )
    return RedirectResponse(f"/lessons/{slug}#quiz", status_code=303)


def _parse(body: bytes) -> QuizAnswersIn:
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HTTPException(
            422, f'The request body is not valid JSON ({exc}); send {{"answers": {{...}}}}.'
        ) from exc
    try:
        return QuizAnswersIn.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
        )
        raise HTTPException(422, f"The answers could not be read: {problems}.") from exc


@router.post(
    "/api/lessons/{slug}/quiz",
    responses=errors(401, 403, 404, 409, 413, 422),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": QuizAnswersIn.model_json_schema()}},
        }
    },
)
async def submit_api(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    place: PlaceDep,
    user: CurrentUser,
) -> JSONResponse:
    """Grade a quiz attempt sent as JSON and store it; 401 without login."""
    lesson = _lesson(request, session, course, slug, user)
    body = _parse(await _body(request))
    attempt, graded = await _submit(
        session=session,
        lesson_slug=slug,
        questions=lesson.meta.quiz,
        answers=body.answers,
        user_id=user.id,
        graded_in=graded_in(request),
        due=lesson.meta.due,
        place=place,
    )
    return JSONResponse(
        {
            "attempt": attempt.id,
            "score": graded.score,
            "correct": graded.correct,
            "total": len(graded.questions),
            "results": [service.api_result(q) for q in graded.questions],
            "ignored": graded.ignored,
            "note": service.ignored_note(graded.ignored),
        }
    )


@router.get("/api/lessons/{slug}/quiz/attempts", responses=errors(401, 404, 409, 422))
def list_attempts(
    slug: str, request: Request, session: SessionDep, course: CourseDep, user: CurrentUser
) -> list[dict[str, Any]]:
    """Your own attempts at this quiz, newest first; 409 while an exam holds its questions."""
    lesson = _lesson(request, session, course, slug, user)
    here = graded_in(request)[0]
    held = service.quiz_held(
        session=session,
        user_id=user.id,
        course_slug=here,
        lesson_slug=slug,
        ids=[question.id for question in lesson.meta.quiz],
    )
    if held:
        raise HTTPException(409, held)
    rows = quiz_attempts(session=session, user_id=user.id, lesson_slug=slug, course_slug=here)
    return [service.api_attempt(row) for row in rows]
