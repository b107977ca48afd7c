"""What a valid launch does: the course, the person, the linked item and where to land."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.courses.first import first_course_slug
from app.db import retry_conflicts
from app.lti.accounts import existing_account, role_for, upsert_member, upsert_user
from app.lti.enrolment import instructs_where_it_feeds
from app.lti.launch import LTI, LaunchError
from app.lti.linkables import kind_of_folder, registered
from app.lti.links import UNLINKED, context_for, find_context, unlinked
from app.lti.models import LtiContext, LtiLink, LtiPlatform
from app.users.models import Role, User

AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
KINDS = ("lesson", "quiz", "exercise")


@dataclass(frozen=True)
class Launched:
    """The signed-in account and where the browser goes next."""

    user: User
    target: str
    context: LtiContext | None


def target_path(kind: str, slug: str) -> str:
    """Our page for a linked item (a registered kind's own page, e.g. an assessment's)."""
    extra = registered(kind)
    if extra is not None:
        return extra.path(slug)
    if kind == "exercise":
        return f"/exercises/{slug}"
    if kind == "quiz":
        return f"/lessons/{slug}#quiz"
    return f"/lessons/{slug}"


def parse_target(claims: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, slug) from the custom `target` parameter ("exercise:slug") or target_link_uri."""
    custom = claims.get(LTI + "custom") or {}
    raw = custom.get("target") if isinstance(custom, dict) else None
    if isinstance(raw, str) and ":" in raw:
        kind, _, slug = raw.partition(":")
        return (kind.strip(), slug.strip())
    uri = claims.get(LTI + "target_link_uri")
    if not isinstance(uri, str):
        return None
    parts = [p for p in urlsplit(uri).path.split("/") if p]
    if len(parts) >= 3 and parts[0] == "courses":  # another course's page: /courses/<slug>/...
        parts = parts[2:]
    if len(parts) == 2 and parts[0] in ("exercises", "lessons"):
        return ("exercise" if parts[0] == "exercises" else "lesson", parts[1])
    if len(parts) == 3 and parts[0] == "lessons" and parts[2] == "quiz":
        return ("quiz", parts[1])
    extra = kind_of_folder(parts[0]) if len(parts) == 2 else None
    if extra is not None:
        return (extra.kind, parts[1])
    return None


def graded_in_lms(course: Course, kind: str, slug: str) -> bool:
    """Quizzes and exercises send their scores to the LMS; a lab only when it has a rubric.

    Why: a lab's verdict comes from code running in the student's own process, which could fake
    it, so its run's score counts nowhere (issue 24); a lab with a rubric sends the grade a
    person gave its write-up, once they have (issue 49).
    """
    if kind == "quiz":
        return True
    extra = registered(kind)
    if extra is not None:
        return extra.graded
    exercise = course.exercise(slug) if kind == "exercise" else None
    return exercise is not None and (
        exercise.meta.entry.kind != "experiment" or exercise.meta.rubric is not None
    )


def check_item(course: Course, kind: str, slug: str) -> None:
    """404 LaunchError unless the item exists (and a quiz has questions)."""
    extra = registered(kind)
    if kind not in KINDS and extra is None:
        raise LaunchError(404, f"'{kind}' is not something the course can link to.", "bad kind")
    if extra is not None:
        exists = extra.has(course, slug)
    else:
        lesson = course.lesson(slug) if kind != "exercise" else None
        exists = course.exercise(slug) is not None if kind == "exercise" else lesson is not None
        if kind == "quiz" and lesson is not None and not lesson.meta.quiz:
            exists = False
    if not exists:
        raise LaunchError(
            404,
            f"This LMS link points to {kind} '{slug}', which the course does not have.",
            f"unknown {kind} {slug!r}",
        )


def _context_id(claims: dict[str, Any]) -> str:
    raw = claims.get(LTI + "context") or {}
    return str(raw.get("id", "")) if isinstance(raw, dict) else ""


def _refuse_unlinked(*, session: Session, platform: LtiPlatform, claims: dict[str, Any]) -> None:
    """403 LaunchError for a launch from an LMS course whose link an instructor removed."""
    context_id = _context_id(claims)
    found = find_context(session=session, platform_id=platform.id, context_id=context_id)
    if context_id and found is not None and unlinked(found):
        raise LaunchError(403, UNLINKED, f"launch from unlinked LMS course {context_id!r}")


