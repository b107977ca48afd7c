"""`bench --scenario platform`, tiny: the data set is generated on PostgreSQL, every timed page
answers 200 with its content (the gradebook's window query included), and the database goes.

No timing is asserted here: the figures are the benchmark's business (docs/benchmarks.md).
"""

from __future__ import annotations

import os

import psycopg
import pytest

from app.bench.platform import run_platform, table
from app.bench.platform_data import Sizes
from app.bench.server import PG_ADMIN

TINY = Sizes(courses=2, offerings=3, students=50, submissions=2000, big_offering=20)
PAGES = ("gradebook", "gradebook.csv", "home", "exercise", "history")


def _databases() -> set[str]:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=5) as admin:
            rows = admin.execute("SELECT datname FROM pg_database")
            return {str(name) for (name,) in rows if str(name).startswith("course_platform_")}
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(f"PostgreSQL not reachable: {exc}")


def test_a_tiny_platform_is_generated_served_and_dropped() -> None:
    before = _databases()
    found = run_platform(TINY, requests=3, warmup=1)
    stored = found["generated"]["stored"]
    assert stored["courses"] == 2 and stored["offerings"] == 3
    assert stored["students"] == 50 and stored["submissions"] == 2000
    assert stored["graded_in_big_offering"] > 0  # the timed gradebook has work to show
    for name in PAGES:
        page = found[name]
        assert page["statuses"] == {200: 3}, (name, page)
        assert page["wrong_answers"] == 0, (name, page)  # each page's content check passed
    assert [line.split()[0] for line in table(found)] == list(PAGES)
    assert _databases() <= before  # this run's database was dropped
