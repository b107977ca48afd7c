"""Offerings and enrollments: create, look up, join, and who holds which role where."""

from __future__ import annotations

import datetime as dt
import functools
import secrets
from collections.abc import Collection
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    DateTime,
    ScalarSelect,
    Table,
    and_,
    bindparam,
    case,
    false,
    func,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.config import get_settings
from app.content.first import first_course_slug
from app.db import serialize
from app.errors import DomainError
from app.events import AccountCreated
from app.models_base import as_utc, utcnow
from app.offerings.first import first_offering as first_offering  # tests' and callers' name
from app.offerings.first import (
    offering_and_legacy,
    rows_before_offerings,
    rows_without_offering,
)
from app.offerings.models import STAFF, Enrollment, Offering, OfferingRole
from app.users.models import Role, User

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
JOIN_CODE_LENGTH = 8


class OfferingError(DomainError, ValueError):
    """A request about an offering that cannot be honoured, said as a clause.

    The command line prints the clause after "error: " (`str(exc)`: "there is no offering 9");
    the web answers with the status and the clause as a sentence (`exc.message`: "There is no
    offering 9."), in the one DomainError handler (app/web/errors.py).
    """

    def __init__(self, clause: str, *, status: int = 422) -> None:
        super().__init__(status, clause[:1].upper() + clause[1:] + ".")
        self.clause = clause

    def __str__(self) -> str:
        return self.clause


def new_join_code() -> str:
    """A code short enough to read out in class, long enough not to guess (32^8)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def work_in(
    column: InstrumentedAttribute[int | None], offering_id: int | None, *, legacy: bool
) -> ColumnElement[bool]:
    """SQL: a row of work (a submission, a quiz attempt) counts in this offering: its own
    `offering_id`, not the person's memberships, says where; with `legacy` (the first offering)
    also rows from before offerings. Plain equalities OR-ed, so an index on the column serves."""
    if offering_id is None:
        return false()
    return or_(column == offering_id, *([rows_before_offerings(column)] if legacy else []), false())


def in_offering(
    *,
    session: Session,
    column: InstrumentedAttribute[int | None],
    offering_id: int | None,
    course_slug: str | None = None,
) -> ColumnElement[bool]:
    """SQL: the row belongs to this offering (rows without one count in the first course's
    first); None, the offering of work done in no offering (self-study: `offering_for_work`
    found none): rows without one, of that course where named, so that a limit is never
    lifted by it."""
    if offering_id is None:
        return rows_without_offering(column, course_slug)
    here, legacy = offering_and_legacy(
        session=session, offering_id=offering_id, course_slug=course_slug
    )
    return work_in(column, here, legacy=legacy)


def get_offering(*, session: Session, offering_id: int) -> Offering:
    """The offering with this id, or a clear error."""
    found = session.get(Offering, offering_id)
    if found is None:
        raise OfferingError(f"there is no offering {offering_id}", status=404)
    return found


def parse_day(text: str | None) -> dt.datetime | None:
    """A date (or date and time) as typed on the command line or in the admin form."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        return as_utc(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))
    except ValueError as exc:
        raise OfferingError(f"'{text[:40]}' is not a date like 2027-01-15") from exc


def _same_title(title: str) -> str:
    return " ".join(title.split()).casefold()


def create_offering(
    *,
    session: Session,
    course_slug: str,
    title: str,
    starts_at: dt.datetime | None = None,
    ends_at: dt.datetime | None = None,
    with_join_code: bool = True,
    known_courses: Collection[str] | None = None,
    is_open: bool = False,
) -> Offering:
    """A new offering of a course, with a fresh join code unless asked for none; closed
    unless `is_open` (then anyone signed in may study in it).

    `known_courses`: the slugs the site serves (the command line and the admin page pass them;
    an unknown slug is refused). A second offering of the same course with the same title
    (ignoring case and spaces) is refused: two "Spring 2027, section A" cannot be told apart.
    """
    slug, title = course_slug.strip(), title.strip()
    if not slug:
        raise OfferingError("name the course the offering runs (its slug)")
    if not title:
        raise OfferingError("give the offering a title, e.g. 'Spring 2027, section A'")
    if len(title) > 200 or len(slug) > 100:
        raise OfferingError("the title is limited to 200 characters and the course slug to 100")
    if known_courses is not None and slug not in known_courses:
        listed = ", ".join(known_courses) or "none"
        raise OfferingError(f"there is no course called '{slug}' (the courses are: {listed})")
    if starts_at and ends_at and ends_at <= starts_at:
        raise OfferingError("the offering must end after it starts")
    wanted = _same_title(title)
    serialize(session, f"offerings of {slug}")  # a double click on Start makes one offering
    for found in session.scalars(select(Offering).where(Offering.course_slug == slug)):
        if _same_title(found.title) == wanted:
            raise OfferingError(
                f"the course '{slug}' already has an offering called '{found.title}' "
                f"(offering {found.id}); choose another title"
            )
    offering = Offering(
        course_slug=slug,
        title=title,
        starts_at=starts_at,
        ends_at=ends_at,
        join_code=new_join_code() if with_join_code else None,
        is_open=is_open,
    )
    session.add(offering)
    session.commit()
    return offering


