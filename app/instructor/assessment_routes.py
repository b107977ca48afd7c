"""Instructors: every attempt at an assessment, and students' accommodations (page and API)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.assessments import accommodations, clock, service
from app.assessments import gradebook as assessment_gradebook
from app.assessments.loader import assessments_for
from app.assessments.models import AssessmentAttempt
from app.assessments.routes import spec_or_404
from app.assessments.schema import AssessmentFile
from app.assessments.scoring import regrade, released
from app.assessments.service import AssessmentError, course_slug_of
from app.content.loader import Course
from app.content.service import CourseDep
from app.instructor.assessment_items import stats_for
from app.instructor.item_stats import MIN_FOR_FLAGS
from app.instructor.web import page, parse_due
from app.jobs.base import JobQueue
from app.jobs.deps import QueueDep
from app.models_base import utcnow
from app.offerings.access import InstructorUser, work_here
from app.offerings.place import Place, PlaceDep
from app.users.models import User
from app.web.api import RowId, errors
from app.web.request_session import SessionDep

NO_ACCOMMODATION = "This student has no accommodation on this assessment."

router = APIRouter(tags=["instructor"])


class AccommodationIn(BaseModel):
    """Body of PUT /api/instructor/assessments/{slug}/accommodations/{user_id}."""

    model_config = ConfigDict(extra="forbid")

    extra_minutes: float = Field(default=0, description="Minutes added to the time limit.")
    opens_at: dt.datetime | None = Field(default=None, description="Own opening (default: file's).")
    closes_at: dt.datetime | None = Field(default=None, description="Own close (default: file's).")
    reason: str = Field(default="", max_length=2000, description="Why, for other instructors.")


def _attempts_here(session: Session, place: Place) -> list[ColumnElement[bool]]:
    """SQL: attempts of this page's course and offering (a slug may be another course's too)."""
    return [
        AssessmentAttempt.course_slug == place.course_slug,
        work_here(session, AssessmentAttempt.offering_id, place),
    ]


def _hand_in_overdue(queue: JobQueue, session: Session, course: Course, place: Place) -> None:
    now, enqueue = utcnow(), queue.enqueue
    here = _attempts_here(session, place)
    for attempt_id in clock.overdue_ids(session=session, now=now, where=here):
        attempt = session.get(AssessmentAttempt, attempt_id)
        if attempt is not None:
            service.finish_if_due(
                session=session, course=course, attempt=attempt, now=now, enqueue=enqueue
            )


def _page_url(slug: str, place: Place) -> str:
    """The assessment's page in the request's offering, so a form sent there comes back there."""
    return f"{place.prefix}/instructor/assessments/{slug}"


def _render(
    request: Request,
    queue: JobQueue,
    session: Session,
    course: Course,
    user: User,
    spec: AssessmentFile,
    place: Place,
    error: str = "",
    status_code: int = 200,
) -> Response:
    _hand_in_overdue(queue, session, course, place)
    rows = session.execute(
        select(AssessmentAttempt, User)
        .join(User, User.id == AssessmentAttempt.user_id)
        .where(
            AssessmentAttempt.assessment_slug == spec.slug,
            work_here(
                session, AssessmentAttempt.offering_id, place
            ),  # another offering's are hidden
        )
        .order_by(User.email, AssessmentAttempt.number)
    ).all()
    now = utcnow()
    return page(
        request,
        "instructor/assessment.html",
        user,
        status_code=status_code,
        spec=spec,
        attempts=[(a, u, released(a, now)) for a, u in rows],
        accommodations=accommodations.accommodations_of(
            session=session, slug=spec.slug, place=place
        ),
        items=stats_for(session=session, spec=spec, course=course, place=place),
        min_for_flags=MIN_FOR_FLAGS,
        error=error,
    )


@router.get("/instructor/assessments", include_in_schema=False)
def list_page(
    request: Request, session: SessionDep, course: CourseDep, user: InstructorUser, place: PlaceDep
) -> Response:
    """Every assessment with its window and how many attempts it has."""
    found = assessments_for(course)
    counts = {
        s.slug: assessment_gradebook.attempt_count(session=session, slug=s.slug, place=place)
        for s in found.ordered()
    }
    return page(
        request,
        "instructor/assessments.html",
        user,
        specs=found.ordered(),
        counts=counts,
        problems=found.problems,
    )


@router.get("/instructor/assessments/{slug}", include_in_schema=False)
def detail_page(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    queue: QueueDep,
    place: PlaceDep,
) -> Response:
    """Attempts (overdue ones handed in first) and accommodations of one assessment."""
    return _render(request, queue, session, course, user, spec_or_404(course, slug), place)


@router.post("/instructor/assessments/{slug}/accommodations", include_in_schema=False)
async def accommodation_form(
    slug: str,
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    queue: QueueDep,
    place: PlaceDep,
) -> Response:
    """Set a student's accommodation from the page's form; a bad one is shown, not stored."""
    spec = spec_or_404(course, slug)
    form = await request.form()
    email = str(form.get("email", "")).strip().lower()
    try:
        student = session.scalar(select(User).where(User.email == email))
        if student is None:
            raise AssessmentError(404, f"There is no account with the email '{email[:200]}'.")
        extra_text = str(form.get("extra_minutes", "0")).strip() or "0"
        try:
            extra = float(extra_text)
        except ValueError:
            raise AssessmentError(
                422, f"Extra time '{extra_text[:20]}' is not a number of minutes."
            ) from None
        opens, closes = (str(form.get(k, "")).strip() for k in ("opens_at", "closes_at"))
        accommodations.set_accommodation(
            session=session,
            spec=spec,
            user_id=student.id,
            extra_minutes=extra,
            opens_at=parse_due(opens) if opens else None,
            closes_at=parse_due(closes) if closes else None,
            reason=str(form.get("reason", "")),
            by=user,
            course_slug=course_slug_of(course),
            place=place,
        )
    except AssessmentError as exc:
        return _render(request, queue, session, course, user, spec, place, exc.message, exc.status)
    except ValueError as exc:
        return _render(request, queue, session, course, user, spec, place, str(exc), 422)
    return RedirectResponse(f"{_page_url(slug, place)}#accommodations", status_code=303)


@router.post(
    "/instructor/assessments/{slug}/accommodations/{user_id}/delete", include_in_schema=False
)
def accommodation_delete_form(
    slug: str,
    user_id: RowId,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
) -> Response:
    """Remove a student's accommodation from the page."""
    spec_or_404(course, slug)
    if not accommodations.remove_accommodation(
        session=session, slug=slug, user_id=user_id, place=place
    ):
        raise HTTPException(404, NO_ACCOMMODATION)
    return RedirectResponse(f"{_page_url(slug, place)}#accommodations", status_code=303)


