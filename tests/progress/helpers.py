"""Rows written straight into the database, so page tests need no grader run."""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.db import session_factory
from app.progress.models import LessonRead, QuizAttempt
from app.submissions.models import Submission
from app.users.models import Role, User
from app.users.service import create_user
from tests.users.helpers import PASSWORD

BASE = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)


def at(minutes: int) -> dt.datetime:
    """A fixed time some minutes after BASE, so 'latest' is never a race."""
    return BASE + dt.timedelta(minutes=minutes)


def make_instructor(email: str = "teacher@example.org") -> User:
    """An instructor account that can log in with PASSWORD."""
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email=email, password=PASSWORD, role=Role.instructor, name="Tess"
        )
        return user


def report(verdict: str, tests: list[dict[str, Any]], message: str = "") -> dict[str, Any]:
    """A grade report in the shape the grader stores."""
    passed = sum(bool(t["passed"]) for t in tests)
    return {
        "verdict": verdict,
        "score": round(passed / len(tests), 4) if tests else 0.0,
        "message": message or f"{passed} of {len(tests)} tests passed.",
        "duration_ms": 12.5,
        "tests": tests,
        "stdout": "",
    }


def case_entry(name: str, passed: bool, *, hidden: bool = False, **extra: Any) -> dict[str, Any]:
    """One test entry of a report."""
    return {
        "name": name,
        "hidden": hidden,
        "passed": passed,
        "verdict": "accepted" if passed else "wrong_answer",
        "message": "Passed." if passed else f"{name} gave different numbers.",
        **extra,
    }


def add_submission(
    user_id: int,
    exercise: str,
    *,
    verdict: str = "accepted",
    mode: str = "submit",
    framework: str = "numpy",
    code: str = "def f():\n    return 1\n",
    tests: list[dict[str, Any]] | None = None,
    created: dt.datetime | None = None,
    status: str = "done",
) -> int:
    """Store one graded submission and return its id."""
    if tests is None:
        ok = verdict == "accepted"
        tests = [case_entry("visible", True), case_entry("hidden-one", ok, hidden=True)]
    full = report(verdict, tests)
    done = status == "done"
    with session_factory()() as session:
        row = Submission(
            user_id=user_id,
            exercise_slug=exercise,
            framework=framework,
            mode=mode,
            code=code,
            status=status,
            verdict=verdict if done else None,
            score=full["score"] if done else None,
            message=full["message"] if done else None,
            report=full if done else None,
            duration_ms=12.5 if done else None,
            created_at=created or BASE,
        )
        session.add(row)
        session.commit()
        return row.id


def add_read(user_id: int, lesson: str, created: dt.datetime | None = None) -> None:
    """Record that a student opened a lesson."""
    with session_factory()() as session:
        session.add(LessonRead(user_id=user_id, lesson_slug=lesson, created_at=created or BASE))
        session.commit()


def add_quiz(
    user_id: int, lesson: str, right: list[bool], created: dt.datetime | None = None
) -> None:
    """Store one quiz attempt with these questions right or wrong."""
    questions = [{"id": f"q{i}", "correct": ok} for i, ok in enumerate(right)]
    with session_factory()() as session:
        session.add(
            QuizAttempt(
                user_id=user_id,
                lesson_slug=lesson,
                answers={},
                results={"questions": questions},
                score=sum(right) / len(right),
                created_at=created or BASE,
            )
        )
        session.commit()
