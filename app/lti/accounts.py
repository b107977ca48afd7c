"""LMS people here: find or create the account for issuer + sub, and map LMS roles."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.db import WriteConflict
from app.lti.models import LtiContext, LtiMember, LtiUser
from app.users.models import Role, User
from app.users.service import create_user, get_user_by_email

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
MEMBERSHIP = LIS + "membership"
INSTITUTION = LIS + "institution/person#"
SYSTEM = LIS + "system/person#"
# Principal roles in a course (context) that may teach here; TeachingAssistant is the LTI 1.1
# short name of the Instructor sub-role.
TEACHING_IN_CONTEXT = frozenset(
    {"Instructor", "ContentDeveloper", "Administrator", "TeachingAssistant"}
)
# Institution or system roles that count only with lti_trust_institution_roles.
TEACHING_IN_INSTITUTION = frozenset({"Instructor", "Faculty", "Administrator", "SysAdmin"})
FROM_LTI = "lti"


def classify_role(uri: str) -> tuple[str, str] | None:
    """(vocabulary, principal role) of one role: context, institution or system; None if unknown.

    A sub-role counts as its principal role: membership/Learner#Instructor is a Learner.
    """
    role = uri.strip()
    if role.startswith("https://purl.imsglobal.org/"):
        role = "http://" + role.removeprefix("https://")
    if role.startswith(MEMBERSHIP + "#"):
        return ("context", role.removeprefix(MEMBERSHIP + "#"))
    if role.startswith(MEMBERSHIP + "/"):
        return ("context", role.removeprefix(MEMBERSHIP + "/").split("#", 1)[0])
    if role.startswith(INSTITUTION):
        return ("institution", role.removeprefix(INSTITUTION))
    if role.startswith(SYSTEM):
        return ("system", role.removeprefix(SYSTEM))
    for prefix, vocabulary in (
        ("urn:lti:role:ims/lis/", "context"),
        ("urn:lti:instrole:ims/lis/", "institution"),
        ("urn:lti:sysrole:ims/lis/", "system"),
    ):
        if role.startswith(prefix):
            return (vocabulary, role.removeprefix(prefix).split("/", 1)[0])
    if role and role.isalpha():  # an LTI 1.1 short name: a context role
        return ("context", role)
    return None


def role_for(roles: Sequence[str], *, trust_institution: bool | None = None) -> Role:
    """Instructor only for a teaching role in the launching course (or, if trusted, the school).

    The roles claim is about the message's context; an institution-wide Instructor who is a
    Learner in this course is a student here unless lti_trust_institution_roles is on.
    """
    if trust_institution is None:
        trust_institution = get_settings().lti_trust_institution_roles
    for uri in roles:
        found = classify_role(str(uri))
        if found is None:
            continue
        vocabulary, name = found
        if vocabulary == "context" and name in TEACHING_IN_CONTEXT:
            return Role.instructor
        if trust_institution and vocabulary != "context" and name in TEACHING_IN_INSTITUTION:
            return Role.instructor
    return Role.student


# Context roles that prove teaching an LMS course, so that linking it is allowed (app/lti/links.py).
OWNS_CONTEXT = frozenset({"Instructor", "Administrator"})


def teaches_context(roles: Sequence[str]) -> bool:
    """Whether the LMS named this person the course's Instructor or Administrator: linking proof."""
    for uri in roles:
        found = classify_role(str(uri))
        ta = str(uri).strip().endswith("TeachingAssistant")
        if found is not None and found[0] == "context" and found[1] in OWNS_CONTEXT and not ta:
            return True
    return False


def _email_for(session: Session, issuer: str, sub: str, email: str | None) -> str:
    """The LMS email if no account has it yet; else a private placeholder (never a takeover)."""
    if email and "@" in email and get_user_by_email(session=session, email=email) is None:
        return email
    digest = hashlib.sha256(f"{issuer}|{sub}".encode()).hexdigest()[:24]
    return f"lti-{digest}@lti.invalid"


def existing_account(*, session: Session, issuer: str, sub: str) -> User | None:
    """The account an LMS user already has here, without creating anything."""
    link = session.scalar(select(LtiUser).where(LtiUser.issuer == issuer, LtiUser.sub == sub))
    return session.get(User, link.user_id) if link is not None else None


def upsert_user(
    *,
    session: Session,
    issuer: str,
    sub: str,
    email: str | None,
    name: str,
    roles: Sequence[str],
) -> tuple[LtiUser, User, bool]:
    """(link, account, created); names refresh. The account holds no role by itself: the
    launch gives one in the offering its LMS course feeds (app/lti/enrolment.py).

    WriteConflict when another request made an account with this email between the check and
    the insert: never linked to that account (it may be someone else's); the caller retries.
    """
    link = session.scalar(select(LtiUser).where(LtiUser.issuer == issuer, LtiUser.sub == sub))
    if link is not None:
        user = session.get(User, link.user_id)
        if user is not None:
            if name and user.name != name[:200]:
                user.name = name[:200]
            session.commit()
            return link, user, False
        session.delete(link)
        session.flush()
    made: list[LtiUser] = []

    def linked(account: User) -> None:  # stored with the account: never one without the other
        made.append(LtiUser(issuer=issuer, sub=sub, user_id=account.id))
        session.add(made[0])

    user, created = create_user(
        session=session,
        email=_email_for(session, issuer, sub, email),
        password=secrets.token_urlsafe(32),  # unknown to anyone: LMS users sign in by launch
        name=name[:200],
        join_first_offering=False,  # the launch enrols them where the LMS course points
        along=linked,
    )
    if not created:  # the email was taken meanwhile (the other tab's account, or a sign-up)
        raise WriteConflict(f"an account with this email appeared meanwhile: {issuer} {sub}")
    return made[0], user, True


def upsert_member(
    *,
    session: Session,
    context: LtiContext,
    lti_user: LtiUser,
    roles: Sequence[str],
    course_slug: str,
) -> LtiMember:
    """Record that this LMS user belongs to the context, and settle the role it gives in the
    offering it feeds (an LMS course not yet linked: `course_slug`'s first offering)."""
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
    user = session.get(User, lti_user.user_id)
    if user is not None:  # the LMS's role, in the offering this LMS course feeds only
        from app.lti.enrolment import enroll_from_lms  # it imports this module

        enroll_from_lms(
            session=session, context=context, user=user, roles=roles, course_slug=course_slug
        )
    return member