@router.post("/instructor/assessments/{slug}/regrade", include_in_schema=False)
def regrade_form(
    slug: str,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    queue: QueueDep,
    place: PlaceDep,
) -> Response:
    """Grade every handed-in attempt's questions again, each with its own recorded draw."""
    spec_or_404(course, slug)
    _hand_in_overdue(queue, session, course, place)
    for attempt in session.scalars(
        select(AssessmentAttempt).where(
            AssessmentAttempt.assessment_slug == slug,
            AssessmentAttempt.status == "submitted",
            *_attempts_here(session, place),
        )
    ).all():
        regrade(session=session, course=course, attempt=attempt)
    return RedirectResponse(_page_url(slug, place), status_code=303)


@router.get(
    "/api/instructor/assessments/{slug}/accommodations", responses=errors(401, 403, 404, 422)
)
def list_api(
    slug: str, session: SessionDep, course: CourseDep, user: InstructorUser, place: PlaceDep
) -> list[dict[str, Any]]:
    """Every accommodation on one assessment."""
    spec_or_404(course, slug)
    return [
        accommodations.view(row)
        for row, _student in accommodations.accommodations_of(
            session=session, slug=slug, place=place
        )
    ]


@router.put(
    "/api/instructor/assessments/{slug}/accommodations/{user_id}",
    responses=errors(401, 403, 404, 422),
)
def set_api(
    slug: str,
    user_id: RowId,
    body: Annotated[AccommodationIn, Body()],
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
) -> dict[str, Any]:
    """Give one student extra time and/or their own window (replaces an earlier one)."""
    row = accommodations.set_accommodation(
        session=session,
        spec=spec_or_404(course, slug),
        user_id=user_id,
        extra_minutes=body.extra_minutes,
        opens_at=body.opens_at,
        closes_at=body.closes_at,
        reason=body.reason,
        by=user,
        course_slug=course_slug_of(course),
        place=place,
    )
    return accommodations.view(row)


@router.delete(
    "/api/instructor/assessments/{slug}/accommodations/{user_id}",
    status_code=204,
    responses=errors(401, 403, 404, 422),
)
def delete_api(
    slug: str,
    user_id: RowId,
    session: SessionDep,
    course: CourseDep,
    user: InstructorUser,
    place: PlaceDep,
) -> Response:
    """Remove one student's accommodation."""
    spec_or_404(course, slug)
    if not accommodations.remove_accommodation(
        session=session, slug=slug, user_id=user_id, place=place
    ):
        raise HTTPException(404, NO_ACCOMMODATION)
    return Response(status_code=204)
