"""Course pages and the read-only content API; thin: lookups and templates only."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.config import get_settings
from app.content.lab_lessons import lesson_labs
from app.content.loader import Exercise, Lesson
from app.content.plots import PlotError, UnknownPlot, etag_matches, render_plot
from app.content.render import pygments_css
from app.content.service import CourseDep, visible_exercises, visible_lessons
from app.courses.first import course_slug_of
from app.courses.routes import base_url
from app.courses.service import request_registry
from app.deadlines.term import ItemDue
from app.models_base import utcnow
from app.offerings.routes import my_offerings
from app.offerings.standing import staff_of_course
from app.progress.service import open_lesson
from app.progress.summary import CourseProgress, course_progress
from app.quiz.service import quiz_held
from app.quiz.views import quiz_view
from app.site.exercise_pages import exercise_response
from app.site.health import UNAVAILABLE, HealthOut, health
from app.site.notes import WORDS as NOTE_WORDS
from app.site.notes import staff_notes
from app.site.term_view import due_next, my_term
from app.users.deps import OptionalUser
from app.users.models import User
from app.web.api import errors
from app.web.on_loop import db_page, run_db
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter()
FRAMEWORK_LABELS = {"numpy": "NumPy", "torch": "PyTorch", "jax": "JAX / Flax"}
# Opened on its own (the plot form does that without JavaScript) an SVG is a document, and
# matplotlib styles it with style attributes that the site-wide policy would block. This
# policy allows those styles and nothing else: no script, no fetch, no frame, sandboxed.
NOTES_FOR = dt.timedelta(days=30)  # how long what staff wrote stays on the home page
PLOT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"


def _teaches(request: Request, session: Session, user: User | None) -> bool:
    """Staff of an offering of this page's course, or a site administrator (no global role)."""
    here = course_slug_of(request.scope.get("course"))
    return staff_of_course(session=session, user=user, course_slug=here)


def _sees_drafts(request: Request, session: Session, user: User | None, items: list[Any]) -> bool:
    """Draft items are for the course's staff; no query when the course has none."""
    if user is None or not any(item.meta.draft for item in items):
        return False
    return _teaches(request, session, user)


async def _sees_drafts_async(
    request: Request, session: Session, user: User | None, items: list[Any]
) -> bool:
    """The same, where `run_db` says when it has to ask the database."""
    if user is None or not any(item.meta.draft for item in items):
        return False
    return await run_db(_teaches, request, session, user)


def _neighbours(items: list[Any], index: int) -> tuple[Any, Any]:
    prev = items[index - 1] if index > 0 else None
    nxt = items[index + 1] if index + 1 < len(items) else None
    return prev, nxt


@router.get("/", include_in_schema=False)
@db_page
def home(request: Request, course: CourseDep, user: OptionalUser, session: SessionDep) -> Response:
    """Course outline: lessons and exercises in order, with the student's progress."""
    offerings = my_offerings(session=session, user=user)
    here = course_slug_of(request.scope.get("course"))
    drafts = user is not None and (
        user.is_admin
        or any(o["course"] == here and o["role"] in ("instructor", "ta") for o in offerings)
    )
    lessons = visible_lessons(course=course, include_drafts=drafts)
    exercises = visible_exercises(course=course, include_drafts=drafts)
    progress = (
        course_progress(
            session=session,
            user_id=user.id,
            course_slug=here,
            lessons=lessons,
            exercises=exercises,
        )
        if user is not None
        else None
    )
    return render(
        request,
        "home.html",
        user=user,
        lessons=lessons,
        exercises=exercises,
        progress=progress,
        problems=course.problems if drafts else [],
        my_offerings=offerings,
        teaches=drafts,
        **_term_of_home(request, session, user, lessons, exercises, progress),
    )


def _term_of_home(
    request: Request,
    session: Session,
    user: User | None,
    lessons: list[Lesson],
    exercises: list[Exercise],
    progress: CourseProgress | None,
) -> dict[str, Any]:
    """The home page's "due next" list and what staff wrote lately (signed in only)."""
    term = my_term(request, session=session, user=user)
    if user is None or term is None:
        return {"due_next": [], "notes": [], "note_words": NOTE_WORDS}
    now, registry = utcnow(), request_registry(request)
    return {
        "note_words": NOTE_WORDS,
        "due_next": due_next(
            term=term, lessons=lessons, exercises=exercises, progress=progress, now=now
        ),
        "notes": [
            (note, base_url(registry, note.course) + note.path())
            for note in staff_notes(session=session, user_id=user.id, since=now - NOTES_FOR)
        ],
    }


@router.get("/lessons/{slug}", include_in_schema=False)
@db_page
def lesson_page(
    slug: str,
    request: Request,
    course: CourseDep,
    user: OptionalUser,
    session: SessionDep,
    retake: bool = False,
) -> Response:
    """One lesson, rendered, with its quiz (or your latest attempt at it)."""
    drafts = _sees_drafts(request, session, user, course.lessons)
    lessons = visible_lessons(course=course, include_drafts=drafts)
    index = next((i for i, les in enumerate(lessons) if les.meta.slug == slug), None)
    if index is None:
        raise HTTPException(404, f"There is no lesson called '{slug}'.")
    prev, nxt = _neighbours(lessons, index)
    practice = [ex for ex in course.exercises if ex.meta.lesson == slug and not ex.meta.draft]
    here = course_slug_of(request.scope.get("course"))
    attempts = (
        open_lesson(
            session=session, user_id=user.id, lesson_slug=slug, course_slug=here
        ).quiz_attempts
        if user is not None
        else None
    )
    return render(
        request,
        "lesson.html",
        user=user,
        lesson=lessons[index],
        prev=prev,
        next=nxt,
        practice=practice,
        labs=lesson_labs(
            course=course,
            lesson=lessons[index],
            cache_dir=get_settings().experiments_cache_path,
        ),
        quiz=quiz_view(
            session=session,
            lesson=lessons[index],
            user=user,
            retake=retake,
            attempts=attempts,
            course_slug=here,
        ),
        quiz_due=_quiz_due(request, session, user, lessons[index]),
        quiz_held=_quiz_held(session, user, lessons[index], here),
    )


