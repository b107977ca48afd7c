"""The one datetime rule every domain shares: stored times are UTC, naive or not."""

from __future__ import annotations

import datetime as dt

from app.models_base import as_utc


def test_naive_values_are_read_as_utc_and_aware_ones_keep_their_instant() -> None:
    naive = dt.datetime(2026, 11, 23, 9, 0)
    assert as_utc(naive) == dt.datetime(2026, 11, 23, 9, 0, tzinfo=dt.UTC)
    paris = dt.datetime(2026, 11, 23, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert as_utc(paris) == paris and as_utc(paris).tzinfo == dt.UTC
    assert as_utc(paris).isoformat() == "2026-11-23T09:00:00+00:00"
