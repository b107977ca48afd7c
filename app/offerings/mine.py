"""What the home page shows of the offerings a person is in, read as columns (issue 54)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.db import read_rows
from app.offerings.models import Enrollment, Offering, OfferingRole


@dataclass(frozen=True)
class MembershipRow:
    """What the home page shows of an offering the person is in: its id, course, title, role."""

    offering_id: int
    course_slug: str
    title: str
    role: OfferingRole


_MEMBERSHIP_ROWS = (
    select(Offering.id, Offering.course_slug, Offering.title, Enrollment.role)
    .join(Enrollment, Enrollment.offering_id == Offering.id)
    .where(Enrollment.user_id == bindparam("user_id"))
    .order_by(Offering.id.desc())
)


def membership_rows(*, session: Session, user_id: int) -> list[MembershipRow]:
    """Every offering the person is in, newest first, with their role there.

    Why columns: the home page reads them on every view, the first page of every student;
    loading each offering as a mapped object went through the ORM's layers (issue 54)."""
    rows = read_rows(session, _MEMBERSHIP_ROWS, {"user_id": user_id})
    return [MembershipRow(i, course, title, OfferingRole(role)) for i, course, title, role in rows]
