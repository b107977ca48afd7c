"""History pages: only your own submissions, no hidden inputs, the solution after a solve."""

from __future__ import annotations

import html as html_lib
import re

from fastapi.testclient import TestClient

from app.config import ROOT
from app.content.loader import load_course
from tests.progress.helpers import add_submission, at, case_entry, make_instructor
from tests.users.helpers import logged_in_client, login, make_user

SLUG = "position-embedding-gather"
SECRET = "7391.25"  # a value only a hidden test's inputs or expected output would hold


def _hidden_failure() -> dict[str, object]:
    return case_entry(
        "hidden-large-ids",
        False,
        hidden=True,
        details=[f"expected {SECRET} at index [0, 0, 0]"],
        misconception={"id": "one-based", "title": "Hidden hint", "hint": f"Look at {SECRET}"},
        input_shapes={"positions": [3, 9173]},
        expected=[[float(SECRET)]],
        expected_shape=[3, 9173, 4],
        received_shape=[3, 9173, 4],
    )


def _visible_failure() -> dict[str, object]:
    return case_entry(
        "visible-offset",
        False,
        details=["Row 0 holds the vector of position 1."],
        misconception={"id": "one-based", "title": "Off by one", "hint": "Ids start at zero."},
        expected_shape=[2, 3, 2],
        received_shape=[2, 3, 2],
    )


