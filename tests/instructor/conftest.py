"""A small course made with the scaffold, a class of students, and helpers to fill it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.authoring.scaffold import new_exercise, new_lesson
from app.config import get_settings
from app.db import session_factory
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import enroll, first_offering
from app.submissions.models import Submission
from app.users.models import Role
from app.users.service import create_user, issue_api_token

PAST = "2020-01-01T00:00:00Z"
EXERCISE = "add-positions"  # no due date
PAST_DUE = "past-due"  # due in 2020
DRAFT = "draft-one"
LESSON = "table-cost"  # quiz due in 2020


def publish(path: Path, due: str | None = None) -> None:
    """Turn a scaffolded draft into a published item, optionally with a due date."""
    text = path.read_text(encoding="utf-8").replace("draft: true", "draft: false")
    if due is not None:
        text = text.replace("# due: 2026-12-01T23:59:00Z", f"due: {due}")
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def course_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Path:
    """Three numpy exercises (one with a past due date, one draft) and one lesson with a quiz."""
    root = tmp_path / "course"
    (root / "lessons").mkdir(parents=True)
    (root / "exercises").mkdir()
    new_exercise(root, EXERCISE, title="Add positions")
    publish(root / "exercises" / EXERCISE / "exercise.yaml")
    new_exercise(root, PAST_DUE, title="Past due")
    publish(root / "exercises" / PAST_DUE / "exercise.yaml", due=PAST)
    new_exercise(root, DRAFT, title="Draft one")
    lesson = new_lesson(root, LESSON, title="Table cost")
    publish(lesson, due=PAST)
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    return root


@pytest.fixture
def app_client(course_dir: Path) -> Iterator[TestClient]:
    """A client for the app serving the small course."""
    with TestClient(create_app()) as test_client:
        yield test_client


def person(email: str, name: str = "", role: Role = Role.student) -> tuple[int, dict[str, str]]:
    """Create an account in the first offering (a student as a roster or their work would put
    them there, an instructor as `users create --role instructor` does); id and bearer header."""
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email=email, password="correct horse", role=role, name=name
        )
        if role == Role.student:
            enroll(
                session=session,
                offering=first_offering(session=session),
                user=user,
                role=OfferingRole.student,
                source="roster",
            )
        token = issue_api_token(session=session, user=user)
        return user.id, {"Authorization": f"Bearer {token}"}


def report(passed: list[bool], *, misconception: str | None = None) -> dict[str, Any]:
    """A grade report in the contract's shape, one test per entry."""
    tests = [
        {
            "name": f"test {i}",
            "hidden": i >= 2,
            "passed": ok,
            "verdict": "accepted" if ok else "wrong_answer",
            "message": "" if ok else "values differ",
            "misconception": None
            if ok or misconception is None
            else {"id": misconception, "title": f"Title of {misconception}", "hint": "h"},
        }
        for i, ok in enumerate(passed)
    ]
    failing = next((t for t in tests if not t["passed"]), None)
    return {
        "verdict": failing["verdict"] if failing else "accepted",
        "score": sum(passed) / len(passed),
        "message": "",
        "duration_ms": 5.0,
        "tests": tests,
    }


def add_submission(
    user_id: int,
    slug: str,
    passed: list[bool],
    at: dt.datetime,
    *,
    mode: str = "submit",
    late: bool = False,
    misconception: str | None = None,
    code: str = "def f(x):\n    return x\n",
    offering_id: int | None = None,
) -> int:
    """Store a graded submission directly (no grader: the numbers are what is tested)."""
    body = report(passed, misconception=misconception)
    with session_factory()() as session:
        row = Submission(
            user_id=user_id,
            exercise_slug=slug,
            framework="numpy",
            mode=mode,
            code=code,
            status="done",
            verdict=body["verdict"],
            score=body["score"],
            message="",
            report=body,
            duration_ms=5.0,
            created_at=at,
            finished_at=at,
            late=late,
            offering_id=offering_id,
        )
        session.add(row)
        session.commit()
        return row.id


def at(day: int, hour: int = 12, minute: int = 0) -> dt.datetime:
    """A moment in November 2026 (UTC)."""
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=dt.UTC)
