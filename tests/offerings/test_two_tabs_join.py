"""Two requests of one student at once (two tabs, a double click) that each make them a member:
both read "not a member" and both add the membership. The second insert met the unique
constraint and the student got a 500: two submissions in an open offering they had not joined
(found by `bench --scenario burst`), and a double click on Join with an invitation code.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from app.courses.first import first_course_slug
from app.db import session_factory
from app.models_base import utcnow
from app.offerings.models import Enrollment, OfferingRole
from app.offerings.service import first_offering, join_by_code, offering_for_work
from app.users.models import User
from app.users.service import create_user
from tests.races import inserting, other_request_before


def _other_tab_joins(user_id: int, offering_id: int) -> Callable[[Session], None]:
    """The other request's insert (another web process's, say)."""

    def join(session: Session) -> None:
        session.execute(
            insert(Enrollment).values(
                offering_id=offering_id,
                user_id=user_id,
                role=OfferingRole.student,
                source="open",
                created_at=utcnow(),
            )
        )

    return join


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

    other = _other_tab_joins(user_id, offering_id)
    with other_request_before(inserting("enrollments"), other) as ran, session_factory()() as db:
        joined = join(db, user_id)
        db.commit()
        rows = db.scalar(
            select(func.count()).select_from(Enrollment).where(Enrollment.user_id == user_id)
        )
    assert (ran, joined, rows) == ([True], offering_id, 1)


def test_a_new_course_opened_by_two_requests_at_once_gets_one_first_offering(
    client_on_each_database: TestClient,
) -> None:
    """The first two visitors of a course with no offering yet both read "none": each made one,
    and the second's students and grades went to an offering no page ever shows."""
    from app.offerings.first import first_offering as first_of
    from app.offerings.models import Offering
    from tests.races import WRITING, other_request_before

    def visit(session: Session) -> int:
        return first_of(session=session, course_slug="new-course").id

    with other_request_before(WRITING, visit) as ran, session_factory()() as session:
        mine = visit(session)
        session.commit()
    with session_factory()() as session:
        made = session.scalars(
            select(Offering.id).where(Offering.course_slug == "new-course")
        ).all()
    assert ran == [True] and made == [mine]


def test_a_double_click_on_start_offering_makes_one(client_on_each_database: TestClient) -> None:
    """Both clicks read "no offering of that title yet": the second now waits for the first."""
    from app.offerings.models import Offering
    from app.offerings.service import OfferingError, create_offering
    from tests.races import WRITING, other_request_before

    def start(session: Session) -> None:
        create_offering(session=session, course_slug=first_course_slug(), title="Spring 2027")

    refused = pytest.raises(OfferingError, match="already has an offering called 'Spring 2027'")
    with other_request_before(WRITING, start) as ran, session_factory()() as session, refused:
        start(session)
    with session_factory()() as session:
        titles = session.scalars(select(Offering.title).where(Offering.title == "Spring 2027"))
        assert ran == [True] and titles.all() == ["Spring 2027"]


def test_a_roster_sent_while_a_listed_student_joins_enrols_everyone_once(
    client_on_each_database: TestClient,
) -> None:
    """The upload sent twice, or a student on the list joining by code as it runs: the roster's
    insert meets the other's row. It reads again and enrols everyone, each once."""
    from app.offerings.models import OfferingRole
    from app.offerings.roster import RosterLine, apply_roster
    from tests.races import inserting, other_request_before

    lines = [
        RosterLine(line=n, email=f"s{n}@example.org", name=f"S {n}", role=OfferingRole.student)
        for n in (1, 2)
    ]

    def upload(session: Session) -> None:
        apply_roster(session=session, offering=first_offering(session=session), lines=lines)

    with other_request_before(inserting("enrollments"), upload) as ran, session_factory()() as s:
        result = apply_roster(session=s, offering=first_offering(session=s), lines=lines)
    with session_factory()() as session:
        emails = session.scalars(
            select(User.email).join(Enrollment, Enrollment.user_id == User.id).order_by(User.id)
        ).all()
    assert ran == [True] and result.enrolled == 2
    assert emails == ["s1@example.org", "s2@example.org"]
