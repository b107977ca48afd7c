"""Who may do what in which offering: the role checks every staff route depends on.

URLs without an offering mean the course's first one; `/offerings/{id}/instructor/...` and
`/offerings/{id}/api/...` mean the same pages in offering `id` (the middleware below strips the
prefix, so each page exists once; its check, and its Place, read the offering from the scope).
Queries take that Place as an argument (app/offerings/place.py): no offering is global state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import ColumnElement, ScalarSelect, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session
from starlette.types import ASGIApp, Receive, Scope, Send

from app.content.first import course_slug_of
from app.db import release
from app.errors import DomainError
from app.offerings.first import (
    first_offering,
    first_offering_id_query,
    offering_and_legacy,
    rows_before_offerings,
)
from app.offerings.models import STAFF, Offering, OfferingRole
from app.offerings.place import SCOPE_KEY, ForeignOffering, Place, offering_named
from app.offerings.service import (
    enroll,
    get_offering,
    members_of,
    role_in,
    students_of,
    work_in,
)
from app.users.deps import CurrentUser
from app.users.models import User
from app.web.course_urls import SCOPE_COURSE
from app.web.request_session import SessionDep

_PREFIX = re.compile(r"^/offerings/(\d{1,9})(/(?:instructor|api/)[^?]*)$")

STUDENTS_REFUSED = "This page is for instructors only."
NOT_A_MEMBER = "You are not a member of this offering."
TA_REFUSED = "Teaching assistants cannot change this; ask an instructor of this offering."


class OfferingAccessError(DomainError):
    """403: the asker holds no role, or not the one needed, in the request's offering."""

    def __init__(self, message: str) -> None:
        super().__init__(403, message)


class OfferingPrefixMiddleware:
    """Serves `/offerings/{id}/<staff page>` by the staff page, noting the offering in the scope
    (from which `get_place` builds the request's Place)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Strip the prefix and note the offering in the request's scope."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = _PREFIX.match(scope["path"])
        if found is None:
            await self.app(scope, receive, send)
            return
        offering_id, rest = int(found[1]), found[2]
        scope = {**scope, "path": rest, "raw_path": rest.encode(), SCOPE_KEY: offering_id}
        await self.app(scope, receive, send)


def offering_here(place: Place) -> int | ScalarSelect[int]:
    """The place's offering id, or SQL for its course's first offering's (staff pages' queries)."""
    if place.offering_id is None:
        return first_offering_id_query(place.course_slug)
    return place.offering_id


def offering_id_here(*, session: Session, place: Place) -> tuple[int | None, bool]:
    """The place's offering id (None: its course has no offering), and whether rows written
    before offerings (offering_id NULL) count in it, as they do in the first course's first.

    An id rather than SQL, so that a query can say `offering_id = 7` and use an index on it.
    """
    return offering_and_legacy(
        session=session, offering_id=place.offering_id, course_slug=place.course_slug
    )


def work_here(
    session: Session, column: InstrumentedAttribute[int | None], place: Place
) -> ColumnElement[bool]:
    """SQL: the work row was done in the place's offering (by its own offering_id)."""
    here, legacy = offering_id_here(session=session, place=place)
    return work_in(column, here, legacy=legacy)


def work_here_parts(
    session: Session, column: InstrumentedAttribute[int | None], place: Place
) -> list[ColumnElement[bool]]:
    """One condition per SELECT to UNION: the place's offering's rows, and in the first offering
    also rows from before offerings. Plain equality, so an index on the column finds the rows."""
    here, legacy = offering_id_here(session=session, place=place)
    if here is None:
        return []
    return [column == here, *([rows_before_offerings(column)] if legacy else [])]


def row_here(session: Session, offering_id: int | None, place: Place) -> bool:
    """Whether a row of work with this offering_id belongs to the place's offering (an
    object of another place is then looked up as if it did not exist: a plain 404)."""
    here, legacy = offering_id_here(session=session, place=place)
    if here is None:
        return False
    return offering_id == here or (legacy and offering_id is None)


def students_here(place: Place) -> ColumnElement[bool]:
    """SQL: the user is a student of the place's offering (staff pages' queries)."""
    return students_of(offering_here(place))


def members_here(place: Place) -> ColumnElement[bool]:
    """SQL: the user holds any role in the place's offering."""
    return members_of(offering_here(place))


