"""Regrade all touches the page's own offering and course: another offering's or course's
submissions at the same exercise slug keep their reports, and its regrade is not theirs to see.

On SQLite and on PostgreSQL: which rows count in an offering (a row with no offering counts
only in its own course's first offering) is SQL both must answer alike.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.content.first import first_course_slug
from app.content.service import load_from_settings
from app.db import session_factory
from app.instructor.models import RegradeJob, SubmissionReport
from app.instructor.regrade import latest_job, start_regrade
from app.main import create_app
from app.migrate import upgrade_head
from app.offerings.models import Offering, OfferingRole
from app.offerings.place import Place
from app.offerings.service import create_offering, enroll, first_offering
from app.submissions.models import Submission
from app.users.models import Role, User
from app.users.service import create_user, issue_api_token
from tests.instructor.conftest import EXERCISE, add_submission, at, person
from tests.postgres import throwaway_database

OTHER_COURSE = "attention-step-by-step"
REGRADE = f"/api/exercises/{EXERCISE}/regrade"


@pytest.fixture(params=["sqlite", "postgresql"])
def regrade_client(
    request: pytest.FixtureRequest,
    course_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
) -> Iterator[TestClient]:
    """The small course's app, on SQLite then on PostgreSQL."""
    if request.param == "sqlite":
        with TestClient(create_app()) as client:
            yield client
        return
    with throwaway_database(monkeypatch, data_dir):
        upgrade_head()
        with TestClient(create_app()) as client:
            yield client


def _staff(email: str, offering_id: int) -> dict[str, str]:
    """Bearer headers of an instructor of that offering only."""
    with session_factory()() as session:
        user, _ = create_user(session=session, email=email, password="correct horse")
        offering = session.get(Offering, offering_id)
        assert offering is not None
        enroll(session=session, offering=offering, user=user, role=OfferingRole.instructor)
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _world() -> dict[str, Any]:
    """Offering A (the first course's first), offering B of the same course, another course's
    offering, and one student's graded work at the same slug in each, with self-study rows."""
    _, teacher_a = person("a@example.org", "A", Role.instructor)  # the first offering's
    ann, _ = person("ann@example.org", "Ann")
    with session_factory()() as session:
        first = first_offering(session=session, course_slug=first_course_slug()).id
        second = create_offering(
            session=session, course_slug=first_course_slug(), title="Spring", is_open=True
        ).id
        elsewhere = create_offering(
            session=session, course_slug=OTHER_COURSE, title="Attention", is_open=True
        ).id
    ids = {
        "a": add_submission(ann, EXERCISE, [True, False], at(1), offering_id=first),
        "a_legacy": add_submission(ann, EXERCISE, [False], at(2)),  # before offerings
        "b": add_submission(ann, EXERCISE, [True, False], at(3), offering_id=second),
        "c_self": add_submission(ann, EXERCISE, [False, False], at(4)),
        "c": add_submission(ann, EXERCISE, [True, True, False], at(5), offering_id=elsewhere),
    }
    with session_factory()() as session:  # the other course's rows, one of them self-study
        for key in ("c_self", "c"):
            row = session.get(Submission, ids[key])
            assert row is not None
            row.course_slug = OTHER_COURSE
        session.commit()
    return {
        "ids": ids,
        "first": first,
        "second": second,
        "teacher_a": teacher_a,
        "teacher_b": _staff("b@example.org", second),
    }


def _reports() -> dict[int, Any]:
    with session_factory()() as session:
        return {row.id: (row.report, row.score) for row in session.scalars(select(Submission))}


def _replaced() -> set[int]:
    with session_factory()() as session:
        return set(session.scalars(select(SubmissionReport.submission_id)))


