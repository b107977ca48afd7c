"""Course folders made on disk for the registry and route tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.config import ROOT

ATTENTION = ROOT / "courses" / "attention-step-by-step"
COURSE_YAML = 'slug: {slug}\ntitle: "{title}"\nsummary: A test course.\nauthors: [Ada]\n'


def copy_attention(to: Path, *, slug: str = "attention-step-by-step") -> Path:
    """A writable copy of the second course (under another slug when asked)."""
    shutil.copytree(ATTENTION, to, ignore=shutil.ignore_patterns("__pycache__"))
    if slug != "attention-step-by-step":
        (to / "course.yaml").write_text(COURSE_YAML.format(slug=slug, title=slug), "utf-8")
    return to


def tiny_course(to: Path, slug: str, title: str = "Tiny") -> Path:
    """A course with one lesson copied from the second course, no exercises."""
    (to / "lessons").mkdir(parents=True)
    (to / "exercises").mkdir()
    first = sorted((ATTENTION / "lessons").glob("*.md"))[0]
    shutil.copy(first, to / "lessons" / first.name)
    (to / "course.yaml").write_text(COURSE_YAML.format(slug=slug, title=title), "utf-8")
    return to


def join_first_offering(email: str, course_slug: str, role: str) -> None:
    """Give the account ROLE in the course's first offering (what its URLs without one mean)."""
    from sqlalchemy import select

    from app.db import session_factory
    from app.offerings.models import OfferingRole
    from app.offerings.service import enroll, first_offering
    from app.users.models import User

    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        offering = first_offering(session=session, course_slug=course_slug)
        enroll(session=session, offering=offering, user=user, role=OfferingRole(role))