def upsert_context(
    *, session: Session, platform: LtiPlatform, claims: dict[str, Any]
) -> LtiContext | None:
    """Remember the LMS course and its service URLs (refreshed on every launch)."""
    raw = claims.get(LTI + "context") or {}
    context_id = _context_id(claims)
    if not context_id:
        return None
    context, _ = context_for(
        session=session,
        platform_id=platform.id,
        context_id=context_id,
        deployment_id=str(claims.get(LTI + "deployment_id", "")),
    )
    context.title = str(raw.get("title") or raw.get("label") or context_id)[:500]
    ags = claims.get(AGS) or {}
    if isinstance(ags, dict) and isinstance(ags.get("lineitems"), str):
        context.lineitems_url = ags["lineitems"]
    if isinstance(ags, dict) and ags:
        offered = ags.get("scope")
        scopes = [str(s) for s in offered] if isinstance(offered, list) else []
        context.ags_scopes = " ".join(scopes)[:4000]
    nrps = claims.get(NRPS) or {}
    if isinstance(nrps, dict) and isinstance(nrps.get("context_memberships_url"), str):
        context.memberships_url = nrps["context_memberships_url"]
    session.commit()
    return context


def upsert_link(
    *, session: Session, context: LtiContext, kind: str, slug: str, claims: dict[str, Any]
) -> LtiLink:
    """The graded link for a quiz or exercise, with the platform's line item when given."""
    link = session.scalar(
        select(LtiLink).where(
            LtiLink.context_id == context.id, LtiLink.kind == kind, LtiLink.slug == slug
        )
    )
    if link is None:
        link = LtiLink(context_id=context.id, kind=kind, slug=slug)
        session.add(link)
    resource = claims.get(LTI + "resource_link") or {}
    if isinstance(resource, dict) and resource.get("id"):
        link.resource_link_id = str(resource["id"])[:255]
    ags = claims.get(AGS) or {}
    if isinstance(ags, dict) and isinstance(ags.get("lineitem"), str):
        link.lineitem_url = ags["lineitem"]
    session.commit()
    return link


def handle_launch(
    *,
    session: Session,
    course: Course,
    platform: LtiPlatform,
    claims: dict[str, Any],
    base: str = "",
) -> Launched:
    """Check the whole launch first, then sign the LMS user in and record course, link, role.

    `course` is the one the launch works in (`lti.place.course_for`), `base` its pages' address
    prefix. A refused launch (a student's deep-linking request, an unknown item) writes nothing.
    """
    roles = [str(r) for r in claims.get(LTI + "roles") or []]
    course_slug = course.slug or first_course_slug()  # a course loaded outside the registry
    teaching = role_for(roles) == Role.instructor
    sub = str(claims["sub"])
    deep_linking = claims.get(LTI + "message_type") == "LtiDeepLinkingRequest"
    target = None if deep_linking else parse_target(claims)
    if deep_linking:
        known = existing_account(session=session, issuer=platform.issuer, sub=sub)
        local_instructor = known is not None and instructs_where_it_feeds(
            session=session,
            platform_id=platform.id,
            context_id=_context_id(claims),
            user=known,
            course_slug=course_slug,
        )
        if not (teaching or local_instructor):
            raise LaunchError(
                403,
                "Only instructors can add course content to the LMS.",
                "deep linking by a student",
            )
    elif target is not None:
        check_item(course, *target)
    _refuse_unlinked(session=session, platform=platform, claims=claims)

    def record() -> tuple[User, LtiContext | None]:
        """Account, LMS course, membership and graded link: found, or stored."""
        lti_user, user, _ = upsert_user(
            session=session,
            issuer=platform.issuer,
            sub=sub,
            email=claims.get("email") if isinstance(claims.get("email"), str) else None,
            name=str(claims.get("name") or ""),
            roles=roles,
        )
        context = upsert_context(session=session, platform=platform, claims=claims)
        if context is not None:  # a launch without an LMS course gives no role anywhere
            upsert_member(
                session=session,
                context=context,
                lti_user=lti_user,
                roles=roles,
                course_slug=course_slug,
            )
        if target is not None and context is not None and graded_in_lms(course, *target):
            kind, slug = target
            upsert_link(session=session, context=context, kind=kind, slug=slug, claims=claims)
        return user, context

    # A link opened twice at once (a double click, two tabs, a whole class at the first
    # launch) stores each row once: the request that loses the race reads the winner's rows.
    user, context = retry_conflicts(session, record)
    if deep_linking:
        return Launched(user=user, target="/lti/deep-link", context=context)
    if target is None:
        return Launched(user=user, target=base + "/", context=context)
    return Launched(user=user, target=base + target_path(*target), context=context)
