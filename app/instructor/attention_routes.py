"""Who needs help: the page and its JSON twin (staff of the offering only)."""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.content.service import CourseDep
from app.instructor.attention import TIME_ON_TASK_TEXT, ranked
from app.instructor.web import page
from app.models_base import as_utc, utcnow
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.web.api import errors
from app.web.request_session import SessionDep
from app.web.templating import staff_base

router = APIRouter(tags=["instructor"])
AsOf = Annotated[
    dt.datetime | None, Query(description="Judge as of this moment (ISO time); default: now.")
]


def _student_url(user_id: int, base: str) -> str:
    return f"{base}/instructor/students/{user_id}"


@router.get("/instructor/attention", include_in_schema=False)
def attention_page(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
    now: AsOf = None,
) -> Response:
    """Students ranked by the signals that say they need help, each linked to their work."""
    rows = ranked(session=session, course=course, now=as_utc(now) if now else utcnow(), place=place)
    return page(
        request,
        "instructor/attention.html",
        user,
        rows=rows,
        student_url=partial(_student_url, base=staff_base(request)),
        how=TIME_ON_TASK_TEXT,
    )


@router.get("/api/instructor/attention", responses=errors(401, 403, 422))
def attention(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    user: StaffUser,
    place: PlaceDep,
    now: AsOf = None,
) -> list[dict[str, Any]]:
    """The offering's students, those who most need help first, with the signals why."""
    rows = ranked(session=session, course=course, now=as_utc(now) if now else utcnow(), place=place)
    return [
        {
            "user_id": r.user.id,
            "name": r.user.name,
            "signals": {**r.signals, "reasons": r.reasons},
            "url": _student_url(r.user.id, staff_base(request)),
        }
        for r in rows
    ]
