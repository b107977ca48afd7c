"""Time is kept by the server: overdue attempts are handed in by the background pass, extra time
reaches a running attempt, after_close waits for every window, an override reaches the exam's
score, and two Start clicks give one attempt."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.assessments import service
from app.assessments.models import AssessmentAttempt
from app.db import session_factory
from app.grading.reaper import BACKGROUND_KINDS, Reaper
from app.grading.runner import Held
from app.grading.tasks import run_task
from app.jobs.base import JobRef
from app.jobs.deps import get_queue
from app.jobs.models import Job
from app.main import create_app
from app.migrate import upgrade_head
from app.models_base import as_utc
from app.users.models import Role, User
from tests.assessments.conftest import write
from tests.assessments.world import (
    ANN,
    TEACHER,
    Sitting,
    headers,
    link_lms,
    midterm,
    pending_posts,
)
from tests.jobs.helpers import RecordingQueue
from tests.postgres import throwaway_database


def staff() -> dict[str, str]:
    return headers(TEACHER, Role.instructor)


class Quiet(RecordingQueue):
    """Records what is sent; has nothing waiting and no other process to share a lock with."""

    def try_lock(self, name: str, seconds: float) -> bool:
        return True

    def unsent(self, ids: list[int], stale_seconds: float) -> list[int]:
        return []

    def waiting(self, seconds: float) -> list[int]:
        return []

    def forget(self, ids: list[int]) -> None:
        del ids


class Silent:
    """A publisher nobody listens to."""

    def publish(self, submission_id: int, status: str) -> None:
        del submission_id, status


@pytest.fixture
def queue() -> Quiet:
    return Quiet()


@pytest.fixture
def client(course_root: Path, queue: RecordingQueue) -> Iterator[TestClient]:
    write(course_root, midterm())
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: queue
    with TestClient(app) as client:
        yield client


def _attempt(attempt_id: int) -> AssessmentAttempt:
    with session_factory()() as session:
        row = session.get(AssessmentAttempt, attempt_id)
        assert row is not None
        session.expunge(row)
        return row


def _overdue(attempt_id: int) -> dt.datetime:
    ended = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(seconds=5)
    with session_factory()() as session:
        row = session.get(AssessmentAttempt, attempt_id)
        assert row is not None
        row.deadline = ended
        session.commit()
    return ended


def _reaper_pass(queue: RecordingQueue) -> None:
    """The reaper queues a `hand_in` job (once: none is queued or running); a worker runs it."""
    reaper = Reaper(
        queue,  # type: ignore[arg-type]
        Silent(),
        interval=60,
        max_attempts=3,
        lease_seconds=60,
        background=BACKGROUND_KINDS,
    )
    assert reaper.run_once(force=True) is not None
    assert reaper.run_once(force=True) is not None  # the job waits: not queued twice
    handed_in = [j for j in queue.ids if isinstance(j, JobRef) and j.kind == "hand_in"]
    assert len(handed_in) == 1
    queue.ids.remove(handed_in[0])
    done = run_task(handed_in[0].id, held=Held(60), enqueue=queue.enqueue)
    assert done == "stored"
    with session_factory()() as session:
        job = session.get(Job, handed_in[0].id)
        assert job is not None and (job.state, job.result) == ("done", {"handed_in": 1})


def test_an_overdue_attempt_is_handed_in_by_the_background_pass(
    client: TestClient, queue: RecordingQueue
) -> None:
    sitting = Sitting(client)
    sitting.start()
    sitting.answer_all()
    ended = _overdue(sitting.attempt)
    before = client.get("/api/instructor/assessments/midterm/items", headers=staff()).json()
    _reaper_pass(queue)  # nobody opened a page since the deadline passed
    row = _attempt(sitting.attempt)
    assert (row.status, row.submitted_by) == ("submitted", "clock")
    assert as_utc(row.submitted_at) == ended
    handed = sitting.submission = service_submission(sitting.attempt)
    assert handed in queue.ids
    after = client.get("/api/instructor/assessments/midterm/items", headers=staff()).json()
    assert after != before
    csv = client.get("/instructor/assessments/midterm/items.csv", headers=staff())
    assert csv.status_code == 200


def service_submission(attempt_id: int) -> int:
    from tests.assessments.world import exam_submission

    return exam_submission(attempt_id)


def _ann_id() -> int:
    with session_factory()() as session:
        found = session.scalar(select(User.id).where(User.email == ANN))
        assert found is not None
        return int(found)


def _accommodate(client: TestClient, **body: Any) -> None:
    put = client.put(
        f"/api/instructor/assessments/midterm/accommodations/{_ann_id()}",
        json={"reason": "letter", **body},
        headers=staff(),
    )
    assert put.status_code == 200, put.text


def test_extra_time_given_during_a_running_attempt_applies(client: TestClient) -> None:
    sitting = Sitting(client)
    sitting.start()
    first = as_utc(_attempt(sitting.attempt).deadline)
    _accommodate(client, extra_minutes=20)
    assert as_utc(_attempt(sitting.attempt).deadline) == first + dt.timedelta(minutes=20)
    state = client.get(f"/api/assessments/attempts/{sitting.attempt}", headers=headers(ANN))
    assert state.json()["seconds_left"] > 30 * 60


def test_after_close_waits_for_every_students_window(client: TestClient) -> None:
    sitting = Sitting(client)
    sitting.reach("handed_in")
    closes = as_utc(_attempt(sitting.attempt).release_at)  # type: ignore[arg-type]
    bob = headers("bob@example.org")
    client.get("/api/assessments", headers=bob)  # Bob exists and is a member
    with session_factory()() as session:
        bob_id = session.scalar(select(User.id).where(User.email == "bob@example.org"))
    makeup = closes + dt.timedelta(days=2)
    put = client.put(
        f"/api/instructor/assessments/midterm/accommodations/{bob_id}",
        json={
            "reason": "sick",
            "opens_at": (makeup - dt.timedelta(hours=1)).isoformat(),
            "closes_at": makeup.isoformat(),
        },
        headers=staff(),
    )
    assert put.status_code == 200, put.text
    assert as_utc(_attempt(sitting.attempt).release_at) == makeup  # type: ignore[arg-type]


def test_an_override_of_the_exam_code_reaches_the_exam_score_and_the_lms(
    client: TestClient,
) -> None:
    sitting = Sitting(client)
    sitting.start()
    link_lms()
    sitting.answer_all()
    sitting.hand_in()
    sitting.grade(0.0)
    assert _attempt(sitting.attempt).score == pytest.approx(1 / 3)
    overridden = client.post(
        f"/api/instructor/submissions/{sitting.submission}/override",
        json={"score": 1.0, "reason": "the test was wrong"},
        headers=staff(),
    )
    assert overridden.status_code == 200, overridden.text
    assert _attempt(sitting.attempt).score == pytest.approx(1.0)
    assert len(pending_posts("assessment")) == 1
    assert pending_posts("exercise") == []


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_two_start_clicks_at_once_give_one_attempt(
    db: str,
    course_root: Path,
    data_dir: Path,
    queue: Quiet,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write(course_root, midterm())
    with ExitStack() as stack:
        if db == "postgresql":
            stack.enter_context(throwaway_database(monkeypatch, data_dir))
            upgrade_head()
        app = create_app()
        app.dependency_overrides[get_queue] = lambda: queue
        client = stack.enter_context(TestClient(app))
        _two_clicks(client, monkeypatch)


def _two_clicks(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    real = service.attempts_of
    both_read = threading.Barrier(2, timeout=10)

    calls: list[int] = []

    def read_together(**kwargs: Any) -> list[AssessmentAttempt]:
        found = real(**kwargs)
        calls.append(1)
        if len(calls) <= 2:  # each click read "no attempt yet" before either wrote one
            both_read.wait()
        return found

    monkeypatch.setattr(service, "attempts_of", read_together)
    answers: list[Any] = [None, None]
    ann = headers(ANN)

    def click(n: int) -> None:
        answers[n] = client.post("/api/assessments/midterm/attempts", headers=ann)

    threads = [threading.Thread(target=click, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [a.status_code for a in answers] == [201, 201], [a.text for a in answers]
    assert answers[0].json()["id"] == answers[1].json()["id"]
