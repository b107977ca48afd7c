"""Who may make a set-password link for whom: an offering's instructors for the accounts its
roster created, a site administrator for any account but another administrator's."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.offerings.models import Enrollment, Offering, OfferingRole
from app.users.models import User
from app.users.password_links import PasswordLink, make_link

NOT_FROM_ROSTER = (
    "Only accounts this offering's roster upload created can get a password link from its "
    "instructors; ask a site administrator."
)
ADMIN_TARGET = "A site administrator's password cannot be set by a link."
NOT_AN_INSTRUCTOR = "Only the offering's instructors and site administrators can make this link."


class LinkRefused(PermissionError):
    """The asker may not make a link for this account; the message is a user-facing sentence."""


def created_by_roster(*, session: Session, user_id: int, offering_id: int) -> bool:
    """Whether the offering's roster upload created this account."""
    return bool(
        session.scalar(
            select(Enrollment.created_account).where(
                Enrollment.offering_id == offering_id, Enrollment.user_id == user_id
            )
        )
    )


def link_for(
    *,
    session: Session,
    asker: User,
    asker_role: OfferingRole | None,
    offering: Offering,
    user: User,
) -> PasswordLink:
    """A set-password (or reset) link for `user`, or LinkRefused saying why not."""
    if user.is_admin:
        raise LinkRefused(ADMIN_TARGET)
    if asker.is_admin:
        return make_link(user)
    if asker_role != OfferingRole.instructor:
        raise LinkRefused(NOT_AN_INSTRUCTOR)
    if not created_by_roster(session=session, user_id=user.id, offering_id=offering.id):
        raise LinkRefused(NOT_FROM_ROSTER)
    return make_link(user)
