"""Due dates: the offering's date (or the content's), or a student's later extension in it."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import ScalarSelect, func, select
from sqlalchemy.orm import Session

from app.deadlines.models import DeadlineExtension, OfferingDue
from app.deadlines.policy import Lateness, Policy, after_penalty, judge, policy_for
from app.models_base import as_utc
from app.offerings.first import legacy_offering_id_query

Kind = Literal["exercise", "quiz"]
KINDS: tuple[Kind, ...] = ("exercise", "quiz")
OfferingRef = int | ScalarSelect[int] | None


def _offering(offering_id: OfferingRef) -> int | ScalarSelect[int]:
    """None means the first offering (as URLs without one do)."""
    return legacy_offering_id_query() if offering_id is None else offering_id


def extension_for(
    *, session: Session, user_id: int, kind: Kind, slug: str, offering_id: OfferingRef = None
) -> DeadlineExtension | None:
    """This student's extension for one exercise or quiz in the offering, if one was granted."""
    return session.scalar(
        select(DeadlineExtension).where(
            DeadlineExtension.user_id == user_id,
            DeadlineExtension.kind == kind,
            DeadlineExtension.slug == slug,
            # rows from before offerings had no offering: they are the first one's
            func.coalesce(DeadlineExtension.offering_id, legacy_offering_id_query())
            == _offering(offering_id),
        )
    )


def offering_dues(
    *, session: Session, offering_id: OfferingRef, kind: Kind
) -> dict[str, dt.datetime]:
    """The offering's own due dates for one kind of item, by slug."""
    rows = session.execute(
        select(OfferingDue.slug, OfferingDue.due_at).where(
            OfferingDue.offering_id == _offering(offering_id), OfferingDue.kind == kind
        )
    ).all()
    return {slug: as_utc(due) for slug, due in rows}


def item_due(
    *, session: Session, offering_id: OfferingRef, kind: Kind, slug: str, due: dt.datetime | None
) -> dt.datetime | None:
    """The item's due date in this offering: the offering's own, else the content's."""
    own = session.scalar(
        select(OfferingDue.due_at).where(
            OfferingDue.offering_id == _offering(offering_id),
            OfferingDue.kind == kind,
            OfferingDue.slug == slug,
        )
    )
    if own is not None:
        return as_utc(own)
    return None if due is None else as_utc(due)


def later_of(due: dt.datetime, extension: dt.datetime | None) -> dt.datetime:
    """An extension never shortens a deadline: a class date moved past it reaches the student."""
    if extension is None:
        return as_utc(due)
    return max(as_utc(due), as_utc(extension))


def effective_due(
    *,
    session: Session,
    user_id: int,
    kind: Kind,
    slug: str,
    due: dt.datetime | None,
    offering_id: OfferingRef = None,
) -> dt.datetime | None:
    """The due date that applies to this student (the offering's, or a later extension)."""
    base = item_due(session=session, offering_id=offering_id, kind=kind, slug=slug, due=due)
    if base is None:
        return None
    extension = extension_for(
        session=session, user_id=user_id, kind=kind, slug=slug, offering_id=offering_id
    )
    return later_of(base, None if extension is None else extension.due_at)


def lateness(
    *,
    session: Session,
    user_id: int,
    kind: Kind,
    slug: str,
    due: dt.datetime | None,
    at: dt.datetime,
    offering_id: int | None,
) -> Lateness:
    """How work handed in at `at` stands under the offering's dates and late policy."""
    deadline = effective_due(
        session=session, user_id=user_id, kind=kind, slug=slug, due=due, offering_id=offering_id
    )
    policy = policy_for(session=session, offering_id=offering_id)
    return judge(policy, at=at, due=deadline)


def is_late(
    *,
    session: Session,
    user_id: int,
    kind: Kind,
    slug: str,
    due: dt.datetime | None,
    at: dt.datetime,
    offering_id: int | None = None,
) -> bool:
    """Whether work handed in at `at` is after the due date that applies to this student."""
    return lateness(
        session=session,
        user_id=user_id,
        kind=kind,
        slug=slug,
        due=due,
        at=at,
        offering_id=offering_id,
    ).late


def late_at(at: dt.datetime, deadline: dt.datetime | None) -> bool:
    """The same rule when the deadline is already known (lists of attempts)."""
    return deadline is not None and as_utc(at) > as_utc(deadline)


@dataclass(frozen=True)
class Dates:
    """One offering's due dates, extensions and late policy, read once for many pieces of work:
    the gradebook's rows and the score an LMS course receives are both judged by `counted`."""

    policy: Policy
    dues: dict[tuple[str, str], dt.datetime | None]  # (kind, slug): the offering's date
    extended: dict[tuple[int, str, str], dt.datetime]  # (user, kind, slug): an extension

    def judge(self, user_id: int, kind: str, slug: str, at: dt.datetime) -> Lateness:
        """Lateness of one piece of work under the offering's dates and policy."""
        return judge(self.policy, at=at, due=self.due_for(user_id, kind, slug))

    def due_for(self, user_id: int, kind: str, slug: str) -> dt.datetime | None:
        """This student's date for the item: the offering's, or their extension if later."""
        due = self.dues.get((kind, slug))
        return None if due is None else later_of(due, self.extended.get((user_id, kind, slug)))

    def cutoff(self, kind: str, slug: str) -> dt.datetime | None:
        """The last moment work on this item is on time for a student without an extension."""
        due = self.dues.get((kind, slug))
        return None if due is None else as_utc(due) + self.policy.grace

    def has_due(self, kind: str, slug: str) -> bool:
        """False when nothing can be late for this item (most cells: judging costs per row)."""
        return self.dues.get((kind, slug)) is not None

    def counted(
        self, user_id: int, kind: str, slug: str, score: float | None, at: dt.datetime
    ) -> tuple[float, Lateness]:
        """The score that counts (the raw score less the late penalty) and how the work stands."""
        standing = self.judge(user_id, kind, slug, at)
        return after_penalty(score, standing.penalty) or 0.0, standing


def offering_dates(
    *,
    session: Session,
    offering_id: int | None,
    content_dues: dict[tuple[Kind, str], dt.datetime | None],
    user_ids: list[int] | None = None,
) -> Dates:
    """The offering's dates for these items (its own, else the content's), the extensions it
    granted (to these people, or to all) and its late policy. None: the first offering."""
    dues: dict[tuple[str, str], dt.datetime | None] = {}
    for kind in KINDS:
        own = offering_dues(session=session, offering_id=offering_id, kind=kind)
        mine = {slug: due for (k, slug), due in content_dues.items() if k == kind}
        dues |= {(kind, slug): own.get(slug, due) for slug, due in mine.items()}
    query = select(DeadlineExtension).where(
        # rows from before offerings had no offering: they are the first one's
        func.coalesce(DeadlineExtension.offering_id, legacy_offering_id_query())
        == _offering(offering_id)
    )
    if user_ids is not None:
        query = query.where(DeadlineExtension.user_id.in_(user_ids))
    extended = {(e.user_id, e.kind, e.slug): as_utc(e.due_at) for e in session.scalars(query)}
    if offering_id is None:
        offering_id = session.scalar(select(legacy_offering_id_query()))
    return Dates(policy_for(session=session, offering_id=offering_id), dues, extended)
