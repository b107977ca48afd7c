"""Hints in steps: opened one at a time, recorded, never sent before; the solution's unlock."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import ROOT
from app.content.loader import load_course
from app.courses.service import reload_course
from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import enroll, first_offering
from tests.submissions.test_api import WRONG, wait_done
from tests.users.helpers import csrf_from, logged_in_client, make_instructor

SLUG = "position-embedding-gather"
HINTS = sorted((ROOT / "exercises" / SLUG / "hints").glob("*.md"))


def _phrase(n: int) -> str:
    """A few words of hint n as they appear in the page (its first line, markdown-free)."""
    first = HINTS[n - 1].read_text(encoding="utf-8").splitlines()[0]
    return re.sub(r"[`*]", "", first)[:18]


def _open(client: TestClient) -> int:
    page = client.get(f"/exercises/{SLUG}").text
    form = page.split(f'action="/exercises/{SLUG}/hints"', 1)[1]
    token = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert token
    response = client.post(
        f"/exercises/{SLUG}/hints", data={"csrf_token": token.group(1)}, follow_redirects=False
    )
    return response.status_code


def test_the_course_has_hints_in_steps() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    for exercise in course.exercises:
        if exercise.meta.experiment is None:
            assert len(exercise.hints) >= 3, exercise.meta.slug
            assert "<h2>Hints" not in exercise.statement_html  # no longer all at once
    assert not [p for p in course.problems if "hints" in p.path]


def test_badly_numbered_hints_are_a_problem_not_a_crash(content_dir: Path) -> None:
    hints = content_dir / "exercises" / SLUG / "hints"
    (hints / "2.md").rename(hints / "5.md")
    course = load_course(content_dir / "lessons", content_dir / "exercises")
    assert any("without gaps" in p.message for p in course.problems)
    exercise = course.exercise(SLUG)
    assert exercise is not None and exercise.hints == ()


def test_hints_open_one_at_a_time_and_no_earlier(client: TestClient) -> None:
    visitor = client.get(f"/exercises/{SLUG}").text
    assert f"Hints (0 of {len(HINTS)} open)" in visitor and "to open the hints" in visitor
    assert not any(_phrase(n) in visitor for n in range(1, len(HINTS) + 1))
    logged_in_client(client, "stu@example.org")
    for n in range(1, len(HINTS) + 1):
        page = client.get(f"/exercises/{SLUG}").text
        assert f"Show hint {n} of {len(HINTS)}" in page
        assert all(_phrase(k) in page for k in range(1, n))
        assert not any(_phrase(k) in page for k in range(n, len(HINTS) + 1))
        assert _open(client) == 303
    done = client.get(f"/exercises/{SLUG}").text
    assert "That was the last hint." in done and "Show hint" not in done
    assert all(_phrase(k) in done for k in range(1, len(HINTS) + 1))


def test_instructors_see_how_many_opened_each_hint(client: TestClient) -> None:
    student = logged_in_client(client, "stu@example.org")
    with session_factory()() as session:  # on the first offering's roster: the count is its
        first = first_offering(session=session)
        enroll(session=session, offering=first, user=student, role=OfferingRole.student)
    _open(client)
    make_instructor(logged_in_client(client, "teacher@example.org").id)  # counts its students
    page = client.get(f"/instructor/exercises/{SLUG}").text
    assert "Hints opened" in page and '<th scope="row">Hint 1</th><td>1</td>' in page
    data = client.get(f"/api/instructor/exercises/{SLUG}/analytics").json()
    assert data["hint_reveals"][:2] == [{"hint": 1, "students": 1}, {"hint": 2, "students": 0}]


def test_a_visitor_is_sent_to_log_in_and_unknown_exercises_are_404(client: TestClient) -> None:
    page = client.get(f"/exercises/{SLUG}").text
    token = csrf_from(page)
    response = client.post(
        f"/exercises/{SLUG}/hints", data={"csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    missing = client.post("/exercises/no-such/hints", data={"csrf_token": token})
    assert missing.status_code == 404


def test_the_solution_opens_after_the_set_number_of_attempts(
    content_dir: Path, client: TestClient
) -> None:
    path = content_dir / "exercises" / SLUG / "exercise.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "solution_unlock_attempts: 2\n")
    assert not reload_course(request_app=client.app).problems
    logged_in_client(client, "stu@example.org")
    token = csrf_from(client.get(f"/exercises/{SLUG}").text)
    locked = client.get(f"/exercises/{SLUG}/solution")
    assert locked.status_code == 403 and "after\n    2 submit attempts" in locked.text
    for _ in range(2):
        sid = client.post(
            "/api/submissions",
            json={"exercise": SLUG, "code": WRONG},
            headers={"X-CSRF-Token": token},
        ).json()["id"]
        wait_done(client, sid, {})
    assert client.get(f"/exercises/{SLUG}/solution").status_code == 200
