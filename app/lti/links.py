"""An offering's LMS link: which LMS courses (LTI contexts) feed which offering.

A launch from an LMS course enrols people into the offering its context row names
(`LtiContext.offering_id`, read by `enrolment.offering_of_context`), and grade passback sends
that offering's work; this module lets an offering's instructor set that row: pick a course
already seen in launches, or type the deployment and context id before the first launch (the
launch then finds the row and uses it). Moving a course that feeds another offering needs an
instructor of that offering too (or a site admin): a member of one offering sees and takes
nothing of another.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from app.errors import DomainError
from app.lti.models import LtiContext, LtiPlatform
from app.lti.registry import deployment_known
from app.models_base import utcnow
from app.offerings.models import Enrollment, Offering, OfferingRole
from app.users.models import User

ANOTHERS = (
    "That LMS course feeds another offering; an instructor of that offering or a site "
    "administrator can move it."
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


def _may_take(session: Session, user: User, context: LtiContext) -> bool:
    """Whether the person may link this LMS course to an offering they teach."""
    if user.is_admin or context.offering_id is None:
        return True
    return context.offering_id in _instructs(session, user)


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
    """LMS courses seen in launches that this person may link here: not linked yet, or
    feeding an offering they also teach (a site admin: any)."""
    query = select(LtiContext).where(
        or_(LtiContext.offering_id.is_(None), LtiContext.offering_id != offering_id)
    )
    if not user.is_admin:
        query = query.where(
            or_(
                LtiContext.offering_id.is_(None),
                LtiContext.offering_id.in_(_instructs(session, user)),
            )
        )
    return _described(session, list(session.scalars(query.order_by(LtiContext.id))))


def _attach(session: Session, context: LtiContext, offering_id: int, user: User) -> LtiContext:
    if context.offering_id != offering_id and not _may_take(session, user, context):
        raise LinkError(403, ANOTHERS)
    context.offering_id, context.unlinked_at = offering_id, None
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
    """Link an LMS course by its LMS, deployment and context id, before or after its first
    launch; the launch then enrols into this offering."""
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
    context.offering_id, context.unlinked_at = None, utcnow()
    session.commit()
    return context
