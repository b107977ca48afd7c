"""The late policy's arithmetic: flagging, a penalty per started day with a cap, refusal, grace."""

from __future__ import annotations

import datetime as dt

import pytest

from app.deadlines.policy import (
    DEFAULT,
    Policy,
    PolicyError,
    after_penalty,
    checked,
    judge,
    refusal_message,
)

DUE = dt.datetime(2026, 12, 1, 23, 59, tzinfo=dt.UTC)


def test_the_default_accepts_and_flags_with_no_penalty() -> None:
    standing = judge(DEFAULT, at=DUE + dt.timedelta(days=3), due=DUE)
    assert (standing.late, standing.days, standing.penalty, standing.refused) == (True, 3, 0, False)
    assert judge(DEFAULT, at=DUE, due=DUE).late is False
    assert judge(DEFAULT, at=DUE + dt.timedelta(days=9), due=None).late is False


def test_a_penalty_counts_started_days_and_stops_at_its_cap() -> None:
    policy = Policy("penalty", percent_per_day=10, max_percent=30)
    one_minute = judge(policy, at=DUE + dt.timedelta(minutes=1), due=DUE)
    assert one_minute.days == 1 and one_minute.penalty == pytest.approx(0.1)
    two_days = judge(policy, at=DUE + dt.timedelta(days=1, hours=1), due=DUE)
    assert two_days.days == 2 and two_days.penalty == pytest.approx(0.2)
    capped = judge(policy, at=DUE + dt.timedelta(days=20), due=DUE)
    assert capped.penalty == pytest.approx(0.3) and not capped.refused
    assert after_penalty(0.8, capped.penalty) == pytest.approx(0.56)
    assert after_penalty(None, 0.3) is None


def test_refusal_waits_for_the_grace_period() -> None:
    policy = Policy("refuse", grace_minutes=15)
    assert judge(policy, at=DUE + dt.timedelta(minutes=15), due=DUE).refused is False
    late = judge(policy, at=DUE + dt.timedelta(minutes=16), due=DUE)
    assert late.refused and late.late and late.penalty == 0
    assert refusal_message(due=DUE, what="exercise") == (
        "This exercise was due at 2026-12-01 23:59 UTC, and this course does not accept late "
        "work. Your instructor can grant you an extension."
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"mode": "maybe"}, "must be one of: accept, penalty, refuse"),
        ({"mode": "penalty", "percent_per_day": 0}, "penalty per day must be more than 0%"),
        ({"mode": "penalty", "percent_per_day": 5, "max_percent": 120}, "largest penalty"),
        ({"mode": "refuse", "grace_minutes": -1}, "grace period must be 0 to 10080"),
    ],
)
def test_a_policy_is_checked(fields: dict[str, object], message: str) -> None:
    values = {"mode": "accept", "percent_per_day": 0.0, "max_percent": 100.0, "grace_minutes": 0}
    with pytest.raises(PolicyError, match=message):
        checked(**(values | fields))  # type: ignore[arg-type]


def test_only_a_penalty_keeps_its_percentages() -> None:
    refuse = checked(mode="refuse", percent_per_day=10, max_percent=50, grace_minutes=5)
    assert refuse == Policy("refuse", 0.0, 100.0, 5)
    assert (
        refuse.describe()
        == "Work is refused once the due date plus a grace period of 5 minutes has passed."
    )
    penalty = checked(mode="penalty", percent_per_day=10, max_percent=50, grace_minutes=0)
    assert penalty.describe() == "Late work loses 10% of its score per day late, at most 50%."
