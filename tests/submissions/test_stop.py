"""POST /api/submissions/{id}/stop: a student stops a training experiment and is told so."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from app.config import ROOT
from app.users.models import Role
from tests.conftest import make_token
from tests.submissions.test_api import submit, wait_done

LAB = "lab-learned-vs-sinusoidal"
SOLUTION = (ROOT / "exercises" / LAB / "solutions" / "torch.py").read_text()


def _training(client: TestClient, sid: int, headers: dict[str, str]) -> dict[str, Any]:
    """Wait for the first progress frame (torch starts in a fresh sandbox first)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = client.get(f"/api/submissions/{sid}", headers=headers).json()
        if "progress" in body or body["status"] == "done":
            return body
        time.sleep(0.05)
    raise AssertionError(f"submission {sid} never reported progress")


def test_a_stopped_experiment_ends_as_stopped_with_its_step(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers, exercise=LAB, code=SOLUTION).json()["id"]
    body = _training(client, sid, student_headers)
    assert body["status"] == "running" and body["progress"]["steps"] == 400
    stopped = client.post(f"/api/submissions/{sid}/stop", headers=student_headers)
    assert stopped.status_code == 202 and stopped.json()["stopping"] is True
    done = wait_done(client, sid, student_headers, timeout=60)
    assert done["verdict"] == "cancelled" and done["score"] == 0.0
    assert done["message"].startswith("You stopped this run at step ")
    assert done["metrics"]["stopped_at_step"] < 400
    again = client.post(f"/api/submissions/{sid}/stop", headers=student_headers)
    assert again.status_code == 409 and "already finished" in again.json()["detail"]


def test_only_experiments_of_your_own_can_be_stopped(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = submit(client, student_headers).json()["id"]  # the NumPy gather: no experiment
    refused = client.post(f"/api/submissions/{sid}/stop", headers=student_headers)
    assert refused.status_code == 400 and "Only experiments" in refused.json()["detail"]
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    assert client.post(f"/api/submissions/{sid}/stop", headers=other).status_code == 404
    assert client.post("/api/submissions/999999/stop", headers=other).status_code == 404
    wait_done(client, sid, student_headers)
