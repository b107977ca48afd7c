"""A course's first offering: what its URLs without an offering mean, and where rows written
before offerings count (the first course's first offering). The app always names the course."""

from __future__ import annotations

import functools

from sqlalchemy import ColumnElement, ScalarSelect, and_, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.content.first import first_course_slug
from app.db import serialize
from app.offerings.models import Offering


def first_offering_id_query(course_slug: str) -> ScalarSelect[int]:
    """SQL for the course's first offering's id: what its URLs without an offering mean (built
    once per course: an immutable statement, and building it cost a page as much as running it,
    issue 54)."""
    return _first_offering_id(course_slug)


@functools.cache
def _first_offering_id(course_slug: str) -> ScalarSelect[int]:
    return (
        select(func.min(Offering.id)).where(Offering.course_slug == course_slug).scalar_subquery()
    )


def legacy_offering_id_query() -> ScalarSelect[int]:
    """SQL for the offering that rows written before offerings (offering_id NULL) count in: the
    first offering of the first course (CONTENT_DIR's), the only course there was then."""
    return first_offering_id_query(first_course_slug())


def offering_and_legacy(
    *, session: Session, offering_id: int | None, course_slug: str | None = None
) -> tuple[int | None, bool]:
    """The offering's id (None: the course's first; still None when it has none), and whether
    rows written before offerings (offering_id NULL) count in it, as they do in the first
    course's first offering. A request names its course (its Place's); a stored row that
    names no offering and no course (a background job's) means the first course."""
    legacy = session.scalar(select(legacy_offering_id_query()))
    here = offering_id
    if here is None:
        first_here = course_slug is None or course_slug == first_course_slug()
        here = legacy if first_here else _first_id(session, course_slug)
    return here, here is not None and here == legacy


def _first_id(session: Session, course_slug: str | None) -> int | None:
    return session.scalar(select(first_offering_id_query(course_slug or first_course_slug())))


def first_offering(*, session: Session, course_slug: str | None = None) -> Offering:
    """The course's first offering: what its URLs without an offering mean (the first course's
    is the one today's data moved into); made, open, when the course has none yet. None: the
    first course (CONTENT_DIR's); the app always names the course (tests/courses/test_one_place)."""
    slug = first_course_slug() if course_slug is None else course_slug
    first = select(Offering).where(Offering.course_slug == slug).order_by(Offering.id).limit(1)
    found = session.scalar(first)
    if found is None:  # another request to the new course may be making it: one of us does
        serialize(session, f"first offering of {slug}")
        found = session.scalar(first)
    if found is None:  # a course's public offering ships open
        found = Offering(course_slug=slug, title="First offering", is_open=True)
        session.add(found)
        session.flush()
    return found


NOWHERE = 0  # no offering has this id: reading dates there gives the content's and no policy


def where_row_counts(*, session: Session, offering_id: int | None, course_slug: str) -> int | None:
    """The offering a stored row counts in: its own; a row with none counts in the first
    course's first offering when it is of the first course (written before offerings, or
    self-study there, as before), and nowhere (None) when it is of another course."""
    if offering_id is not None:
        return offering_id
    if course_slug != first_course_slug():
        return None
    return session.scalar(select(legacy_offering_id_query()))


def dated_in(*, session: Session, offering_id: int | None, course_slug: str) -> int:
    """The offering whose dates and late policy a row is judged by (`where_row_counts`;
    NOWHERE for self-study in another course: the content's dates, no policy)."""
    where = where_row_counts(session=session, offering_id=offering_id, course_slug=course_slug)
    return NOWHERE if where is None else where


def rows_before_offerings(column: InstrumentedAttribute[int | None]) -> ColumnElement[bool]:
    """SQL: the rows with no offering that count in the first course's first offering: those
    of the first course where the table records a course (another course's self-study counts
    in no offering, `where_row_counts`)."""
    return rows_without_offering(column, first_course_slug())


def rows_without_offering(
    column: InstrumentedAttribute[int | None], course_slug: str | None
) -> ColumnElement[bool]:
    """SQL: rows with no offering (self-study, or written before offerings), of that course
    where the table records a course and one is named."""
    course = getattr(column.class_, "course_slug", None)
    if course is None or course_slug is None:
        return column.is_(None)
    return and_(column.is_(None), course == course_slug)
