"""A student's dates in one union statement, on SQLite and PostgreSQL (issue 49)."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import event

from app.db import get_engine, session_factory
from app.deadlines.models import DeadlineExtension, LatePolicy, OfferingDue
from app.deadlines.term import student_term_for_work
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.service import create_user

DUE = dt.datetime(2027, 3, 1, 17, tzinfo=dt.UTC)


def test_dates_extension_and_policy_come_in_one_statement(each_database: None) -> None:
    with session_factory()() as session:
        user, _ = create_user(session=session, email="s@example.org", password="pw-pw-pw-pw")
        first = first_offering(session=session)
        other = create_offering(session=session, course_slug=first.course_slug, title="Later")
        enroll(session=session, offering=other, user=user, role=OfferingRole.student)
        session.add_all(
            [
                OfferingDue(offering_id=other.id, kind="exercise", slug="a", due_at=DUE),
                OfferingDue(offering_id=first.id, kind="exercise", slug="b", due_at=DUE),
                DeadlineExtension(
                    user_id=user.id,
                    kind="quiz",
                    slug="q",
                    due_at=DUE + dt.timedelta(days=2),
                    reason="illness",
                    offering_id=other.id,
                ),
                LatePolicy(offering_id=other.id, mode="penalty", percent_per_day=5, max_percent=20),
            ]
        )
        session.commit()
        seen: list[str] = []
        record = lambda *args: seen.append(args[2])  # noqa: E731
        event.listen(get_engine(), "before_cursor_execute", record)
        try:
            term = student_term_for_work(
                session=session, user_id=user.id, course_slug=first.course_slug, named=None
            )
            named = student_term_for_work(
                session=session, user_id=user.id, course_slug=first.course_slug, named=first.id
            )
        finally:
            event.remove(get_engine(), "before_cursor_execute", record)
    assert len(seen) == 2  # one statement each
    assert term.item("exercise", "a", None).due == DUE
    # named: an offering they are not in, not open to them either, falls back to their own
    assert named.item("exercise", "a", None).due == DUE
    assert term.item("exercise", "b", None).due is None  # another offering's date
    quiz = term.item("quiz", "q", DUE)
    assert quiz.extended and quiz.reason == "illness" and quiz.due == DUE + dt.timedelta(days=2)
    assert quiz.policy == "Late work loses 5% of its score per day late, at most 20%."
    late = DUE + dt.timedelta(days=1, hours=1)
    assert term.counted("exercise", "a", None, 0.8, late) == pytest.approx(0.8 * 0.9)
