"""LMS people here: find or create the account for issuer + sub, and map LMS roles."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.lti.models import LtiContext, LtiMember, LtiUser
from app.users.models import Role, User
from app.users.service import create_user, get_user_by_email

# LIS role names (context, institution or system vocabularies) that may teach here.
TEACHING_ROLES = frozenset({"Instructor", "ContentDeveloper", "Administrator", "TeachingAssistant"})


def role_for(roles: Sequence[str]) -> Role:
    """Instructor for teaching LIS roles (full URI or short name), student otherwise."""
    for uri in roles:
        name = str(uri).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        if name in TEACHING_ROLES:
            return Role.instructor
    return Role.student


def _email_for(session: Session, issuer: str, sub: str, email: str | None) -> str:
    """The LMS email if no account has it yet; else a private placeholder (never a takeover)."""
    if email and "@" in email and get_user_by_email(session=session, email=email) is None:
        return email
    digest = hashlib.sha256(f"{issuer}|{sub}".encode()).hexdigest()[:24]
    return f"lti-{digest}@lti.invalid"


def upsert_user(
    *,
    session: Session,
    issuer: str,
    sub: str,
    email: str | None,
    name: str,
    roles: Sequence[str],
) -> tuple[LtiUser, User, bool]:
    """(link, account, created); names refresh and LMS teachers become instructors."""
    link = session.scalar(select(LtiUser).where(LtiUser.issuer == issuer, LtiUser.sub == sub))
    role = role_for(roles)
    if link is not None:
        user = session.get(User, link.user_id)
        if user is not None:
            if name and user.name != name[:200]:
                user.name = name[:200]
            if role == Role.instructor and user.role != Role.instructor:
                user.role = Role.instructor  # never demoted by an LMS: roles are per course there
            session.commit()
            return link, user, False
        session.delete(link)
        session.flush()
    user, _ = create_user(
        session=session,
        email=_email_for(session, issuer, sub, email),
        password=secrets.token_urlsafe(32),  # unknown to anyone: LMS users sign in by launch
        role=role,
        name=name[:200],
    )
    link = LtiUser(issuer=issuer, sub=sub, user_id=user.id)
    session.add(link)
    session.commit()
    return link, user, True


def upsert_member(
    *, session: Session, context: LtiContext, lti_user: LtiUser, roles: Sequence[str]
) -> LtiMember:
    """Record that this LMS user belongs to the context (grades are sent only to members)."""
    member = session.scalar(
        select(LtiMember).where(
            LtiMember.context_id == context.id, LtiMember.lti_user_id == lti_user.id
        )
    )
    joined = " ".join(str(r) for r in roles)[:4000]
    if member is None:
        member = LtiMember(context_id=context.id, lti_user_id=lti_user.id, roles=joined)
        session.add(member)
    else:
        member.roles = joined
    session.commit()
    return member
