"""Domain events: "a grade was recorded", "an account was created", so the recorders need not
know who listens. Declared in `app/hooks.py` with every other extension point; these names stay
for the callers that use them."""

from __future__ import annotations

from app.hooks import (
    ACCOUNT_CREATED,
    GRADE_RECORDED,
    AccountCreated,
    AccountSubscriber,
    GradeRecorded,
    GradeSubscriber,
    account_created,
    grade_recorded,
)

__all__ = [
    "AccountCreated",
    "AccountSubscriber",
    "GradeRecorded",
    "GradeSubscriber",
    "account_created",
    "grade_recorded",
    "on_account_created",
    "on_grade_recorded",
]


def on_grade_recorded(subscriber: GradeSubscriber) -> None:
    """Plug `subscriber` into `hooks.GRADE_RECORDED` (once)."""
    GRADE_RECORDED.plug(subscriber)


def on_account_created(subscriber: AccountSubscriber) -> None:
    """Plug `subscriber` into `hooks.ACCOUNT_CREATED` (once)."""
    ACCOUNT_CREATED.plug(subscriber)
