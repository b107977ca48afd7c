"""A regrade's heartbeat is judged on the database's clock: a process clock that jumps neither
restarts a live regrade beside itself nor hides a dead one."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient

from app.content.service import load_from_settings
from app.db import database_now, session_factory
from app.instructor.models import RegradeJob
from app.instructor.regrade import STALE, job_view, start_regrade
from app.offerings.place import Place
from app.users.models import Role, User
from tests.faults import jump_process_clock
from tests.instructor.conftest import EXERCISE, add_submission, at, person


def _start(teacher_id: int, launched: list[int]) -> tuple[int, bool, str]:
    with session_factory()() as session:
        teacher = session.get(User, teacher_id)
        assert teacher is not None
        job, started = start_regrade(
            session=session,
            slug=EXERCISE,
            instructor=teacher,
            launch=launched.append,
            place=Place(load_from_settings()),
        )
        return job.id, started, job_view(job, EXERCISE, now=database_now(session))["status"]


@pytest.mark.parametrize("jump", [dt.timedelta(hours=1), -dt.timedelta(hours=1)])
def test_a_live_regrade_is_not_started_twice_when_a_clock_jumps(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch, jump: dt.timedelta
) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher_id, _ = person("t@example.org", "T", Role.instructor)
    add_submission(stu, EXERCISE, [False], at(1))
    launched: list[int] = []
    first, started, _ = _start(teacher_id, launched)  # its thread beats (never launched here)
    assert started
    assert jump_process_clock(monkeypatch, jump) > 0  # the web process answering the next click
    again, started, status = _start(teacher_id, launched)
    assert (again, started, status) == (first, False, "queued")
    assert launched == [first]


def test_a_dead_regrade_is_seen_whatever_the_heartbeat_clock_said(
    app_client: TestClient,
) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher_id, _ = person("t@example.org", "T", Role.instructor)
    add_submission(stu, EXERCISE, [False], at(1))
    launched: list[int] = []
    first, _, _ = _start(teacher_id, launched)
    with session_factory()() as session:  # its process beat with a clock a day ahead, then died
        job = session.get(RegradeJob, first)
        assert job is not None
        job.status, job.heartbeat_at = "running", database_now(session) + dt.timedelta(days=1)
        session.commit()
        assert job_view(job, EXERCISE, now=database_now(session))["status"] == "interrupted"
    again, resumed, _ = _start(teacher_id, launched)
    assert (again, resumed) == (first, True) and launched == [first, first]
    assert dt.timedelta(days=1) > STALE
