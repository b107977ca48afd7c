"""The exercise page's editor, and the form path that works without JavaScript."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.config import get_settings
from app.content.lab_figure import figure_for, table_for
from app.content.lab_positions import positions_for
from app.content.loader import Course, Exercise, Lesson
from app.content.service import CourseDep
from app.courses.first import course_slug_of
from app.deadlines.term import ItemDue
from app.hooks import practice_closed
from app.jobs.deps import QueueDep
from app.models_base import utcnow
from app.offerings.place import PlaceDep
from app.offerings.standing import staff_of_course, staff_of_work
from app.progress.hint_routes import hint_state
from app.site.term_view import my_term
from app.submissions import drafts, intake, views
from app.submissions.models import PRACTICE
from app.submissions.presenter import Viewer, override_json, present
from app.submissions.service import (
    SubmissionError,
    held_from,
    hidden_tests_open,
    visible_submission,
)
from app.submissions.standing import standing_of
from app.users.deps import OptionalUser
from app.users.models import User
from app.web.api import RowId
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)
FormStr = Annotated[str, Form()]
PENDING_REFRESH_SECONDS = 1
NOT_LOGGED_IN = (
    "You are not logged in, or your session has ended, so this code was not run. "
    "Copy it somewhere safe, then log in and send it again."
)


def _exercise(
    request: Request, session: Session, course: Course, slug: str, user: User | None
) -> Exercise:
    """The exercise; a draft only for staff of this course (no query for a published one)."""
    found = course.exercise(slug)
    here = course_slug_of(request.scope.get("course"))
    if found is None or (
        found.meta.draft and not staff_of_course(session=session, user=user, course_slug=here)
    ):
        raise HTTPException(404, f"There is no exercise called '{slug}'.")
    return found


def _framework(exercise: Exercise, framework: str | None) -> str:
    chosen = framework or exercise.meta.default_framework
    if chosen not in exercise.meta.frameworks:
        offered = ", ".join(exercise.meta.frameworks)
        raise HTTPException(404, f"This exercise is not offered in '{chosen}'; try: {offered}.")
    return chosen


def _lesson_of(course: Course, exercise: Exercise) -> Lesson | None:
    """The lesson this exercise practises, if it names one that exists and is published."""
    lesson = course.lesson(exercise.meta.lesson) if exercise.meta.lesson else None
    return lesson if lesson is not None and not lesson.meta.draft else None


def login_url(slug: str, framework: str) -> str:
    """The login page, coming back to this exercise in this framework."""
    return "/login?next=" + quote(f"/exercises/{slug}?framework={framework}", safe="/")


def exercise_response(
    request: Request,
    *,
    course: Course,
    session: Session,
    user: User | None,
    slug: str,
    framework: str | None,
    from_submission: int | None = None,
    code: str | None = None,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    """The exercise page: statement, framework tabs, and the editor form with its code."""
    exercise = _exercise(request, session, course, slug, user)
    chosen = _framework(exercise, framework)
    here = course_slug_of(request.scope.get("course"))
    editor = drafts.editor_state(
        session=session,
        user=user,
        course_slug=here,
        exercise=exercise,
        framework=chosen,
        from_submission=from_submission,
    )
    response = render(
        request,
        "exercise.html",
        status_code=status_code,
        user=user,
        exercise=exercise,
        framework=chosen,
        starter=exercise.starters[chosen],
        labels=views.FRAMEWORK_LABELS,
        editor=editor,
        code=editor.code if code is None else code,
        error=error,
        login_url=login_url(exercise.meta.slug, chosen),
        lab_figure=_lab_figure(exercise),
        lab_table=_lab_table(exercise),
        lab_positions=_lab_positions(exercise),
        lesson=_lesson_of(course, exercise),
        hints=hint_state(session=session, user=user, course_slug=here, exercise=exercise),
        due=_due(request, session=session, user=user, exercise=exercise),
        held=None
        if user is None
        else practice_closed(
            session=session,
            user_id=user.id,
            course_slug=here,
            keys=[f"x:{exercise.meta.slug}"],
            now=utcnow(),
        ),
    )
    response.headers["cache-control"] = "no-store"  # the draft in it is private and changes
    return response


def _due(
    request: Request, *, session: Session, user: User | None, exercise: Exercise
) -> ItemDue | None:
    """The exercise's date for this student, with any extension and the late policy."""
    term = my_term(request, session=session, user=user)
    if term is None:
        return ItemDue(exercise.meta.due)
    return term.item("exercise", exercise.meta.slug, exercise.meta.due)


