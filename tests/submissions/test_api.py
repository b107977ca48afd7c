"""POST/GET /api/submissions end to end, with the real grader and the embedded queue."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import ROOT
from app.jobs.deps import get_queue
from app.users.models import Role
from tests.conftest import make_token
from tests.jobs.helpers import RecordingQueue

GOOD = (ROOT / "exercises/position-embedding-gather/solutions/numpy.py").read_text()
WRONG = (
    "def position_embedding_gather(positions, embedding_table):\n"
    "    return embedding_table[positions.astype(int) + 1]\n"
)


def wait_done(
    client: TestClient, sid: int, headers: dict[str, str], timeout: float = 60
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/submissions/{sid}", headers=headers).json()
        if body["status"] == "done":
            return body
        time.sleep(0.05)
    raise AssertionError(f"submission {sid} not graded in {timeout} s")


def submit(client: TestClient, headers: dict[str, str], **body: Any) -> Any:
    payload = {"exercise": "position-embedding-gather", "code": GOOD, **body}
    return client.post("/api/submissions", json=payload, headers=headers)


def test_accepted_submission_round_trip(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    response = submit(client, student_headers)
    assert response.status_code == 202
    assert set(response.json()) == {"id", "status"} and response.json()["status"] == "queued"
    body = wait_done(client, response.json()["id"], student_headers)
    assert body["verdict"] == "accepted" and body["score"] == 1.0
    assert {
        "id",
        "exercise",
        "framework",
        "status",
        "verdict",
        "score",
        "message",
        "tests",
        "duration_ms",
    } <= body.keys()
    assert (
        body["framework"] == "numpy" and len(body["tests"]) == 15
    )  # 3 visible, 5 generated, 7 hidden


def test_wrong_answer_hides_hidden_test_details(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers, code=WRONG).json()["id"]
    body = wait_done(client, sid, student_headers)
    assert body["verdict"] == "wrong_answer"
    hidden = [t for t in body["tests"] if t["hidden"]]
    assert hidden and all("expected" not in t and "received" not in t for t in hidden)
    visible = [t for t in body["tests"] if not t["hidden"]]
    assert visible[0]["expected_shape"] == visible[0]["received_shape"]


PRINTS_INPUTS = (ROOT / "exercises/position-embedding-gather/solutions/numpy.py").read_text() + (
    "\n\n_inner = position_embedding_gather\n\n\n"
    "def position_embedding_gather(positions, embedding_table):\n"
    "    print('INPUT', positions.shape, positions.ravel()[:5])\n"
    "    return _inner(positions, embedding_table)\n"
)


def test_printed_output_of_hidden_tests_reaches_only_instructors(
    client: TestClient, student_headers: dict[str, str], instructor_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers, code=PRINTS_INPUTS).json()["id"]
    body = wait_done(client, sid, student_headers)
    assert body["verdict"] == "accepted"
    assert body["stdout"] == "" and body["stdout_hidden"] is True
    staff = client.get(f"/api/submissions/{sid}", headers=instructor_headers).json()
    assert "INPUT" in staff["stdout"] and staff["stdout_hidden"] is False
    run_id = submit(client, student_headers, code=PRINTS_INPUTS, mode="run").json()["id"]
    run = wait_done(client, run_id, student_headers)
    assert "INPUT" in run["stdout"] and run["stdout_hidden"] is False


def test_run_mode_grades_visible_tests_only(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers, mode="run").json()["id"]
    body = wait_done(client, sid, student_headers)
    assert body["verdict"] == "accepted" and all(not t["hidden"] for t in body["tests"])


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        ({"exercise": "no-such-exercise"}, 404, "no exercise called"),
        ({"framework": "tensorflow"}, 422, "not offered in 'tensorflow'"),
        ({"mode": "later"}, 422, "mode must be"),
        ({"code": "x = 1\n" * 20000}, 413, "the limit is 64 KB"),
    ],
)
def test_bad_submissions_get_clear_errors(
    client: TestClient,
    student_headers: dict[str, str],
    body: dict[str, Any],
    status: int,
    text: str,
) -> None:
    response = submit(client, student_headers, **body)
    assert response.status_code == status
    assert text in json.dumps(response.json())


def test_malformed_json_is_422(client: TestClient, student_headers: dict[str, str]) -> None:
    response = client.post(
        "/api/submissions",
        content=b"{not json",
        headers={**student_headers, "content-type": "application/json"},
    )
    assert response.status_code == 422


def test_login_required(client: TestClient) -> None:
    assert submit(client, {}).status_code == 401
    assert client.get("/api/submissions/1").status_code == 401


def test_only_author_and_instructors_can_read(
    client: TestClient, student_headers: dict[str, str], instructor_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers).json()["id"]
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    assert client.get(f"/api/submissions/{sid}", headers=other).status_code == 404
    assert client.get(f"/api/submissions/{sid}", headers=instructor_headers).status_code == 200
    wait_done(client, sid, student_headers)


def test_events_stream_ends_with_the_verdict(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers).json()["id"]
    with client.stream(
        "GET", f"/api/submissions/{sid}/events", headers=student_headers
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = [
            json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")
        ]
    assert events[-1]["status"] == "done" and events[-1]["verdict"] == "accepted"


def test_queued_jobs_survive_a_restart(data_dir: Path, student_headers: dict[str, str]) -> None:
    from app.db import session_factory
    from app.submissions.models import Submission

    with session_factory()() as session:
        session.add(
            Submission(
                user_id=1,
                exercise_slug="position-embedding-gather",
                framework="numpy",
                mode="submit",
                code=GOOD,
                status="queued",
            )
        )
        session.commit()
    with TestClient(__import__("app.main", fromlist=["create_app"]).create_app()) as client:
        body = wait_done(client, 1, student_headers)
    assert body["verdict"] == "accepted"


def test_without_bubblewrap_a_submission_ends_at_once_with_the_cause(
    client: TestClient,
    student_headers: dict[str, str],
    instructor_headers: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("GRADER_BWRAP", str(tmp_path / "no-such-bwrap"))
    response = submit(client, student_headers)
    assert response.status_code == 202
    body = wait_done(client, response.json()["id"], student_headers, timeout=20)
    assert body["verdict"] == "internal_error"
    assert "bubblewrap" in body["message"] and "not your fault" in body["message"]
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["grader"].startswith("unavailable: bubblewrap")
    page = client.get("/instructor/gradebook", headers=instructor_headers)
    assert "Grading is unavailable" in page.text and "apt-get install bubblewrap" in page.text
    assert client.get("/lessons/why-position").status_code == 200  # lessons still work


def test_a_new_submission_goes_to_the_queue_the_dependency_gives(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    queue = RecordingQueue()
    client.app.dependency_overrides[get_queue] = lambda: queue  # type: ignore[attr-defined]
    first = submit(client, student_headers, client_id="one-click")
    again = submit(client, student_headers, client_id="one-click")
    assert first.status_code == again.status_code == 202
    assert again.headers["idempotent-replayed"] == "true"
    assert queue.ids == [first.json()["id"]]  # the repeat is not queued twice
