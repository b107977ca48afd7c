"""The student's side of deadlines: each item's due date in their offering, any extension, the
late policy in words, and the score that counts; the same rules the gradebook and the LMS use."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    CompoundSelect,
    DateTime,
    Float,
    ScalarSelect,
    String,
    cast,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from app.deadlines.models import DeadlineExtension, LatePolicy, OfferingDue
from app.deadlines.policy import DEFAULT, Lateness, Policy, after_penalty, as_policy, judge, stamp
from app.deadlines.rules import Kind
from app.models_base import as_utc
from app.offerings.service import first_offering_id_query


@dataclass(frozen=True)
class ItemDue:
    """One item's date as this student must meet it, and why it is that date."""

    due: dt.datetime | None
    extended: bool = False
    reason: str = ""  # the extension's reason, as staff wrote it
    policy: str | None = None  # the late policy in one sentence (None without a due date)

    def as_json(self) -> dict[str, Any]:
        """The `due` and `late_policy` keys of the content API, and the extension."""
        return {
            "due": None if self.due is None else self.due.isoformat(),
            "extended": self.extended,
            "extension_reason": self.reason or None,
            "late_policy": self.policy,
        }

    @property
    def words(self) -> str:
        """'Due 2027-03-01 17:00 UTC (extended: illness)', or '' without a due date."""
        if self.due is None:
            return ""
        extra = ""
        if self.extended:
            extra = f" (extended for you: {self.reason})" if self.reason else " (extended for you)"
        return f"Due {stamp(self.due)}{extra}"


@dataclass(frozen=True)
class StudentTerm:
    """One student's dates in one offering, read once for a whole page."""

    policy: Policy
    own: dict[tuple[str, str], dt.datetime]  # the offering's dates, by (kind, slug)
    extensions: dict[tuple[str, str], DeadlineExtension]

    def item(self, kind: Kind, slug: str, content_due: dt.datetime | None) -> ItemDue:
        """The item's date for this student: an extension wins over the offering's date."""
        base = self.own.get((kind, slug))
        if base is None and content_due is not None:
            base = as_utc(content_due)
        if base is None:
            return ItemDue(None)
        granted = self.extensions.get((kind, slug))
        if granted is None:
            return ItemDue(base, policy=self.policy.describe())
        return ItemDue(as_utc(granted.due_at), True, granted.reason.strip(), self.policy.describe())

    def judge(
        self, kind: Kind, slug: str, content_due: dt.datetime | None, at: dt.datetime
    ) -> Lateness:
        """How work handed in at `at` stands against this student's date."""
        return judge(self.policy, at=at, due=self.item(kind, slug, content_due).due)

    def counted(
        self,
        kind: Kind,
        slug: str,
        content_due: dt.datetime | None,
        score: float | None,
        at: dt.datetime,
    ) -> float | None:
        """The score that counts: the same number as the gradebook's `Dates.counted`."""
        return after_penalty(score, self.judge(kind, slug, content_due, at).penalty)


def student_term(
    *, session: Session, user_id: int, offering_id: int | ScalarSelect[int] | None
) -> StudentTerm:
    """Read the offering's dates, this student's extensions and the policy in one statement
    (a union: pages that show dates pay one trip for them). None: the first offering."""
    here = first_offering_id_query() if offering_id is None else offering_id
    own: dict[tuple[str, str], dt.datetime] = {}
    extensions: dict[tuple[str, str], DeadlineExtension] = {}
    policy = DEFAULT
    for tag, kind, slug, due, reason, per_day, most, grace in session.execute(_rows(user_id, here)):
        if tag == "own":
            own[(kind, slug)] = as_utc(due)
        elif tag == "ext":
            extensions[(kind, slug)] = DeadlineExtension(
                kind=kind, slug=slug, due_at=as_utc(due), reason=reason or ""
            )
        else:
            policy = as_policy(kind, per_day, most, grace)
    return StudentTerm(policy, own, extensions)


def _rows(user_id: int, here: int | ScalarSelect[int]) -> CompoundSelect[Any]:
    """(tag, kind or mode, slug, due, reason, % per day, max %, grace): one row per date,
    extension and the policy (its mode in the second column)."""
    text, when, number = String(), DateTime(timezone=True), Float()
    blank = (cast(null(), text), cast(null(), number), cast(null(), number), cast(null(), number))
    own = select(
        literal("own", text),
        OfferingDue.kind,
        OfferingDue.slug,
        OfferingDue.due_at,
        *blank,
    ).where(OfferingDue.offering_id == here)
    extended = select(
        literal("ext", text),
        DeadlineExtension.kind,
        DeadlineExtension.slug,
        DeadlineExtension.due_at,
        DeadlineExtension.reason,
        *blank[1:],
    ).where(
        DeadlineExtension.user_id == user_id,
        # rows from before offerings had no offering: they are the first one's
        func.coalesce(DeadlineExtension.offering_id, first_offering_id_query()) == here,
    )
    policy = select(
        literal("policy", text),
        LatePolicy.mode,
        cast(null(), text),
        cast(null(), when),
        cast(null(), text),
        cast(LatePolicy.percent_per_day, number),
        cast(LatePolicy.max_percent, number),
        cast(LatePolicy.grace_minutes, number),
    ).where(LatePolicy.offering_id == here)
    return union_all(own, extended, policy)
