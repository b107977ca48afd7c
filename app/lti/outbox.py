"""Queueing grade posts in the caller's transaction, so a stored grade always gets sent."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import Row, bindparam, func, select
from sqlalchemy.orm import Session

from app.db import database_now
from app.events import GradeRecorded
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiMember, LtiUser
from app.models_base import as_utc
from app.offerings.first import legacy_offering_id_query

# The LMS columns fed by this person's grade of this item. Built once: every grade asks it,
# and building it cost more than running it (issue 54).
_LINKED = (
    select(LtiLink.id, LtiUser.id)
    .join(LtiMember, LtiMember.context_id == LtiLink.context_id)
    .join(LtiUser, LtiUser.id == LtiMember.lti_user_id)
    .join(LtiContext, LtiContext.id == LtiLink.context_id)
    .where(
        LtiUser.user_id == bindparam("user_id"),
        LtiLink.kind == bindparam("kind"),
        LtiLink.slug == bindparam("slug"),
        LtiContext.unlinked_at.is_(None),  # a course whose link was removed gets nothing
    )
)


def queue_grade(
    *, session: Session, user_id: int, kind: str, slug: str, not_before: dt.datetime | None = None
) -> int:
    """Add a pending post per LMS course linking this item (no commit: the caller's).

    `not_before` holds the post until then (an assessment's score release).
    The score itself is read when the post is sent, so one pending row per person and link is
    enough however many submissions arrive meanwhile. Returns how many rows were added.
    """
    rows = session.execute(_LINKED, {"user_id": user_id, "kind": kind, "slug": slug}).all()
    return _queue(session, rows, not_before)


def queue_offering(
    *,
    session: Session,
    offering_id: int | None,
    kind: str | None = None,
    slug: str | None = None,
    user_id: int | None = None,
) -> int:
    """Queue a post per LMS column and member of the LMS courses feeding the offering, after its
    dates or late policy changed the scores that count (no commit: the caller's).

    Narrowed to one item (`kind` and `slug`) and one person when given. Only linked items get
    a post, and each score is read when sent, by the readers that hold an exam's until release;
    a post already held for later (a release) stays held. None: a course with no offering,
    which no LMS course feeds.
    """
    if offering_id is None:
        return 0
    feeds = func.coalesce(LtiContext.offering_id, legacy_offering_id_query()) == offering_id
    linked = (
        select(LtiLink.id, LtiUser.id)
        .join(LtiMember, LtiMember.context_id == LtiLink.context_id)
        .join(LtiUser, LtiUser.id == LtiMember.lti_user_id)
        .join(LtiContext, LtiContext.id == LtiLink.context_id)
        .where(feeds, LtiContext.unlinked_at.is_(None))
        .order_by(LtiLink.id, LtiUser.id)
    )
    if kind is not None and slug is not None:
        linked = linked.where(LtiLink.kind == kind, LtiLink.slug == slug)
    if user_id is not None:
        linked = linked.where(LtiUser.user_id == user_id)
    return _queue(session, session.execute(linked).all(), None)


def _queue(session: Session, rows: Sequence[Row[int, int]], not_before: dt.datetime | None) -> int:
    """Add a pending post per (link, LMS user) that has none; `not_before` holds them all."""
    added = 0
    if not rows:
        return added
    # The database's clock, as the outbox's sender reads it: a process clock set ahead would
    # hold the post until that clock's time came (issue 52).
    now = database_now(session)
    for link_id, lti_user_id in rows:
        pending = session.scalar(
            select(LtiGradePost).where(
                LtiGradePost.link_id == link_id,
                LtiGradePost.lti_user_id == lti_user_id,
                LtiGradePost.status == "pending",
            )
        )
        due = max(as_utc(not_before), now) if not_before is not None else now
        if pending is None:
            session.add(LtiGradePost(link_id=link_id, lti_user_id=lti_user_id, next_attempt_at=due))
            added += 1
        elif not_before is not None:
            pending.next_attempt_at = due
    return added


def post_recorded_grade(event: GradeRecorded) -> None:
    """The subscriber: queue the LMS post of a recorded grade, in the recorder's transaction
    (an exam's answer is not practice: its exam's column gets the exam's score, at release)."""
    if event.purpose != "practice":
        return
    queue_grade(session=event.session, user_id=event.user_id, kind=event.kind, slug=event.slug)
