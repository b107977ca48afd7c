"""Gradebook numbers for a small class, sorting and filtering, and safe CSV and HTML output."""

from __future__ import annotations

import csv
import datetime as dt
import io

from fastapi.testclient import TestClient

from app.db import session_factory
from app.progress.service import save_quiz_attempt
from app.users.models import Role
from tests.instructor.conftest import DRAFT, EXERCISE, LESSON, PAST_DUE, add_submission, at, person

ALL, HALF, NONE = [True] * 4, [True, True, False, False], [False] * 4


def _class() -> dict[str, int]:
    """Ada solves on her third try; Bob gets half; a formula-looking name never solves."""
    ada, _ = person("ada@example.org", "Ada Lovelace")
    bob, _ = person("bob@example.org", "<b>Bob</b>")
    eve, _ = person("eve@example.org", '=HYPERLINK("http://evil")')
    person("teach@example.org", "Teacher", Role.instructor)  # never a gradebook row
    add_submission(ada, EXERCISE, NONE, at(1, 10))
    add_submission(ada, EXERCISE, HALF, at(1, 11))
    add_submission(ada, EXERCISE, ALL, at(1, 12))
    add_submission(ada, EXERCISE, HALF, at(2, 9))  # after solving: best stays 1.0
    add_submission(ada, EXERCISE, NONE, at(2, 10), mode="run")  # run mode never counts
    add_submission(ada, PAST_DUE, ALL, at(3), late=True)
    add_submission(ada, DRAFT, ALL, at(3))  # drafts have no column
    add_submission(bob, EXERCISE, HALF, at(1))
    add_submission(bob, EXERCISE, NONE, at(2))
    add_submission(eve, PAST_DUE, NONE, at(4), late=True)
    with session_factory()() as session:
        for user, score in ((ada, 0.5), (ada, 1.0), (bob, 0.5)):
            save_quiz_attempt(
                session=session,
                user_id=user,
                lesson_slug=LESSON,
                answers={},
                results={"questions": []},
                score=score,
            )
    return {"ada": ada, "bob": bob, "eve": eve}


def _teacher() -> dict[str, str]:
    return person("boss@example.org", "Boss", Role.instructor)[1]


def test_numbers_per_student(app_client: TestClient) -> None:
    ids = _class()
    body = app_client.get("/api/instructor/gradebook", headers=_teacher()).json()
    assert body["exercises"] == [EXERCISE, PAST_DUE] and body["quizzes"] == [LESSON]
    rows = {r["id"]: r for r in body["students"]}
    assert set(rows) == set(ids.values())
    ada = rows[ids["ada"]]
    assert ada["exercises"][EXERCISE] == {
        "best": 1.0,
        "attempts": 4,
        "solved_at": "2026-11-01T12:00:00+00:00",
        "late": False,
        "raw": 1.0,
        "late_penalty": 0.0,
        "practice": False,
    }
    assert ada["exercises"][PAST_DUE]["late"] is True
    assert ada["quizzes"][LESSON] == {
        "best": 1.0,
        "attempts": 2,
        "late": True,
        "raw": 1.0,
        "late_penalty": 0.0,
    }
    assert ada["solved"] == 2 and ada["total"] == 1.0
    bob = rows[ids["bob"]]
    assert bob["exercises"][EXERCISE]["best"] == 0.5
    assert bob["exercises"][EXERCISE]["solved_at"] is None
    assert bob["exercises"][PAST_DUE] == {
        "best": None,
        "attempts": 0,
        "solved_at": None,
        "late": False,
        "raw": None,
        "late_penalty": 0.0,
        "practice": False,
    }
    assert bob["total"] == (0.5 + 0.5) / 3
    eve = rows[ids["eve"]]
    assert eve["exercises"][PAST_DUE]["best"] == 0.0 and eve["total"] == 0.0


