"""Two courses with an exercise of the same slug (an author may reuse one): a student's work in
one never opens the other's hidden tests or model solution, nor shows in its history; the hints
opened and the draft saved in one are not the other's (on SQLite and PostgreSQL)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import ROOT, get_settings
from app.courses.service import reset_process_registry
from app.db import session_factory
from app.grading import leases
from app.jobs.deps import get_queue
from app.main import create_app
from app.migrate import upgrade_head
from app.offerings.models import OfferingRole
from app.offerings.service import enroll, first_offering
from app.users.models import Role
from app.users.service import create_user, issue_api_token
from tests.conftest import make_token
from tests.jobs.helpers import RecordingQueue
from tests.postgres import throwaway_database

SECOND = "attention-step-by-step"
SLUG = "split-heads"
SECRET = "SECRET_INPUT_7731"  # a hidden test's input, shown only where hidden tests are open
CODE = "def split_heads(x, n):\n    return x\n"


def _content(tmp_path: Path) -> Path:
    """The two courses; the first gets its own `split-heads`, whose hidden tests are open."""
    root = tmp_path / "content"
    root.mkdir()
    (root / "lessons").symlink_to(ROOT / "lessons")
    (root / "course.yaml").symlink_to(ROOT / "course.yaml")
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "exercises", root / "exercises", ignore=skip)
    mine = root / "exercises" / SLUG
    shutil.copytree(ROOT / "courses" / SECOND / "exercises" / SLUG, mine, ignore=skip)
    text = (mine / "exercise.yaml").read_text(encoding="utf-8")
    text = text.replace("lesson: multi-head\n", "lesson: learned-absolute\n")
    text = text.replace(
        "7ec16c47-4ce3-4354-9121-2c27d267732e", "11111111-2222-4333-8444-555555555555"
    )
    (mine / "exercise.yaml").write_text(text + "hidden_tests: visible\n", encoding="utf-8")
    shutil.copytree(ROOT / "courses" / SECOND, root / "courses" / SECOND, ignore=skip)
    return root


def _with_multi_head(tmp_path: Path) -> Path:
    """The two courses; the first also gets a lesson named as the second's `multi-head`."""
    root = _content(tmp_path)
    (root / "lessons").unlink()
    shutil.copytree(ROOT / "lessons", root / "lessons")
    text = (ROOT / "courses" / SECOND / "lessons" / "03-multi-head.md").read_text("utf-8")
    (root / "lessons" / "09-multi-head.md").write_text(text.replace("order: 3", "order: 9"))
    return root