def _lab_figure(exercise: Exercise) -> str | None:
    """An experiment's reference runs as an SVG, from the cache only (never trains here)."""
    if exercise.meta.entry.kind != "experiment":
        return None
    return figure_for(exercise.path, get_settings().experiments_cache_path)


def _lab_table(exercise: Exercise) -> str | None:
    """The reference runs' numbers, the text equivalent of the figure."""
    if exercise.meta.entry.kind != "experiment":
        return None
    return table_for(exercise.path, get_settings().experiments_cache_path)


def _lab_positions(exercise: Exercise) -> tuple[str, str] | None:
    """The reference runs by position (figure, table), over the seeds; from the cache only."""
    if exercise.meta.entry.kind != "experiment":
        return None
    return positions_for(exercise.path, get_settings().experiments_cache_path)


@router.post("/exercises/{slug}/submit")
def submit_form(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    place: PlaceDep,
    user: OptionalUser,
    queue: QueueDep,
    code: FormStr = "",
    framework: FormStr = "",
    mode: FormStr = "submit",
    client_id: FormStr = "",
) -> Response:
    """The editor form without JavaScript: store the attempt, then show its result page."""
    exercise = _exercise(request, session, course, slug, user)
    chosen = framework or exercise.meta.default_framework

    def again(error: str, status_code: int) -> Response:
        """The same page, with the student's code kept and the problem said above it."""
        return exercise_response(
            request,
            course=course,
            session=session,
            user=user,
            slug=slug,
            framework=chosen,
            code=code,
            error=error,
            status_code=status_code,
        )

    if user is None:
        return again(NOT_LOGGED_IN, 401)
    try:
        accepted = intake.accept(
            request=request,
            session=session,
            course=course,
            user=user,
            exercise=exercise.meta.slug,
            code=code,
            framework=chosen,
            mode=mode,
            key=client_id,
            place=place,
        )
    except SubmissionError as exc:
        if exc.status == 422 and chosen not in exercise.meta.frameworks:
            raise HTTPException(422, exc.message) from exc
        return again(exc.message, exc.status)
    row = accepted.row
    if not accepted.repeated:
        queue.enqueue(row.id)
        drafts.save_draft(
            session=session,
            user_id=user.id,
            course_slug=course_slug_of(request.scope.get("course")),  # as the page reads it
            exercise=slug,
            framework=row.framework,
            code=code,
        )
    return RedirectResponse(f"/exercises/{slug}/results/{row.id}", status_code=303)


@router.get("/exercises/{slug}/results/{submission_id}")
def result_page(
    slug: str,
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: OptionalUser,
) -> Response:
    """One attempt's verdict; reloads itself every second while it is still being graded."""
    if user is None:
        target = quote(f"/exercises/{slug}/results/{submission_id}", safe="/")
        return RedirectResponse(f"/login?next={target}", status_code=303)
    exercise = _exercise(request, session, course, slug, user)
    row = visible_submission(session=session, user=user, submission_id=submission_id)
    here = course_slug_of(request.scope.get("course"))
    if row is None or row.exercise_slug != exercise.meta.slug or row.course_slug != here:
        raise HTTPException(404, "There is no submission with that id for this exercise.")
    held = held_from(session=session, user=user, row=row, now=utcnow())
    if held:  # an exam's answer before the exam releases its results
        raise HTTPException(403, held)
    instructor = staff_of_work(
        session=session, user=user, offering_id=row.offering_id, course_slug=row.course_slug
    )
    hidden_open = not instructor and hidden_tests_open(
        session=session, course=course, user=user, row=row, now=utcnow()
    )
    report = present(row, viewer=Viewer(staff=instructor, hidden_open=hidden_open))
    standing = standing_of(
        session=session,
        row=row,
        content_due=exercise.meta.due,
        rubric=exercise.meta.rubric,
        lab=exercise.meta.entry.kind == "experiment",
    )
    response = render(
        request,
        "exercise/result.html",
        user=user,
        exercise=exercise,
        row=row,
        pending=row.status != "done",
        refresh=PENDING_REFRESH_SECONDS,
        verdict=report.label,
        framework_label=views.FRAMEWORK_LABELS.get(row.framework, row.framework),
        tests=report.tests,
        passed=report.passed,
        stdout=report.stdout,
        stdout_truncated=report.stdout_truncated,
        editor_url=f"/exercises/{slug}?framework={row.framework}",
        standing=standing,
        can_ask=row.user_id == user.id
        and row.mode == "submit"
        and row.status == "done"
        and row.purpose == PRACTICE,
        override=override_json(row),
        code_lines=row.code.splitlines() or [""],
    )
    response.headers["cache-control"] = "no-store"
    return response
