"""A person's rubric grade is part of the score that counts: removing an override or a regrade
must bring back tests + rubric (a lab: the rubric alone), in the gradebook, on the student's page
and in the LMS's post, never the tests' score alone."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.db import session_factory
from app.instructor.models import RegradeJob
from app.instructor.regrade import regrade_one
from app.lti.grades import score_for
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiMember, LtiPlatform, LtiUser
from app.offerings.service import first_offering
from app.users.models import Role
from graders import Grader
from tests.instructor.conftest import EXERCISE, add_submission, at, person, report
from tests.instructor.test_lab_writeup import LAB, lab_client, lab_run
from tests.instructor.test_student_term import rubric_client

__all__ = ["lab_client", "rubric_client"]
FUNC = EXERCISE.replace("-", "_")
ARANGE = "np.arange(x.shape[1])[None, :, None]"
GOOD = f"import numpy as np\n\ndef {FUNC}(x):\n    return x + {ARANGE}\n"  # passes every case


def _link_lms(user_id: int, slug: str) -> None:
    """An LMS course whose column is this exercise, with the student in it."""
    with session_factory()() as session:
        platform = LtiPlatform(
            issuer="https://lms.example", client_id="c", auth_url="a", token_url="t", jwks_url="j"
        )
        session.add(platform)
        session.flush()
        context = LtiContext(platform_id=platform.id, deployment_id="d", context_id="ctx")
        lti_user = LtiUser(issuer=platform.issuer, sub="s", user_id=user_id)
        session.add_all([context, lti_user])
        session.flush()
        session.add_all(
            [
                LtiLink(context_id=context.id, kind="exercise", slug=slug),
                LtiMember(context_id=context.id, lti_user_id=lti_user.id),
            ]
        )
        session.commit()


def _lms_got_all() -> int:
    """Every post so far went out (a pending one would take in the next); the newest's id."""
    with session_factory()() as session:
        session.execute(update(LtiGradePost).values(status="sent"))
        session.commit()
        return session.scalar(select(func.coalesce(func.max(LtiGradePost.id), 0))) or 0


def _queued_since(last: int) -> bool:
    """A post was queued after post `last` (sent or not by now: the outbox runs meanwhile)."""
    with session_factory()() as session:
        return session.scalar(select(LtiGradePost.id).where(LtiGradePost.id > last)) is not None


def _lms_score(user_id: int, slug: str) -> float | None:
    """The score the queued post sends (it is read when the post goes out)."""
    with session_factory()() as session:
        return score_for(
            session=session,
            user_id=user_id,
            kind="exercise",
            slug=slug,
            policy="best",
            offering_id=first_offering(session=session).id,
        )


def _best(client: TestClient, teacher: dict[str, str], user_id: int, slug: str) -> float:
    book = client.get("/api/instructor/gradebook", headers=teacher).json()
    (row,) = [r for r in book["students"] if r["id"] == user_id]
    best: float = row["exercises"][slug]["best"]
    return best


def _grade(client: TestClient, teacher: dict[str, str], sid: int, applied: list[str]) -> Any:
    graded = client.post(
        f"/api/instructor/submissions/{sid}/rubric",
        json={"applied": applied, "comment": "Fix the shapes"},
        headers=teacher,
    )
    assert graded.status_code == 200, graded.text
    return graded.json()


def _override(client: TestClient, teacher: dict[str, str], sid: int, score: float | None) -> None:
    reason = "" if score is None else "typo in the tests"
    url = f"/api/instructor/submissions/{sid}/override"
    answer = client.post(url, json={"score": score, "reason": reason}, headers=teacher)
    assert answer.status_code == 200, answer.text


