"""An offering's LMS link: which LMS courses (LTI contexts) feed which offering.

A launch from an LMS course enrols people into the offering its context row names
(`LtiContext.offering_id`, read by `enrolment.offering_of_context`), and grade passback sends
that offering's work; this module lets an offering's instructor set that row: pick a course
already seen in launches, or (a site admin) type the deployment and context id before the first
launch (the launch then finds the row and uses it). Moving a course that feeds another offering
needs an instructor of that offering too (or a site admin): a member of one offering sees and
takes nothing of another. A course that feeds no offering is linked only by a site admin or by
someone the LMS named its Instructor or Administrator (their launch there, or its roster), so no
instructor captures another teacher's LMS class, its students and its grades.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from app.errors import DomainError
from app.lti.accounts import teaches_context
from app.lti.models import LtiContext, LtiMember, LtiPlatform, LtiUser
from app.lti.registry import deployment_known
from app.models_base import utcnow
from app.offerings.models import Enrollment, Offering, OfferingRole
from app.users.models import User

ANOTHERS = (
    "That LMS course feeds another offering; an instructor of that offering or a site "
    "administrator can move it."
)

OPEN_IT = (
    "Open this tool once from your LMS course as its instructor; it then appears here to link."
)
NOT_TAUGHT = (
    "Only someone who teaches that LMS course in the LMS, or a site administrator, can link it. "
    + OPEN_IT
)
RELINK = (
    "That LMS course's link was removed. Only the instructors of the offering it was removed "
    "from, someone who opened this tool from it as its instructor, or a site administrator can "
    "link it again."
)
NOT_LAUNCHED = (
    "That LMS course has not opened this tool yet, and only a site administrator can link one "
    "by its ids. " + OPEN_IT
)


UNLINKED = (
    "This LMS course is no longer linked to an offering of this site: an instructor removed "
    "the link. Ask your instructor to link it again (the offering's LMS link page)."
)


def unlinked(context: LtiContext) -> bool:
    """Whether an instructor removed this LMS course's link (and none was made since)."""
    return context.offering_id is None and context.unlinked_at is not None


def find_context(*, session: Session, platform_id: int, context_id: str) -> LtiContext | None:
    """The row of an LMS course (its LMS and context id), if a launch or a link made one."""
    return session.scalar(
        select(LtiContext).where(
            LtiContext.platform_id == platform_id, LtiContext.context_id == context_id
        )
    )


def context_for(
    *, session: Session, platform_id: int, context_id: str, deployment_id: str
) -> tuple[LtiContext, bool]:
    """The LMS course's row, added (not committed) when there is none, and whether it was added.

    One place for both ways a row is made (a launch, a link typed before the first launch), so
    each finds the row the other made and an LMS course never gets two.
    """
    found = find_context(session=session, platform_id=platform_id, context_id=context_id)
    if found is not None:
        return found, False
    made = LtiContext(
        platform_id=platform_id,
        deployment_id=deployment_id,
        context_id=context_id,
        title=context_id,
        score_policy="best",
    )
    session.add(made)
    return made, True


class LinkError(DomainError):
    """A link that cannot be made or removed; the message says why."""


@dataclass(frozen=True)
class LmsCourse:
    """One LMS course as the link page shows it."""

    context: LtiContext
    platform: LtiPlatform
    offering: Offering | None  # the offering it feeds now (None: not linked yet)


def _instructs(session: Session, user: User) -> set[int]:
    return set(
        session.scalars(
            select(Enrollment.offering_id).where(
                Enrollment.user_id == user.id, Enrollment.role == OfferingRole.instructor
            )
        )
    )


def _taught(session: Session, user: User) -> set[int]:
    """LMS courses whose LMS named this person their instructor (launch or roster): linkable."""
    rows = session.execute(
        select(LtiMember.context_id, LtiMember.roles)
        .join(LtiUser, LtiUser.id == LtiMember.lti_user_id)
        .where(LtiUser.user_id == user.id)
    )
    return {context_id for context_id, roles in rows if teaches_context(roles.split())}


def _refusal(session: Session, user: User, context: LtiContext) -> str | None:
    """Why this person may not link this LMS course (None: they may), so no class is captured."""
    # A site admin links any; whoever teaches the offering it feeds moves it between theirs; one
    # feeding none needs its LMS's word that they teach it there.
    if user.is_admin:
        return None
    if context.offering_id is not None:
        return None if context.offering_id in _instructs(session, user) else ANOTHERS
    if context.id in _taught(session, user):
        return None
    if unlinked(context) and context.unlinked_from in _instructs(session, user):
        return None  # an undo by the offering it was removed from
    return RELINK if unlinked(context) else NOT_TAUGHT


