"""Who may make a set-password link for whom: an offering's instructors for the accounts its
roster created while their owners have chosen no password and hold no place elsewhere; a site
administrator for any account but another administrator's."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.offerings.models import STAFF, Enrollment, Offering, OfferingRole
from app.users.models import User
from app.users.password_links import REFUSED_ELSEWHERE, PasswordLink, make_link

NOT_FROM_ROSTER = (
    "Only accounts this offering's roster upload created can get a password link from its "
    "instructors; ask a site administrator."
)
ADMIN_TARGET = "A site administrator's password cannot be set by a link."
NOT_AN_INSTRUCTOR = "Only the offering's instructors and site administrators can make this link."
CHOSEN_BY_OWNER = "This person chose their own password; only a site administrator can reset it."
ELSEWHERE = (
    "This account holds a place in another offering; only a site administrator can set its "
    "password."
)


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
        return make_link(user, by_admin=True)
    if asker_role != OfferingRole.instructor:
        raise LinkRefused(NOT_AN_INSTRUCTOR)
    if not created_by_roster(session=session, user_id=user.id, offering_id=offering.id):
        raise LinkRefused(NOT_FROM_ROSTER)
    if user.password_set:
        raise LinkRefused(CHOSEN_BY_OWNER)
    if places_elsewhere(session=session, user_id=user.id, offering_id=offering.id):
        raise LinkRefused(ELSEWHERE)
    return make_link(user)


def places_elsewhere(*, session: Session, user_id: int, offering_id: int | None) -> bool:
    """Whether the person holds a role in an offering other than this one (None: any)."""
    query = select(func.count()).select_from(Enrollment).where(Enrollment.user_id == user_id)
    if offering_id is not None:
        query = query.where(Enrollment.offering_id != offering_id)
    return bool(session.scalar(query))


def refuse_link_use(session: Session, user: User) -> str | None:
    """When an instructor's link is used: refused if the account holds places in two offerings
    or a staff role anywhere (a link outlives a role given after it was made)."""
    rows = session.execute(
        select(Enrollment.offering_id, Enrollment.role).where(Enrollment.user_id == user.id)
    ).all()
    if len(rows) > 1 or any(OfferingRole(role) in STAFF for _, role in rows):
        return REFUSED_ELSEWHERE
    return None
