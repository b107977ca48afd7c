"""Pages for looking back: an exercise's submission history, one submission, the solution."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.content.loader import Course, Exercise
from app.content.service import CourseDep
from app.courses.first import course_slug_of
from app.courses.service import content_of
from app.models_base import utcnow
from app.offerings.standing import staff_of_course, staff_of_work
from app.progress.summary import UNTOUCHED, ExerciseProgress, exercise_stats
from app.site.term_view import my_term
from app.submissions.attempts import (
    history_rows,
    own_submissions,
    solution_blocks,
    submission_view,
)
from app.submissions.locks import lock_reason
from app.submissions.models import Submission
from app.submissions.service import held_from, hidden_tests_open, visible_submission
from app.users.deps import OptionalUser
from app.users.models import User
from app.web.api import RowId
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)


def _login_redirect(request: Request) -> Response:
    """Visitors are sent to log in and brought back here afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target, safe='/')}", status_code=303)


def _teaches(request: Request, session: SessionDep, user: User) -> bool:
    """Staff of an offering of this page's course (or a site administrator): no global role."""
    slug = course_slug_of(request.scope.get("course"))
    return staff_of_course(session=session, user=user, course_slug=slug)


def _exercise(course: Course, slug: str, user: User, teaches: bool) -> Exercise:
    found = course.exercise(slug)
    if found is None or (found.meta.draft and not teaches):
        raise HTTPException(404, f"There is no exercise called '{slug}'.")
    return found


def solution_open(exercise: Exercise, standing: ExerciseProgress) -> bool:
    """Solved, or as many submit attempts as the exercise's `solution_unlock_attempts`."""
    after = exercise.meta.solution_unlock_attempts
    return standing.solved or (after is not None and standing.submitted >= after)


def _standing(request: Request, session: SessionDep, user: User, slug: str) -> ExerciseProgress:
    """The student's standing at this page's course's exercise (another course's exercise of
    the same slug is another exercise)."""
    here = course_slug_of(request.scope.get("course"))
    stats = exercise_stats(session=session, user_id=user.id, course_slug=here, slugs=[slug])
    return stats.get(slug, UNTOUCHED)


def _locked(request: Request, session: SessionDep, user: User, slug: str) -> str | None:
    return lock_reason(  # hooks.LOCKS: a running exam of this page's course closes the solutions
        session=session,
        user_id=user.id,
        course_slug=course_slug_of(request.scope.get("course")),
        exercise_slug=slug,
        what="solutions",
        now=utcnow(),
    )


def _counted_percent(
    request: Request, session: SessionDep, user: User, exercise: Exercise, rows: list[Submission]
) -> int | None:
    """The best score that counts (after a late penalty, as the gradebook and the LMS have it)."""
    term = my_term(request, session=session, user=user)
    if term is None:
        return None
    slug, due = exercise.meta.slug, exercise.meta.due
    counted = [
        term.counted("exercise", slug, due, row.score, row.created_at)
        for row in rows
        if row.mode == "submit" and row.score is not None
    ]
    best = max((score for score in counted if score is not None), default=None)
    return None if best is None else round(100 * best)


@router.get("/exercises/{slug}/history")
def exercise_history(
    slug: str, request: Request, course: CourseDep, session: SessionDep, user: OptionalUser
) -> Response:
    """Your own submissions of one exercise, newest first; the solution too once solved."""
    if user is None:
        return _login_redirect(request)
    teaches = _teaches(request, session, user)
    exercise = _exercise(course, slug, user, teaches)
    standing = _standing(request, session, user, slug)
    locked = _locked(request, session, user, slug)
    reveal = not locked and (solution_open(exercise, standing) or teaches)
    rows = own_submissions(
        session=session,
        user_id=user.id,
        exercise_slug=slug,
        course_slug=course_slug_of(request.scope.get("course")),
    )
    return render(
        request,
        "history/exercise.html",
        user=user,
        exercise=exercise,
        standing=standing,
        counted=_counted_percent(request, session, user, exercise, rows),
        rows=history_rows(rows),
        reveal=reveal,
        teaches=teaches,
        solutions=solution_blocks(exercise) if reveal else [],
    )


@router.get("/exercises/{slug}/solution")
def exercise_solution(
    slug: str, request: Request, course: CourseDep, session: SessionDep, user: OptionalUser
) -> Response:
    """The model solutions and the discussion; only after an accepted submit (or to teachers)."""
    if user is None:
        return _login_redirect(request)
    teaches = _teaches(request, session, user)
    exercise = _exercise(course, slug, user, teaches)
    standing = _standing(request, session, user, slug)
    locked = _locked(request, session, user, slug)
    if locked:  # a running exam holds everyone taking it, whatever they are elsewhere
        raise HTTPException(403, locked)
    if not (solution_open(exercise, standing) or teaches):
        return render(
            request,
            "history/solution_locked.html",
            status_code=403,
            user=user,
            exercise=exercise,
            standing=standing,
        )
    return render(
        request,
        "history/solution.html",
        user=user,
        exercise=exercise,
        standing=standing,
        teaches=teaches,
        solutions=solution_blocks(exercise),
    )


@router.get("/submissions/{submission_id}")
def submission_page(
    submission_id: RowId,
    request: Request,
    course: CourseDep,
    session: SessionDep,
    user: OptionalUser,
) -> Response:
    """One submission: its code and its report. Only its author and instructors may see it."""
    if user is None:
        return _login_redirect(request)
    row = visible_submission(session=session, user=user, submission_id=submission_id)
    if row is None:
        raise HTTPException(404, "There is no submission with that number.")
    held = held_from(session=session, user=user, row=row, now=utcnow())
    if held:
        raise HTTPException(403, held)
    author = ""
    if row.user_id != user.id:
        owner = session.get(User, row.user_id)
        author = (owner.name or owner.email) if owner else f"account {row.user_id}"
    course = content_of(request, row.course_slug, course)  # its own course's rules, not the URL's
    instructor = staff_of_work(
        session=session, user=user, offering_id=row.offering_id, course_slug=row.course_slug
    )
    view = submission_view(
        row,
        exercise=course.exercise(row.exercise_slug),
        for_instructor=instructor,
        author=author,
        hidden_open=not instructor
        and hidden_tests_open(session=session, course=course, user=user, row=row, now=utcnow()),
    )
    return render(request, "history/submission.html", user=user, view=view)
