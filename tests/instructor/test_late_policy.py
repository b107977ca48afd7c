"""An offering's late policy and due dates: the settings page, refusals, penalties, extensions."""

from __future__ import annotations

import datetime as dt

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.deadlines.models import DeadlineExtension
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.progress.service import save_quiz_attempt
from app.submissions.models import Draft
from app.users.models import Role, User
from tests.instructor.conftest import EXERCISE, LESSON, PAST_DUE, add_submission, person
from tests.users.helpers import form_token, logged_in_client, make_instructor

FUTURE = (dt.datetime.now(dt.UTC) + dt.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")
CODE = "def past_due(x):\n    return x\n"


def _policy(client: TestClient, headers: dict[str, str], **body: object) -> None:
    answer = client.post("/api/instructor/late-policy", json=body, headers=headers)
    assert answer.status_code == 200, answer.text


def test_refused_work_gets_a_409_and_the_code_is_kept(app_client: TestClient) -> None:
    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    _policy(app_client, teacher, mode="refuse")
    answer = app_client.post(
        "/api/submissions",
        json={"exercise": PAST_DUE, "code": CODE, "mode": "submit"},
        headers=student,
    )
    assert answer.status_code == 409
    assert answer.json()["detail"] == (
        "This exercise was due at 2020-01-01 00:00 UTC, and this course does not accept late "
        "work. Your instructor can grant you an extension. Your code is kept in your saved draft."
    )
    with session_factory()() as session:
        drafts = session.scalars(select(Draft.code).where(Draft.user_id == stu)).all()
    assert drafts == [CODE]
    trial = app_client.post(
        "/api/submissions",
        json={"exercise": PAST_DUE, "code": CODE, "mode": "run"},
        headers=student,
    )
    assert trial.status_code == 202  # a run is not graded work: still allowed
    quiz = app_client.post(f"/api/lessons/{LESSON}/quiz", json={"answers": {}}, headers=student)
    assert quiz.status_code == 409 and "This quiz was due at 2020-01-01" in quiz.json()["detail"]

    granted = app_client.post(
        f"/api/instructor/students/{stu}/extensions",
        json={"kind": "exercise", "slug": PAST_DUE, "due": FUTURE},
        headers=teacher,
    )
    assert granted.status_code == 200, granted.text
    again = app_client.post(
        "/api/submissions",
        json={"exercise": PAST_DUE, "code": CODE, "mode": "submit"},
        headers=student,
    )
    assert again.status_code == 202


def test_an_offering_due_date_replaces_the_contents(app_client: TestClient) -> None:
    _, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    _policy(app_client, teacher, mode="refuse")
    moved = app_client.post(
        "/api/instructor/due-dates",
        json={"kind": "exercise", "slug": PAST_DUE, "due": FUTURE},
        headers=teacher,
    )
    assert moved.status_code == 200, moved.text
    due = {d["slug"]: d for d in moved.json()["due_dates"]}[PAST_DUE]
    assert due["content_due"].startswith("2020-01-01") and due["offering_due"].startswith(FUTURE)
    on_time = app_client.post(
        "/api/submissions",
        json={"exercise": PAST_DUE, "code": CODE, "mode": "submit"},
        headers=student,
    )
    assert on_time.status_code == 202
    body = app_client.get(f"/api/submissions/{on_time.json()['id']}", headers=student).json()
    assert body["late"] is False
    early = dt.datetime(2019, 6, 1, tzinfo=dt.UTC).strftime("%Y-%m-%dT%H:%M")
    app_client.post(
        "/api/instructor/due-dates",
        json={"kind": "exercise", "slug": EXERCISE, "due": early},
        headers=teacher,
    )
    refused = app_client.post(  # no due date in its content: the offering's own applies
        "/api/submissions",
        json={"exercise": EXERCISE, "code": "x = 1\n", "mode": "submit"},
        headers=student,
    )
    assert refused.status_code == 409 and "due at 2019-06-01 00:00 UTC" in refused.text
    bad = app_client.post(
        "/api/instructor/due-dates",
        json={"kind": "exercise", "slug": "nope", "due": FUTURE},
        headers=teacher,
    )
    assert bad.status_code == 422 and "no exercise called 'nope'" in bad.json()["detail"]


def test_the_gradebook_shows_the_penalty_and_the_raw_score(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    _policy(app_client, teacher, mode="penalty", percent_per_day=10, max_percent=30)
    add_submission(stu, PAST_DUE, [True, True], dt.datetime(2020, 1, 1, 12, tzinfo=dt.UTC))
    with session_factory()() as session:
        save_quiz_attempt(
            session=session, user_id=stu, lesson_slug=LESSON, answers={}, results={}, score=0.5
        )
    book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
    row = book["students"][0]
    cell = row["exercises"][PAST_DUE]
    assert cell["raw"] == 1.0 and cell["late_penalty"] == pytest.approx(0.1)
    assert cell["best"] == pytest.approx(0.9) and cell["late"] is True
    quiz = row["quizzes"][LESSON]
    assert quiz["raw"] == 0.5 and quiz["late_penalty"] == pytest.approx(0.3)  # capped
    assert quiz["best"] == pytest.approx(0.35)
    text = app_client.get("/instructor/gradebook.csv", headers=teacher).text
    header, line = (r.split(",") for r in text.splitlines()[:2])
    cells = dict(zip(header, line, strict=True))
    assert cells[f"{PAST_DUE} best"] == "0.9" and cells[f"{PAST_DUE} raw"] == "1"
    assert cells[f"{PAST_DUE} late penalty"] == "0.1"
    assert cells[f"quiz {LESSON} score"] == "0.35" and cells[f"quiz {LESSON} raw"] == "0.5"
    page = app_client.get("/instructor/gradebook", headers=teacher).text
    assert "raw 100%, −10%" in page


def test_the_settings_form_saves_with_its_csrf_token(app_client: TestClient) -> None:
    user = logged_in_client(app_client, "teacher@example.org", "Tea")
    make_instructor(user.id)
    page = app_client.get("/instructor/settings")
    assert page.status_code == 200 and "Late work is accepted and flagged." in page.text
    token = form_token(page.text)
    refused = app_client.post(
        "/instructor/settings/late-policy", data={"mode": "refuse"}, follow_redirects=False
    )
    assert refused.status_code == 403  # no token: the CSRF check refuses
    saved = app_client.post(
        "/instructor/settings/late-policy",
        data={
            "csrf_token": token,
            "mode": "penalty",
            "percent_per_day": "5",
            "max_percent": "50",
            "grace_minutes": "10",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303
    shown = app_client.get(saved.headers["location"]).text
    assert "Late work loses 5% of its score per day late, at most 50%" in shown
    wrong = app_client.post(
        "/instructor/settings/late-policy",
        data={"csrf_token": token, "mode": "penalty", "percent_per_day": "lots"},
    )
    assert wrong.status_code == 400 and "is not." in wrong.text
    dates = app_client.post(
        "/instructor/settings/due-dates",
        data={"csrf_token": token, f"due-exercise-{PAST_DUE}": FUTURE},
        follow_redirects=False,
    )
    assert dates.status_code == 303
    assert f'value="{FUTURE}"' in app_client.get("/instructor/settings").text


def test_a_ta_grants_extensions_but_cannot_change_the_policy(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    ta_id, ta = person("ta@example.org", "Tay")
    with session_factory()() as session:
        found = session.get(User, ta_id)
        assert found is not None
        enroll(
            session=session,
            offering=first_offering(session=session),
            user=found,
            role=OfferingRole.ta,
        )
    policy = app_client.post("/api/instructor/late-policy", json={"mode": "refuse"}, headers=ta)
    assert policy.status_code == 403
    assert policy.json()["detail"].startswith("Teaching assistants cannot change this")
    granted = app_client.post(
        f"/api/instructor/students/{stu}/extensions",
        json={"kind": "quiz", "slug": LESSON, "due": FUTURE},
        headers=ta,
    )
    assert granted.status_code == 200, granted.text


def test_extensions_belong_to_their_offering(app_client: TestClient) -> None:
    stu, _ = person("stu@example.org", "Stu")
    teacher_id, teacher = person("t@example.org", "T", Role.instructor)
    with session_factory()() as session:
        second = create_offering(
            session=session, course_slug="positional-embeddings", title="Section B"
        )
        for uid, role in ((stu, OfferingRole.student), (teacher_id, OfferingRole.instructor)):
            found = session.get(User, uid)
            assert found is not None
            enroll(session=session, offering=second, user=found, role=role)
        first_id, second_id = first_offering(session=session).id, second.id
    for offering, due in ((first_id, FUTURE), (second_id, "2030-01-01T00:00")):
        answer = app_client.post(
            f"/offerings/{offering}/api/instructor/students/{stu}/extensions",
            json={"kind": "exercise", "slug": PAST_DUE, "due": due},
            headers=teacher,
        )
        assert answer.status_code == 200, answer.text
    with session_factory()() as session:
        rows = session.execute(
            select(DeadlineExtension.offering_id, DeadlineExtension.due_at).order_by(
                DeadlineExtension.offering_id
            )
        ).all()
    assert [r[0] for r in rows] == [first_id, second_id]
    assert rows[1][1].year == 2030


def test_refused_work_beside_the_editors_own_save_still_gets_its_409(
    app_client: TestClient,
) -> None:
    """The editor saves the draft as Submit is pressed: the draft save lands between the refusal's
    look for a draft and its insert. The student still reads why, and one draft holds the code."""
    from sqlalchemy.orm import Session

    from app.submissions.drafts import save_draft
    from tests.races import inserting, other_request_before

    stu, student = person("stu@example.org", "Stu")
    teacher = person("t@example.org", "T", Role.instructor)[1]
    _policy(app_client, teacher, mode="refuse")

    def editor_saves(session: Session) -> None:
        save_draft(
            session=session,
            user_id=stu,
            course_slug="positional-embeddings",  # the small course is the first course
            exercise=PAST_DUE,
            framework="numpy",
            code=CODE,
        )

    with other_request_before(inserting("drafts"), editor_saves) as ran:
        answer = app_client.post(
            "/api/submissions",
            json={"exercise": PAST_DUE, "code": CODE, "mode": "submit", "framework": "numpy"},
            headers=student,
        )
    assert ran == [True]
    assert answer.status_code == 409, answer.text
    assert "Your code is kept in your saved draft." in answer.json()["detail"]
    with session_factory()() as session:
        drafts = session.scalars(select(Draft.code).where(Draft.user_id == stu)).all()
    assert drafts == [CODE]
