"""An exercise's `hidden_tests` setting: hidden values reach students only when it allows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.courses.service import reload_course
from app.users.models import Role
from tests.conftest import make_token
from tests.submissions.test_api import WRONG, submit, wait_done

SLUG = "position-embedding-gather"


def _configure(content_dir: Path, client: TestClient, extra: str) -> None:
    path = content_dir / "exercises" / SLUG / "exercise.yaml"
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    course = reload_course(request_app=client.app)
    assert not course.problems, course.problems


def _hidden_inputs(client: TestClient, sid: int) -> list[str]:
    """What the hidden tests checked, as an instructor sees it (the values to keep secret)."""
    teacher = {"Authorization": f"Bearer {make_token('teacher@example.org', Role.instructor)}"}
    view = client.get(f"/api/submissions/{sid}", headers=teacher).json()
    hidden = [t for t in view["tests"] if t["hidden"] and not t["passed"]]
    assert hidden and all(t.get("revealed") for t in hidden)
    return [t["details"][0] for t in hidden]


def _student_sees(
    client: TestClient, headers: dict[str, str]
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The API view, the secrets, and both pages a student reads it on (result, history)."""
    sid = submit(client, headers, code=WRONG).json()["id"]
    view = wait_done(client, sid, headers)
    secrets = _hidden_inputs(client, sid)
    pages = [
        client.get(f"/exercises/{SLUG}/results/{sid}", headers=headers).text,
        client.get(f"/submissions/{sid}", headers=headers).text,
    ]
    return view, secrets, pages


@pytest.mark.parametrize(
    ("extra", "opened"),
    [
        ("", False),
        ("hidden_tests: after_due\ndue: 2999-01-01T00:00:00Z\n", False),
        ("hidden_tests: after_due\ndue: 2001-01-01T00:00:00Z\n", True),
        ("hidden_tests: visible\n", True),
    ],
    ids=["hidden", "after_due-before", "after_due-after", "visible"],
)
def test_hidden_values_reach_students_only_when_allowed(
    content_dir: Path, client: TestClient, student_headers: dict[str, str], extra: str, opened: bool
) -> None:
    _configure(content_dir, client, extra)
    view, secrets, pages = _student_sees(client, student_headers)
    body = str(view)
    hidden = [t for t in view["tests"] if t["hidden"]]
    assert hidden
    for secret in secrets:
        assert (secret in body) is opened, secret
    if opened:
        assert all(t.get("revealed") for t in hidden)
        failing = [t for t in hidden if not t["passed"]]
        assert all(t["details"][0].startswith("Its input: ") for t in failing)
        for page in pages:
            assert any(secret.split(" = ")[0] in page for secret in secrets)
    else:
        assert not any("reveal" in t or t.get("expected") for t in hidden)
        for page in pages:
            assert not any(secret in page for secret in secrets)


def test_wrong_values_of_opened_hidden_tests_show_expected_and_received(
    content_dir: Path, client: TestClient, student_headers: dict[str, str]
) -> None:
    _configure(content_dir, client, "hidden_tests: visible\n")
    doubled = (
        "import numpy as np\n\n"
        "def position_embedding_gather(positions, embedding_table):\n"
        "    return 2 * embedding_table[positions.astype(np.int64)]\n"
    )
    sid = submit(client, student_headers, code=doubled).json()["id"]
    view = wait_done(client, sid, student_headers)
    failing = [t for t in view["tests"] if t["hidden"] and not t["passed"]]
    assert failing and all(t["revealed"] for t in failing)
    for test in failing:
        assert test["expected_shape"] == test["received_shape"]
        assert test["expected"] is not None and test["received"] is not None
