"""Time kept by the server: overdue attempts handed in at their deadline, and a changed
accommodation applied to the running attempt and to when scores are released.

Why: a deadline met only when someone reads a page leaves item statistics, the gradebook and
the LMS wrong until then, and extra time promised on the page must be the time the server keeps.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from app.assessments import scoring, service
from app.assessments.models import AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.courses.service import process_registry
from app.lti.outbox import queue_grade
from app.models_base import as_utc, utcnow
from app.offerings.service import in_offering


def overdue_ids(
    *, session: Session, now: dt.datetime, where: Sequence[ColumnElement[bool]] = ()
) -> list[int]:
    """Open attempts past their deadline (what the background pass hands in; `where`: only
    those, e.g. one offering's, which a staff page hands in with its own course)."""
    return list(
        session.scalars(
            select(AssessmentAttempt.id).where(
                AssessmentAttempt.status == "open", AssessmentAttempt.deadline <= now, *where
            )
        )
    )


def hand_in_overdue(
    *, session_maker: Callable[[], Session], now: dt.datetime, enqueue: Callable[[int], None]
) -> int:
    """Hand in every open attempt past its deadline, as of its deadline (the background pass);
    how many were handed in. A page reading the attempt at the same moment hands it in once."""
    handed = 0
    with session_maker() as session:
        for attempt_id in overdue_ids(session=session, now=now):
            attempt = session.get(AssessmentAttempt, attempt_id)
            course = process_registry().content(attempt.course_slug) if attempt else None
            if attempt is None or course is None:
                continue
            if service.finish_if_due(
                session=session, course=course, attempt=attempt, now=now, enqueue=enqueue
            ):
                handed += 1
    return handed


def hand_in_due(*, session: Session, now: dt.datetime) -> bool:
    """Whether an open attempt is past its deadline (`hooks.JOB_DUE` of `hand_in`)."""
    found = session.scalar(
        select(AssessmentAttempt.id)
        .where(AssessmentAttempt.status == "open", AssessmentAttempt.deadline <= now)
        .limit(1)
    )
    return found is not None


def hand_in_work(run: Any) -> dict[str, Any]:
    """The `hand_in` job's work (`hooks.JOB_KINDS`): hand in what is overdue now, by the
    server's clock, as page reads judge them; the answers' grades go on the queue."""
    now = utcnow()
    return {
        "handed_in": hand_in_overdue(session_maker=run.session_maker, now=now, enqueue=run.enqueue)
    }


def _attempts(session: Session, slug: str, offering_id: int | None) -> list[AssessmentAttempt]:
    return list(
        session.scalars(
            select(AssessmentAttempt).where(
                AssessmentAttempt.assessment_slug == slug,
                in_offering(
                    session=session, column=AssessmentAttempt.offering_id, offering_id=offering_id
                ),
            )
        )
    )


def apply_accommodation(
    *,
    session: Session,
    spec: AssessmentFile,
    user_id: int,
    offering_id: int | None,
    now: dt.datetime,
) -> None:
    """After an accommodation changed (the caller commits): the student's running attempt gets
    its deadline again from its start with the new extra time, within the new window; attempts
    released after close and not yet released wait for the latest window of the offering."""
    window = service.window_for(
        session=session, spec=spec, user_id=user_id, offering_id=offering_id
    )
    end = service.hard_end(session=session, spec=spec, window=window, offering_id=offering_id)
    for attempt in _attempts(session, spec.slug, offering_id):
        if attempt.user_id == user_id and attempt.status == "open":
            deadline = end
            if spec.time_limit_minutes is not None:
                limit = dt.timedelta(minutes=spec.time_limit_minutes + window.extra_minutes)
                deadline = min(as_utc(attempt.started_at) + limit, end)
            attempt.deadline = deadline
        waiting = attempt.release_at is None or as_utc(attempt.release_at) > now
        after_close = (attempt.rules or {}).get("release") == "after_close"
        if attempt.status == "submitted" and after_close and waiting:
            session.flush()
            scoring.set_release(session=session, attempt=attempt)
            if attempt.score is not None:  # its LMS post waits for the new release
                queue_grade(
                    session=session,
                    user_id=attempt.user_id,
                    kind=scoring.KIND,
                    slug=attempt.assessment_slug,
                    not_before=attempt.release_at,
                )
