"""What the class gets wrong: wrong submissions grouped by behaviour, biggest first (issue 51)."""

from __future__ import annotations

import html
from typing import Any

from fastapi.testclient import TestClient

from app.db import session_factory
from app.instructor.clusters.grouping import Row, group
from app.submissions.models import Submission
from app.users.models import Role
from tests.instructor.conftest import EXERCISE, add_submission, at, person

ABS = "def f(x):\n    return abs(x - 1)\n"
ABS_RENAMED = "def f(values):\n    return abs(values - 1)\n"
ONE_BASED = "def f(x):\n    return x + 1\n"


def _behaviour(key: str, *, mistake: str | None = None) -> dict[str, Any]:
    test = {"verdict": "wrong_answer", "shape": [2, 3], "dtype": "float", "differ": 3}
    return {"key": key, "tests": [{**test, "mask": "m", "mistake": mistake, "variant": None}]}


def _wrong(user_id: int, key: str, day: int, code: str, mistake: str | None = None) -> int:
    """A graded wrong submission with a behaviour key and the previews of a failing test."""
    sid = add_submission(
        user_id, EXERCISE, [False, True], at(day), code=code, misconception=mistake
    )
    with session_factory()() as session:
        row = session.get(Submission, sid)
        assert row is not None and row.report is not None
        tests = [dict(t) for t in row.report["tests"]]
        tests[0].update(
            expected_shape=[2, 3],
            received_shape=[2, 3],
            expected=[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
            received=[[1.0, 0.0, 1.0], [2.0, 3.0, 4.0]],
        )
        row.report = {**row.report, "tests": tests, "behaviour": _behaviour(key, mistake=mistake)}
        row.behaviour_key = key
        session.commit()
    return sid


def _class() -> dict[str, Any]:
    ann, _ = person("ann@example.org", "Ann")
    bob, _ = person("bob@example.org", "Bob")
    cat, _ = person("cat@example.org", "Cat")
    dan, _ = person("dan@example.org", "Dan")
    eve, _ = person("eve@example.org", "Eve")
    _, teacher = person("t@example.org", "Tea", Role.instructor)
    ids = {
        "ann1": _wrong(ann, "abs", 1, ABS),
        "ann2": _wrong(ann, "abs", 2, ABS),
        "bob": _wrong(bob, "abs", 3, ABS_RENAMED),
        "cat": _wrong(cat, "abs", 4, ABS),
        "dan": _wrong(dan, "one", 5, ONE_BASED, mistake="one-based-positions"),
        "eve": _wrong(eve, "one", 6, ONE_BASED, mistake="one-based-positions"),
    }
    add_submission(cat, EXERCISE, [True, True], at(7))  # solved since: still in the cluster
    add_submission(dan, EXERCISE, [False, True], at(8))  # graded before signatures: no key
    return {"teacher": teacher, "ids": ids, "users": {"ann": ann, "bob": bob, "cat": cat}}


def test_clusters_are_biggest_first_with_students_and_submissions(app_client: TestClient) -> None:
    made = _class()
    got = app_client.get(f"/api/instructor/exercises/{EXERCISE}/clusters", headers=made["teacher"])
    assert got.status_code == 200, got.text
    clusters = got.json()
    assert [(c["students"], c["submissions"]) for c in clusters] == [(3, 4), (2, 2)]
    first, second = clusters
    ids = made["ids"]
    emails = sorted(m["email"] for m in first["members"])
    assert emails == ["ann@example.org", "bob@example.org", "cat@example.org"]
    # Each member is listed once, with their latest submission of this behaviour.
    assert {m["submission_id"] for m in first["members"]} == {ids["ann2"], ids["bob"], ids["cat"]}
    assert first["representative"] in {ids["ann1"], ids["ann2"], ids["cat"]}  # the common code
    assert first["misconception"] is None
    assert second["misconception"] == "one-based-positions"
    assert {first["id"], second["id"]} == {"abs", "one"}


def test_the_page_shows_the_code_the_diffs_and_the_heatmap(app_client: TestClient) -> None:
    made = _class()
    page = app_client.get(f"/instructor/exercises/{EXERCISE}/clusters", headers=made["teacher"])
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert "3 students, 4 submissions" in text
    assert "return abs(x - 1)" in text  # the representative program
    assert "+    return abs(values - 1)" in text  # Bob's program diffed against it
    assert "data-tensor-feedback" in text  # the heatmap of its output against the expected
    assert "Not covered by a declared mistake." in text
    assert "Covered by the declared mistake one-based-positions." in text
    assert "1 wrong submission was graded before behaviour signatures" in text
    exercise = app_client.get(f"/instructor/exercises/{EXERCISE}", headers=made["teacher"])
    assert f"/instructor/exercises/{EXERCISE}/clusters#cluster-abs" in exercise.text
    assert "none: undeclared" in exercise.text


def test_students_cannot_see_clusters(app_client: TestClient) -> None:
    _, student = person("stu@example.org", "Stu")
    got = app_client.get(f"/api/instructor/exercises/{EXERCISE}/clusters", headers=student)
    assert got.status_code == 403


def test_grouping_picks_the_most_common_program_as_representative() -> None:
    rows = [
        Row(1, 10, "a@x", "k", "x = 1\n", at(1)),
        Row(2, 11, "b@x", "k", "x = 2\n", at(2)),
        Row(3, 12, "c@x", "k", "x = 2  \n\n", at(3)),  # the same program, spaced differently
        Row(4, 13, "d@x", "j", "y\n", at(4)),
    ]
    clusters = group(rows)
    assert [c.key for c in clusters] == ["k", "j"]
    assert clusters[0].representative.submission_id == 2


def test_each_offering_sees_only_the_work_sent_in_it(app_client: TestClient) -> None:
    from app.offerings.models import OfferingRole
    from app.offerings.service import create_offering, enroll, first_offering
    from app.users.models import User

    made = _class()
    tess, teacher = person("tess@example.org", "Tess", Role.instructor)
    ann = made["users"]["ann"]
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        for uid, role in ((ann, OfferingRole.student), (tess, OfferingRole.instructor)):
            user = session.get(User, uid)
            assert user is not None
            enroll(session=session, offering=spring, user=user, role=role)
        second = spring.id
    sid = _wrong(ann, "spring-only", 9, ABS)
    with session_factory()() as session:
        row = session.get(Submission, sid)
        assert row is not None
        row.offering_id = second
        session.commit()
    url = f"/api/instructor/exercises/{EXERCISE}/clusters"
    here = app_client.get(f"/offerings/{first}{url}", headers=teacher).json()
    there = app_client.get(f"/offerings/{second}{url}", headers=teacher).json()
    assert "spring-only" not in {c["id"] for c in here}
    assert [(c["id"], c["students"]) for c in there] == [("spring-only", 1)]
    assert (
        app_client.get("/api/instructor/exercises/nope/clusters", headers=teacher).status_code
        == 404
    )