def offering_rows(*, session: Session, course_slug: str | None = None) -> list[dict[str, Any]]:
    """Offerings (of one course, or all) oldest first, with their member counts and dates."""
    query = select(Offering).order_by(Offering.id)
    counting = select(Enrollment.offering_id, func.count()).group_by(Enrollment.offering_id)
    if course_slug is not None:
        query = query.where(Offering.course_slug == course_slug)
        counting = counting.join(Offering, Offering.id == Enrollment.offering_id).where(
            Offering.course_slug == course_slug
        )
    counts = dict(session.execute(counting).all())
    return [
        {
            "id": o.id,
            "course": o.course_slug,
            "title": o.title,
            "starts_at": as_utc(o.starts_at).isoformat() if o.starts_at else None,
            "ends_at": as_utc(o.ends_at).isoformat() if o.ends_at else None,
            "join_code": o.join_code,
            "open": o.is_open,
            "members": counts.get(o.id, 0),
        }
        for o in session.scalars(query)
    ]


def role_in(*, session: Session, user_id: int, offering_id: int) -> OfferingRole | None:
    """The person's role in the offering, or None when they are not in it."""
    role = session.scalar(
        select(Enrollment.role).where(
            Enrollment.offering_id == offering_id, Enrollment.user_id == user_id
        )
    )
    return None if role is None else OfferingRole(role)


def enroll(
    *,
    session: Session,
    offering: Offering,
    user: User,
    role: OfferingRole,
    source: str = "admin",
    commit: bool = True,
) -> Enrollment:
    """Put the person in the offering with this role (or change the role they hold there)."""
    found = session.scalar(
        select(Enrollment).where(
            Enrollment.offering_id == offering.id, Enrollment.user_id == user.id
        )
    )
    if found is None:
        found = Enrollment(offering_id=offering.id, user_id=user.id, role=role, source=source)
        session.add(found)
    else:
        found.role, found.source = role, source
    if commit:
        session.commit()
    return found


def join_first(*, session: Session, user: User) -> Enrollment | None:
    """A new account created as an instructor (`users create --role instructor`) teaches the
    first offering, if so set. Nobody else is placed anywhere: a student becomes a member of
    an open offering by working in it, and enters a closed one only by a join code, a roster,
    `offerings enroll` or an LMS launch."""
    if not get_settings().new_accounts_join_first_offering or user.role != Role.instructor:
        return None
    offering = first_offering(session=session, course_slug=first_course_slug())
    return enroll(
        session=session, offering=offering, user=user, role=OfferingRole.instructor, source="signup"
    )


def join_first_on_creation(event: AccountCreated) -> None:
    """The subscriber: a new account joins the first offering, unless its creator places it."""
    if event.enrolled_by_creator:
        return
    user = event.session.get(User, event.user_id)
    if user is not None:
        join_first(session=event.session, user=user)


def join_by_code(*, session: Session, user: User, code: str) -> Offering:
    """Join as a student with an invitation code; staff already there keep their role."""
    cleaned = code.strip().upper()
    offering = (
        session.scalar(select(Offering).where(Offering.join_code == cleaned)) if cleaned else None
    )
    if offering is None:
        raise OfferingError(
            "this invitation code is not valid (it may have been replaced); ask your instructor",
            status=404,
        )
    if role_in(session=session, user_id=user.id, offering_id=offering.id) is None:
        _add_member(session=session, offering_id=offering.id, user_id=user.id, source="code")
        session.commit()
    return offering


def students_of(offering_id: int | ScalarSelect[int]) -> ColumnElement[bool]:
    """SQL: the user is a student of that offering (for the queries of the staff's pages)."""
    return User.id.in_(
        select(Enrollment.user_id).where(
            Enrollment.offering_id == offering_id, Enrollment.role == OfferingRole.student
        )
    )


def is_staff(role: OfferingRole | None) -> bool:
    """Whether the role sees students' work there."""
    return role in STAFF


def members_of(offering_id: int | ScalarSelect[int]) -> ColumnElement[bool]:
    """SQL: the user holds any role in that offering."""
    return User.id.in_(select(Enrollment.user_id).where(Enrollment.offering_id == offering_id))


