"""The grading page: one submission's code with line comments, its automatic report beside it,
the exercise's rubric to apply, and "next ungraded" (staff of the offering)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.content.loader import Course, Exercise
from app.content.service import CourseDep
from app.instructor.overrides import InstructorError
from app.instructor.overrides_routes import submission_here
from app.instructor.rubric_grading import grade_by_rubric, next_ungraded, rubric_grade
from app.instructor.web import find_exercise, page
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.submissions.comments import comments_on
from app.submissions.models import Submission
from app.users.models import User
from app.web.api import RowId, errors
from app.web.request_session import SessionDep
from graders import Rubric

router = APIRouter(tags=["instructor"])
NO_RUBRIC = "This exercise has no rubric: add a `rubric:` section to its exercise.yaml."


def rubric_of(course: Course, slug: str) -> tuple[Exercise, Rubric]:
    """The exercise and its rubric, or a 404 saying it has none."""
    exercise = find_exercise(course, slug)
    if exercise.meta.rubric is None:
        raise HTTPException(404, NO_RUBRIC)
    return exercise, exercise.meta.rubric


class RubricIn(BaseModel):
    """Body of the rubric API: the items applied and a comment for the student."""

    model_config = ConfigDict(extra="forbid")

    applied: list[str] = Field(default_factory=list, description="Rubric item ids that apply.")
    comment: str = Field(default="", max_length=4000, description="Shown to the student.")


@router.post(
    "/api/instructor/submissions/{submission_id}/rubric", responses=errors(401, 403, 404, 422)
)
def rubric_api(
    submission_id: RowId,
    body: Annotated[RubricIn, Body()],
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Grade by the rubric; the score becomes the tests' and the rubric's parts combined."""
    row = submission_here(session, submission_id, place)
    exercise, rubric = rubric_of(course, row.exercise_slug)
    result = grade_by_rubric(
        session=session,
        submission=row,
        rubric=rubric,
        applied=body.applied,
        comment=body.comment.strip(),
        grader=user,
        lab=exercise.meta.entry.kind == "experiment",
    )
    return {"manual_score": result.manual, "score": row.score}


@router.get("/instructor/exercises/{slug}/grading", include_in_schema=False)
def next_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """Open the next student's latest submission nobody has graded by hand."""
    rubric_of(course, slug)
    after = int(request.query_params.get("after", "0") or 0)
    found = next_ungraded(session=session, exercise=slug, after=after, place=place)
    if found is None and after:
        found = next_ungraded(
            session=session, exercise=slug, place=place
        )  # wrap round to the start
    base = f"{place.prefix}/instructor/exercises/{slug}/grading"
    if found is None:
        return page(request, "instructor/grading_done.html", user, slug=slug)
    return RedirectResponse(f"{base}/{found.id}", status_code=303)


def _grading_page(
    request: Request,
    session: Session,
    course: Course,
    user: User,
    row: Submission,
    *,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    exercise, rubric = rubric_of(course, row.exercise_slug)
    return page(
        request,
        "instructor/grading.html",
        user,
        status_code=status_code,
        exercise=exercise,
        rubric=rubric,
        row=row,
        student=session.get(User, row.user_id),
        graded=rubric_grade(session=session, submission_id=row.id),
        comments=comments_on(session=session, submission_id=row.id),
        code_lines=row.code.splitlines() or [""],
        error=error,
    )


@router.get("/instructor/exercises/{slug}/grading/{submission_id}", include_in_schema=False)
def grading_page(
    slug: str,
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """One submission to grade by hand."""
    row = submission_here(session, submission_id, place)
    if row.exercise_slug != slug:
        raise HTTPException(404, "There is no submission with that id for this exercise.")
    return _grading_page(request, session, course, user, row)


@router.post("/instructor/submissions/{submission_id}/rubric", include_in_schema=False)
async def rubric_form(
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """Save the grading form, then go on to the next ungraded submission."""
    row = submission_here(session, submission_id, place)
    exercise, rubric = rubric_of(course, row.exercise_slug)
    form = await request.form()
    applied = [str(v) for v in form.getlist("item")]
    try:
        grade_by_rubric(
            session=session,
            submission=row,
            rubric=rubric,
            applied=applied,
            comment=str(form.get("comment", "")).strip(),
            grader=user,
            lab=exercise.meta.entry.kind == "experiment",
        )
    except InstructorError as exc:
        return _grading_page(request, session, course, user, row, error=str(exc), status_code=400)
    base = f"{place.prefix}/instructor/exercises/{row.exercise_slug}/grading"
    return RedirectResponse(f"{base}?after={row.id}", status_code=303)
