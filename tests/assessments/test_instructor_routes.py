"""Instructors: accommodations by page and API, the attempts page, the gradebook column;
and what a running attempt closes on the exercise pages."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.db import session_factory
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import Role, User
from tests.assessments.conftest import exam, write
from tests.conftest import make_token

API = "/api/instructor/assessments/quick/accommodations"


def _ids() -> dict[str, int]:
    with session_factory()() as session:
        return {u.email: u.id for u in session.query(User)}


def test_accommodations_by_api_are_checked_and_used(exam_client: TestClient) -> None:
    teacher = {"Authorization": f"Bearer {make_token('t@example.org', Role.instructor)}"}
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    ann_id = _ids()["ann@example.org"]
    assert (
        exam_client.put(f"{API}/{ann_id}", json={"extra_minutes": 15}, headers=ann).status_code
        == 403
    )
    bad = exam_client.put(f"{API}/{ann_id}", json={"extra_minutes": 100}, headers=teacher)
    assert bad.status_code == 422
    assert bad.json()["detail"].startswith("The time limit with the extra time (130 minutes)")
    assert exam_client.get(API, headers=teacher).json() == []
    nobody = exam_client.put(f"{API}/999", json={"extra_minutes": 5}, headers=teacher)
    assert nobody.status_code == 404
    ok = exam_client.put(
        f"{API}/{ann_id}", json={"extra_minutes": 15, "reason": "letter"}, headers=teacher
    )
    assert ok.status_code == 200 and ok.json()["extra_minutes"] == 15
    state = exam_client.post("/api/assessments/quick/attempts", headers=ann).json()
    assert 44 * 60 <= state["seconds_left"] <= 45 * 60
    page = exam_client.get("/instructor/assessments/quick", headers=teacher)
    assert page.status_code == 200 and "ann@example.org" in page.text and "letter" in page.text
    assert exam_client.get("/instructor/assessments", headers=teacher).status_code == 200
    assert exam_client.get("/instructor/assessments", headers=ann).status_code == 403
    assert exam_client.delete(f"{API}/{ann_id}", headers=teacher).status_code == 204
    assert exam_client.delete(f"{API}/{ann_id}", headers=teacher).status_code == 404


def test_the_accommodation_form_shows_its_error(exam_client: TestClient) -> None:
    teacher = {"Authorization": f"Bearer {make_token('t@example.org', Role.instructor)}"}
    make_token("ann@example.org", Role.student)
    url = "/instructor/assessments/quick/accommodations"
    form = {"email": "ann@example.org", "extra_minutes": "ten"}
    refused = exam_client.post(url, data=form, headers=teacher)
    assert refused.status_code == 422 and "is not a number of minutes" in refused.text
    unknown = exam_client.post(url, data={"email": "x@example.org"}, headers=teacher)
    assert unknown.status_code == 404 and "no account with the email" in unknown.text
    form = {"email": "ann@example.org", "extra_minutes": "10"}
    done = exam_client.post(url, data=form, headers=teacher, follow_redirects=False)
    assert done.status_code == 303


def test_the_gradebook_shows_assessment_scores(exam_client: TestClient) -> None:
    teacher = {"Authorization": f"Bearer {make_token('t@example.org', Role.instructor)}"}
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    attempt = exam_client.post("/api/assessments/quick/attempts", headers=ann).json()["id"]
    exam_client.put(
        f"/api/assessments/attempts/{attempt}/answers",
        json={"item": "q:learned-absolute/bert-base-params", "value": "393216"},
        headers=ann,
    )
    book = exam_client.get("/instructor/gradebook", headers=teacher).text
    assert 'data-assessment="quick">running<' in book
    exam_client.post(f"/api/assessments/attempts/{attempt}/submit", headers=ann)
    book = exam_client.get("/instructor/gradebook", headers=teacher).text
    assert 'data-assessment="quick">33%<' in book
    csv = exam_client.get("/instructor/gradebook.csv", headers=teacher).text
    assert "assessment quick score" in csv.splitlines()[0]
    header, line = (r.split(",") for r in csv.splitlines()[:2])
    cells = dict(zip(header, line, strict=True))
    assert cells["assessment quick score"] == cells["assessment quick raw"] == "0.3333"
    assert cells["assessment quick late penalty"] == ""  # handed in on time


def test_a_running_exam_closes_hints_and_solutions_of_its_exercises(
    course_root: Path,
) -> None:
    spec = exam()
    spec["parts"].append({"title": "Code", "items": [{"exercise": "position-embedding-gather"}]})
    write(course_root, spec)
    with TestClient(create_app()) as client:
        ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
        hint = "/exercises/position-embedding-gather/hints"
        client.post("/api/assessments/quick/attempts", headers=ann)
        closed = client.post(hint, headers=ann, follow_redirects=False)
        assert closed.status_code == 403
        words = "Hints of this exercise are closed while your attempt at &#39;Quick exam&#39; runs"
        assert words in closed.text
        solution = client.get("/exercises/position-embedding-gather/solution", headers=ann)
        assert solution.status_code == 403 and "Model solutions of this exercise" in solution.text
        other = client.post("/exercises/rope-rotate/hints", headers=ann, follow_redirects=False)
        assert other.status_code == 303  # exercises not in the exam stay open


def _hand_in(
    client: TestClient, prefix: str, headers: dict[str, str], answers: dict[str, str]
) -> None:
    """Start the exam under this URL prefix, save the answers and hand in."""
    started = client.post(f"{prefix}/api/assessments/quick/attempts", headers=headers)
    assert started.status_code == 201, started.text
    attempt = started.json()["id"]
    for item, value in answers.items():
        saved = client.put(
            f"/api/assessments/attempts/{attempt}/answers",
            json={"item": item, "value": value},
            headers=headers,
        )
        assert saved.status_code == 200, saved.text
    handed = client.post(f"/api/assessments/attempts/{attempt}/submit", headers=headers)
    assert handed.status_code == 200, handed.text


def test_each_offerings_gradebook_shows_only_attempts_made_in_it(course_root: Path) -> None:
    # Issue 27: a member of one offering sees nothing of another. Ann is a student of two
    # offerings of the course; her attempt in the first scores 1 of 3, in the second 2 of 3.
    write(course_root, exam(attempts=2))
    teacher = {"Authorization": f"Bearer {make_token('t@example.org', Role.instructor)}"}
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    ids = _ids()
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        for email, role in (
            ("ann@example.org", OfferingRole.student),
            ("t@example.org", OfferingRole.instructor),
        ):
            user = session.get(User, ids[email])
            assert user is not None
            enroll(session=session, offering=spring, user=user, role=role)
        second = spring.id
    params = {"q:learned-absolute/bert-base-params": "393216"}
    shape = {"q:learned-absolute/table-shape": "(max_len, d_model)"}
    with TestClient(create_app()) as client:
        _hand_in(client, f"/offerings/{first}", ann, params)
        _hand_in(client, f"/offerings/{second}", ann, params | shape)
        shown: dict[int, tuple[str, str]] = {}
        for offering in (first, second):
            csv = client.get(f"/offerings/{offering}/instructor/gradebook.csv", headers=teacher)
            assert csv.status_code == 200, csv.text
            header, *lines = (line.split(",") for line in csv.text.splitlines())
            rows = {r["email"]: r for r in (dict(zip(header, v, strict=True)) for v in lines)}
            page = client.get(f"/offerings/{offering}/instructor/gradebook", headers=teacher).text
            cell = page.split('data-assessment="quick">', 1)[1].split("<", 1)[0]
            shown[offering] = (rows["ann@example.org"]["assessment quick score"], cell)
    assert shown == {first: ("0.3333", "33%"), second: ("0.6667", "67%")}
