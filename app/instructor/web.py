"""Helpers shared by the instructor pages: formatting, lookups and rendering."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi import HTTPException, Request
from starlette.responses import Response

from app.content.loader import Course, Exercise
from app.instructor.analytics import duration_text
from app.instructor.overrides import InstructorError
from app.models_base import as_utc
from app.submissions.presenter import STAFF, ReportView, present_report, read_report, verdict_label
from app.users.models import User
from app.web.templating import render


def percent(value: float | None) -> str:
    """A 0–1 score as a whole percentage, or a dash when there is none."""
    return "–" if value is None else f"{round(value * 100)}%"


def when(value: dt.datetime | None) -> str:
    """A moment in UTC, precise to the minute."""
    return "–" if value is None else as_utc(value).strftime("%Y-%m-%d %H:%M UTC")


def datetime_local(value: dt.datetime | None) -> str:
    """The value an <input type=datetime-local> shows (UTC)."""
    return "" if value is None else as_utc(value).strftime("%Y-%m-%dT%H:%M")


def staff_report(stored: dict[str, Any] | None) -> ReportView:
    """A stored report (current or replaced by a regrade) in full, hidden tests included."""
    return present_report(read_report(stored), viewer=STAFF)


HELPERS: dict[str, Any] = {
    "pct": percent,
    "when": when,
    "datetime_local": datetime_local,
    "duration": duration_text,
    "verdict_label": verdict_label,
    "staff_report": staff_report,
}


def page(
    request: Request, name: str, user: User, status_code: int = 200, **context: Any
) -> Response:
    """Render an instructor template with the formatting helpers available."""
    from app.grading.beacon import grader_status

    context.setdefault("grader_status", grader_status())
    return render(request, name, status_code=status_code, user=user, **HELPERS, **context)


def find_exercise(course: Course, slug: str) -> Exercise:
    """The exercise (drafts included: instructors see them), or a 404 naming the slug."""
    exercise = course.exercise(slug)
    if exercise is None:
        raise HTTPException(404, f"There is no exercise called '{slug}'.")
    return exercise


def parse_due(text: str) -> dt.datetime:
    """A date typed in a form ('2026-12-01T23:59' or '2026-12-01'), read as UTC."""
    value = text.strip()
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        message = f"'{value[:40]}' is not a date; use the form 2026-12-01T23:59"
        raise InstructorError(message) from exc
    return as_utc(parsed)