def _use(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    reset_process_registry()


def _serve() -> Iterator[TestClient]:
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: RecordingQueue()
    with TestClient(app) as test_client:
        yield test_client
    reset_process_registry()


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[TestClient]:
    monkeypatch.setenv("CONTENT_DIR", str(_content(tmp_path)))
    get_settings.cache_clear()
    reset_process_registry()
    yield from _serve()


@pytest.fixture(params=["sqlite", "postgresql"])
def client_on_each_database(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
) -> Iterator[TestClient]:
    """The two courses' app on SQLite, then on a throwaway PostgreSQL database."""
    monkeypatch.setenv("CONTENT_DIR", str(_content(tmp_path)))
    get_settings.cache_clear()
    reset_process_registry()
    if request.param == "sqlite":
        yield from _serve()
        return
    with throwaway_database(monkeypatch, data_dir):
        upgrade_head()
        yield from _serve()


def _graded(client: TestClient, headers: dict[str, str], course: str | None) -> int:
    """A submission of `split-heads` in that course (None: the first), accepted, with a hidden
    test that carries its input."""
    body = {"exercise": SLUG, "code": CODE, **({"course": course} if course else {})}
    posted = client.post("/api/submissions", json=body, headers=headers)
    assert posted.status_code == 202, posted.text
    sid = int(posted.json()["id"])
    hidden = {"inputs": f"x = {SECRET}", "expected": [1.5], "received": [1.5]}
    report = {
        "verdict": "accepted",
        "score": 1.0,
        "message": "All tests passed.",
        "duration_ms": 1.0,
        "tests": [
            {"name": "shown", "hidden": False, "passed": True, "verdict": "accepted",
             "message": ""},
            {"name": "kept back", "hidden": True, "passed": True, "verdict": "accepted",
             "message": "", "reveal": hidden},
        ],
    }  # fmt: skip
    with session_factory()() as session:
        claim = leases.claim(session=session, submission_id=sid, lease_seconds=30)
        assert claim is not None and leases.finish(session=session, held=claim, report=report)
    return sid


def test_a_submission_page_shows_hidden_tests_by_its_own_course(client: TestClient) -> None:
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    theirs = _graded(client, ann, SECOND)  # hidden tests stay hidden there
    for url in (f"/submissions/{theirs}", f"/courses/{SECOND}/submissions/{theirs}"):
        page = client.get(url, headers=ann)
        assert page.status_code == 200 and SECRET not in page.text, url
    ours = _graded(client, ann, None)  # the first course's copy shows them
    for url in (f"/submissions/{ours}", f"/courses/{SECOND}/submissions/{ours}"):
        page = client.get(url, headers=ann)
        assert page.status_code == 200 and SECRET in page.text, url


def test_solving_one_course_opens_neither_solution_nor_history_of_the_other(
    client: TestClient,
) -> None:
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    solution = f"/courses/{SECOND}/exercises/{SLUG}/solution"
    assert client.get(solution, headers=ann).status_code == 403
    ours = _graded(client, ann, None)
    assert client.get(f"/exercises/{SLUG}/solution", headers=ann).status_code == 200
    assert client.get(solution, headers=ann).status_code == 403
    history = client.get(f"/courses/{SECOND}/exercises/{SLUG}/history", headers=ann)
    assert f"/submissions/{ours}" not in history.text
    theirs = _graded(client, ann, SECOND)
    assert client.get(solution, headers=ann).status_code == 200
    history = client.get(f"/courses/{SECOND}/exercises/{SLUG}/history", headers=ann)
    assert f"/submissions/{theirs}" in history.text and f"/submissions/{ours}" not in history.text
    first = client.get(f"/exercises/{SLUG}/history", headers=ann)
    assert f"/submissions/{ours}" in first.text and f"/submissions/{theirs}" not in first.text


def test_the_home_page_counts_each_course_s_own_work(client: TestClient) -> None:
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    _graded(client, ann, None)
    first = client.get("/", headers=ann).text
    second = client.get(f"/courses/{SECOND}/", headers=ann).text
    solved = re.compile(r"(\d+) of \d+ exercises solved")
    assert [solved.findall(first), solved.findall(second)] == [["1"], ["0"]]


def _in_both(email: str, role: OfferingRole) -> dict[str, str]:
    """Bearer headers of someone with this role in both courses' first offerings."""
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email=email, password="correct horse", join_first_offering=False
        )
        for course in (None, SECOND):
            offering = first_offering(session=session, course_slug=course)
            enroll(session=session, offering=offering, user=user, role=role)
        return {"Authorization": f"Bearer {issue_api_token(session=session, user=user)}"}


def _hints_open(client: TestClient, base: str, headers: dict[str, str]) -> str:
    page = client.get(f"{base}/exercises/{SLUG}", headers=headers)
    assert page.status_code == 200, page.text
    found = re.search(r"Hints \((\d+) of (\d+) open\)", page.text)
    assert found is not None
    return found[1]


def _open_hint(client: TestClient, base: str, headers: dict[str, str]) -> None:
    sent = client.post(f"{base}/exercises/{SLUG}/hints", headers=headers, follow_redirects=False)
    assert sent.status_code == 303, sent.text


def _hint_counts(client: TestClient, base: str, headers: dict[str, str]) -> list[int]:
    """The exercise's analytics: how many students opened each hint."""
    found = client.get(f"{base}/api/instructor/exercises/{SLUG}/analytics", headers=headers)
    assert found.status_code == 200, found.text
    return [r["students"] for r in found.json()["hint_reveals"]]


def _hints_signal(client: TestClient, base: str, headers: dict[str, str]) -> list[int]:
    """The attention list's hints opened, per student."""
    found = client.get(f"{base}/api/instructor/attention", headers=headers)
    assert found.status_code == 200, found.text
    return [r["signals"]["hints_opened"] for r in found.json()]


