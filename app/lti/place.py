"""Which course an LMS launch or deep link works in, and that course's address prefix.

Why: an LMS course feeds one offering, and an offering belongs to one course; a link may also
name its course in its address (/courses/<slug>/exercises/...). Every course served can then
be launched into, deep-linked from and graded back, not only the first one (issue 47).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from app.content.loader import Course
from app.courses.registry import Registry
from app.lti.enrolment import course_of_context
from app.lti.launch import LTI, LaunchError
from app.lti.links import find_context

COURSES = "courses"


def named_course(claims: dict[str, Any]) -> str | None:
    """The course a launch's link names: its custom `course` parameter, or the address's
    /courses/<slug>/ prefix; None when it names none."""
    custom = claims.get(LTI + "custom") or {}
    raw = custom.get("course") if isinstance(custom, dict) else None
    if isinstance(raw, str) and raw.strip():
        return raw.strip()
    uri = claims.get(LTI + "target_link_uri")
    parts = [p for p in urlsplit(uri).path.split("/") if p] if isinstance(uri, str) else []
    return parts[1] if len(parts) >= 3 and parts[0] == COURSES else None


def fed_course(*, session: Session, platform_id: int, context_id: str) -> str | None:
    """The course of the offering this LMS course feeds, if it was linked to one."""
    if not context_id:
        return None
    context = find_context(session=session, platform_id=platform_id, context_id=context_id)
    if context is None or context.offering_id is None:
        return None
    return course_of_context(session=session, context=context)


def course_for(
    *,
    session: Session,
    registry: Registry,
    platform_id: int,
    context_id: str,
    named: str | None,
) -> Course:
    """The course the link names, else the one the LMS course feeds, else the first course."""
    slug = named or fed_course(session=session, platform_id=platform_id, context_id=context_id)
    content = registry.content(slug) if slug else None
    if content is None and named:
        raise LaunchError(
            404,
            f"This LMS link points to the course '{named}', which this site does not serve.",
            f"unknown course {named!r}",
        )
    if content is None:
        first = registry.content(registry.first_slug)
        assert first is not None  # the first course is always served
        content = first
    return content


def base_of(course: Course, registry: Registry) -> str:
    """The address prefix of the course's pages: '' for the first course."""
    return (
        "" if not course.slug or course.slug == registry.first_slug else f"/courses/{course.slug}"
    )
