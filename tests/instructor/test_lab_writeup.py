"""A lab counts once its write-up is graded by a person: a lab (experiment exercise) may declare
a rubric; the student hands in a write-up with the run; until a person grades it the gradebook,
the course grade, the student's page and the LMS say "awaiting grading", then they all count the
rubric's grade alone (the run's own verdict can be faked in the student's process)."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import ROOT, get_settings
from app.db import session_factory
from app.lti.grades import score_for
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiMember, LtiPlatform, LtiUser
from app.main import create_app
from app.migrate import upgrade_head
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.submissions.models import Submission
from app.users.models import Role, User
from tests.instructor.conftest import person, report
from tests.postgres import throwaway_database

LAB = "lab-learned-vs-sinusoidal"
PLAIN_LAB = "lab-relative-extrapolation"  # no rubric: practice, as before
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
WRITEUP = "Sinusoidal kept its loss past T=64; learned did not, its rows past 64 are untrained."


@pytest.fixture(params=["sqlite", "postgresql"])
def lab_client(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
) -> Iterator[TestClient]:
    """The repository's course with a rubric on one lab, on SQLite then on PostgreSQL (the
    gradebook's "graded by a person" condition is SQL both must run alike)."""
    root = tmp_path / "content"
    shutil.copytree(ROOT / "lessons", root / "lessons")
    shutil.copytree(
        ROOT / "exercises", root / "exercises", ignore=shutil.ignore_patterns("__pycache__")
    )
    meta = root / "exercises" / LAB / "exercise.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + RUBRIC, encoding="utf-8")
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    if request.param == "sqlite":
        with TestClient(create_app()) as client:
            yield client
        return
    with throwaway_database(monkeypatch, data_dir):
        upgrade_head()
        with TestClient(create_app()) as client:
            yield client


def lab_run(
    user_id: int, slug: str = LAB, *, writeup: str | None = WRITEUP, offering_id: int | None = None
) -> int:
    """A finished lab run whose own verdict says full marks (as a faked one would)."""
    body = report([True, True])
    at = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    with session_factory()() as session:
        row = Submission(
            user_id=user_id,
            exercise_slug=slug,
            framework="torch",
            mode="submit",
            code="x = 1\n",
            status="done",
            verdict="accepted",
            score=1.0,
            message="",
            report=body,
            duration_ms=5.0,
            created_at=at,
            finished_at=at,
            writeup=writeup,
            offering_id=offering_id,
        )
        session.add(row)
        session.commit()
        return row.id


def _cell(
    client: TestClient, teacher: dict[str, str], user_id: int, slug: str = LAB
) -> dict[str, Any]:
    book = client.get("/api/instructor/gradebook", headers=teacher).json()
    [row] = [r for r in book["students"] if r["id"] == user_id]
    cell: dict[str, Any] = row["exercises"][slug]
    return {**cell, "_row": row}


def _link_lms(user_id: int) -> None:
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
                LtiLink(context_id=context.id, kind="exercise", slug=LAB),
                LtiMember(context_id=context.id, lti_user_id=lti_user.id),
            ]
        )
        session.commit()


def _pending() -> int:
    with session_factory()() as session:
        return len(
            list(session.scalars(select(LtiGradePost).where(LtiGradePost.status == "pending")))
        )


def _lms_score(user_id: int) -> float | None:
    with session_factory()() as session:
        offering = first_offering(session=session).id
        return score_for(
            session=session,
            user_id=user_id,
            kind="exercise",
            slug=LAB,
            policy="best",
            offering_id=offering,
        )


def test_a_lab_with_a_rubric_awaits_grading_then_counts_the_rubric_alone(
    lab_client: TestClient,
) -> None:
    client = lab_client
    ann, ann_h = person("ann@example.org", "Ann")
    ta_id, ta = person("ta@example.org", "Tia")
    with session_factory()() as session:
        user = session.get(User, ta_id)
        assert user is not None
        enroll(
            session=session,
            offering=first_offering(session=session),
            user=user,
            role=OfferingRole.ta,
        )
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    _link_lms(ann)
    run = lab_run(ann)
    lab_run(ann, PLAIN_LAB)

    # Awaiting: the run's own "full marks" counts nowhere.
    cell = _cell(client, teacher, ann)
    assert cell["best"] is None and cell["awaiting_grading"] is True and cell["practice"] is False
    assert _cell(client, teacher, ann, PLAIN_LAB)["practice"] is True
    assert cell["_row"]["course_grade"]["categories"]["labs"] is None  # nothing graded yet
    seen = client.get(f"/api/submissions/{run}", headers=ann_h).json()
    assert seen["counted_score"] is None and seen["awaiting_grading"] is True
    assert seen["writeup"] == WRITEUP
    page = client.get(f"/exercises/{LAB}/results/{run}", headers=ann_h).text
    assert "Awaiting grading by a person" in page and "untrained" in page
    assert _lms_score(ann) is None

    # The TA grades the write-up; only the rubric's grade counts (not the run's 100%).
    grading = client.get(f"/instructor/exercises/{LAB}/grading/{run}", headers=ta)
    assert grading.status_code == 200 and "untrained" in grading.text  # the write-up is shown
    graded = client.post(
        f"/api/instructor/submissions/{run}/rubric",
        json={"applied": ["compares"], "comment": "Say why."},
        headers=ta,
    )
    assert graded.status_code == 200, graded.text
    assert graded.json() == {"manual_score": 0.5, "score": 0.5}
    cell = _cell(client, teacher, ann)
    assert cell["best"] == 0.5 and cell["awaiting_grading"] is False
    assert cell["_row"]["course_grade"]["categories"]["labs"] == 0.5
    assert _pending() == 1 and _lms_score(ann) == 0.5
    seen = client.get(f"/api/submissions/{run}", headers=ann_h).json()
    assert seen["counted_score"] == 0.5 and seen["awaiting_grading"] is False

    # A regrade request on the lab still works per item.
    asked = client.post(
        f"/api/submissions/{run}/regrade-request", json={"text": "I explained it."}, headers=ann_h
    )
    assert asked.status_code == 201, asked.text


