"""A midterm where features meet: one question and one exercise, sat by a student, read by all.

Shared by the tests of issue 47 (tests/assessments/test_purpose.py, test_matrix.py): a course
copy holds an exam released after close; the student starts it, saves answers, hands in; the
exam's code is graded through the job path's own store step; an LMS links the exercise and the
exam. Each reader of the platform is then asked what it shows, per phase.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.assessments.models import AssessmentAnswer, AssessmentAttempt
from app.db import session_factory
from app.grading import leases
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiMember, LtiPlatform, LtiUser
from app.submissions.models import Submission
from app.users.models import Role, User
from tests.conftest import make_token

EXERCISE = "position-embedding-gather"
QUESTION = "learned-absolute/table-shape"
LESSON = "learned-absolute"
RIGHT_CODE = "def position_embedding_gather(table, positions):\n    return table[positions]\n"
PHASES = ("running", "handed_in", "released")


def headers(email: str, role: Role = Role.student) -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token(email, role)}"}


ANN = "ann@example.org"
TEACHER = "teacher@example.org"


def midterm(slug: str = "midterm", **overrides: Any) -> dict[str, Any]:
    """An exam open now for two hours, 30 minutes long, released after it closes."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    spec: dict[str, Any] = {
        "slug": slug,
        "title": "Midterm",
        "kind": "exam",
        "opens": (now - dt.timedelta(hours=1)).isoformat(),
        "closes": (now + dt.timedelta(hours=1)).isoformat(),
        "time_limit_minutes": 30,
        "attempts": 1,
        "release": "after_close",
        "parts": [
            {"title": "Tables", "items": [{"question": QUESTION}]},
            {"title": "Code", "items": [{"exercise": EXERCISE, "points": 2}]},
        ],
    }
    spec.update(overrides)
    return spec


@dataclass
class Sitting:
    """One student's sitting of the midterm, through the API (`prefix`: the course's API)."""

    client: TestClient
    slug: str = "midterm"
    api: str = "/api"
    attempt: int = 0
    submission: int | None = None
    question: str = QUESTION
    answer: str = "(max_len, d_model)"
    exercise: str = EXERCISE

    @property
    def ann(self) -> dict[str, str]:
        return headers(ANN)

    def start(self) -> int:
        started = self.client.post(f"{self.api}/assessments/{self.slug}/attempts", headers=self.ann)
        assert started.status_code == 201, started.text
        self.attempt = int(started.json()["id"])
        return self.attempt

    def save(self, item: str, value: Any) -> Any:
        return self.client.put(
            f"/api/assessments/attempts/{self.attempt}/answers",
            json={"item": item, "value": value},
            headers=self.ann,
        )

    def answer_all(self) -> None:
        assert self.save(f"q:{self.question}", self.answer).status_code == 200
        code = {"framework": "numpy", "code": RIGHT_CODE}
        saved = self.save(f"x:{self.exercise}", code)
        assert saved.status_code == 200, saved.text

    def hand_in(self) -> int:
        done = self.client.post(
            f"/api/assessments/attempts/{self.attempt}/submit", headers=self.ann
        )
        assert done.status_code == 200, done.text
        self.submission = exam_submission(self.attempt, self.exercise)
        return self.submission

    def grade(self, score: float = 1.0) -> None:
        assert self.submission is not None
        grade(self.submission, score)

    def release(self) -> None:
        with session_factory()() as session:
            row = session.get(AssessmentAttempt, self.attempt)
            assert row is not None
            row.release_at = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
            session.commit()

    def reach(self, phase: str) -> None:
        """Bring the sitting to `phase`: running, handed_in (graded, not released), released."""
        self.start()
        self.answer_all()
        if phase == "running":
            return
        self.hand_in()
        self.grade()
        if phase == "released":
            self.release()


def exam_submission(attempt_id: int, exercise: str = EXERCISE) -> int:
    """The submission the exam's exercise item was handed in as."""
    with session_factory()() as session:
        found = session.scalar(
            select(AssessmentAnswer.submission_id).where(
                AssessmentAnswer.attempt_id == attempt_id,
                AssessmentAnswer.item_key == f"x:{exercise}",
            )
        )
        assert found is not None
        return int(found)


def grade(submission_id: int, score: float) -> None:
    """Grade through the job path's own store step (claim, then finish with a report)."""
    verdict = "accepted" if score >= 1.0 else "wrong_answer"
    report = {
        "verdict": verdict,
        "score": score,
        "message": "All tests passed." if score >= 1.0 else "A test failed.",
        "duration_ms": 3.0,
        "tests": [
            {
                "name": "gather",
                "hidden": False,
                "passed": score >= 1.0,
                "verdict": verdict,
                "message": "",
            }
        ],
    }
    with session_factory()() as session:
        claim = leases.claim(session=session, submission_id=submission_id, lease_seconds=30)
        assert claim is not None
        assert leases.finish(session=session, held=claim, report=report)


def link_lms(
    *, exam_slug: str = "midterm", exercise: str = EXERCISE, offering_id: int | None = None
) -> None:
    """An LMS course that links both the exercise and the exam, with Ann as its member."""
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == ANN))
        assert user is not None
        platform = LtiPlatform(
            issuer="https://lms.example", client_id="c", auth_url="a", token_url="t", jwks_url="j"
        )
        session.add(platform)
        session.flush()
        context = LtiContext(
            platform_id=platform.id, deployment_id="d", context_id="ctx", offering_id=offering_id
        )
        lti_user = LtiUser(issuer=platform.issuer, sub="s-ann", user_id=user.id)
        session.add_all([context, lti_user])
        session.flush()
        session.add_all(
            [
                LtiLink(context_id=context.id, kind="exercise", slug=exercise),
                LtiLink(context_id=context.id, kind="assessment", slug=exam_slug),
                LtiMember(context_id=context.id, lti_user_id=lti_user.id),
            ]
        )
        session.commit()


def pending_posts(kind: str) -> list[LtiGradePost]:
    """LMS posts waiting for the links of this kind."""
    with session_factory()() as session:
        return list(
            session.scalars(
                select(LtiGradePost)
                .join(LtiLink, LtiLink.id == LtiGradePost.link_id)
                .where(LtiLink.kind == kind, LtiGradePost.status == "pending")
            )
        )


def submissions() -> list[Submission]:
    with session_factory()() as session:
        return list(session.scalars(select(Submission).order_by(Submission.id)))


SECOND = "attention-step-by-step"
SECOND_QUESTION = "multi-head/base-head-width"
SECOND_EXERCISE = "split-heads"


def second_midterm(slug: str = "midterm", **overrides: Any) -> dict[str, Any]:
    """The second course's midterm: one of its questions and one of its exercises."""
    spec = midterm(slug, **overrides)
    spec["parts"] = [
        {"title": "Heads", "items": [{"question": SECOND_QUESTION}]},
        {"title": "Code", "items": [{"exercise": SECOND_EXERCISE, "points": 2}]},
    ]
    spec.update(overrides)
    return spec