def _described(session: Session, contexts: list[LtiContext]) -> list[LmsCourse]:
    out = []
    for context in contexts:
        platform = session.get(LtiPlatform, context.platform_id)
        feeds = context.offering_id
        offering = None if feeds is None else session.get(Offering, feeds)
        if platform is not None:
            out.append(LmsCourse(context, platform, offering))
    return out


def linked(*, session: Session, offering_id: int) -> list[LmsCourse]:
    """The LMS courses that feed this offering."""
    rows = session.scalars(
        select(LtiContext).where(LtiContext.offering_id == offering_id).order_by(LtiContext.id)
    )
    return _described(session, list(rows))


def linkable(*, session: Session, offering_id: int, user: User) -> list[LmsCourse]:
    """LMS courses this person may link here, so the page offers nothing it would refuse."""
    query = select(LtiContext).where(
        or_(LtiContext.offering_id.is_(None), LtiContext.offering_id != offering_id)
    )
    if not user.is_admin:
        mine = _instructs(session, user)
        query = query.where(
            or_(
                LtiContext.offering_id.in_(mine),
                and_(
                    LtiContext.offering_id.is_(None),
                    or_(
                        LtiContext.id.in_(_taught(session, user)),
                        and_(
                            LtiContext.unlinked_at.is_not(None),
                            LtiContext.unlinked_from.in_(mine),
                        ),
                    ),
                ),
            )
        )
    return _described(session, list(session.scalars(query.order_by(LtiContext.id))))


def _check(session: Session, context: LtiContext, offering_id: int, user: User) -> None:
    """403 LinkError unless this person may link this LMS course here (one rule for both ways)."""
    refused = None if context.offering_id == offering_id else _refusal(session, user, context)
    if refused is not None:
        raise LinkError(403, refused)


def _attach(session: Session, context: LtiContext, offering_id: int, user: User) -> LtiContext:
    _check(session, context, offering_id, user)
    context.offering_id, context.unlinked_at, context.unlinked_from = offering_id, None, None
    session.commit()
    return context


def link_seen(*, session: Session, offering_id: int, context_id: int, user: User) -> LtiContext:
    """Link an LMS course seen in a launch (by its row id here) to this offering."""
    context = session.get(LtiContext, context_id)
    if context is None:
        raise LinkError(404, "There is no such LMS course; it may have been removed.")
    return _attach(session, context, offering_id, user)


def link_typed(
    *,
    session: Session,
    offering_id: int,
    platform_id: int,
    deployment_id: str,
    context_id: str,
    user: User,
) -> LtiContext:
    """Link an LMS course by its ids; before its first launch admins only: nobody proved it yet."""
    deployment_id, context_id = deployment_id.strip(), context_id.strip()
    platform = session.get(LtiPlatform, platform_id)
    if platform is None:
        raise LinkError(422, "Choose a registered LMS (register it on the LMS page first).")
    if not context_id or len(context_id) > 255:
        raise LinkError(422, "The LMS course's context id must be 1 to 255 characters.")
    if not deployment_known(session=session, platform=platform, deployment_id=deployment_id):
        raise LinkError(
            422,
            f"The deployment id '{deployment_id[:255]}' is not registered for {platform.issuer}; "
            "register it on the LMS page first.",
        )
    if not user.is_admin:  # refused before anything is added or its deployment is shown
        found = find_context(session=session, platform_id=platform.id, context_id=context_id)
        if found is None:
            raise LinkError(403, NOT_LAUNCHED)
        _check(session, found, offering_id, user)
    context, made = context_for(
        session=session, platform_id=platform.id, context_id=context_id, deployment_id=deployment_id
    )
    if not made and context.deployment_id != deployment_id:
        raise LinkError(
            422,
            f"That LMS course launches with deployment '{context.deployment_id}', "
            f"not '{deployment_id}'.",
        )
    return _attach(session, context, offering_id, user)


def unlink(*, session: Session, offering_id: int, context_id: int) -> LtiContext:
    """Remove an LMS course's link to this offering (only one that feeds this offering).

    Its launches are then refused and its grades no longer sent, rather than falling back to
    the first offering as a never-linked course does, until someone links it again.
    """
    context = session.get(LtiContext, context_id)
    if context is None or context.offering_id != offering_id:
        raise LinkError(404, "This offering has no such LMS course linked.")
    context.offering_id, context.unlinked_at, context.unlinked_from = None, utcnow(), offering_id
    session.commit()
    return context