def test_the_write_up_is_handed_in_with_the_run_and_only_for_a_lab(lab_client: TestClient) -> None:
    client = lab_client
    _, ann_h = person("ann@example.org", "Ann")
    refused = client.post(
        "/api/submissions",
        json={"exercise": "sinusoidal-positional-encoding", "code": "x = 1\n", "writeup": "words"},
        headers=ann_h,
    )
    assert refused.status_code == 422 and "Only a lab takes a write-up" in refused.text
    long = client.post(
        "/api/submissions",
        json={"exercise": LAB, "code": "x = 1\n", "writeup": "w" * 20_001},
        headers=ann_h,
    )
    assert long.status_code == 422
    sent = client.post(
        "/api/submissions",
        json={"exercise": LAB, "code": "x = 1\n", "writeup": WRITEUP},
        headers=ann_h,
    )
    assert sent.status_code == 202, sent.text
    with session_factory()() as session:
        row = session.get(Submission, sent.json()["id"])
        assert row is not None and row.writeup == WRITEUP


def test_a_ta_of_another_offering_cannot_grade_the_lab(lab_client: TestClient) -> None:
    client = lab_client
    ann, _ = person("ann@example.org", "Ann")
    run = lab_run(ann)
    other_id, other = person("other-ta@example.org", "Ota")
    with session_factory()() as session:
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring"
        )
        user = session.get(User, other_id)
        assert user is not None
        enroll(session=session, offering=spring, user=user, role=OfferingRole.ta)
        spring_id = spring.id
    for url in (
        f"/offerings/{spring_id}/api/instructor/submissions/{run}/rubric",
        f"/api/instructor/submissions/{run}/rubric",
    ):
        assert client.post(url, json={"applied": ["compares"]}, headers=other).status_code in (
            403,
            404,
        )
    with session_factory()() as session:
        row = session.get(Submission, run)
        assert row is not None and row.score == 1.0  # untouched


def test_the_student_writes_or_rewrites_the_write_up_until_a_person_grades_it(
    lab_client: TestClient,
) -> None:
    client = lab_client
    ann, ann_h = person("ann@example.org", "Ann")
    _, bob_h = person("bob@example.org", "Bob")
    teacher = person("t@example.org", "Dr Tee", Role.instructor)[1]
    run = lab_run(ann, writeup=None)
    url = f"/api/submissions/{run}/writeup"
    assert client.put(url, json={"text": "mine"}, headers=bob_h).status_code == 404
    assert client.put(url, json={"text": "mine"}, headers=teacher).status_code == 404
    done = client.put(url, json={"text": WRITEUP}, headers=ann_h)
    assert done.status_code == 200 and done.json()["writeup"] == WRITEUP
    other = lab_run(ann, "sinusoidal-positional-encoding", writeup=None)
    refused = client.put(f"/api/submissions/{other}/writeup", json={"text": "x"}, headers=ann_h)
    assert refused.status_code == 422 and "Only a lab takes a write-up" in refused.text
    # The result page's form (the lab page's editor sends code only).
    page = client.get(f"/exercises/{LAB}/results/{run}", headers=ann_h)
    assert 'id="writeup-form"' in page.text
    client.post(
        f"/api/instructor/submissions/{run}/rubric", json={"applied": ["compares"]}, headers=teacher
    )
    late = client.put(url, json={"text": "changed my mind"}, headers=ann_h)
    assert late.status_code == 409 and "already graded" in late.text
    page = client.get(f"/exercises/{LAB}/results/{run}", headers=ann_h)
    assert 'id="writeup-form"' not in page.text and "untrained" in page.text


def test_a_write_up_saved_as_a_ta_grades_it_is_refused_not_swapped_under_the_grade(
    lab_client: TestClient,
) -> None:
    """The student's save has read "not graded yet" when the TA's grade commits: the save is
    refused (409) and the graded text stays, so the grade is always about the stored text."""
    import re

    from sqlalchemy.orm import Session

    from app.instructor.rubric_grading import grade_by_rubric
    from graders.exercise_format import Rubric
    from tests.races import other_request_before

    ann, ann_h = person("ann@example.org", "Ann")
    teacher_id = person("t@example.org", "Dr Tee", Role.instructor)[0]
    run = lab_run(ann)
    rubric = Rubric.model_validate(
        {"weight": 1, "items": [{"id": "compares", "title": "Compares", "points": 2}]}
    )

    def ta_grades(session: Session) -> None:
        row, ta = session.get(Submission, run), session.get(User, teacher_id)
        assert row is not None and ta is not None
        grade_by_rubric(
            session=session,
            submission=row,
            rubric=rubric,
            applied=[],
            comment="",
            grader=ta,
            lab=True,
        )

    # As the save goes to write: its lock, or (without one) its update of the run.
    saving = re.compile(
        r"\s*(SELECT pg_advisory_xact_lock|UPDATE alembic_version|UPDATE submissions)"
    )
    with other_request_before(saving, ta_grades) as ran:
        late = lab_client.put(
            f"/api/submissions/{run}/writeup", json={"text": "changed my mind"}, headers=ann_h
        )
    assert ran == [True]
    assert late.status_code == 409 and "already graded" in late.text
    with session_factory()() as session:
        row = session.get(Submission, run)
        assert row is not None and row.writeup == WRITEUP
