"""One student in two offerings of one course: each offering's gradebook has its own grade."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.bench.classroom import _right
from app.content.service import load_from_settings
from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.progress.models import QuizAttempt
from app.quiz.service import params_for
from app.users.models import Role, User
from tests.conftest import make_token

LESSON = "why-position"


def _user(email: str) -> User:
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        return user


def _right_answers(user_id: int) -> dict[str, object]:
    lesson = next(les for les in load_from_settings().lessons if les.meta.slug == LESSON)
    return {q.id: _right(q, params_for(q, user_id)) for q in lesson.meta.quiz}


def _quiz_best(client: TestClient, prefix: str, teacher: str, student: int) -> float | None:
    book = client.get(
        f"{prefix}/api/instructor/gradebook", headers={"Authorization": f"Bearer {teacher}"}
    )
    assert book.status_code == 200, book.text
    row = next(r for r in book.json()["students"] if r["id"] == student)
    best: float | None = row["quizzes"][LESSON]["best"]
    return best


def test_a_student_in_two_offerings_keeps_two_grades(client: TestClient) -> None:
    student_token = make_token("ada@example.org", Role.student)  # joins the first offering
    teacher = make_token("teacher@example.org", Role.instructor)
    ada, tess = _user("ada@example.org"), _user("teacher@example.org")
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        enroll(session=session, offering=spring, user=ada, role=OfferingRole.student)
        enroll(session=session, offering=spring, user=tess, role=OfferingRole.instructor)
        second = spring.id
    as_ada = {"Authorization": f"Bearer {student_token}"}
    url = f"/api/lessons/{LESSON}/quiz"

    # Last term's try, sent in the first offering, is all wrong; this term's is all right.
    wrong = client.post(f"/offerings/{first}{url}", json={"answers": {}}, headers=as_ada)
    assert wrong.status_code == 200 and wrong.json()["score"] == 0.0
    right = client.post(
        f"/offerings/{second}{url}", json={"answers": _right_answers(ada.id)}, headers=as_ada
    )
    assert right.status_code == 200 and right.json()["score"] == 1.0

    assert _quiz_best(client, f"/offerings/{first}", teacher, ada.id) == 0.0
    assert _quiz_best(client, f"/offerings/{second}", teacher, ada.id) == 1.0
    assert _quiz_best(client, "", teacher, ada.id) == 0.0  # old URLs mean the first offering

    # Work sent without naming an offering counts in the newest one the student belongs to.
    client.post(url, json={"answers": {}}, headers=as_ada)
    with session_factory()() as session:
        where = session.scalars(
            select(QuizAttempt.offering_id).where(QuizAttempt.user_id == ada.id)
        ).all()
    assert where == [first, second, second]


def test_work_in_an_offering_the_student_does_not_belong_to_counts_in_their_own(
    client: TestClient,
) -> None:
    token = make_token("ada@example.org", Role.student)
    with session_factory()() as session:
        first = first_offering(session=session).id
        other = create_offering(
            session=session, course_slug="positional-embeddings", title="Not Ada's"
        ).id
    answer = client.post(
        f"/offerings/{other}/api/lessons/{LESSON}/quiz",
        json={"answers": {}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200
    with session_factory()() as session:
        assert session.scalar(select(QuizAttempt.offering_id)) == first


def test_a_submission_is_seen_by_its_author_and_its_offerings_staff_only(
    client: TestClient,
) -> None:
    from app.submissions.models import Submission

    author = make_token("ada@example.org", Role.student)
    here = make_token("tess@example.org", Role.instructor)  # instructor of the first offering
    elsewhere = make_token("olga@example.org", Role.student)
    ta = make_token("tim@example.org", Role.student)
    with session_factory()() as session:
        first = first_offering(session=session)
        other = create_offering(session=session, course_slug="positional-embeddings", title="B")
        olga, tim = _user("olga@example.org"), _user("tim@example.org")
        enroll(session=session, offering=other, user=olga, role=OfferingRole.instructor)
        enroll(session=session, offering=first, user=tim, role=OfferingRole.ta)
        row = Submission(
            user_id=_user("ada@example.org").id,
            exercise_slug="position-embedding-gather",
            framework="numpy",
            mode="submit",
            code="x = 1\n",
            status="done",
            verdict="wrong_answer",
            score=0.0,
            offering_id=first.id,
        )
        session.add(row)
        session.commit()
        sid = row.id
    seen = {
        who: client.get(f"/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"})
        for who, token in {"author": author, "here": here, "ta": ta, "elsewhere": elsewhere}.items()
    }
    assert {who: answer.status_code for who, answer in seen.items()} == {
        "author": 200,
        "here": 200,
        "ta": 200,
        "elsewhere": 404,
    }
