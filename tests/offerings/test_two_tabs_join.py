"""Two requests of one student at once (two tabs, a double click) that each make them a member:
both read "not a member" and both add the membership. The second insert met the unique
constraint and the student got a 500: two submissions in an open offering they had not joined
(found by `bench --scenario burst`), and a double click on Join with an invitation code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, func, insert, select
from sqlalchemy.orm import Session

from app.courses.first import first_course_slug
from app.db import session_factory
from app.models_base import utcnow
from app.offerings.models import Enrollment, OfferingRole
from app.offerings.service import first_offering, join_by_code, offering_for_work
from app.users.models import User
from app.users.service import create_user


def _other_tab_joins(url: str, user_id: int, offering_id: int) -> None:
    """The other request's insert, on a connection of its own (another web process's, say)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(Enrollment).values(
                    offering_id=offering_id,
                    user_id=user_id,
                    role=OfferingRole.student,
                    source="open",
                    created_at=utcnow(),
                )
            )
    finally:
        engine.dispose()


def _by_submission(session: Session, user_id: int) -> int | None:
    return offering_for_work(
        session=session, user_id=user_id, course_slug=first_course_slug(), named=None
    )


def _by_code(session: Session, user_id: int) -> int | None:
    offering = first_offering(session=session)
    user = session.get(User, user_id)
    assert user is not None and offering.join_code
    return join_by_code(session=session, user=user, code=offering.join_code).id


@pytest.mark.parametrize("join", [_by_submission, _by_code], ids=["submission", "join code"])
def test_the_second_of_two_joins_at_once_finds_the_first(
    client_on_each_database: TestClient, join: Callable[[Session, int], int | None]
) -> None:
    """This request reads "not a member"; the other tab's request adds the membership before
    this one writes it: this one still answers the offering, and one row stays."""
    with session_factory()() as session:
        user, _ = create_user(session=session, email="twotabs@example.org", password="pw-12345678")
        offering = first_offering(session=session)
        offering.join_code = offering.join_code or "TWOTABS1"
        session.commit()
        user_id, offering_id = user.id, offering.id

    engine = session_factory().kw["bind"]
    pending = [user_id]

    def before_write(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if pending and statement.lstrip().upper().startswith("INSERT INTO ENROLLMENTS"):
            _other_tab_joins(engine.url.render_as_string(False), pending.pop(), offering_id)

    event.listen(engine, "before_cursor_execute", before_write)
    try:
        with session_factory()() as session:
            joined = join(session, user_id)
            session.commit()
            rows = session.scalar(
                select(func.count()).select_from(Enrollment).where(Enrollment.user_id == user_id)
            )
    finally:
        event.remove(engine, "before_cursor_execute", before_write)
    assert (pending, joined, rows) == ([], offering_id, 1)


def test_a_new_course_opened_by_two_requests_at_once_gets_one_first_offering(
    client_on_each_database: TestClient,
) -> None:
    """The first two visitors of a course with no offering yet both read "none": each made one,
    and the second's students and grades went to an offering no page ever shows."""
    import re

    from app.offerings.first import first_offering as first_of
    from app.offerings.models import Offering

    engine = session_factory().kw["bind"]
    url = engine.url.render_as_string(False)
    pending = ["new-course"]
    # The other request lands as this one goes to write: its lock, or (without one) its insert.
    writing = re.compile(r"\s*(SELECT pg_advisory_xact_lock|UPDATE alembic_version|INSERT INTO)")

    def before_write(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if pending and writing.match(statement):
            other = create_engine(url)
            try:
                with Session(other) as session:
                    first_of(session=session, course_slug=pending.pop())
                    session.commit()
            finally:
                other.dispose()

    event.listen(engine, "before_cursor_execute", before_write)
    try:
        with session_factory()() as session:
            mine = first_of(session=session, course_slug="new-course").id
            session.commit()
    finally:
        event.remove(engine, "before_cursor_execute", before_write)
    with session_factory()() as session:
        made = session.scalars(
            select(Offering.id).where(Offering.course_slug == "new-course")
        ).all()
    assert pending == [] and made == [mine]