def offering_for_work(
    *, session: Session, user_id: int, course_slug: str, named: int | None
) -> int | None:
    """The offering a person's new work in a course counts in, so two terms keep two grades.

    The offering the request names when they belong to it; else the newest offering of that
    course they belong to, one they are a student of that has not ended first (`sits_first`: a
    student of one section who is a TA of another sits its exams and counts in its gradebook);
    else an open offering of the
    course (the named one when open, else the oldest), which they join as a student by this
    work; None when there is none (their work then counts nowhere: a closed offering is entered
    only by code, roster or LMS).
    """
    mine = (
        select(Enrollment.offering_id)
        .join(Offering, Offering.id == Enrollment.offering_id)
        .where(Enrollment.user_id == user_id, Offering.course_slug == course_slug)
    )
    if named is not None:
        found = session.scalar(mine.where(Enrollment.offering_id == named))
        if found is not None:
            return found
    found = session.scalar(mine.order_by(*sits_first(utcnow())).limit(1))
    if found is not None:
        return found
    return _join_open(session=session, user_id=user_id, course_slug=course_slug, named=named)


def _join_open(
    *, session: Session, user_id: int, course_slug: str, named: int | None
) -> int | None:
    """Working in an open offering makes a member of it (its staff then see them)."""
    query = select(Offering).where(Offering.course_slug == course_slug, Offering.is_open)
    if named is not None:
        offering = session.scalar(query.where(Offering.id == named))
    else:
        offering = session.scalar(query.order_by(Offering.id).limit(1))
    if offering is None or session.get(User, user_id) is None:
        return None
    _add_member(session=session, offering_id=offering.id, user_id=user_id, source="open")
    return offering.id


def _add_member(*, session: Session, offering_id: int, user_id: int, source: str) -> None:
    """Add a student unless a request of theirs just did: two tabs (a submission each, a double
    click on Join) both read "not a member", and the second must find the first, not fail."""
    add = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(
        add(cast(Table, Enrollment.__table__))
        .values(offering_id=offering_id, user_id=user_id, role=OfferingRole.student, source=source)
        .on_conflict_do_nothing(index_elements=["offering_id", "user_id"])
    )


WORK_PARAMS = ("work_user_id", "work_course_slug", "work_named", "work_now", "work_first_course")


def work_params(*, user_id: int, course_slug: str, named: int | None) -> dict[str, Any]:
    """The values `offering_for_work_bound(named=named is not None)` reads, by WORK_PARAMS."""
    values: dict[str, Any] = dict(
        zip(WORK_PARAMS, (user_id, course_slug, named, utcnow(), first_course_slug()), strict=True)
    )
    if named is None:
        del values[WORK_PARAMS[2]]
    return values


def sits_first(now: Any) -> tuple[ColumnElement[Any], ...]:
    """SQL order of a person's offerings of a course for their work: one they are a student of
    that has not ended first (not an old term's, not one they teach), then the newest."""
    sits = and_(
        Enrollment.role == OfferingRole.student,
        or_(Offering.ends_at.is_(None), Offering.ends_at > now),
    )
    return (case((sits, 0), else_=1), Offering.id.desc())


@functools.cache
def offering_for_work_bound(*, named: bool) -> ScalarSelect[int]:
    """`offering_for_work` as SQL, built once, its values left as the parameters WORK_PARAMS (the
    third only when `named`, the fourth the time now, the fifth the first course's slug): the
    named offering they belong to, else their newest of the course (`sits_first`), else the
    course's open offering their work would join, else the first course's first offering (NULL
    in another course: self-study there counts nowhere, `where_row_counts`, so the content's
    dates). Pages run it for every student without joining anyone."""
    user_id: Any = bindparam(WORK_PARAMS[0])
    course_slug: Any = bindparam(WORK_PARAMS[1])
    offering: Any = bindparam(WORK_PARAMS[2]) if named else None
    now = bindparam(WORK_PARAMS[3], type_=DateTime(timezone=True))
    return _offering_for_work(user_id, course_slug, offering, now)


def _offering_for_work(user_id: Any, course_slug: Any, named: Any, now: Any) -> ScalarSelect[int]:
    mine = (
        select(Enrollment.offering_id)
        .join(Offering, Offering.id == Enrollment.offering_id)
        .where(Enrollment.user_id == user_id, Offering.course_slug == course_slug)
    )
    open_here = select(Offering.id).where(Offering.course_slug == course_slug, Offering.is_open)
    choices = [mine.order_by(*sits_first(now)).limit(1).scalar_subquery()]
    if named is not None:
        choices.insert(0, mine.where(Enrollment.offering_id == named).scalar_subquery())
        choices.append(open_here.where(Offering.id == named).scalar_subquery())
    choices.append(open_here.order_by(Offering.id).limit(1).scalar_subquery())
    first_course: Any = bindparam(WORK_PARAMS[4])  # its self-study counts in its first offering
    first_here = select(func.min(Offering.id)).where(
        Offering.course_slug == course_slug, Offering.course_slug == first_course
    )
    choices.append(first_here.scalar_subquery())
    return select(func.coalesce(*choices)).scalar_subquery()