def test_sort_and_filter(app_client: TestClient) -> None:
    ids = _class()
    teacher = _teacher()

    def order(**params: str) -> list[int]:
        body = app_client.get("/api/instructor/gradebook", params=params, headers=teacher)
        return [r["id"] for r in body.json()["students"]]

    assert order(sort="total", order="desc") == [ids["ada"], ids["bob"], ids["eve"]]
    assert order(sort=EXERCISE, order="asc") == [ids["eve"], ids["bob"], ids["ada"]]
    assert order(sort="email") == [ids["ada"], ids["bob"], ids["eve"]]
    assert order(student="LOVELACE") == [ids["ada"]]
    assert order(student="bob@") == [ids["bob"]]
    narrowed = app_client.get(
        "/api/instructor/gradebook", params={"exercise": PAST_DUE}, headers=teacher
    ).json()
    assert narrowed["exercises"] == [PAST_DUE] and narrowed["quizzes"] == []
    bad = app_client.get("/instructor/gradebook", params={"sort": "nope"}, headers=teacher)
    assert bad.status_code == 422 and "not a column" in bad.text
    unknown = app_client.get("/instructor/gradebook", params={"exercise": "zzz"}, headers=teacher)
    assert unknown.status_code == 404


def test_html_escapes_names_and_links_each_student(app_client: TestClient) -> None:
    ids = _class()
    html = app_client.get("/instructor/gradebook?sort=total&order=desc", headers=_teacher()).text
    assert "<b>Bob</b>" not in html and "&lt;b&gt;Bob&lt;/b&gt;" in html
    assert f'href="/instructor/students/{ids["ada"]}"' in html
    assert html.index("Ada Lovelace") < html.index("&lt;b&gt;Bob")
    assert 'aria-sort="descending"' in html
    assert "Teacher" not in html.split("<table", 1)[1]
    assert "late</span>" in html and "100%" in html


def test_csv_has_one_row_per_student_and_neutralises_formulas(app_client: TestClient) -> None:
    _class()
    response = app_client.get("/instructor/gradebook.csv", headers=_teacher())
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    names = [r["name"] for r in rows]  # sorted by name, as typed
    assert names == ["<b>Bob</b>", '\'=HYPERLINK("http://evil")', "Ada Lovelace"]
    ada = rows[2]
    assert ada[f"{EXERCISE} best"] == "1" and ada[f"{EXERCISE} attempts"] == "4"
    assert ada[f"{EXERCISE} solved at"] == "2026-11-01T12:00:00Z"
    assert ada[f"{PAST_DUE} late"] == "yes" and ada[f"quiz {LESSON} score"] == "1"
    assert ada["exercises solved"] == "2" and ada["total"] == "1"
    assert rows[0][f"{EXERCISE} best"] == "0.5" and rows[0][f"{PAST_DUE} best"] == ""
    for cell in (c for row in rows for c in row.values()):
        assert not cell.startswith(("=", "+", "-", "@"))


def test_csv_cell_rule() -> None:
    from app.instructor.gradebook import csv_cell

    assert [csv_cell(v) for v in ("=1+1", "+1", "-2", "@SUM(A1)", "\tx", "ok", 0.5, None)] == [
        "'=1+1",
        "'+1",
        "'-2",
        "'@SUM(A1)",
        "'\tx",
        "ok",
        "0.5",
        "",
    ]


def test_a_lab_is_shown_as_practice_and_left_out_of_the_total(client: TestClient) -> None:
    """Issue 24: a lab's verdict could be faked from inside the student's process, so its score
    is practice only; the page says so and the total leaves it out."""
    uid, _ = person("labber@example.org", "Lab Runner")
    add_submission(uid, "lab-learned-vs-sinusoidal", [True], dt.datetime.now(dt.UTC))
    add_submission(uid, "position-embedding-gather", [True], dt.datetime.now(dt.UTC))
    _, header = person("teach@example.org", role=Role.instructor)
    book = client.get("/api/instructor/gradebook", headers=header).json()
    row = next(r for r in book["students"] if r["id"] == uid)
    lab = row["exercises"]["lab-learned-vs-sinusoidal"]
    assert lab["best"] == 1.0 and lab["practice"] is True
    assert row["exercises"]["position-embedding-gather"]["practice"] is False
    assert row["exercise_points"] == 1.0  # the gather only
    page = client.get("/instructor/gradebook", headers=header)
    assert "practice</span>" in page.text and "not\n  counted in the total" in page.text