def test_a_hint_opened_in_one_course_is_still_closed_in_the_other(
    client_on_each_database: TestClient,
) -> None:
    client = client_on_each_database
    ann = _in_both("ann@example.org", OfferingRole.student)
    teacher = _in_both("tea@example.org", OfferingRole.instructor)
    theirs = f"/courses/{SECOND}"
    _open_hint(client, "", ann)
    assert [_hints_open(client, "", ann), _hints_open(client, theirs, ann)] == ["1", "0"]
    assert _hint_counts(client, "", teacher) == [1, 0, 0]
    assert _hint_counts(client, theirs, teacher) == [0, 0, 0]
    assert [_hints_signal(client, "", teacher), _hints_signal(client, theirs, teacher)] == [
        [1],
        [0],
    ]
    _open_hint(client, theirs, ann)  # the other course's first hint, not the second
    _open_hint(client, theirs, ann)
    assert [_hints_open(client, "", ann), _hints_open(client, theirs, ann)] == ["1", "2"]
    assert _hint_counts(client, "", teacher) == [1, 0, 0]
    assert _hint_counts(client, theirs, teacher) == [1, 1, 0]


def _draft(client: TestClient, base: str, headers: dict[str, str]) -> str | None:
    found = client.get(f"{base}/api/drafts/{SLUG}", headers=headers)
    assert found.status_code == 200, found.text
    return found.json()["code"]


def _save(client: TestClient, base: str, headers: dict[str, str], code: str) -> None:
    saved = client.put(f"{base}/api/drafts/{SLUG}", json={"code": code}, headers=headers)
    assert saved.status_code == 200, saved.text


def _editor(client: TestClient, base: str, headers: dict[str, str], query: str = "") -> str:
    """What the exercise page's editor starts with: 'draft', 'starter' or 'submission'."""
    page = client.get(f"{base}/exercises/{SLUG}{query}", headers=headers)
    assert page.status_code == 200, page.text
    found = re.search(r'data-source="([a-z]+)"', page.text)
    assert found is not None
    return found[1]


def test_a_draft_saved_in_one_course_is_not_the_other_s(
    client_on_each_database: TestClient,
) -> None:
    client = client_on_each_database
    ann = _in_both("ann@example.org", OfferingRole.student)
    theirs = f"/courses/{SECOND}"
    ours_code = "# OURS_DRAFT_5519\n"
    _save(client, "", ann, ours_code)
    assert _draft(client, theirs, ann) is None
    assert _editor(client, theirs, ann) == "starter"
    assert "OURS_DRAFT_5519" not in client.get(f"{theirs}/exercises/{SLUG}", headers=ann).text
    _save(client, theirs, ann, "# THEIRS_DRAFT_7702\n")
    assert _draft(client, "", ann) == ours_code  # the other course's save left it alone
    assert _draft(client, theirs, ann) == "# THEIRS_DRAFT_7702\n"
    page = client.get(f"/exercises/{SLUG}", headers=ann).text
    assert "OURS_DRAFT_5519" in page and "THEIRS_DRAFT_7702" not in page
    # The editor's form without JavaScript keeps what it sends as that course's draft only.
    form = {"code": "# SENT_THERE\n", "framework": "numpy", "mode": "submit"}
    sent = client.post(
        f"{theirs}/exercises/{SLUG}/submit", data=form, headers=ann, follow_redirects=False
    )
    assert sent.status_code == 303, sent.text
    assert [_draft(client, "", ann), _draft(client, theirs, ann)] == [ours_code, "# SENT_THERE\n"]


def test_an_earlier_submission_opens_only_in_its_own_course_s_editor(client: TestClient) -> None:
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    ours = _graded(client, ann, None)
    assert _editor(client, "", ann, f"?from={ours}") == "submission"
    assert _editor(client, f"/courses/{SECOND}", ann, f"?from={ours}") == "starter"


