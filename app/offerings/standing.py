"""What a person may see as staff, from their role in the place the work or content belongs to.

There is no global teaching role: `users.role` grants nothing. A site administrator may act
everywhere; anyone else is staff of an offering only through their enrolment there.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import exists, or_, select
from sqlalchemy.orm import Session

from app.offerings.first import where_row_counts
from app.offerings.models import STAFF, Enrollment, Offering, OfferingRole
from app.offerings.service import is_staff, role_in
from app.users.models import User


def staff_of_work(
    *, session: Session, user: User, offering_id: int | None, course_slug: str
) -> bool:
    """Whether the person sees this work as staff: a site administrator, or an instructor or
    TA of the offering it counts in (`where_row_counts`: self-study counts in none)."""
    if user.is_admin:
        return True
    where = where_row_counts(session=session, offering_id=offering_id, course_slug=course_slug)
    if where is None:
        return False
    return is_staff(role_in(session=session, user_id=user.id, offering_id=where))


def staff_of_course(*, session: Session, user: User | None, course_slug: str) -> bool:
    """Whether the person teaches this course (instructor or TA of one of its offerings) or is
    a site administrator: they see its draft items, problems and model solutions."""
    if user is None:
        return False
    if user.is_admin:
        return True
    return bool(
        session.scalar(
            select(
                exists().where(
                    Enrollment.user_id == user.id,
                    Enrollment.role.in_(sorted(STAFF)),
                    Enrollment.offering_id == Offering.id,
                    Offering.course_slug == course_slug,
                )
            )
        )
    )


def exempt_from_exams(
    *, session: Session, user: User | None, course_slug: str, now: dt.datetime
) -> bool:
    """Whether an open exam of this course holds nothing back from this person: they teach the
    course (or run the site) and are a student of none of its offerings that has not ended. A
    student of one section who is a TA of another is held as a student; last term's student
    who is this term's TA is not."""
    if user is None:
        return False
    sits = exists().where(
        Enrollment.user_id == user.id,
        Enrollment.role == OfferingRole.student,
        Enrollment.offering_id == Offering.id,
        Offering.course_slug == course_slug,
        or_(Offering.ends_at.is_(None), Offering.ends_at > now),
    )
    if session.scalar(select(sits)):
        return False
    return staff_of_course(session=session, user=user, course_slug=course_slug)


def instructs_course(*, session: Session, user: User, course_slug: str) -> bool:
    """A site admin or an instructor of one of the course's offerings: may start one, refresh."""
    if user.is_admin:
        return True
    found = session.scalar(
        select(Enrollment.id)
        .join(Offering, Offering.id == Enrollment.offering_id)
        .where(
            Enrollment.user_id == user.id,
            Enrollment.role == OfferingRole.instructor,
            Offering.course_slug == course_slug,
        )
        .limit(1)
    )
    return found is not None
