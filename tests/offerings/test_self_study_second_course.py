"""A student studying the second course on their own (in none of its offerings, none open):
the dates their pages show must be the ones their work is judged by (the content's), not those
of a closed offering they never joined."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient

from app.db import session_factory
from app.deadlines.models import OfferingDue
from app.offerings.service import create_offering
from tests.problems.test_reports_per_offering import SECOND, _person

SLUG = "split-heads"


def _closed_offering_with_a_date() -> int:
    with session_factory()() as session:
        closed = create_offering(session=session, course_slug=SECOND, title="Section A")
        assert not closed.is_open
        session.add(
            OfferingDue(
                offering_id=closed.id,
                kind="exercise",
                slug=SLUG,
                due_at=dt.datetime(2027, 1, 10, 17, tzinfo=dt.UTC),
            )
        )
        session.commit()
        return closed.id


def test_a_self_study_student_sees_the_dates_their_work_is_judged_by(client: TestClient) -> None:
    _closed_offering_with_a_date()
    alone = _person("alone@example.org", [])
    sent = client.post(
        f"/courses/{SECOND}/api/submissions",
        json={"exercise": SLUG, "code": "x = 1\n", "mode": "submit", "framework": "numpy"},
        headers=alone,
    )
    assert sent.status_code == 202, sent.text
    judged = client.get(f"/courses/{SECOND}/api/submissions/{sent.json()['id']}", headers=alone)
    assert judged.json()["due"] is None  # the work: the content's date (none), no offering's
    listed = client.get(f"/courses/{SECOND}/api/exercises", headers=alone).json()
    (item,) = [i for i in listed if i["slug"] == SLUG]
    assert item["due"] is None, item  # the list must say the same
    page = client.get(f"/courses/{SECOND}/exercises/{SLUG}", headers=alone).text
    assert "2027-01-10" not in page