def test_an_exam_in_one_course_leaves_the_other_s_same_slug_items_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """Ann sits the second course's midterm (its `split-heads` and `multi-head/base-head-width`);
    the first course's exercise and question of the same names are other items: she practises
    them, opens their hints and answers their quiz, while the second course's stay closed."""
    from tests.assessments.conftest import write
    from tests.assessments.world import second_midterm

    root = _with_multi_head(tmp_path)
    write(root / "courses" / SECOND, second_midterm())
    _use(root, monkeypatch)
    for client in _serve():
        ann = _in_both("ann@example.org", OfferingRole.student)
        theirs = f"/courses/{SECOND}"
        started = client.post(f"/api/courses/{SECOND}/assessments/midterm/attempts", headers=ann)
        assert started.status_code == 201, started.text
        body = {"exercise": SLUG, "code": CODE}
        closed = client.post("/api/submissions", json={**body, "course": SECOND}, headers=ann)
        assert closed.status_code == 409 and "Midterm" in closed.json()["detail"]
        open_ = client.post("/api/submissions", json=body, headers=ann)
        assert open_.status_code == 202, open_.text
        _open_hint(client, "", ann)
        assert _hints_open(client, "", ann) == "1"
        hint = client.post(f"{theirs}/exercises/{SLUG}/hints", headers=ann, follow_redirects=False)
        assert hint.status_code == 403 and "attempt at &#39;Midterm&#39;" in hint.text
        answers = {"answers": {"base-head-width": "64"}}
        quiz = client.post(f"{theirs}/api/lessons/multi-head/quiz", json=answers, headers=ann)
        assert quiz.status_code == 409 and "Midterm" in quiz.json()["detail"]
        quiz = client.post("/api/lessons/multi-head/quiz", json=answers, headers=ann)
        assert quiz.status_code in (200, 201), quiz.text
        ours = _graded(client, ann, None)  # its solution and hidden tests open as ever
        assert client.get(f"/exercises/{SLUG}/solution", headers=ann).status_code == 200
        assert SECRET in client.get(f"/submissions/{ours}", headers=ann).text
        history = client.get(f"/exercises/{SLUG}/history", headers=ann)
        assert history.status_code == 200 and "midterm" not in history.text.lower()
        # Bo has not started the second course's open midterm: its items are held from him
        # there; the first course's items of the same names are not the exam's.
        bo = _in_both("bo@example.org", OfferingRole.student)
        held = client.post("/api/submissions", json={**body, "course": SECOND}, headers=bo)
        assert held.status_code == 409, held.text
        assert "part of the exam 'Midterm', open until" in held.json()["detail"]
        quiz = client.post(f"{theirs}/api/lessons/multi-head/quiz", json=answers, headers=bo)
        assert quiz.status_code == 409 and "the exam 'Midterm'" in quiz.json()["detail"]
        assert client.post("/api/submissions", json=body, headers=bo).status_code == 202
        quiz = client.post("/api/lessons/multi-head/quiz", json=answers, headers=bo)
        assert quiz.status_code in (200, 201), quiz.text


def test_a_quiz_answered_in_one_course_is_not_the_other_s_same_slug_lesson_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """Both courses have a lesson `multi-head`: Ann's quiz in the second course shows on the
    second course's lesson page and attempts list only, not on the first course's."""
    _use(_with_multi_head(tmp_path), monkeypatch)
    for client in _serve():
        ann = _in_both("ann@example.org", OfferingRole.student)
        theirs = f"/courses/{SECOND}"
        answers = {"answers": {"base-head-width": "64"}}
        done = client.post(f"{theirs}/api/lessons/multi-head/quiz", json=answers, headers=ann)
        assert done.status_code in (200, 201), done.text
        assert (
            len(client.get(f"{theirs}/api/lessons/multi-head/quiz/attempts", headers=ann).json())
            == 1
        )
        assert client.get("/api/lessons/multi-head/quiz/attempts", headers=ann).json() == []
        assert "Your score" in client.get(f"{theirs}/lessons/multi-head", headers=ann).text
        ours = client.get("/lessons/multi-head", headers=ann)
        assert ours.status_code == 200 and "Your score" not in ours.text


def _lessons_read(page: str) -> int:
    """How many lessons the home page says this student has read."""
    found = re.search(r'id="progress-text">(\d+) of \d+ lessons read', page)
    assert found is not None, page[:2000]
    return int(found.group(1))


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_lesson_read_in_one_course_is_not_the_other_s_same_slug_lesson(
    database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """Both courses have a lesson `multi-head`: Ann reading the second course's counts on the
    second course's home page only; reading the first course's later is its own first read."""
    _use(_with_multi_head(tmp_path), monkeypatch)
    with ExitStack() as stack:
        if database == "postgresql":
            stack.enter_context(throwaway_database(monkeypatch, data_dir))
            upgrade_head()
        for client in _serve():
            ann = _in_both("ann@example.org", OfferingRole.student)
            theirs = f"/courses/{SECOND}"
            assert client.get(f"{theirs}/lessons/multi-head", headers=ann).status_code == 200
            assert _lessons_read(client.get(f"{theirs}/", headers=ann).text) == 1
            assert _lessons_read(client.get("/", headers=ann).text) == 0
            assert client.get("/lessons/multi-head", headers=ann).status_code == 200
            assert _lessons_read(client.get("/", headers=ann).text) == 1
            assert _lessons_read(client.get(f"{theirs}/", headers=ann).text) == 1
