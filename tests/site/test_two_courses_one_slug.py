"""Two courses with an exercise of the same slug (an author may reuse one): a student's work in
one never opens the other's hidden tests or model solution, nor shows in its history."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import ROOT, get_settings
from app.courses.service import reset_process_registry
from app.db import session_factory
from app.grading import leases
from app.jobs.deps import get_queue
from app.main import create_app
from app.users.models import Role
from tests.conftest import make_token
from tests.jobs.helpers import RecordingQueue

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


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[TestClient]:
    monkeypatch.setenv("CONTENT_DIR", str(_content(tmp_path)))
    get_settings.cache_clear()
    reset_process_registry()
    app = create_app()
    app.dependency_overrides[get_queue] = lambda: RecordingQueue()
    with TestClient(app) as test_client:
        yield test_client
    reset_process_registry()


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
