"""Report-a-problem forms for students, and the instructors' list of reports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.content.service import CourseDep
from app.courses.first import course_slug_of
from app.offerings.access import StaffUser
from app.offerings.place import PlaceDep
from app.problems import service
from app.users.deps import OptionalUser
from app.web.api import RowId
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)
FormStr = Annotated[str, Form()]


def _back(next_url: str) -> str:
    """Only a path on this site (never another host) is a place to go back to."""
    ok = next_url.startswith("/") and not next_url.startswith("//") and "\\" not in next_url
    return next_url if ok else "/"


@router.post("/problems")
def report_form(
    request: Request,
    session: SessionDep,
    course: CourseDep,
    place: PlaceDep,
    user: OptionalUser,
    kind: FormStr = "",
    slug: FormStr = "",
    question: FormStr = "",
    message: FormStr = "",
    next: FormStr = "/",
) -> Response:
    """Take a report; on a problem, show the form again with the student's words kept."""
    back = _back(next)
    fields = {"kind": kind, "slug": slug, "question": question, "message": message, "next": back}
    if user is None:
        return render(
            request,
            "problems/report.html",
            status_code=401,
            user=None,
            error="Your session has ended, so the report was not sent. Copy your text, log in, "
            "and send it again.",
            **fields,
        )
    try:
        service.report_problem(
            session=session,
            course=course,
            course_slug=course_slug_of(request.scope.get("course")),
            user=user,
            kind=kind,
            slug=slug,
            question_id=question or None,
            message=message,
            place=place,
        )
    except service.ProblemError as exc:
        return render(
            request,
            "problems/report.html",
            status_code=exc.status,
            user=user,
            error=exc.message,
            **fields,
        )
    return render(request, "problems/thanks.html", user=user, next=back)


@router.get("/instructor/problems")
def problems_page(
    request: Request, session: SessionDep, place: PlaceDep, user: StaffUser, show: str = "open"
) -> Response:
    """Students' reports, open ones first (or the resolved ones), with submissions linked."""
    resolved = show == "resolved"
    lines = service.list_reports(session=session, resolved=resolved, place=place)
    return render(request, "instructor/problems.html", user=user, lines=lines, resolved=resolved)


@router.post("/instructor/problems/{report_id}/resolve")
def resolve_form(
    report_id: RowId, session: SessionDep, place: PlaceDep, user: StaffUser, reply: FormStr = ""
) -> Response:
    """Mark one report resolved (with a reply the student reads), then back to the list."""
    service.resolve(session=session, report_id=report_id, instructor=user, place=place, reply=reply)
    return RedirectResponse(f"{place.prefix}/instructor/problems", status_code=303)
