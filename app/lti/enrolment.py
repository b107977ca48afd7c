"""LMS launches and roster syncs enrol people into the offering linked to that LMS course."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.courses.first import first_course_slug
from app.lti.accounts import classify_role, role_for
from app.lti.links import UNLINKED, LinkError, find_context, unlinked
from app.lti.models import LtiContext
from app.offerings.first import first_offering
from app.offerings.models import STAFF, Enrollment, Offering, OfferingRole
from app.offerings.service import enroll, get_offering, role_in
from app.users.models import Role, User

FROM_LMS = "lti"
_TEACHING = frozenset({"Instructor", "ContentDeveloper", "Administrator"})


def lms_role(roles: Sequence[str]) -> OfferingRole:
    """The role the LMS gives in this course: a teaching assistant is not an instructor here."""
    if role_for(roles) != Role.instructor:
        return OfferingRole.student
    for uri in roles:
        found = classify_role(str(uri))
        plain = not str(uri).strip().endswith("TeachingAssistant")
        if found is not None and found[0] == "context" and found[1] in _TEACHING and plain:
            return OfferingRole.instructor
    context_ta = any(str(uri).strip().endswith("TeachingAssistant") for uri in roles)
    # Otherwise teaching came from a TA role, or from a trusted institution role.
    return OfferingRole.ta if context_ta else OfferingRole.instructor


def offering_of_context(*, session: Session, context: LtiContext, course_slug: str) -> int:
    """The offering this LMS course feeds; one not yet linked feeds the first offering of the
    course its launch works in (`course_slug`) from now on; one whose link an instructor
    removed feeds none (LinkError)."""
    if unlinked(context):
        raise LinkError(403, UNLINKED)
    if context.offering_id is not None:
        return get_offering(session=session, offering_id=context.offering_id).id
    offering = first_offering(session=session, course_slug=course_slug)
    context.offering_id = offering.id
    return offering.id


def course_of_context(*, session: Session, context: LtiContext) -> str:
    """The course of the offering the LMS course feeds; the first course while it feeds none
    (a roster read before any launch)."""
    offering = None if context.offering_id is None else session.get(Offering, context.offering_id)
    return offering.course_slug if offering is not None else first_course_slug()


def enroll_from_lms(
    *, session: Session, context: LtiContext, user: User, roles: Sequence[str], course_slug: str
) -> Enrollment:
    """Give the person the LMS's role in that course's offering, and nowhere else.

    A role set here (join code, roster, admin) outranks the LMS only upwards: a local instructor
    launched as a learner stays instructor; an LMS-made role follows the LMS both ways.
    """
    offering = get_offering(
        session=session,
        offering_id=offering_of_context(session=session, context=context, course_slug=course_slug),
    )
    wanted = lms_role(roles)
    found = session.scalar(
        select(Enrollment).where(
            Enrollment.offering_id == offering.id, Enrollment.user_id == user.id
        )
    )
    local_staff = found is not None and found.source != FROM_LMS and found.role in STAFF
    if found is not None and local_staff and (wanted not in STAFF or found.role == "instructor"):
        return found
    return enroll(session=session, offering=offering, user=user, role=wanted, source=FROM_LMS)


def instructs_where_it_feeds(
    *, session: Session, platform_id: int, context_id: str, user: User, course_slug: str
) -> bool:
    """Whether the person is an instructor here of the offering this LMS course feeds (one not
    yet known or linked feeds the first); a role elsewhere counts for nothing."""
    if user.is_admin:
        return True
    found = (
        find_context(session=session, platform_id=platform_id, context_id=context_id)
        if context_id
        else None
    )
    if found is not None and unlinked(found):
        return False
    where = found.offering_id if found is not None else None
    if where is None:
        where = first_offering(session=session, course_slug=course_slug).id
    return role_in(session=session, user_id=user.id, offering_id=where) == OfferingRole.instructor