def test_visitors_are_sent_to_log_in(client: TestClient) -> None:
    for path in (f"/exercises/{SLUG}/history", "/submissions/1", f"/exercises/{SLUG}/solution"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303, path
        assert response.headers["location"] == f"/login?next={path}"


def test_history_lists_only_your_own_submissions_newest_first(client: TestClient) -> None:
    other = make_user("ada@example.org")
    theirs = add_submission(other.id, SLUG, created=at(3))
    me = logged_in_client(client, "grace@example.org")
    first = add_submission(me.id, SLUG, verdict="wrong_answer", framework="torch", created=at(1))
    second = add_submission(me.id, SLUG, mode="run", framework="jax", created=at(2))
    add_submission(me.id, "rope-rotate", created=at(4))
    waiting = add_submission(me.id, SLUG, status="queued", created=at(5))
    page = client.get(f"/exercises/{SLUG}/history")
    assert page.status_code == 200
    links = re.findall(r'href="/submissions/(\d+)"', page.text)
    assert links == [str(waiting), str(second), str(first)]
    assert str(theirs) not in links
    rows = re.findall(r"<tr>\s*<td>(.*?)</tr>", page.text, re.S)
    queued, newest, oldest = (" ".join(re.sub(r"<[^>]+>", " ", r).split()) for r in rows)
    assert "NumPy Submit Waiting to be graded – Open" in queued
    assert newest.startswith("2025-03-01T12:02:00Z (")
    assert "JAX / Flax Run Accepted 100%" in newest
    assert "PyTorch Submit Wrong answer 50%" in oldest
    assert re.search(r"\((\d+ (year|month|day)s? ago)\)", newest)
    assert client.get("/exercises/nope/history").status_code == 404


def test_another_students_submission_is_not_found(client: TestClient) -> None:
    other = make_user("ada@example.org")
    theirs = add_submission(other.id, SLUG)
    logged_in_client(client, "grace@example.org")
    response = client.get(f"/submissions/{theirs}")
    assert response.status_code == 404
    assert "def f()" not in response.text
    assert client.get("/submissions/999999").status_code == 404


def test_submission_page_escapes_code_and_hides_hidden_test_inputs(client: TestClient) -> None:
    me = logged_in_client(client, "grace@example.org")
    code = 'def position_embedding_gather(p, t):\n    return "</code><script>alert(1)</script>"\n'
    sid = add_submission(
        me.id,
        SLUG,
        verdict="wrong_answer",
        framework="torch",
        code=code,
        tests=[case_entry("visible-basic", True), _visible_failure(), _hidden_failure()],
    )
    page = client.get(f"/submissions/{sid}")
    assert page.status_code == 200
    text = page.text
    assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;" in text
    assert 'class="highlight' in text and 'class="prose"' in text  # copy button and colours
    assert f'href="/exercises/{SLUG}?framework=torch&amp;from={sid}"' in text
    assert "Load this code into the editor" in text
    flat = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", text)).split())
    assert "Wrong answer" in flat and "1 of 3 tests passed" in flat
    # The visible failure shows its details, shapes and the misconception hint.
    assert "Row 0 holds the vector of position 1." in flat
    assert "Off by one Ids start at zero." in flat
    assert "expected shape (2, 3, 2), got (2, 3, 2)" in flat
    # The hidden one shows its name, verdict and message, and nothing derived from its inputs.
    assert "hidden-large-ids hidden : Wrong answer" in flat
    assert "hidden-large-ids gave different numbers." in flat
    assert SECRET not in text and "9173" not in text and "Hidden hint" not in text


def test_instructor_sees_any_submission_in_full(client: TestClient) -> None:
    student = make_user("ada@example.org", name="Ada")
    sid = add_submission(
        student.id, SLUG, verdict="wrong_answer", tests=[_visible_failure(), _hidden_failure()]
    )
    make_instructor()
    assert login(client, "teacher@example.org").status_code == 303
    page = client.get(f"/submissions/{sid}")
    assert page.status_code == 200
    assert "Submitted by Ada." in page.text
    assert SECRET in page.text and "Hidden hint" in page.text


def test_solution_is_locked_until_an_accepted_submit(client: TestClient) -> None:
    me = logged_in_client(client, "grace@example.org")
    solution = (ROOT / f"exercises/{SLUG}/solutions/numpy.py").read_text()
    marker = "embedding_table)[ids]"
    assert marker in solution
    locked = client.get(f"/exercises/{SLUG}/solution")
    assert locked.status_code == 403
    assert "Solve it first" in locked.text and "You have not submitted it yet" in locked.text
    add_submission(me.id, SLUG, verdict="wrong_answer", created=at(1))
    add_submission(me.id, SLUG, mode="run", created=at(2))  # a passing run is not a solve
    locked = client.get(f"/exercises/{SLUG}/solution")
    assert locked.status_code == 403
    assert "Your best score so far is 50%." in locked.text
    history = client.get(f"/exercises/{SLUG}/history").text
    assert "Model solution" not in history and "Other ways to write it" not in history

    add_submission(me.id, SLUG, created=at(3))
    page = client.get(f"/exercises/{SLUG}/solution")
    assert page.status_code == 200
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", page.text))
    assert marker in text
    headings = re.findall(r'<h3 id="solution-(\w+)">([^<]+)</h3>', page.text)
    assert headings == [("numpy", "NumPy"), ("torch", "PyTorch"), ("jax", "JAX / Flax")]
    assert "Other ways to write it" in page.text
    history = client.get(f"/exercises/{SLUG}/history").text
    assert "Model solution" in history and marker in html_lib.unescape(
        re.sub(r"<[^>]+>", "", history)
    )


def test_instructor_always_sees_the_solution(client: TestClient) -> None:
    make_instructor()
    assert login(client, "teacher@example.org").status_code == 303
    page = client.get("/exercises/alibi-bias/solution")
    assert page.status_code == 200
    assert "students see it after an accepted submission" in page.text
    assert "masked_fill" in page.text


def test_discussion_renders_for_every_exercise_that_has_one(client: TestClient) -> None:
    make_instructor()
    assert login(client, "teacher@example.org").status_code == 303
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    with_file = sorted(p.parent.name for p in (ROOT / "exercises").glob("*/discussion.md"))
    assert with_file, "no exercise has a discussion.md"
    for slug in with_file:
        exercise = course.exercise(slug)
        assert exercise is not None and "<p>" in exercise.discussion_html, slug
        page = client.get(f"/exercises/{slug}/solution")
        assert page.status_code == 200, slug
        after = page.text.split('id="discussion-h"', 1)
        assert len(after) == 2, f"{slug}: discussion heading missing"
        assert exercise.discussion_html in after[1], f"{slug}: discussion body missing"
