"""Regrading a quiz after its answer key changed: every stored attempt in the offering is
scored against the key now served; changed scores reach the gradebook and the LMS, and exam
attempts holding the quiz's questions follow, their LMS post held until the exam's release."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.assessments.models import AssessmentAttempt
from app.config import ROOT, get_settings
from app.db import session_factory
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiMember, LtiPlatform, LtiUser
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.progress.models import QuizAttempt
from app.users.models import Role, User
from tests.assessments.conftest import course_root, exam, write
from tests.conftest import make_token
from tests.courses.helpers import join_first_offering

__all__ = ["course_root"]
LESSON = "learned-absolute"
QUESTION = "table-shape"
REGRADE = f"/api/lessons/{LESSON}/quiz/regrade"
ANN = "ann@example.org"


def _bearer(email: str, role: Role) -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token(email, role)}"}


def _user_id(email: str) -> int:
    with session_factory()() as session:
        found = session.scalar(select(User.id).where(User.email == email))
        assert found is not None
        return found


def _link_lms(kinds: list[tuple[str, str]]) -> None:
    """An LMS course linking these items, with Ann as its member."""
    with session_factory()() as session:
        platform = LtiPlatform(
            issuer="https://lms.example", client_id="c", auth_url="a", token_url="t", jwks_url="j"
        )
        session.add(platform)
        session.flush()
        context = LtiContext(platform_id=platform.id, deployment_id="d", context_id="ctx")
        lti_user = LtiUser(issuer=platform.issuer, sub="s-ann", user_id=_user_id(ANN))
        session.add_all([context, lti_user])
        session.flush()
        session.add_all([LtiLink(context_id=context.id, kind=k, slug=s) for k, s in kinds])
        session.add(LtiMember(context_id=context.id, lti_user_id=lti_user.id))
        session.commit()


def _posts(kind: str) -> list[LtiGradePost]:
    with session_factory()() as session:
        return list(
            session.scalars(
                select(LtiGradePost)
                .join(LtiLink, LtiLink.id == LtiGradePost.link_id)
                .where(LtiLink.kind == kind, LtiGradePost.status == "pending")
            )
        )


def _clear_posts() -> None:
    with session_factory()() as session:
        for post in session.scalars(select(LtiGradePost)):
            session.delete(post)
        session.commit()


def _as_if_the_old_key_said_wrong() -> None:
    """The stored attempts were scored by a key that marked the right answer wrong."""
    with session_factory()() as session:
        for attempt in session.scalars(select(QuizAttempt)):
            questions = [
                {**q, "correct": False} if q["id"] == QUESTION else q
                for q in attempt.results["questions"]
            ]
            attempt.results = {**attempt.results, "questions": questions}
            attempt.score = sum(bool(q["correct"]) for q in questions) / len(questions)
        for sitting in session.scalars(select(AssessmentAttempt)):
            assert sitting.results is not None
            items = dict(sitting.results["items"])
            key = f"q:{LESSON}/{QUESTION}"
            items[key] = {**items[key], "score": 0.0, "correct": False}
            sitting.results = {**sitting.results, "items": items}
            sitting.score = 0.0
        session.commit()


def _quiz(client: TestClient, who: dict[str, str], prefix: str = "") -> dict[str, Any]:
    done = client.post(
        f"{prefix}/api/lessons/{LESSON}/quiz",
        json={"answers": {QUESTION: "(max_len, d_model)"}},
        headers=who,
    )
    assert done.status_code in (200, 201), done.text
    body: dict[str, Any] = done.json()
    return body


def _sit_exam(client: TestClient, who: dict[str, str], slug: str) -> int:
    started = client.post(f"/api/assessments/{slug}/attempts", headers=who)
    assert started.status_code == 201, started.text
    attempt = int(started.json()["id"])
    saved = client.put(
        f"/api/assessments/attempts/{attempt}/answers",
        json={"item": f"q:{LESSON}/{QUESTION}", "value": "(max_len, d_model)"},
        headers=who,
    )
    assert saved.status_code == 200, saved.text
    handed = client.post(f"/api/assessments/attempts/{attempt}/submit", headers=who)
    assert handed.status_code == 200, handed.text
    return attempt


def _gradebook_best(client: TestClient, teacher: dict[str, str]) -> float | None:
    book = client.get("/api/instructor/gradebook", headers=teacher).json()
    [row] = [r for r in book["students"] if r["email"] == ANN]
    best: float | None = row["quizzes"][LESSON]["best"]
    return best


def test_a_quiz_regrade_rescores_attempts_and_reaches_gradebook_exam_and_lms(
    course_root: Path,
) -> None:
    # Practice stays open: Ann practises the lesson's quiz, then sits the exam, in one window.
    spec = exam("held", release="after_close", open_during={"practice": True})
    spec["parts"] = [{"title": "Tables", "items": [{"question": f"{LESSON}/{QUESTION}"}]}]
    write(course_root, spec)
    with TestClient(create_app()) as client:
        ann = _bearer(ANN, Role.student)
        teacher = _bearer("teacher@example.org", Role.instructor)
        _quiz(client, ann)
        attempt = _sit_exam(client, ann, "held")
        _link_lms([("quiz", LESSON), ("assessment", "held")])
        _as_if_the_old_key_said_wrong()
        _clear_posts()
        before = _gradebook_best(client, teacher)
        done = client.post(REGRADE, headers=teacher)
        assert done.status_code == 200, done.text
        body = done.json()
        assert body["lesson"] == LESSON
        assert (body["attempts"], body["changed"]) == (1, 1)
        assert (body["exam_attempts"], body["exam_changed"]) == (1, 1)
        assert _gradebook_best(client, teacher) > (before or 0.0)  # type: ignore[operator]
        with session_factory()() as session:
            [stored] = session.scalars(select(QuizAttempt))
            [question] = [q for q in stored.results["questions"] if q["id"] == QUESTION]
            assert question["correct"] is True and stored.results["regraded"]["from"] == 0.0
            sitting = session.get(AssessmentAttempt, attempt)
            assert sitting is not None and sitting.score == 1.0
            release_at = sitting.release_at
        assert len(_posts("quiz")) == 1  # the LMS gets the new quiz score
        [held] = _posts("assessment")  # the exam's post waits for its release (after close)
        assert release_at is not None and held.next_attempt_at >= release_at.replace(
            tzinfo=held.next_attempt_at.tzinfo
        )
        # Still hidden from the student: the exam releases after it closes.
        state = client.get(f"/api/assessments/attempts/{attempt}", headers=ann).json()
        assert state.get("score") is None
        # Nothing changed the second time: no new LMS posts.
        _clear_posts()
        again = client.post(REGRADE, headers=teacher).json()
        assert (again["changed"], again["exam_changed"]) == (0, 0)
        assert _posts("quiz") == [] and _posts("assessment") == []


def test_only_instructors_of_the_offering_regrade_its_attempts(course_root: Path) -> None:
    with TestClient(create_app()) as client:
        ann = _bearer(ANN, Role.student)
        _quiz(client, ann)
        _as_if_the_old_key_said_wrong()
        with session_factory()() as session:
            first = first_offering(session=session)
            spring = create_offering(
                session=session, course_slug="positional-embeddings", title="Spring 2027"
            )
            spring_id = spring.id
            for email, role, offering in (
                ("ta@example.org", OfferingRole.ta, first),
                ("b@example.org", OfferingRole.instructor, spring),
            ):
                user, _ = _make(session, email)
                enroll(session=session, offering=offering, user=user, role=role)
        ta = _login_token("ta@example.org")
        other = _login_token("b@example.org")
        assert client.post(REGRADE, headers=ann).status_code == 403
        assert client.post(REGRADE, headers=ta).status_code == 403
        assert client.post(f"/offerings/{spring_id}{REGRADE}", headers=ann).status_code == 403
        theirs = client.post(f"/offerings/{spring_id}{REGRADE}", headers=other)
        assert theirs.status_code == 200 and theirs.json()["attempts"] == 0  # A's are not B's
        with session_factory()() as session:
            [stored] = session.scalars(select(QuizAttempt))
            assert stored.score == 0.0  # untouched by B's instructor
        assert (
            client.post(
                "/api/lessons/nope/quiz/regrade", headers=_bearer("t@example.org", Role.instructor)
            ).status_code
            == 404
        )
        assert client.post(REGRADE).status_code == 401


def _make(session: Any, email: str) -> tuple[User, bool]:
    from app.users.service import create_user

    return create_user(session=session, email=email, password="correct horse", name="X")


def _login_token(email: str) -> dict[str, str]:
    from app.users.service import issue_api_token

    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def test_the_quizzes_page_has_the_button_for_instructors(course_root: Path) -> None:
    with TestClient(create_app()) as client:
        ann = _bearer(ANN, Role.student)
        _quiz(client, ann)
        teacher = _bearer("teacher@example.org", Role.instructor)
        page = client.get(f"/instructor/quizzes/{LESSON}", headers=teacher)
        assert page.status_code == 200
        assert f'action="/offerings/1/instructor/quizzes/{LESSON}/regrade"' in page.text or (
            f'action="/instructor/quizzes/{LESSON}/regrade"' in page.text
        )
        _as_if_the_old_key_said_wrong()
        done = client.post(
            f"/instructor/quizzes/{LESSON}/regrade", headers=teacher, follow_redirects=False
        )
        assert done.status_code == 303 and "regraded=1" in done.headers["location"]
        shown = client.get(done.headers["location"], headers=teacher)
        assert "Regraded 1 attempt: 1 score changed" in shown.text
        with session_factory()() as session:
            [stored] = session.scalars(select(QuizAttempt))
            assert stored.score is not None and stored.score > 0.0  # the one right answer counts


SECOND = "attention-step-by-step"


def test_the_second_course_regrades_its_own_quiz(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    root = tmp_path / "content"
    root.mkdir()
    for name in ("lessons", "exercises", "course.yaml"):
        (root / name).symlink_to(ROOT / name)
    shutil.copytree(ROOT / "courses" / SECOND, root / "courses" / SECOND)
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        ann = _bearer(ANN, Role.student)
        join_first_offering(ANN, SECOND, "student")  # the second course's own people
        sent = client.post(
            f"/courses/{SECOND}/api/lessons/multi-head/quiz",
            json={"answers": {"base-head-width": "64"}},
            headers=ann,
        )
        assert sent.status_code in (200, 201), sent.text
        with session_factory()() as session:
            [stored] = session.scalars(select(QuizAttempt))
            assert stored.course_slug == SECOND
            right = stored.score
            stored.score = 0.0
            stored.results = {
                **stored.results,
                "questions": [{**q, "correct": False} for q in stored.results["questions"]],
            }
            session.commit()
        teacher = _bearer("teacher@example.org", Role.instructor)
        join_first_offering("teacher@example.org", SECOND, "instructor")
        # The first course has no such lesson; the second course's URL regrades it.
        assert (
            client.post("/api/lessons/multi-head/quiz/regrade", headers=teacher).status_code == 404
        )
        done = client.post(
            f"/courses/{SECOND}/api/lessons/multi-head/quiz/regrade", headers=teacher
        )
        assert done.status_code == 200, done.text
        assert (done.json()["attempts"], done.json()["changed"]) == (1, 1)
        with session_factory()() as session:
            [stored] = session.scalars(select(QuizAttempt))
            assert stored.score == right and right is not None and right > 0