def _quiz_held(session: Session, user: User | None, lesson: Lesson, here: str) -> str | None:
    """Why the quiz is closed to this student now (an exam holds a question): the page shows
    this instead of the form and past results (a lesson without a quiz costs no query)."""
    if user is None or not lesson.meta.quiz:
        return None
    return quiz_held(
        session=session,
        user_id=user.id,
        course_slug=here,
        lesson_slug=lesson.meta.slug,
        ids=[question.id for question in lesson.meta.quiz],
    )


def _quiz_due(request: Request, session: Session, user: User | None, lesson: Lesson) -> ItemDue:
    """The quiz's date for this student (a lesson without a quiz costs no query)."""
    term = my_term(request, session=session, user=user) if lesson.meta.quiz else None
    if term is None:
        return ItemDue(lesson.meta.due if lesson.meta.quiz else None)
    return term.item("quiz", lesson.meta.slug, lesson.meta.due)


@router.get("/exercises/{slug}", include_in_schema=False)
@db_page
def exercise_page(
    slug: str,
    request: Request,
    course: CourseDep,
    user: OptionalUser,
    session: SessionDep,
    framework: str | None = None,
    from_submission: Annotated[int | None, Query(alias="from")] = None,
) -> Response:
    """One exercise: statement, framework tabs, and the editor with your draft or the starter."""
    return exercise_response(
        request,
        course=course,
        session=session,
        user=user,
        slug=slug,
        framework=framework,
        from_submission=from_submission,
    )


@router.get("/styles/code.css", include_in_schema=False)
def code_css() -> Response:
    """Pygments colours for highlighted code."""
    return PlainTextResponse(
        pygments_css(), media_type="text/css", headers={"cache-control": "public, max-age=86400"}
    )


@router.get(
    "/plots/{name}.svg",
    tags=["content"],
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, **errors(304, 404, 422)},
)
def plot_svg(name: str, request: Request) -> Response:
    """A lesson plot as SVG; parameters go in the query, e.g. `?max_len=64&d_model=128`."""
    raw: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key in raw:
            return JSONResponse({"detail": f"{key} is given more than once."}, status_code=422)
        raw[key] = value
    try:
        plot = render_plot(name, raw)
    except UnknownPlot as exc:
        return JSONResponse({"detail": str(exc)}, status_code=404)
    except PlotError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    headers = {
        "etag": plot.etag,
        "cache-control": "public, max-age=86400",
        "content-security-policy": PLOT_CSP,
    }
    if etag_matches(request.headers.get("if-none-match"), plot.etag):
        return Response(status_code=304, headers=headers)
    return Response(plot.svg, media_type="image/svg+xml", headers=headers)


@router.get(
    "/healthz",
    tags=["meta"],
    response_model=HealthOut,
    responses={503: {"model": HealthOut, "description": "The database, queue or disk is away."}},
)
async def healthz() -> JSONResponse:
    """Each dependency's state: 200 while the process can serve (even when grading cannot),
    503 while the database, the queue or the disk is away (app/site/health.py).

    Async, with threads of its own: it answers while every request thread is busy.
    """
    found = await anyio.to_thread.run_sync(health, limiter=_health_threads())
    code = 503 if found["status"] == UNAVAILABLE else 200
    return JSONResponse(found, status_code=code, headers={"cache-control": "no-store"})


_HEALTH_THREADS: RunVar[anyio.CapacityLimiter] = RunVar("health_threads")


def _health_threads() -> anyio.CapacityLimiter:
    """Two threads of the event loop's own for health checks."""
    try:
        return _HEALTH_THREADS.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(2)
        _HEALTH_THREADS.set(limiter)
        return limiter


@router.get("/api/lessons", tags=["content"], responses=errors())
async def api_lessons(
    request: Request, course: CourseDep, user: OptionalUser, session: SessionDep
) -> list[dict[str, Any]]:
    """Lessons in course order (async: only the loaded content, as `api_exercises`)."""
    drafts = await _sees_drafts_async(request, session, user, course.lessons)
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
        for les in visible_lessons(course=course, include_drafts=drafts)
    ]


@router.get("/api/exercises", tags=["content"], responses=errors())
async def api_exercises(
    request: Request, course: CourseDep, user: OptionalUser, session: SessionDep
) -> list[dict[str, Any]]:
    """Exercises in course order with the frameworks each offers; signed in, each also has
    its `due` date in your offering (extension applied) and the `late_policy` in words.

    Async: for a visitor it reads only the loaded content, so it needs no trip to a request
    thread (a fifth of a class's first pages, issue 23); a student's dates take one trip.
    """
    drafts = await _sees_drafts_async(request, session, user, course.exercises)
    listed = visible_exercises(course=course, include_drafts=drafts)
    items = _exercise_items(listed)
    if user is None:
        return items
    term = await run_db(my_term, request, session=session, user=user)
    if term is not None:
        for item, ex in zip(items, listed, strict=True):
            item |= term.item("exercise", ex.meta.slug, ex.meta.due).as_json()
    return items


def _exercise_items(listed: list[Exercise]) -> list[dict[str, Any]]:
    """The content part of each exercise's entry."""
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
            "kind": ex.meta.entry.kind,
            "draft": ex.meta.draft,
        }
        for ex in listed
    ]
