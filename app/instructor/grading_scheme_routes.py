"""The offering's course-grade scheme: weights and drops per category (instructors only)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor.course_grade import CATEGORIES, SchemeError, checked, scheme_for, set_scheme
from app.instructor.settings_routes import settings_response
from app.offerings.access import InstructorMember
from app.offerings.place import PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["instructor"])


class SchemeIn(BaseModel):
    """Body of the grading-scheme API: weights and drops per category."""

    model_config = ConfigDict(extra="forbid")

    weights: dict[str, float] = Field(description="homework, quizzes, exams, labs: weights.")
    drop_lowest: dict[str, int] = Field(default_factory=dict, description="Lowest scores dropped.")


@router.get("/api/instructor/grading-scheme", responses=errors(401, 403))
def scheme_api(session: SessionDep, member: InstructorMember) -> dict[str, Any]:
    """The offering's weights and drops (the default when none was set)."""
    return scheme_for(session=session, offering_id=member.offering.id).as_json()


@router.put("/api/instructor/grading-scheme", responses=errors(401, 403, 422))
def set_scheme_api(
    body: Annotated[SchemeIn, Body()], session: SessionDep, member: InstructorMember
) -> dict[str, Any]:
    """Set the weights and drops; course grades follow at once (computed on reading)."""
    scheme = checked(weights=body.weights, drop_lowest=body.drop_lowest)
    set_scheme(session=session, offering_id=member.offering.id, scheme=scheme, by=member.user.id)
    return scheme.as_json()


def _number(text: str, what: str) -> float:
    try:
        return float(text.strip() or "0")
    except ValueError as exc:
        raise SchemeError(f"The {what} must be a number; '{text[:20]}' is not.") from exc


@router.post("/instructor/settings/grading-scheme", include_in_schema=False)
async def scheme_form(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    member: InstructorMember,
    place: PlaceDep,
) -> Response:
    """Save the scheme from the settings page's form."""
    form = {k: str(v) for k, v in (await request.form()).items()}
    try:
        scheme = checked(
            weights={c: _number(form.get(f"weight_{c}", ""), f"{c} weight") for c in CATEGORIES},
            drop_lowest={
                c: int(_number(form.get(f"drop_{c}", ""), f"{c} drops")) for c in CATEGORIES
            },
        )
    except SchemeError as exc:
        return settings_response(
            request,
            session=session,
            course=course,
            member=member,
            error=str(exc),
            status=400,
            place=place,
        )
    set_scheme(session=session, offering_id=member.offering.id, scheme=scheme, by=member.user.id)
    return RedirectResponse(f"{place.prefix}/instructor/settings?saved=scheme", 303)
