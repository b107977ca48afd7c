"""Shared by the LTI tests: a submission graded through the job path, waiting on the outbox."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from app.db import session_factory
from app.grading import leases
from app.lti.models import LtiGradePost, LtiUser
from app.submissions.models import Submission
from tests.jobs.helpers import wait_until
from tests.lti.platform import LTI

EXERCISE = {LTI + "custom": {"target": "exercise:alibi-bias"}}


def _wait(condition: Callable[[], object], seconds: float = 10.0) -> None:
    wait_until(lambda: bool(condition()), seconds, "the LTI outbox")


def _graded_submission(user_id: int, score: float) -> None:
    """A submission graded through the job path's own store step (the grading hook)."""
    with session_factory()() as session:
        row = Submission(
            user_id=user_id,
            exercise_slug="alibi-bias",
            framework="numpy",
            mode="submit",
            code="x = 1",
            status="queued",
        )
        session.add(row)
        session.commit()
        claim = leases.claim(session=session, submission_id=row.id, lease_seconds=30)
        assert claim is not None
        report = {"verdict": "partial", "score": score, "message": "ok", "duration_ms": 1.0}
        assert leases.finish(session=session, held=claim, report=report)


def _posts() -> list[LtiGradePost]:
    with session_factory()() as session:
        return list(session.scalars(select(LtiGradePost).order_by(LtiGradePost.id)))


def _all_sent() -> bool:
    statuses = [p.status for p in _posts()]
    return bool(statuses) and all(s == "sent" for s in statuses)


def _settled() -> bool:
    """Every grade post was sent or failed for good."""
    statuses = [p.status for p in _posts()]
    return bool(statuses) and all(s in ("sent", "failed") for s in statuses)


def _user_id(sub: str) -> int:
    with session_factory()() as session:
        return session.scalars(select(LtiUser.user_id).where(LtiUser.sub == sub)).one()
