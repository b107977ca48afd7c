"""The course editor role: who may edit a course's content in the browser.

Site administrators are editors of every course; anyone else needs a row, granted by a site
administrator. Teaching an offering does not make an instructor an editor of its course.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.authoring.models import CourseEditor
from app.db import retry_conflicts
from app.errors import DomainError
from app.users.models import User
from app.users.service import get_user_by_email

NOT_EDITOR = "Only the editors of this course may author it; a site administrator can make you one."
NO_ACCOUNT = "There is no account with that email address."


def is_editor(*, session: Session, user: User, course_slug: str) -> bool:
    """True for site administrators and for the course's granted editors."""
    if user.is_admin:
        return True
    row = session.scalar(
        select(CourseEditor.id).where(
            CourseEditor.course_slug == course_slug, CourseEditor.user_id == user.id
        )
    )
    return row is not None


def require_editor(*, session: Session, user: User, course_slug: str) -> User:
    """The user when an editor of the course; 403 otherwise."""
    if not is_editor(session=session, user=user, course_slug=course_slug):
        raise DomainError(403, NOT_EDITOR)
    return user


def editable_courses(*, session: Session, user: User, slugs: list[str]) -> list[str]:
    """The courses (of these) the user may author, in the given order."""
    if user.is_admin:
        return slugs
    mine = set(
        session.scalars(select(CourseEditor.course_slug).where(CourseEditor.user_id == user.id))
    )
    return [s for s in slugs if s in mine]


def grant(*, session: Session, course_slug: str, email: str, by: User | None) -> User:
    """Make the account with this email an editor of the course (again: nothing changes)."""
    user = get_user_by_email(session=session, email=email)
    if user is None:
        raise DomainError(404, NO_ACCOUNT)
    user_id, granted_by = user.id, by.id if by else None

    def store() -> None:
        exists = session.scalar(
            select(CourseEditor.id).where(
                CourseEditor.course_slug == course_slug, CourseEditor.user_id == user_id
            )
        )
        if exists is None:
            session.add(
                CourseEditor(course_slug=course_slug, user_id=user_id, granted_by=granted_by)
            )
        session.commit()

    retry_conflicts(session, store)  # a double click on Grant: one editor row
    return user


def revoke(*, session: Session, course_slug: str, email: str) -> bool:
    """Take the editor role away; False when the account held none (site admins keep theirs)."""
    user = get_user_by_email(session=session, email=email)
    if user is None:
        raise DomainError(404, NO_ACCOUNT)
    result = session.execute(
        delete(CourseEditor).where(
            CourseEditor.course_slug == course_slug, CourseEditor.user_id == user.id
        )
    )
    session.commit()
    return bool(getattr(result, "rowcount", 0))


def editors(*, session: Session, course_slug: str) -> list[User]:
    """The course's granted editors (site administrators are not listed)."""
    return list(
        session.scalars(
            select(User)
            .join(CourseEditor, CourseEditor.user_id == User.id)
            .where(CourseEditor.course_slug == course_slug)
            .order_by(User.email)
        )
    )
