"""No silent membership (issue 46): an offering is open or closed; sign-up and `users create`
put nobody into one; working in an open offering makes a member of it, and its staff see only
those members; a closed one is entered by code, roster, `offerings enroll` or an LMS launch;
wrong join codes are rate-limited like logins."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.cli import main
from app.db import session_factory
from app.offerings.models import Enrollment, Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import User
from app.users.service import create_user, issue_api_token
from tests.users.helpers import signup

EXERCISE = "sinusoidal-positional-encoding"
CODE = "def sinusoidal_positional_encoding(max_len, d_model):\n    return None\n"


def _places(email: str) -> list[tuple[int, str, str]]:
    with session_factory()() as session:
        rows = session.execute(
            select(Enrollment.offering_id, Enrollment.role, Enrollment.source)
            .join(User, User.id == Enrollment.user_id)
            .where(User.email == email)
        ).all()
        return [(o, OfferingRole(r).value, s) for o, r, s in rows]


def _first() -> int:
    with session_factory()() as session:
        return first_offering(session=session).id


def _close_first() -> None:
    with session_factory()() as session:
        first_offering(session=session).is_open = False
        session.commit()


def _staff_of_first() -> dict[str, str]:
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email="ta@example.org", password="correct horse", name="Tay"
        )
        enroll(
            session=session,
            offering=first_offering(session=session),
            user=user,
            role=OfferingRole.ta,
        )
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _signed_up(client: TestClient, email: str) -> dict[str, str]:
    """Sign up through the real form, then act by a bearer token (no form token needed)."""
    assert signup(client, email=email).status_code == 303
    client.cookies.clear()
    with session_factory()() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def test_the_first_offering_ships_open(client: TestClient) -> None:
    with session_factory()() as session:
        assert first_offering(session=session).is_open
        other = create_offering(session=session, course_slug="positional-embeddings", title="B")
        assert not other.is_open


def test_a_newcomer_signs_up_and_solves_at_once_and_only_then_is_a_member(
    client: TestClient,
) -> None:
    ta = _staff_of_first()
    me = _signed_up(client, "new@example.org")
    assert _places("new@example.org") == []
    people = client.get(f"/offerings/{_first()}/instructor/students", headers=ta)
    assert "new@example.org" not in people.text
    sent = client.post("/api/submissions", json={"exercise": EXERCISE, "code": CODE}, headers=me)
    assert sent.status_code == 202, sent.text
    assert _places("new@example.org") == [(_first(), "student", "open")]
    people = client.get(f"/offerings/{_first()}/instructor/students", headers=ta)
    assert "new@example.org" in people.text


def test_sign_up_puts_nobody_into_a_closed_offering(client: TestClient) -> None:
    _close_first()
    me = _signed_up(client, "new@example.org")
    sent = client.post("/api/submissions", json={"exercise": EXERCISE, "code": CODE}, headers=me)
    assert sent.status_code == 202
    assert _places("new@example.org") == []  # the work counts nowhere; nobody was pulled in


def test_users_create_puts_a_student_nowhere(client: TestClient) -> None:
    assert main(["users", "create", "--email", "s@example.org", "--password", "correct horse"]) == 0
    assert _places("s@example.org") == []
    assert (
        main(
            [
                "users",
                "create",
                "--email",
                "t@example.org",
                "--password",
                "correct horse",
                "--role",
                "instructor",
            ]
        )
        == 0
    )
    assert _places("t@example.org") == [(_first(), "instructor", "signup")]


def test_a_student_of_b_only_can_be_made(client: TestClient) -> None:
    ta = _staff_of_first()
    with session_factory()() as session:
        other = create_offering(session=session, course_slug="positional-embeddings", title="B")
        code, other_id = other.join_code, other.id
    me = _signed_up(client, "b@example.org")
    joined = client.post("/api/offerings/join", json={"code": code}, headers=me)
    assert joined.status_code == 200
    assert _places("b@example.org") == [(other_id, "student", "code")]
    people = client.get(f"/offerings/{_first()}/instructor/students", headers=ta)
    assert "b@example.org" not in people.text


def test_wrong_join_codes_are_rate_limited_like_logins(client: TestClient) -> None:
    with session_factory()() as session:
        code = create_offering(session=session, course_slug="positional-embeddings", title="B")
        right = code.join_code
    me = _signed_up(client, "guess@example.org")
    answers = [
        client.post("/api/offerings/join", json={"code": f"WRONG{i:03d}"}, headers=me).status_code
        for i in range(10)
    ]
    assert answers == [404] * 10
    limited = client.post("/api/offerings/join", json={"code": right}, headers=me)
    assert limited.status_code == 429
    assert "Too many attempts. Please try again in" in limited.json()["detail"]
    assert _places("guess@example.org") == []


def test_working_in_a_closed_offering_makes_no_member(client: TestClient) -> None:
    with session_factory()() as session:
        other = create_offering(
            session=session, course_slug="attention-step-by-step", title="Closed term"
        )
        other_id = other.id
        assert session.get(Offering, other_id) is not None and not other.is_open
    me = _signed_up(client, "c@example.org")
    sent = client.post(
        "/api/submissions",
        json={"exercise": "split-heads", "course": "attention-step-by-step", "code": "x = 1"},
        headers=me,
    )
    assert sent.status_code == 202
    assert _places("c@example.org") == []


def test_a_site_administrator_opens_and_closes_an_offering(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    with session_factory()() as session:
        other = create_offering(session=session, course_slug="positional-embeddings", title="B").id
    assert main(["offerings", "open", str(other)]) == 0
    assert f"offering {other} (B) is open" in capsys.readouterr().out
    assert main(["offerings", "open", str(other), "--close"]) == 0
    with session_factory()() as session:
        found = session.get(Offering, other)
        assert found is not None and not found.is_open
