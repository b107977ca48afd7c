"""An offering's late policy: accept and flag (the default), a penalty per day, or refuse."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Literal

from sqlalchemy.orm import Session

from app.db import retry_conflicts
from app.deadlines.models import LatePolicy
from app.errors import DomainError
from app.models_base import as_utc, utcnow

Mode = Literal["accept", "penalty", "refuse"]
MODES: tuple[Mode, ...] = ("accept", "penalty", "refuse")
MODE_WORDS = {
    "accept": "Accept late work and flag it",
    "penalty": "Accept late work with a penalty per day late",
    "refuse": "Refuse work after the due date (and the grace period)",
}
MAX_GRACE_MINUTES = 7 * 24 * 60
DAY = dt.timedelta(days=1)


class PolicyError(DomainError, ValueError):
    """A late policy an instructor asked for that cannot be kept (422); the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(422, message)


@dataclass(frozen=True)
class Policy:
    """The rules one offering applies to work handed in after its due date."""

    mode: Mode = "accept"
    percent_per_day: float = 0.0
    max_percent: float = 100.0
    grace_minutes: int = 0

    @property
    def grace(self) -> dt.timedelta:
        """How long after the due date work still counts as on time."""
        return dt.timedelta(minutes=self.grace_minutes)

    def describe(self) -> str:
        """The policy in one sentence, for students and staff."""
        minutes = self.grace_minutes
        if self.mode == "refuse":
            plus = f" plus a grace period of {minutes} minutes" if minutes else ""
            return f"Work is refused once the due date{plus} has passed."
        grace = (
            f"; the first {minutes} minutes after the due date count as on time" if minutes else ""
        )
        if self.mode == "penalty":
            return (
                f"Late work loses {self.percent_per_day:g}% of its score per day late, "
                f"at most {self.max_percent:g}%{grace}."
            )
        return f"Late work is accepted and flagged{grace}."


DEFAULT = Policy()


@dataclass(frozen=True)
class Lateness:
    """How one piece of work stands against its due date under the offering's policy."""

    due: dt.datetime | None
    late: bool
    days: int  # whole days late, started days counted (0 when on time)
    penalty: float  # the share of the score taken off, 0 to 1
    refused: bool


def policy_for(*, session: Session, offering_id: int | None) -> Policy:
    """The offering's policy; an offering without one accepts and flags late work."""
    row = None if offering_id is None else session.get(LatePolicy, offering_id)
    if row is None:
        return DEFAULT
    return as_policy(row.mode, row.percent_per_day, row.max_percent, row.grace_minutes)


def as_policy(mode: str, percent_per_day: float, max_percent: float, grace: float) -> Policy:
    """A stored policy's columns as a Policy (an unknown mode accepts and flags)."""
    known: Mode = "penalty" if mode == "penalty" else "refuse" if mode == "refuse" else "accept"
    return Policy(known, float(percent_per_day), float(max_percent), int(grace))


def checked(*, mode: str, percent_per_day: float, max_percent: float, grace_minutes: int) -> Policy:
    """A policy from a form or an API body, or a PolicyError naming what is wrong."""
    if mode not in MODES:
        raise PolicyError(f"The late policy must be one of: {', '.join(MODES)}.")
    if not 0 <= grace_minutes <= MAX_GRACE_MINUTES:
        raise PolicyError(f"The grace period must be 0 to {MAX_GRACE_MINUTES} minutes (7 days).")
    if mode == "penalty":
        if not 0 < percent_per_day <= 100:
            raise PolicyError("The penalty per day must be more than 0% and at most 100%.")
        if not 0 < max_percent <= 100:
            raise PolicyError("The largest penalty must be more than 0% and at most 100%.")
    else:
        percent_per_day, max_percent = 0.0, 100.0
    valid: Mode = "penalty" if mode == "penalty" else "refuse" if mode == "refuse" else "accept"
    return Policy(valid, float(percent_per_day), float(max_percent), int(grace_minutes))


def set_policy(*, session: Session, offering_id: int, policy: Policy, by: int | None) -> None:
    """Store the offering's policy; staff go through `set_late_policy`, for the LMS and marks."""

    def store() -> None:
        row = session.get(LatePolicy, offering_id)
        if row is None:
            row = LatePolicy(offering_id=offering_id)
            session.add(row)
        row.mode, row.percent_per_day = policy.mode, policy.percent_per_day
        row.max_percent, row.grace_minutes = policy.max_percent, policy.grace_minutes
        row.set_by, row.updated_at = by, utcnow()
        session.commit()

    retry_conflicts(session, store)  # a double click on the first Save: the last one stays


def judge(policy: Policy, *, at: dt.datetime, due: dt.datetime | None) -> Lateness:
    """Late, how many days, the penalty and whether it is refused, for work handed in at `at`."""
    if due is None:
        return Lateness(None, False, 0, 0.0, False)
    over = as_utc(at) - (as_utc(due) + policy.grace)
    if over <= dt.timedelta(0):
        return Lateness(as_utc(due), False, 0, 0.0, False)
    days = math.ceil(over / DAY)
    penalty = 0.0
    if policy.mode == "penalty":
        penalty = min(days * policy.percent_per_day, policy.max_percent) / 100
    return Lateness(as_utc(due), True, days, penalty, policy.mode == "refuse")


def after_penalty(score: float | None, penalty: float) -> float | None:
    """The score that counts: the raw score less the late penalty's share of it."""
    return None if score is None else score * (1 - penalty)


def stamp(value: dt.datetime) -> str:
    """A due date as messages show it."""
    return as_utc(value).strftime("%Y-%m-%d %H:%M UTC")


def refusal_message(*, due: dt.datetime, what: str) -> str:
    """The 409 a student reads when the offering refuses late work."""
    return (
        f"This {what} was due at {stamp(due)}, and this course does not accept late work. "
        "Your instructor can grant you an extension."
    )
