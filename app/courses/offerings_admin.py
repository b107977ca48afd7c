"""The site administrator's offerings page: every course's offerings, and a form to add one.

The form and its API create offerings with the command line's function (create_offering), so
a duplicate, an unknown course or an empty title is refused the same way everywhere.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.courses.service import request_registry
from app.offerings.access import SiteAdmin
from app.offerings.service import OfferingError, create_offering, offering_rows, parse_day
from app.users.models import User
from app.web.api import errors
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter()
PAGE = "/admin/offerings"
FormStr = Annotated[str, Form()]


class OfferingIn(BaseModel):
    """A new offering: its course, title (term and section) and optional first and last day."""

    course: str = Field(max_length=100, description="The course's slug (GET /api/courses).")
    title: str = Field(max_length=200, description="e.g. 'Spring 2027, section A'.")
    starts_at: str | None = Field(default=None, max_length=40, description="e.g. 2027-01-15.")
    ends_at: str | None = Field(default=None, max_length=40, description="e.g. 2027-05-15.")
    join_code: bool = Field(default=True, description="Whether students may join by code.")


def sentence(exc: Exception) -> str:
    """An error of the service as a sentence: capital first, full stop last."""
    text = str(exc)
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _offering_item(row: dict[str, Any]) -> dict[str, Any]:
    join = row["join_code"]
    return {
        **row,
        "join_url": f"/join/{join}" if join else None,
        "url": f"/offerings/{row['id']}/instructor",
    }


def _create(request: Request, session: Session, body: OfferingIn) -> dict[str, Any]:
    """Create with the command line's function; OfferingError says what is wrong."""
    offering = create_offering(
        session=session,
        course_slug=body.course,
        title=body.title,
        starts_at=parse_day(body.starts_at),
        ends_at=parse_day(body.ends_at),
        with_join_code=body.join_code,
        known_courses=request_registry(request).slugs(),
    )
    row = next(
        r
        for r in offering_rows(session=session, course_slug=offering.course_slug)
        if r["id"] == offering.id
    )
    return _offering_item(row)


@router.get("/api/admin/offerings", tags=["admin"], responses=errors(401, 403, 404, 422))
def api_offerings(
    request: Request, session: SessionDep, user: SiteAdmin, course: str | None = None
) -> list[dict[str, Any]]:
    """Every offering (of one course with ?course=slug), oldest first, with member counts."""
    if course is not None and course not in request_registry(request).slugs():
        raise HTTPException(404, f"There is no course called '{course[:100]}'.")
    return [_offering_item(r) for r in offering_rows(session=session, course_slug=course)]


@router.post(
    "/api/admin/offerings", status_code=201, tags=["admin"], responses=errors(401, 403, 422)
)
def api_create_offering(
    body: OfferingIn, request: Request, session: SessionDep, user: SiteAdmin
) -> dict[str, Any]:
    """Create an offering of a course (422 with a sentence: duplicate, unknown course, ...)."""
    try:
        return _create(request, session, body)
    except OfferingError as exc:
        raise HTTPException(422, sentence(exc)) from exc


def _page(
    request: Request,
    session: Session,
    user: User,
    *,
    status_code: int = 200,
    errors: list[str] | None = None,
    form: dict[str, Any] | None = None,
    created: int | None = None,
) -> Response:
    registry = request_registry(request)
    rows = [_offering_item(r) for r in offering_rows(session=session)]
    courses = [
        {
            "slug": entry.slug,
            "title": entry.source.meta.title,
            "offerings": [r for r in rows if r["course"] == entry.slug],
        }
        for entry in registry.entries()
    ]
    known = set(registry.slugs())
    orphans = [r for r in rows if r["course"] not in known]
    values = {
        "course": registry.first_slug,
        "title": "",
        "starts": "",
        "ends": "",
        "join_code": True,
    }
    return render(
        request,
        "courses/offerings_admin.html",
        status_code=status_code,
        user=user,
        courses=courses,
        orphans=orphans,
        errors=errors or [],
        form={**values, **(form or {})},
        created=created,
    )


@router.get(PAGE, include_in_schema=False)
def offerings_page(
    request: Request, session: SessionDep, user: SiteAdmin, created: int | None = None
) -> Response:
    """Every course with its offerings, and the form that adds one."""
    return _page(request, session, user, created=created)


@router.post(PAGE, include_in_schema=False)
def offerings_form(
    request: Request,
    session: SessionDep,
    user: SiteAdmin,
    course: FormStr = "",
    title: FormStr = "",
    starts: FormStr = "",
    ends: FormStr = "",
    join_code: FormStr = "",
) -> Response:
    """The form: create, or show it again with the values typed and what is wrong (422)."""
    form = {
        "course": course[:100],
        "title": title[:200],
        "starts": starts[:40],
        "ends": ends[:40],
        "join_code": bool(join_code),
    }
    body = OfferingIn(
        course=form["course"],
        title=form["title"],
        starts_at=form["starts"] or None,
        ends_at=form["ends"] or None,
        join_code=form["join_code"],
    )
    try:
        item = _create(request, session, body)
    except OfferingError as exc:
        return _page(request, session, user, status_code=422, errors=[sentence(exc)], form=form)
    return RedirectResponse(f"{PAGE}?created={item['id']}", status_code=303)
