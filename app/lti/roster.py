"""Names and Role Provisioning: pull an LMS course's roster into accounts and memberships."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.lti.accounts import upsert_member, upsert_user
from app.lti.enrolment import course_of_context
from app.lti.http import LmsError, call
from app.lti.links import UNLINKED, unlinked
from app.lti.models import LtiContext, LtiPlatform
from app.lti.tokens import SCOPE_MEMBERSHIPS, access_token

MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 100


@dataclass(frozen=True)
class SyncResult:
    """How many members were seen and how many accounts were new."""

    members: int
    created: int


def _next_link(header: str) -> str | None:
    for part in header.split(","):
        url, _, params = part.partition(";")
        if 'rel="next"' in params.replace(" ", ""):
            return url.strip().strip("<>")
    return None


def sync_roster(*, session: Session, context: LtiContext) -> SyncResult:
    """Create or update every active member of the LMS course (follows rel=next pages)."""
    if unlinked(context):
        raise LmsError(UNLINKED)
    if not context.memberships_url:
        raise LmsError("this LMS course did not offer the roster service (NRPS) to the tool")
    platform = session.get(LtiPlatform, context.platform_id)
    if platform is None:
        raise LmsError("the LMS of this course is no longer registered")
    token = access_token(platform, [SCOPE_MEMBERSHIPS])
    url: str | None = context.memberships_url
    members = created = 0
    for _ in range(MAX_PAGES):
        if url is None:
            break
        answer = call("GET", url, token=token, accept=MEMBERSHIPS_TYPE)
        body = answer.body if isinstance(answer.body, dict) else {}
        for member in body.get("members", []):
            if not isinstance(member, dict) or not member.get("user_id"):
                continue
            if member.get("status", "Active") != "Active":
                continue
            roles = [str(r) for r in member.get("roles", [])]
            lti_user, _, new = upsert_user(
                session=session,
                issuer=platform.issuer,
                sub=str(member["user_id"]),
                email=member.get("email") if isinstance(member.get("email"), str) else None,
                name=str(member.get("name") or ""),
                roles=roles,
            )
            upsert_member(
                session=session,
                context=context,
                lti_user=lti_user,
                roles=roles,
                course_slug=course_of_context(session=session, context=context),
            )
            members += 1
            created += int(new)
        url = _next_link(answer.headers.get("link", ""))
    return SyncResult(members=members, created=created)
