"""A lab's write-up graded by a TA in Chromium: the student's page says "awaiting grading"
(the run's own result counts nowhere) and takes their write-up; the TA reads it beside the
code on the grading page and applies the rubric; the student then reads the person's grade as
the score that counts (issue 49)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from app.config import ROOT
from app.submissions.models import Submission
from tests.browser.conftest import PASSWORD, Server, Shots, launch, log_in

LAB = "lab-learned-vs-sinusoidal"
STUDENT = "lab-student@example.org"
TA = "lab-ta@example.org"
RUBRIC = """
rubric:
  weight: 1
  items:
    - id: compares
      title: Compares both embeddings on the same runs
      points: 2
    - id: explains
      title: Explains why one extrapolates
      points: 2
"""
WRITEUP = "Sinusoidal kept its loss past T=64; the learned rows past 64 were never trained."


@pytest.fixture
def lab_server(tmp_path: Path) -> Iterator[Server]:
    """The course with a rubric on one lab (no grader needed: the run is stored as done)."""
    root = tmp_path / "content"
    root.mkdir()
    shutil.copy(ROOT / "course.yaml", root / "course.yaml")
    shutil.copytree(ROOT / "lessons", root / "lessons")
    shutil.copytree(
        ROOT / "exercises", root / "exercises", ignore=shutil.ignore_patterns("__pycache__")
    )
    meta = root / "exercises" / LAB / "exercise.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + RUBRIC, encoding="utf-8")
    with launch(tmp_path / "var", content_dir=root, warm=False) as running:
        yield running


def _stored_run(server: Server, offering_id: int) -> int:
    """A finished lab run (no write-up yet) whose own verdict says full marks."""
    engine = create_engine(f"sqlite:///{server.data_dir / 'app.db'}")
    with engine.connect() as connection:
        user_id = connection.exec_driver_sql(
            "SELECT id FROM users WHERE email = ?", (STUDENT,)
        ).scalar_one()
    at = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    report = {"verdict": "accepted", "score": 1.0, "message": "", "duration_ms": 5.0, "tests": []}
    with Session(engine) as session:
        row = Submission(
            user_id=user_id,
            exercise_slug=LAB,
            course_slug="positional-embeddings",
            framework="torch",
            mode="submit",
            code="print('trained')\n",
            status="done",
            verdict="accepted",
            score=1.0,
            message="",
            report=report,
            duration_ms=5.0,
            created_at=at,
            finished_at=at,
            offering_id=offering_id,
        )
        session.add(row)
        session.commit()
        found = row.id
    engine.dispose()
    return found


def test_a_ta_grades_a_lab_write_up_and_the_student_reads_it(
    browser: Any, lab_server: Server, shots: Shots
) -> None:
    server = lab_server
    for email, name in ((STUDENT, "Lab Student"), (TA, "Tia Assistant")):
        server.cli("users", "create", "--email", email, "--password", PASSWORD, "--name", name)
    offerings: list[dict[str, Any]] = json.loads(server.cli("offerings", "list", "--json"))
    offering = next(o for o in offerings if o["course"] == "positional-embeddings")["id"]
    server.cli("offerings", "enroll", str(offering), TA, "--role", "ta")
    server.cli("offerings", "enroll", str(offering), STUDENT, "--role", "student")
    run = _stored_run(server, offering)
    contexts = []
    try:
        student_context = browser.new_context(base_url=server.url)
        student_context.set_default_timeout(20_000)
        contexts.append(student_context)
        student = student_context.new_page()
        log_in(student, STUDENT, f"/exercises/{LAB}/results/{run}")
        expect(student.locator(".awaiting")).to_contain_text("Awaiting grading by a person")
        student.get_by_label("Your write-up").fill(WRITEUP)
        student.get_by_role("button", name="Save the write-up").click()
        expect(student.locator("#writeup")).to_contain_text("never trained")
        expect(student.locator(".counted")).to_have_count(0)  # the run's 100% counts nowhere
        shots.take(student, "awaiting")

        ta_context = browser.new_context(base_url=server.url)
        ta_context.set_default_timeout(20_000)
        contexts.append(ta_context)
        ta = ta_context.new_page()
        log_in(ta, TA, f"/offerings/{offering}/instructor/exercises/{LAB}/grading")
        expect(ta.locator(".writeup")).to_contain_text("never trained")
        ta.get_by_label("Compares both embeddings on the same runs").check()
        ta.get_by_label("Comment for the student").fill("Now say why sinusoidal extrapolates.")
        shots.take(ta, "grading")
        ta.get_by_role("button", name="Save and grade the next").click()
        expect(ta.locator("h1")).to_have_text("Nothing left to grade by hand")

        student.reload()
        expect(student.locator(".counted")).to_contain_text("Score that counts: 50%")
        expect(student.locator("#rubric")).to_contain_text("Now say why sinusoidal extrapolates.")
        expect(student.locator(".awaiting")).to_have_count(0)
        expect(student.locator("#writeup-form")).to_have_count(0)  # graded: no more rewriting
        shots.take(student, "graded")
    finally:
        for context in contexts:
            context.close()
