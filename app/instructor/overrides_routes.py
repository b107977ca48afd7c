"""Forms and JSON endpoints for score overrides and deadline extensions."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor.overrides import (
    InstructorError,
    grant_extension,
    remove_extension,
    set_override,
)
from app.instructor.students_routes import get_person, student_page
from app.instructor.web import parse_due
from app.offerings.access import StaffUser, row_here
from app.offerings.place import Place, PlaceDep
from app.submissions.models import Submission
from app.submissions.presenter import STAFF, submission_json
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])
FormStr = Annotated[str, Form()]


def submission_here(session: SessionDep, submission_id: int, place: Place) -> Submission:
    """The submission, when it counts in this request's offering (else a plain 404); work of
    another course never does, even self-study there that counts in no offering."""
    row = session.get(Submission, submission_id)
    if (
        row is None
        or row.course_slug != place.course_slug
        or not row_here(session, row.offering_id, place)
    ):
        raise HTTPException(404, "There is no submission with that id.")
    return row


class OverrideIn(BaseModel):
    """Body of the override API: a score from 0 to 1, or null to remove the override."""

    model_config = ConfigDict(extra="forbid")

    score: float | None = Field(description="New score 0–1; null removes the override.")
    reason: str = Field(default="", max_length=1000, description="Shown to the student.")


@router.post(
    "/api/instructor/submissions/{submission_id}/override", responses=errors(401, 403, 404, 422)
)
def override_api(
    submission_id: RowId,
    body: Annotated[OverrideIn, Body()],
    session: SessionDep,
    user: StaffUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Set or remove a manual score; the answer is the submission as instructors see it."""
    row = submission_here(session, submission_id, place)
    set_override(  # an InstructorError is a 422 with its sentence (app/web/errors.py)
        session=session, submission=row, score=body.score, reason=body.reason, instructor=user
    )
    return submission_json(row, viewer=STAFF)


@router.post("/instructor/submissions/{submission_id}/override", include_in_schema=False)
def override_form(
    submission_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
    percent: FormStr = "",
    reason: FormStr = "",
    action: FormStr = "set",
) -> Response:
    """The student page's override form: a percentage and a reason, or 'remove'."""
    row = submission_here(session, submission_id, place)
    person = get_person(session, row.user_id, place)
    try:
        if action == "remove":
            score = None
        else:
            try:
                score = float(percent.strip().rstrip("%")) / 100
            except ValueError as exc:
                raise InstructorError("Type the new score as a percentage, e.g. 80.") from exc
        set_override(session=session, submission=row, score=score, reason=reason, instructor=user)
    except InstructorError as exc:
        return student_page(
            request,
            session=session,
            course=course,
            user=user,
            person=person,
            error=f"Submission {row.id}: {exc}",
            status_code=400,
            place=place,
        )
    saved = "override-removed" if score is None else "override"
    page_url = f"{place.prefix}/instructor/students/{person.id}"
    target = f"{page_url}?saved={saved}#submission-{row.id}"
    return RedirectResponse(target, status_code=303)


class ExtensionIn(BaseModel):
    """Body of the extension API."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="'exercise' or 'quiz' (a quiz is named by its lesson's slug).")
    slug: str = Field(max_length=100)
    due: str = Field(description="New due date, ISO 8601; without a zone it is UTC.")
    reason: str = Field(default="", max_length=1000)


@router.post("/api/instructor/students/{user_id}/extensions", responses=errors(401, 403, 404, 422))
def extension_api(
    user_id: RowId,
    body: Annotated[ExtensionIn, Body()],
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Give one student a later due date for an exercise or a quiz."""
    person = get_person(session, user_id, place)
    row = grant_extension(
        session=session,
        course=course,
        student=person,
        kind=body.kind,
        slug=body.slug,
        due_at=parse_due(body.due),
        reason=body.reason,
        instructor=user,
        place=place,
    )
    return {"id": row.id, "kind": row.kind, "slug": row.slug, "due": row.due_at.isoformat()}


@router.post("/instructor/students/{user_id}/extensions", include_in_schema=False)
def extension_form(
    user_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
    item: FormStr = "",
    due: FormStr = "",
    reason: FormStr = "",
) -> Response:
    """The student page's extension form: item ('exercise:slug' or 'quiz:slug') and date."""
    person = get_person(session, user_id, place)
    kind, _, slug = item.partition(":")
    try:
        grant_extension(
            session=session,
            course=course,
            student=person,
            kind=kind,
            slug=slug,
            due_at=parse_due(due),
            reason=reason,
            instructor=user,
            place=place,
        )
    except ValueError as exc:
        return student_page(
            request,
            session=session,
            course=course,
            user=user,
            person=person,
            error=str(exc),
            status_code=400,
            place=place,
        )
    back = f"{place.prefix}/instructor/students/{person.id}?saved=extension"
    return RedirectResponse(back, status_code=303)


@router.post(
    "/instructor/students/{user_id}/extensions/{extension_id}/delete", include_in_schema=False
)
def extension_delete(
    user_id: RowId,
    extension_id: RowId,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
) -> Response:
    """Take an extension back."""
    person = get_person(session, user_id, place)
    try:
        remove_extension(
            session=session, course=course, extension_id=extension_id, student=person, place=place
        )
    except InstructorError as exc:
        return student_page(
            request,
            session=session,
            course=course,
            user=user,
            person=person,
            error=str(exc),
            status_code=400,
            place=place,
        )
    return RedirectResponse(
        f"{place.prefix}/instructor/students/{person.id}?saved=extension-removed",
        status_code=303,
    )
