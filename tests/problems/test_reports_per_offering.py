"""Problem reports belong to an offering, in both courses; staff see and resolve only their
own offering's (issue 46)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.problems.models import ProblemReport
from app.users.service import create_user, issue_api_token

SECOND = "attention-step-by-step"


def _person(email: str, places: list[tuple[int, OfferingRole]]) -> dict[str, str]:
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email=email, password="correct horse", join_first_offering=False
        )
        for offering_id, role in places:
            offering = session.get(Offering, offering_id)
            assert offering is not None
            enroll(session=session, offering=offering, user=user, role=role)
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _offerings() -> tuple[int, int, int]:
    with session_factory()() as session:
        a = first_offering(session=session).id
        b = create_offering(session=session, course_slug="positional-embeddings", title="B").id
        c = create_offering(session=session, course_slug=SECOND, title="Attention").id
        return a, b, c


def _reports() -> list[tuple[str, int | None]]:
    with session_factory()() as session:
        return [
            (r.message, r.offering_id)
            for r in session.scalars(select(ProblemReport).order_by(ProblemReport.id))
        ]


def test_the_second_course_takes_problem_reports(client: TestClient) -> None:
    _, _, c = _offerings()
    student = _person("s@example.org", [(c, OfferingRole.student)])
    sent = client.post(
        f"/courses/{SECOND}/problems",
        data={"kind": "exercise", "slug": "split-heads", "message": "Case 3 looks wrong."},
        headers=student,
    )
    assert sent.status_code == 200, sent.text
    assert _reports() == [("Case 3 looks wrong.", c)]
    page = client.get(f"/courses/{SECOND}/exercises/split-heads", headers=student)
    assert f'action="/courses/{SECOND}/problems"' in page.text


def test_staff_see_and_resolve_only_their_own_offerings_reports(client: TestClient) -> None:
    a, b, _ = _offerings()
    both = _person("both@example.org", [(a, OfferingRole.student), (b, OfferingRole.student)])
    ta_a = _person("ta-a@example.org", [(a, OfferingRole.ta)])
    ta_b = _person("ta-b@example.org", [(b, OfferingRole.ta)])
    sent = client.post(
        "/problems",
        data={"kind": "exercise", "slug": "sinusoidal-positional-encoding", "message": "PRIVATE"},
        headers=both,
    )
    assert sent.status_code == 200
    assert _reports() == [("PRIVATE", b)]  # the newest offering the student works in
    [report_id] = _ids()
    assert "PRIVATE" not in client.get(f"/offerings/{a}/instructor/problems", headers=ta_a).text
    refused = client.post(
        f"/offerings/{a}/instructor/problems/{report_id}/resolve",
        headers=ta_a,
        follow_redirects=False,
    )
    assert refused.status_code == 404
    assert "PRIVATE" in client.get(f"/offerings/{b}/instructor/problems", headers=ta_b).text
    done = client.post(
        f"/offerings/{b}/instructor/problems/{report_id}/resolve",
        headers=ta_b,
        follow_redirects=False,
    )
    assert done.status_code == 303


def _ids() -> list[int]:
    with session_factory()() as session:
        return list(session.scalars(select(ProblemReport.id)))
