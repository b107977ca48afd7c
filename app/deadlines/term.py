"""The student's side of deadlines: each item's due date in their offering, any extension, the
late policy in words, and the score that counts; the same rules the gradebook and the LMS use."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    CompoundSelect,
    DateTime,
    Float,
    Integer,
    String,
    bindparam,
    cast,
    func,
    literal,
    null,
    select,
    union_all,
)
from sqlalchemy.orm import Session

from app.db import read_rows
from app.deadlines.models import DeadlineExtension, LatePolicy, OfferingDue
from app.deadlines.policy import DEFAULT, Lateness, Policy, after_penalty, as_policy, judge, stamp
from app.deadlines.rules import Kind, later_of
from app.models_base import as_utc
from app.offerings.first import legacy_offering_id_query
from app.offerings.service import offering_for_work_bound, work_params


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
        """The item's date for this student: an extension wins only when later than the date."""
        base = self.own.get((kind, slug))
        if base is None and content_due is not None:
            base = as_utc(content_due)
        if base is None:
            return ItemDue(None)
        granted = self.extensions.get((kind, slug))
        if granted is None or later_of(base, granted.due_at) == base:
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


def student_term(*, session: Session, user_id: int, offering_id: int | None) -> StudentTerm:
    """Read the offering's dates, this student's extensions and the policy in one statement
    (a union: pages that show dates pay one trip for them). None: the first offering."""
    if offering_id is None:
        return _read(session, _rows_first(), {"term_user_id": user_id})
    return _read(session, _rows_at(), {"term_user_id": user_id, "term_offering_id": offering_id})


def student_term_for_work(
    *, session: Session, user_id: int, course_slug: str, named: int | None
) -> StudentTerm:
    """The same in the offering their work in the course counts in (`offering_for_work_bound`),
    found inside the one statement; the statement is built once (issue 54)."""
    params = {
        "term_user_id": user_id,
        **work_params(user_id=user_id, course_slug=course_slug, named=named),
    }
    return _read(session, _rows_for_work(named is not None), params)


def _read(session: Session, statement: CompoundSelect[Any], params: dict[str, Any]) -> StudentTerm:
    own: dict[tuple[str, str], dt.datetime] = {}
    extensions: dict[tuple[str, str], DeadlineExtension] = {}
    policy = DEFAULT
    for tag, kind, slug, due, reason, per_day, most, grace in read_rows(session, statement, params):
        if tag == "own":
            own[(kind, slug)] = as_utc(due)
        elif tag == "ext":
            extensions[(kind, slug)] = DeadlineExtension(
                kind=kind, slug=slug, due_at=as_utc(due), reason=reason or ""
            )
        else:
            policy = as_policy(kind, per_day, most, grace)
    return StudentTerm(policy, own, extensions)


# Built once on first use (constructing the union and its cache key on every page cost more CPU
# than running it, issue 54); only the parameters change between requests.
@functools.cache
def _rows_first() -> CompoundSelect[Any]:
    return _rows(bindparam("term_user_id"), legacy_offering_id_query())


@functools.cache
def _rows_at() -> CompoundSelect[Any]:
    return _rows(bindparam("term_user_id"), bindparam("term_offering_id", type_=Integer()))


@functools.cache
def _rows_for_work(named: bool) -> CompoundSelect[Any]:
    return _rows(bindparam("term_user_id"), offering_for_work_bound(named=named))


def _rows(user_id: Any, here: Any) -> CompoundSelect[Any]:
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
        func.coalesce(DeadlineExtension.offering_id, legacy_offering_id_query()) == here,
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
