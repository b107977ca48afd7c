"""Submissions: write the row first, queue the job, grade it once, store the report."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.courses.first import first_course_slug
from app.deadlines.rules import effective_due, is_late
from app.errors import DomainError
from app.jobs import live
from app.models_base import utcnow
from app.offerings.access import offering_in_request
from app.offerings.service import first_offering_id_query, is_staff, offering_for_work, role_in
from app.submissions.models import Submission
from app.users.models import Role, User

log = logging.getLogger(__name__)


class SubmissionError(DomainError):
    """A submission that cannot be accepted; carries the HTTP status and a plain message."""


def create_submission(
    *,
    session: Session,
    course: Course,
    user: User,
    exercise: str,
    code: str,
    framework: str | None,
    mode: str,
    max_bytes: int,
    course_slug: str | None = None,
    content_version: str | None = None,
) -> Submission:
    """Validate, then store the row as 'queued' (the caller queues the job after commit)."""
    found = course.exercise(exercise)
    if found is None or (found.meta.draft and user.role != Role.instructor):
        raise SubmissionError(404, f"There is no exercise called '{exercise}'.")
    chosen = framework or found.meta.default_framework
    if chosen not in found.meta.frameworks:
        offered = ", ".join(found.meta.frameworks)
        raise SubmissionError(
            422, f"This exercise is not offered in '{chosen}'; choose one of: {offered}."
        )
    if mode not in ("submit", "run"):
        raise SubmissionError(422, "mode must be 'submit' or 'run'.")
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise SubmissionError(
            413,
            f"Your code is {size // 1024} KB; the limit is "
            f"{max_bytes // 1024} KB. Your text is still in the editor.",
        )
    row = Submission(
        user_id=user.id,
        exercise_slug=exercise,
        framework=chosen,
        mode=mode,
        code=code,
        status="queued",
        content_version=content_version,
    )
    if course_slug is not None:  # else the first course (the column's default)
        row.course_slug = course_slug
    # The offering it counts in: a student of two terms of one course keeps two grades.
    row.offering_id = offering_for_work(
        session=session,
        user_id=user.id,
        course_slug=course_slug or first_course_slug(),
        named=offering_in_request(),
    )
    # Deadlines (instructor tools): work after the due date is accepted and flagged late.
    row.late = is_late(
        session=session,
        user_id=user.id,
        kind="exercise",
        slug=exercise,
        due=found.meta.due,
        at=utcnow(),
    )
    session.add(row)
    session.commit()
    return row


def visible_submission(*, session: Session, user: User, submission_id: int) -> Submission | None:
    """The submission if this user may see it: its author, a site administrator, or staff
    (instructor or TA) of the offering it counts in; staff of another offering see nothing."""
    row = session.get(Submission, submission_id)
    if row is None:
        return None
    if row.user_id == user.id or user.is_admin:
        return row
    where = row.offering_id
    if where is None:  # work from before offerings counts in the first one
        where = session.scalar(select(first_offering_id_query()))
    held = None if where is None else role_in(session=session, user_id=user.id, offering_id=where)
    return row if is_staff(held) else None


def stop_experiment(*, session: Session, course: Course, user: User, submission_id: int) -> str:
    """Ask a queued or running experiment to stop; returns the status it had."""
    row = visible_submission(session=session, user=user, submission_id=submission_id)
    if row is None:
        raise SubmissionError(404, "There is no submission with that id.")
    exercise = course.exercise(row.exercise_slug)
    if exercise is None or exercise.meta.experiment is None:
        raise SubmissionError(
            400, "Only experiments can be stopped; other runs finish within seconds."
        )
    if row.status == "done":
        raise SubmissionError(409, "This run has already finished; its report is below.")
    live.request_stop(row.id)
    return row.status


def hidden_tests_open(
    *, session: Session, course: Course, user: User, row: Submission, now: dt.datetime
) -> bool:
    """Whether this student may see the inputs and values of the exercise's hidden tests."""
    exercise = course.exercise(row.exercise_slug)
    if exercise is None or exercise.meta.hidden_tests == "hidden":
        return False
    if exercise.meta.hidden_tests == "visible":
        return True
    due = effective_due(
        session=session,
        user_id=row.user_id,
        kind="exercise",
        slug=row.exercise_slug,
        due=exercise.meta.due,
    )
    return due is not None and now > due


def public_view(
    row: Submission, *, for_instructor: bool, hidden_open: bool = False
) -> dict[str, Any]:
    """The API shape of a submission; hidden tests stay opaque to students unless opened.

    `hidden_open` (see hidden_tests_open) shows students what a hidden test checked; otherwise
    not one of its inputs or values leaves the server.
    """
    report = row.report or {}
    tests = report.get("tests", [])
    hides_output = any(t.get("hidden") for t in tests) and not hidden_open
    if for_instructor or hidden_open:
        tests = [_opened_test(t) for t in tests]
    else:
        tests = [_student_test(t) for t in tests]
    view = {
        "id": row.id,
        "exercise": row.exercise_slug,
        "course": row.course_slug,
        "content_version": row.content_version,
        "framework": row.framework,
        "mode": row.mode,
        "status": row.status,
        "verdict": row.verdict,
        "score": row.score,
        "message": row.message,
        "tests": tests,
        "duration_ms": row.duration_ms,
        # Printed output of a job with hidden tests could show their inputs: Run shows it.
        "stdout": report.get("stdout", "") if for_instructor or not hides_output else "",
        "stdout_hidden": hides_output and not for_instructor,
        "line": report.get("line"),
        "created_at": row.created_at.isoformat(),
        "late": row.late,
        "override": override_view(row),
    }
    if report.get("metrics") is not None:  # experiments: accuracy by length, the loss curve
        view["metrics"] = report["metrics"]
    if report.get("new_compilation") is not None:  # JAX: did the job compile anything new
        view["new_compilation"] = report["new_compilation"]
    if row.status == "running":
        frame = live.latest(row.id)  # an experiment's step and loss while it trains
        if frame is not None:
            view["progress"] = frame
    return view


def override_view(row: Submission) -> dict[str, Any] | None:
    """An instructor's manual score with the reason, shown to the student too."""
    if row.override_score is None:
        return None
    report_score = (row.report or {}).get("score")
    return {
        "score": row.override_score,
        "reason": row.override_reason or "",
        "at": row.override_at.isoformat() if row.override_at else None,
        "graded_score": report_score,
    }


def _opened_test(test: dict[str, Any]) -> dict[str, Any]:
    """A hidden test with what it checked, shown like a visible one (still marked hidden)."""
    reveal = test.get("reveal")
    if not test.get("hidden") or not isinstance(reveal, dict):
        return {k: v for k, v in test.items() if k != "reveal"}
    shown = {k: v for k, v in test.items() if k != "reveal"}
    for key in ("input_shapes", "expected_shape", "received_shape", "expected", "received"):
        shown[key] = reveal.get(key)
    details = list(shown.get("details") or [])
    if reveal.get("inputs"):
        details.insert(0, str(reveal["inputs"]))
    shown["details"], shown["revealed"] = details, True
    return shown


def _student_test(test: dict[str, Any]) -> dict[str, Any]:
    if not test.get("hidden"):
        return test
    keep = ("name", "hidden", "passed", "verdict", "message", "misconception")
    return {k: test.get(k) for k in keep}