def is_member_here(session: Session, user_id: int, place: Place) -> bool:
    """Whether the person is in the place's offering (a lookup by id from another is a 404)."""
    return bool(
        session.scalar(
            select(func.count()).select_from(User).where(User.id == user_id, members_here(place))
        )
    )


def set_role_here(session: Session, user: User, role: OfferingRole, place: Place) -> None:
    """Give the person this role in the place's offering (a role set here: no LMS undoes it)."""
    offering = offering_of(session, place)
    enroll(session=session, offering=offering, user=user, role=role, source="admin")


@dataclass(frozen=True)
class Member:
    """The person asking, the offering the URL names, and their role there."""

    user: User
    offering: Offering
    role: OfferingRole


def offering_of(session: Session, place: Place) -> Offering:
    """The place's offering (see `offering_at`)."""
    return offering_at(session, place.course_slug, place.offering_id)


def offering_at(session: Session, course_slug: str, named: int | None) -> Offering:
    """The offering a URL names (404 when there is none, or when it runs another course than
    the URL's), else the course's first one (never another course's)."""
    if named is None:
        return first_offering(session=session, course_slug=course_slug)
    offering = get_offering(session=session, offering_id=named)
    if offering.course_slug != course_slug:
        raise ForeignOffering(named, course_slug, offering.course_slug)
    return offering


def member_here(request: Request, user: User, session: SessionDep) -> Member:
    """The asker's place in the request's offering (site admins act as its instructors); the
    course is the URL's (a slug is enough: no content is loaded for a role check)."""
    named = offering_named(request)
    try:
        course_slug = course_slug_of(request.scope.get(SCOPE_COURSE))
        offering = offering_at(session, course_slug, named)
        role = role_in(session=session, user_id=user.id, offering_id=offering.id)
    finally:
        release(session)
    if user.is_admin:
        role = OfferingRole.instructor
    if role is None:
        raise OfferingAccessError(NOT_A_MEMBER if named is not None else STUDENTS_REFUSED)
    return Member(user, offering, role)


def require_offering_role(*allowed: OfferingRole) -> Callable[[Request, User, SessionDep], Member]:
    """A dependency: 403 unless the asker holds one of these roles in the request's offering."""
    allowed_set = frozenset(allowed)

    def check(request: Request, user: CurrentUser, session: SessionDep) -> Member:
        return _allowed(member_here(request, user, session), allowed_set)

    return check


def _allowed(member: Member, allowed: frozenset[OfferingRole]) -> Member:
    if member.role not in allowed:
        ta = member.role == OfferingRole.ta
        raise OfferingAccessError(TA_REFUSED if ta else STUDENTS_REFUSED)
    return member


def instructor_of_request(request: Request, user: User, session: SessionDep) -> User:
    """The asker, when an instructor of the request's offering (for `InstructorUser`)."""
    return _allowed(member_here(request, user, session), _INSTRUCTOR).user


def require_instructor(request: Request, user: CurrentUser, session: SessionDep) -> User:
    """403 unless an instructor of the request's offering (the course's first for URLs without
    one)."""
    return instructor_of_request(request, user, session)


InstructorUser = Annotated[User, Depends(require_instructor)]
_INSTRUCTOR = frozenset({OfferingRole.instructor})
_require_instructor = require_offering_role(OfferingRole.instructor)
_require_staff = require_offering_role(*STAFF)


async def require_instructor_here(member: Annotated[Member, Depends(_require_instructor)]) -> User:
    """The asker, when an instructor of the request's offering."""
    return member.user


async def require_staff_here(member: Annotated[Member, Depends(_require_staff)]) -> User:
    """The asker, when an instructor or a teaching assistant of the request's offering."""
    return member.user


InstructorMember = Annotated[Member, Depends(_require_instructor)]
StaffMember = Annotated[Member, Depends(_require_staff)]
StaffUser = Annotated[User, Depends(require_staff_here)]


ADMINS_ONLY = "This page is for site administrators only."


async def require_site_admin(user: CurrentUser) -> User:
    """403 unless a site administrator (who creates courses and offerings)."""
    if not user.is_admin:
        raise OfferingAccessError(ADMINS_ONLY)
    return user


SiteAdmin = Annotated[User, Depends(require_site_admin)]
