"""Every course a full citizen: the second course runs an exam, under /courses/{course}/... and
/api/courses/{course}/..., with accommodations, and `validate` and `stats` see it (issue 47)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.assessments.models import AssessmentAttempt
from app.config import ROOT, get_settings
from app.db import session_factory
from app.jobs.deps import get_queue
from app.main import create_app
from app.users.models import Role
from tests.assessments.conftest import write
from tests.assessments.world import (
    ANN,
    SECOND,
    SECOND_EXERCISE,
    SECOND_QUESTION,
    TEACHER,
    headers,
    second_midterm,
)
from tests.courses.helpers import join_first_offering
from tests.jobs.helpers import RecordingQueue

BASE = f"/courses/{SECOND}"


@pytest.fixture
def second_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Path:
    """The first course (linked) and a writable copy of the second, which has the exam."""
    root = tmp_path / "content"
    root.mkdir()
    for name in ("lessons", "exercises", "course.yaml"):
        (root / name).symlink_to(ROOT / name)
    (root / "assessments").mkdir()
    second = root / "courses" / SECOND
    shutil.copytree(ROOT / "courses" / SECOND, second)
    write(second, second_midterm())
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    return root


@pytest.fixture
def client(second_root: Path) -> Iterator[TestClient]:
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: RecordingQueue()
    with TestClient(app) as client:
        yield client


def test_the_second_course_runs_its_exam(client: TestClient) -> None:
    ann = headers(ANN)
    assert client.get(f"{BASE}/assessments/midterm", headers=ann).status_code == 200
    assert client.get("/assessments/midterm", headers=ann).status_code == 404  # not the first's
    listed = client.get(f"{BASE}/assessments", headers=ann)
    assert listed.status_code == 200 and "Midterm" in listed.text
    started = client.post(f"/api/courses/{SECOND}/assessments/midterm/attempts", headers=ann)
    assert started.status_code == 201, started.text
    attempt = started.json()["id"]
    with session_factory()() as session:
        row = session.get(AssessmentAttempt, attempt)
        assert row is not None and row.course_slug == SECOND
    quiz = client.post(
        f"{BASE}/api/lessons/multi-head/quiz",
        json={"answers": {"base-head-width": "64"}},
        headers=ann,
    )
    assert quiz.status_code == 409 and "Midterm" in quiz.json()["detail"]
    practice = client.post(
        "/api/submissions",
        json={"exercise": SECOND_EXERCISE, "course": SECOND, "code": "x = 1"},
        headers=ann,
    )
    assert practice.status_code == 409
    saved = client.put(
        f"/api/assessments/attempts/{attempt}/answers",
        json={"item": f"q:{SECOND_QUESTION}", "value": "64"},
        headers=ann,
    )
    assert saved.status_code == 200, saved.text
    done = client.post(f"/api/assessments/attempts/{attempt}/submit", headers=ann)
    assert done.status_code == 200 and done.json()["status"] == "submitted"


def test_the_second_course_gives_extra_time(client: TestClient) -> None:
    ann, teacher = headers(ANN), headers(TEACHER, Role.instructor)
    join_first_offering(ANN, SECOND, "student")  # the second course's own people
    join_first_offering(TEACHER, SECOND, "instructor")
    attempt = client.post(f"/api/courses/{SECOND}/assessments/midterm/attempts", headers=ann)
    assert attempt.status_code == 201, attempt.text
    with session_factory()() as session:
        ann_id = session.scalar(select(AssessmentAttempt.user_id))
    put = client.put(
        f"/api/courses/{SECOND}/instructor/assessments/midterm/accommodations/{ann_id}",
        json={"extra_minutes": 15, "reason": "letter"},
        headers=teacher,
    )
    assert put.status_code == 200, put.text
    state = client.get(f"/api/assessments/attempts/{attempt.json()['id']}", headers=ann).json()
    assert state["seconds_left"] > 40 * 60


def test_validate_and_stats_see_the_second_courses_exam(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    from app import cli
    from app.courses.service import reset_process_registry

    reset_process_registry()
    ann = headers(ANN)
    join_first_offering(ANN, SECOND, "student")  # its statistics count its own offering's
    attempt = client.post(f"/api/courses/{SECOND}/assessments/midterm/attempts", headers=ann)
    client.put(
        f"/api/assessments/attempts/{attempt.json()['id']}/answers",
        json={"item": f"q:{SECOND_QUESTION}", "value": "64"},
        headers=ann,
    )
    client.post(f"/api/assessments/attempts/{attempt.json()['id']}/submit", headers=ann)
    capsys.readouterr()
    assert cli.main(["validate", "--no-grade", "--json", "--course", SECOND]) in (0, 1)
    checked = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert checked["assessments"] == 1
    assert not [p for p in checked["problems"] if "assessments/" in p["path"]]
    code = cli.main(["stats", "items", "--course", SECOND, "--assessment", "midterm", "--json"])
    assert code == 0
    stats = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert stats["assessment"] == "midterm" and stats["students"] == 1
    asked = {i["item"]: i["attempts"] for i in stats["items"]}
    assert asked == {SECOND_QUESTION: 1, SECOND_EXERCISE: 1}


def test_a_self_study_student_of_the_second_course_starts_one_attempt(client: TestClient) -> None:
    """With the second course's offerings closed to her, Ann's attempt counts in no offering;
    a second Start (a reload, another tab) must still find it, not open a new one."""
    from app.offerings.service import first_offering

    with session_factory()() as session:
        first_offering(session=session, course_slug=SECOND).is_open = False
        session.commit()
    ann = headers(ANN)
    url = f"/api/courses/{SECOND}/assessments/midterm/attempts"
    one = client.post(url, headers=ann)
    assert one.status_code == 201, one.text
    two = client.post(url, headers=ann)
    assert two.status_code in (200, 201), two.text
    assert two.json()["id"] == one.json()["id"]
    with session_factory()() as session:
        rows = session.execute(select(AssessmentAttempt.offering_id, AssessmentAttempt.course_slug))
        assert rows.all() == [(None, SECOND)]
