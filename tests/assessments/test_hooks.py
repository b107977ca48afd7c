"""One hooks module: every extension point declared once, its transaction rule enforced, and a
failure anywhere in storing a grade rolls the whole grade back for the lease to retry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app import hooks
from app.assessments.models import AssessmentAttempt
from app.db import session_factory
from app.grading import leases
from app.hooks import GradeRecorded, HookBroken
from app.jobs.deps import get_queue
from app.lti.models import LtiGradePost
from app.main import create_app
from app.submissions.models import Submission
from tests.assessments.conftest import write
from tests.assessments.world import Sitting, link_lms, midterm
from tests.jobs.helpers import RecordingQueue

REPORT = {"verdict": "accepted", "score": 1.0, "message": "ok", "duration_ms": 1.0}


def test_every_extension_point_is_declared_once_with_a_rule_and_a_one_line_doc() -> None:
    points = hooks.declared()
    names = [p.name for p in points]
    assert len(names) == len(set(names))
    assert set(names) >= {
        "grade_recorded",
        "account_created",
        "locks",
        "score_readers",
        "link_kinds",
        "result_hold",
        "practice_closed",
        "background",
    }
    for point in points:
        assert (
            point.doc and "\n" not in point.doc and point.doc.endswith(")")
        ) or point.doc.endswith(".")
        assert point.rule in (
            "in_transaction",
            "after_commit",
            "read_only",
            "own_session",
            "registry",
        )


def test_a_grade_subscriber_that_commits_fails(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def commits(event: GradeRecorded) -> None:
        event.session.commit()

    monkeypatch.setattr(hooks.GRADE_RECORDED, "plugs", [commits])
    with session_factory()() as session, pytest.raises(HookBroken, match="grade_recorded"):
        hooks.grade_recorded(session=session, user_id=1, kind="quiz", slug="why-position")
    with session_factory()() as session:  # after dispatch the session commits as usual again
        hooks.GRADE_RECORDED.plugs.clear()
        hooks.grade_recorded(session=session, user_id=1, kind="quiz", slug="why-position")
        session.commit()


@pytest.fixture
def client(course_root: Path) -> Iterator[TestClient]:
    write(course_root, midterm(release="on_submit"))
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: RecordingQueue()
    with TestClient(app) as client:
        yield client


def test_a_failure_after_the_exam_settles_rolls_the_whole_grade_back(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    sitting = Sitting(client)
    sitting.start()
    link_lms()
    sitting.answer_all()
    submission = sitting.hand_in()

    def broken(event: GradeRecorded) -> None:
        raise RuntimeError("the disk is full")

    plugs = [*hooks.GRADE_RECORDED.plugs, broken]  # fails after the exam's score settled
    monkeypatch.setattr(hooks.GRADE_RECORDED, "plugs", plugs)
    with session_factory()() as session:
        claim = leases.claim(session=session, submission_id=submission, lease_seconds=30)
        assert claim is not None
        with pytest.raises(RuntimeError, match="the disk is full"):
            leases.finish(session=session, held=claim, report=REPORT)
    with session_factory()() as session:
        row = session.get(Submission, submission)
        attempt = session.get(AssessmentAttempt, sitting.attempt)
        assert row is not None and attempt is not None
        assert (row.status, row.score) == ("running", None)  # still leased: it runs again
        assert attempt.score is None
        assert session.scalars(select(LtiGradePost)).all() == []
    plugs.remove(broken)
    with session_factory()() as session:  # the lease runs out; the job runs again and stores
        session.get(Submission, submission).lease_expires_at = None  # type: ignore[union-attr]
        session.execute(
            Submission.__table__.update().where(Submission.id == submission).values(status="queued")
        )
        session.commit()
        again = leases.claim(session=session, submission_id=submission, lease_seconds=30)
        assert again is not None and leases.finish(session=session, held=again, report=REPORT)
    with session_factory()() as session:
        attempt = session.get(AssessmentAttempt, sitting.attempt)
        assert attempt is not None and attempt.score == pytest.approx(1.0)
        assert len(session.scalars(select(LtiGradePost)).all()) == 1
