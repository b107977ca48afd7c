"""The author moves a quiz's due date later: a student with an earlier extension gets it too."""

from __future__ import annotations

import datetime as dt

from app.db import session_factory
from app.users.models import Role, User
from tests.authoring.conftest import Authoring, bearer
from tests.authoring.course import LESSON

API = "/api/courses/tiny-course/authoring"
PATH = "lessons/first-steps.md"


def _publish_due(a: Authoring, due: dt.datetime) -> None:
    got = a.client.get(f"{API}/files/{PATH}", headers=a.editor).json()
    text = LESSON.replace("order: 1\n", f"order: 1\ndue: {due.isoformat()}\n")
    saved = a.client.put(
        f"{API}/files/{PATH}", json={"text": text, "base": got["revision"]}, headers=a.editor
    )
    assert saved.status_code == 200 and saved.json()["check"]["ok"], saved.text
    published = a.client.post(f"{API}/publish", json={"message": "due"}, headers=a.editor)
    assert published.status_code == 200, published.text


def test_a_due_date_moved_later_reaches_a_student_whose_extension_is_earlier(
    authoring: Authoring,
) -> None:
    a = authoring
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    ann, bob = a.student, bearer("bob@example.org", Role.student)
    _publish_due(a, now - dt.timedelta(days=2))
    for who in (ann, bob):  # both students are in the course (a first try each)
        a.client.post("/api/lessons/first-steps/quiz", json={"answers": {}}, headers=who)
    with session_factory()() as session:
        ann_id = session.query(User).filter_by(email="student@example.org").one().id
    policy = {"mode": "penalty", "percent_per_day": 10, "max_percent": 50}
    assert a.client.post("/api/instructor/late-policy", json=policy, headers=a.admin).is_success
    # Ann was ill: one more day than the class had.
    granted = a.client.post(
        f"/api/instructor/students/{ann_id}/extensions",
        json={"kind": "quiz", "slug": "first-steps",
              "due": (now - dt.timedelta(days=1)).isoformat(), "reason": "ill"},
        headers=a.admin,
    )  # fmt: skip
    assert granted.status_code == 200, granted.text
    later = now + dt.timedelta(days=7)
    _publish_due(a, later)  # the author gives the whole class a week more
    page = a.client.get("/lessons/first-steps", headers=ann)
    assert page.status_code == 200
    assert later.strftime("%Y-%m-%d") in page.text and "extended for you" not in page.text
    for who in (ann, bob):
        took = a.client.post(
            "/api/lessons/first-steps/quiz", json={"answers": {"pick-one": "two"}}, headers=who
        )
        assert took.status_code == 200, took.text
    book = a.client.get("/api/instructor/gradebook", headers=a.admin).json()
    quiz = {s["email"]: s["quizzes"]["first-steps"] for s in book["students"]}
    assert quiz["bob@example.org"]["late"] is False
    ann_quiz = quiz["student@example.org"]
    assert ann_quiz["late"] is False and ann_quiz["best"] == 1.0, ann_quiz
    staff_page = a.client.get(f"/instructor/students/{ann_id}", headers=a.admin)
    assert staff_page.status_code == 200 and 'class="badge late"' not in staff_page.text
