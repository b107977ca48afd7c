"""An extension from before offerings (no offering) belongs to the first course's first offering:
staff of another offering, or of another course, removed it from a student they share."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.db import session_factory
from app.deadlines.models import DeadlineExtension
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import User
from app.users.service import create_user, issue_api_token

FIRST, SECOND = "positional-embeddings", "attention-step-by-step"
EXERCISE = "sinusoidal-positional-encoding"


def _account(session: Session, email: str, *places: tuple[Offering, OfferingRole]) -> User:
    user, _ = create_user(
        session=session,
        email=email,
        password="correct horse",
        join_first_offering=False,
    )
    for offering, role in places:
        enroll(session=session, offering=offering, user=user, role=role)
    return user


def _world() -> tuple[int, int, int, dict[str, dict[str, str]]]:
    """A student of three offerings (two of the first course, the second course's first) with
    an extension from before offerings, and an instructor of each offering."""
    with session_factory()() as session:
        first = first_offering(session=session, course_slug=FIRST)
        second = create_offering(session=session, course_slug=FIRST, title="Section B")
        other = first_offering(session=session, course_slug=SECOND)
        session.commit()
        places = (first, second, other)
        student = _account(session, "s@example.org", *((p, OfferingRole.student) for p in places))
        headers = {}
        for name, offering in zip(("first", "second", "other"), places, strict=True):
            teacher = _account(session, f"{name}@example.org", (offering, OfferingRole.instructor))
            token = issue_api_token(session=session, user=teacher)
            headers[name] = {"Authorization": f"Bearer {token}"}
        row = DeadlineExtension(
            user_id=student.id,
            kind="exercise",
            slug=EXERCISE,
            due_at=dt.datetime(2030, 1, 1, tzinfo=dt.UTC),
            reason="before offerings",
            offering_id=None,
        )
        session.add(row)
        session.commit()
        return student.id, row.id, second.id, headers


def _still_there(extension_id: int) -> bool:
    with session_factory()() as session:
        return session.get(DeadlineExtension, extension_id) is not None


def test_only_the_first_offerings_staff_remove_an_extension_from_before_offerings(
    client: TestClient,
) -> None:
    student, extension, second, headers = _world()
    path = f"/instructor/students/{student}/extensions/{extension}/delete"
    tries = {
        "second": (f"/offerings/{second}{path}", headers["second"]),
        "other": (f"/courses/{SECOND}{path}", headers["other"]),
    }
    for name, (url, who) in tries.items():
        refused = client.post(url, headers=who, follow_redirects=False)
        assert refused.status_code == 400, (name, refused.status_code)
        assert "That extension does not exist" in refused.text
        assert _still_there(extension), name
    done = client.post(path, headers=headers["first"], follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].endswith("extension-removed")
    assert not _still_there(extension)
