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
        "awaiting_grading": False,
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
        "awaiting_grading": False,
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
    from app.instructor.gradebook_csv import csv_cell

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


def test_the_best_on_time_and_the_best_late_work_are_weighed_per_policy(
    app_client: TestClient,
) -> None:
    """Issue 27: the database sums each cell (not one row per submission); what it cannot
    judge alone (an extension, a penalty that grows per day late) is still judged per
    submission. PAST_DUE was due 2020-01-01 00:00 UTC."""
    day = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    ids = {name: person(f"{name}@example.org", name.title())[0] for name in ("ann", "ben", "cat")}
    ids["dan"] = person("dan@example.org", "Dan")[0]
    add_submission(ids["ann"], PAST_DUE, HALF, day - dt.timedelta(hours=2))  # on time
    add_submission(ids["ann"], PAST_DUE, ALL, day + dt.timedelta(hours=12))  # 1 day late
    add_submission(ids["ben"], PAST_DUE, ALL, day - dt.timedelta(hours=1))
    add_submission(ids["ben"], PAST_DUE, ALL, day + dt.timedelta(days=1))
    add_submission(ids["cat"], PAST_DUE, ALL, day + dt.timedelta(days=4))  # extended
    add_submission(ids["dan"], PAST_DUE, HALF, day + dt.timedelta(hours=36))  # 2 days late
    teacher = _teacher()
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M")
    grant = app_client.post(
        f"/api/instructor/students/{ids['cat']}/extensions",
        json={"kind": "exercise", "slug": PAST_DUE, "due": future},
        headers=teacher,
    )
    assert grant.status_code == 200

    def cells() -> dict[str, tuple[object, ...]]:
        book = app_client.get("/api/instructor/gradebook", headers=teacher).json()
        by_id = {r["id"]: r["exercises"][PAST_DUE] for r in book["students"]}
        return {
            name: (c["best"], c["late"], c["raw"], round(c["late_penalty"], 6), c["attempts"])
            for name, c in ((n, by_id[i]) for n, i in ids.items())
        }

    assert cells() == {
        "ann": (1.0, True, 1.0, 0.0, 2),  # the late full marks beat the half on time
        "ben": (1.0, False, 1.0, 0.0, 2),  # a tie goes to the work on time
        "cat": (1.0, False, 1.0, 0.0, 1),
        "dan": (0.5, True, 0.5, 0.0, 1),
    }
    body = {"mode": "penalty", "percent_per_day": 10, "max_percent": 30, "grace_minutes": 0}
    assert app_client.post("/api/instructor/late-policy", json=body, headers=teacher).is_success
    found = cells()
    assert found["ann"][1:] == (True, 1.0, 0.1, 2) and round(float(found["ann"][0]), 6) == 0.9
    assert found["ben"] == (1.0, False, 1.0, 0.0, 2)
    assert found["cat"] == (1.0, False, 1.0, 0.0, 1)
    assert found["dan"][1:] == (True, 0.5, 0.2, 1) and round(float(found["dan"][0]), 6) == 0.4


def test_a_script_in_a_name_is_text_in_every_place_the_row_shows_it(
    app_client: TestClient,
) -> None:
    """The rows are built in Python (issue 27: 25,000 cells through Jinja were too slow), so
    the name's escaping is checked where it lands: the link, data-student and data-value."""
    uid, _ = person("mallory@example.org", '<script>alert("x")</script>')
    add_submission(uid, EXERCISE, HALF, at(1))
    html = app_client.get("/instructor/gradebook", headers=_teacher()).text
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert "<script" not in body
    assert (
        f'<a href="/instructor/students/{uid}">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</a>'
        in body
    )
    assert 'data-student="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; mallory@example.org"' in (
        body
    )
    assert '<th scope="row" data-key="student"' in body  # each row is headed by its student
    assert f'data-key="{EXERCISE}" data-value="0.5">50%</td><td class="num">1</td>' in body
    assert body.count("<tr ") == 1 and 'scope="col"' in html