def test_removing_an_override_brings_back_the_rubric_grade(rubric_client: TestClient) -> None:
    client = rubric_client
    ann, ann_h = person("ann@example.org", "Ann")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    _link_lms(ann, EXERCISE)
    sid = add_submission(ann, EXERCISE, [True, True], at(1))
    # rubric: (3 - 2) / 4 = 0.25; tests 1.0; half each: 0.625
    assert _grade(client, teacher, sid, ["vectorised", "hard-coded"]) == {
        "manual_score": 0.25,
        "score": 0.625,
    }
    _override(client, teacher, sid, 0.9)
    assert _best(client, teacher, ann, EXERCISE) == pytest.approx(0.9)
    before = _lms_got_all()

    _override(client, teacher, sid, None)
    seen = client.get(f"/api/submissions/{sid}", headers=ann_h).json()
    assert seen["rubric"]["graded"] is True and seen["rubric"]["manual_score"] == 0.25
    assert seen["score"] == pytest.approx(0.625)  # tests + rubric again, not the tests' 1.0
    assert seen["counted_score"] == pytest.approx(0.625)
    assert _best(client, teacher, ann, EXERCISE) == pytest.approx(0.625)
    assert _queued_since(before)  # the removal is a recorded grade: the LMS hears of it
    assert _lms_score(ann, EXERCISE) == pytest.approx(0.625)


def test_a_regrade_keeps_the_rubric_part_of_the_score(rubric_client: TestClient) -> None:
    client = rubric_client
    ann, ann_h = person("ann@example.org", "Ann")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    _link_lms(ann, EXERCISE)
    # Stored as half the tests passing; the real grader passes all of this code now.
    sid = add_submission(ann, EXERCISE, [True, False], at(1), code=GOOD)
    assert _grade(client, teacher, sid, ["vectorised", "hard-coded"])["score"] == 0.375
    before = _lms_got_all()

    started = client.post(f"/api/exercises/{EXERCISE}/regrade", headers=teacher)
    assert started.status_code == 202, started.text
    deadline, body = time.monotonic() + 120, None
    while time.monotonic() < deadline:
        body = client.get(f"/api/exercises/{EXERCISE}/regrade", headers=teacher).json()
        if body["status"] == "done":
            break
        time.sleep(0.2)
    assert body is not None and body["status"] == "done" and body["changed"] == 1, body
    seen = client.get(f"/api/submissions/{sid}", headers=ann_h).json()
    assert seen["rubric"]["graded"] is True and seen["rubric"]["manual_score"] == 0.25
    # The tests' part is 1.0 now and the person's 0.25 still stands: 0.625, not 1.0.
    assert seen["score"] == pytest.approx(0.625)
    assert _best(client, teacher, ann, EXERCISE) == pytest.approx(0.625)
    assert _queued_since(before)  # a changed score is a recorded grade
    assert _lms_score(ann, EXERCISE) == pytest.approx(0.625)


class _RunSaysFullMarks:
    """A lab's run graded again in the student's process, reporting full marks (as a tampered
    one would): the lab's real training is too slow for a test and beside the point."""

    def grade(self, **_: object) -> Any:
        class Report:
            def to_dict(self) -> dict[str, Any]:
                return report([True, True])

        return Report()


def test_a_lab_keeps_the_persons_grade_through_a_regrade_and_an_override(
    lab_client: TestClient,
) -> None:
    client = lab_client
    ann, ann_h = person("ann@example.org", "Ann")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    _link_lms(ann, LAB)
    run = lab_run(ann)  # its own run says 100%
    assert _grade(client, teacher, run, ["compares"]) == {"manual_score": 0.5, "score": 0.5}

    with session_factory()() as session:  # the regrade job's work on this one run
        job = RegradeJob(exercise_slug=LAB, course_slug="positional-embeddings", status="running")
        session.add(job)
        session.commit()
        grader = cast(Grader, _RunSaysFullMarks())
        regrade_one(session=session, grader=grader, submission_id=run, job_id=job.id)
    seen = client.get(f"/api/submissions/{run}", headers=ann_h).json()
    assert seen["score"] == pytest.approx(0.5)  # the rubric alone, never the run's 1.0
    assert _best(client, teacher, ann, LAB) == pytest.approx(0.5)
    assert _lms_score(ann, LAB) == pytest.approx(0.5)

    _override(client, teacher, run, 0.9)
    before = _lms_got_all()
    _override(client, teacher, run, None)
    seen = client.get(f"/api/submissions/{run}", headers=ann_h).json()
    assert seen["score"] == pytest.approx(0.5) and seen["counted_score"] == pytest.approx(0.5)
    assert _best(client, teacher, ann, LAB) == pytest.approx(0.5)
    assert _queued_since(before)
    assert _lms_score(ann, LAB) == pytest.approx(0.5)
