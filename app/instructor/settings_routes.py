"""The offering's settings page and API: late policy and due dates (instructors only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from app.content.loader import Course
from app.content.service import CourseDep
from app.deadlines.policy import MODE_WORDS, MODES, PolicyError, checked, policy_for
from app.instructor.course_grade import CATEGORIES, WORDS, scheme_for
from app.instructor.settings import due_rows, set_late_policy, set_offering_due
from app.instructor.web import page, parse_due
from app.offerings.access import InstructorMember
from app.offerings.place import Place, PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep
from app.web.templating import staff_base

router = APIRouter(tags=["instructor"])
SAVED = {
    "policy": "The late policy is saved.",
    "dates": "The due dates are saved.",
    "scheme": "The course grade's weights are saved; the gradebook's course grades follow.",
    "created": "Your new offering is ready: share its join code or link below.",
}


def _page(
    request: Request,
    *,
    session: SessionDep,
    course: Course,
    member: InstructorMember,
    place: Place,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    offering_id = member.offering.id
    return page(
        request,
        "instructor/settings.html",
        member.user,
        status_code=status_code,
        offering=member.offering,
        policy=policy_for(session=session, offering_id=offering_id),
        modes=[(m, MODE_WORDS[m]) for m in MODES],
        dues=due_rows(session=session, course=course, offering_id=offering_id),
        scheme=scheme_for(session=session, offering_id=offering_id),
        categories=[(c, WORDS[c]) for c in CATEGORIES],
        prefix=staff_base(request),
        error=error,
        saved=SAVED.get(request.query_params.get("saved", "")),
    )


@router.get("/instructor/settings", include_in_schema=False)
def settings_page(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    member: InstructorMember,
    place: PlaceDep,
) -> Response:
    """The offering's late policy and due dates, each in a form."""
    return _page(request, session=session, course=course, member=member, place=place)


def _number(text: str, name: str) -> float:
    try:
        return float(text.strip() or "0")
    except ValueError as exc:
        raise PolicyError(f"The {name} must be a number; '{text[:20]}' is not.") from exc


@router.post("/instructor/settings/late-policy", include_in_schema=False)
async def policy_form(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    member: InstructorMember,
    place: PlaceDep,
) -> Response:
    """Save the late policy from the settings page's form."""
    form = await request.form()
    field = {k: str(v) for k, v in form.items()}
    try:
        policy = checked(
            mode=field.get("mode", ""),
            percent_per_day=_number(field.get("percent_per_day", ""), "penalty per day"),
            max_percent=_number(field.get("max_percent", "") or "100", "largest penalty"),
            grace_minutes=int(_number(field.get("grace_minutes", ""), "grace period")),
        )
    except PolicyError as exc:
        return _page(
            request,
            session=session,
            course=course,
            member=member,
            error=str(exc),
            status_code=400,
            place=place,
        )
    set_late_policy(
        session=session,
        course=course,
        offering_id=member.offering.id,
        policy=policy,
        by=member.user.id,
    )
    back = f"{place.prefix}/instructor/settings?saved=policy"
    return RedirectResponse(back, status_code=303)


@router.post("/instructor/settings/due-dates", include_in_schema=False)
async def dues_form(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    member: InstructorMember,
    place: PlaceDep,
) -> Response:
    """Save the offering's own due dates; a blank field means the content's date."""
    form = await request.form()
    offering_id = member.offering.id
    try:
        for row in due_rows(session=session, course=course, offering_id=offering_id):
            text = str(form.get(row.field, "")).strip()
            due = parse_due(text) if text else None
            if due == row.own:
                continue
            set_offering_due(
                session=session,
                course=course,
                offering_id=offering_id,
                kind=row.kind,
                slug=row.slug,
                due_at=due,
                by=member.user.id,
            )
    except ValueError as exc:
        return _page(
            request,
            session=session,
            course=course,
            member=member,
            error=str(exc),
            status_code=400,
            place=place,
        )
    back = f"{place.prefix}/instructor/settings?saved=dates"
    return RedirectResponse(back, status_code=303)


def _settings_json(session: SessionDep, course: Course, offering_id: int) -> dict[str, Any]:
    policy = policy_for(session=session, offering_id=offering_id)
    return {
        "offering": offering_id,
        "late_policy": {
            "mode": policy.mode,
            "percent_per_day": policy.percent_per_day,
            "max_percent": policy.max_percent,
            "grace_minutes": policy.grace_minutes,
            "description": policy.describe(),
        },
        "due_dates": [
            {
                "kind": r.kind,
                "slug": r.slug,
                "content_due": r.content.isoformat() if r.content else None,
                "offering_due": r.own.isoformat() if r.own else None,
            }
            for r in due_rows(session=session, course=course, offering_id=offering_id)
        ],
    }


@router.get("/api/instructor/settings", responses=errors(401, 403))
def settings_api(
    session: SessionDep, course: CourseDep, member: InstructorMember
) -> dict[str, Any]:
    """The offering's late policy and every item's due date (the content's and its own)."""
    return _settings_json(session, course, member.offering.id)


class PolicyIn(BaseModel):
    """Body of the late-policy API."""

    model_config = ConfigDict(extra="forbid")

    mode: str = Field(description="accept (flag late work), penalty, or refuse.")
    percent_per_day: float = Field(default=0.0, description="Penalty: % of the score per day.")
    max_percent: float = Field(default=100.0, description="Penalty: the most a score loses, %.")
    grace_minutes: int = Field(default=0, description="Minutes after the due date still on time.")


@router.post("/api/instructor/late-policy", responses=errors(401, 403, 422))
def policy_api(
    body: Annotated[PolicyIn, Body()],
    session: SessionDep,
    course: CourseDep,
    member: InstructorMember,
) -> dict[str, Any]:
    """Set the offering's late policy; grades follow at once (they are computed on reading)."""
    policy = checked(
        mode=body.mode,
        percent_per_day=body.percent_per_day,
        max_percent=body.max_percent,
        grace_minutes=body.grace_minutes,
    )
    set_late_policy(
        session=session,
        course=course,
        offering_id=member.offering.id,
        policy=policy,
        by=member.user.id,
    )
    return _settings_json(session, course, member.offering.id)


class DueIn(BaseModel):
    """Body of the due-date API: one item's date in this offering, null for the content's."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="exercise or quiz.")
    slug: str = Field(max_length=100, description="The exercise's or the lesson's slug.")
    due: str | None = Field(description="2026-12-01T23:59 (UTC); null: the content's date.")


@router.post("/api/instructor/due-dates", responses=errors(401, 403, 422))
def due_api(
    body: Annotated[DueIn, Body()],
    session: SessionDep,
    course: CourseDep,
    member: InstructorMember,
) -> dict[str, Any]:
    """Set or clear one item's due date in this offering."""
    set_offering_due(
        session=session,
        course=course,
        offering_id=member.offering.id,
        kind=body.kind,
        slug=body.slug,
        due_at=parse_due(body.due) if body.due else None,
        by=member.user.id,
    )
    return _settings_json(session, course, member.offering.id)


def settings_response(
    request: Request,
    *,
    session: SessionDep,
    course: Course,
    member: InstructorMember,
    error: str,
    status: int,
    place: Place,
) -> Response:
    """The settings page with a form's error (other settings forms use it)."""
    return _page(
        request,
        session=session,
        course=course,
        member=member,
        error=error,
        status_code=status,
        place=place,
    )
