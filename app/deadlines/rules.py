"""Due dates: the content's date, or a student's extension; late work is accepted and flagged."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.deadlines.models import DeadlineExtension
from app.models_base import as_utc

Kind = Literal["exercise", "quiz"]
KINDS: tuple[Kind, ...] = ("exercise", "quiz")


def extension_for(
    *, session: Session, user_id: int, kind: Kind, slug: str
) -> DeadlineExtension | None:
    """This student's extension for one exercise or quiz, if an instructor granted one."""
    return session.scalar(
        select(DeadlineExtension).where(
            DeadlineExtension.user_id == user_id,
            DeadlineExtension.kind == kind,
            DeadlineExtension.slug == slug,
        )
    )


def effective_due(
    *, session: Session, user_id: int, kind: Kind, slug: str, due: dt.datetime | None
) -> dt.datetime | None:
    """The due date that applies to this student (an extension wins over the content's)."""
    if due is None:
        return None
    extension = extension_for(session=session, user_id=user_id, kind=kind, slug=slug)
    return as_utc(extension.due_at if extension is not None else due)


def is_late(
    *,
    session: Session,
    user_id: int,
    kind: Kind,
    slug: str,
    due: dt.datetime | None,
    at: dt.datetime,
) -> bool:
    """Whether work handed in at `at` is after the due date that applies to this student."""
    deadline = effective_due(session=session, user_id=user_id, kind=kind, slug=slug, due=due)
    return deadline is not None and as_utc(at) > deadline


def late_at(at: dt.datetime, deadline: dt.datetime | None) -> bool:
    """The same rule when the deadline is already known (lists of attempts)."""
    return deadline is not None and as_utc(at) > as_utc(deadline)