def _finished(client: TestClient, url: str, headers: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(url, headers=headers).json()
        if body["status"] in ("done", "failed"):
            return body
        time.sleep(0.1)
    raise AssertionError("the regrade did not finish")


def test_regrade_all_touches_only_this_offerings_and_courses_submissions(
    regrade_client: TestClient,
) -> None:
    """Regrade all on offering A's page regraded every stored submission at that slug, every
    offering's and course's, and offering B's page showed A's regrade as its own. Now A's
    regrade replaces A's reports only (its legacy row included) and B sees none of it."""
    client, world = regrade_client, _world()
    ids, first, second = world["ids"], world["first"], world["second"]
    before = _reports()
    mine = {ids["a"], ids["a_legacy"]}

    started = client.post(f"/offerings/{first}{REGRADE}", headers=world["teacher_a"])
    assert started.status_code == 202, started.text
    assert started.json()["total"] == len(mine)
    done = _finished(client, f"/offerings/{first}{REGRADE}", world["teacher_a"])
    assert (done["status"], done["done"], done["total"]) == ("done", 2, 2), done
    assert {e["submission_id"] for e in done["errors"]} <= mine
    assert _replaced() == mine
    after = _reports()
    for key in ("b", "c_self", "c"):
        assert after[ids[key]] == before[ids[key]], key
    for key in ("a", "a_legacy"):
        assert after[ids[key]] != before[ids[key]], key

    # Offering B's staff see no regrade of theirs, on the API or on the exercise page.
    status = client.get(f"/offerings/{second}{REGRADE}", headers=world["teacher_b"]).json()
    assert status == {"exercise": EXERCISE, "status": "none", "done": 0, "total": 0}
    page = client.get(
        f"/offerings/{second}/instructor/exercises/{EXERCISE}", headers=world["teacher_b"]
    )
    assert page.status_code == 200 and "<progress" not in page.text
    # A's staff still read their own.
    again = client.get(f"/offerings/{first}{REGRADE}", headers=world["teacher_a"]).json()
    assert again["id"] == done["id"]

    # B's Regrade all is its own: B's submission only.
    theirs = client.post(f"/offerings/{second}{REGRADE}", headers=world["teacher_b"])
    assert theirs.status_code == 202, theirs.text
    assert theirs.json()["total"] == 1 and theirs.json()["id"] != done["id"]
    _finished(client, f"/offerings/{second}{REGRADE}", world["teacher_b"])
    assert _replaced() == {*mine, ids["b"]}
    assert _reports()[ids["c"]] == before[ids["c"]]


def test_a_running_regrade_in_one_offering_neither_blocks_nor_shows_in_another(
    regrade_client: TestClient,
) -> None:
    """A's regrade still running made B's Regrade all answer 'already running' with A's job."""
    world = _world()
    course = load_from_settings()
    here, there = Place(course, world["first"]), Place(course, world["second"])
    launched: list[int] = []
    with session_factory()() as session:
        teacher = session.scalar(select(User).where(User.email == "a@example.org"))
        assert teacher is not None
        mine, started = start_regrade(
            session=session, slug=EXERCISE, instructor=teacher, launch=launched.append, place=here
        )
        assert started and mine.total == 2
        theirs, started = start_regrade(
            session=session, slug=EXERCISE, instructor=teacher, launch=launched.append, place=there
        )
        assert started and theirs.id != mine.id and theirs.total == 1
        assert launched == [mine.id, theirs.id]
        found = latest_job(session=session, slug=EXERCISE, place=here)
        assert found is not None and found.id == mine.id
        found = latest_job(session=session, slug=EXERCISE, place=there)
        assert found is not None and found.id == theirs.id
        rows = {j.id: (j.course_slug, j.offering_id) for j in session.scalars(select(RegradeJob))}
        assert rows == {
            mine.id: (first_course_slug(), world["first"]),
            theirs.id: (first_course_slug(), world["second"]),
        }
        again, started = start_regrade(
            session=session, slug=EXERCISE, instructor=teacher, launch=launched.append, place=here
        )
        assert (again.id, started) == (mine.id, False)
