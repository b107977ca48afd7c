"""Taking in submissions: one attempt per click, a per-account rate limit, clear refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import session_factory
from app.main import create_app
from app.submissions.intake import RateLimiter, RepeatGuard
from app.submissions.models import Submission
from app.users.models import Role
from tests.conftest import make_token
from tests.users.helpers import csrf_from, logged_in_client

CODE = "def position_embedding_gather(positions, embedding_table):\n    return None\n"


def post(client: TestClient, headers: dict[str, str], **body: Any) -> Any:
    payload = {"exercise": "position-embedding-gather", "code": CODE, "mode": "run", **body}
    return client.post("/api/submissions", json=payload, headers=headers)


def count_rows() -> int:
    with session_factory()() as session:
        return session.query(Submission).count()


def test_a_repeated_click_key_makes_one_attempt(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    keyed = {**student_headers, "Idempotency-Key": "click-1"}
    first, second = post(client, keyed), post(client, keyed)
    assert first.status_code == second.status_code == 202
    assert first.json()["id"] == second.json()["id"]
    assert second.headers["idempotent-replayed"] == "true"
    by_body = post(client, student_headers, client_id="click-2")
    assert post(client, student_headers, client_id="click-2").json()["id"] == by_body.json()["id"]
    assert count_rows() == 2
    changed = post(client, keyed, code=CODE + "# edited\n")
    assert changed.json()["id"] not in (first.json()["id"], by_body.json()["id"])
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    theirs = post(client, {**other, "Idempotency-Key": "click-1"})
    assert theirs.json()["id"] != first.json()["id"], "keys are per account"


def test_repeat_guard_forgets_after_its_window() -> None:
    now = [0.0]
    guard = RepeatGuard(window=30, clock=lambda: now[0])
    guard.remember(1, "k", "print", 7)
    assert guard.find(1, "k", "print") == 7
    assert guard.find(1, "k", "other print") is None and guard.find(2, "k", "print") is None
    now[0] = 31.0
    assert guard.find(1, "k", "print") is None


def test_rate_limiter_window_and_undo() -> None:
    now = [100.0]
    limiter = RateLimiter(limit=2, window=60, clock=lambda: now[0])
    assert limiter.hit("u") == 0 and limiter.hit("u") == 0
    assert limiter.hit("u") == pytest.approx(60)
    limiter.undo("u")
    assert limiter.hit("u") == 0
    now[0] = 161.0
    assert limiter.hit("u") == 0 and limiter.hit("other") == 0


def test_too_many_submissions_get_429(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, student_headers: dict[str, str]
) -> None:
    monkeypatch.setenv("SUBMISSIONS_PER_MINUTE", "3")
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        assert post(client, student_headers, framework="tensorflow").status_code == 422
        codes = [post(client, student_headers).status_code for _ in range(4)]
        assert codes == [202, 202, 202, 429], "refused requests do not use up the limit"
        refused = post(client, student_headers)
        assert refused.status_code == 429
        assert "3 runs and submissions in the last minute" in refused.json()["detail"]
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
        assert post(client, other).status_code == 202, "the limit is per account"


def test_two_megabyte_paste_is_413_and_stores_nothing(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    response = post(client, student_headers, code="x = 1\n" * 350_000)
    assert response.status_code == 413
    assert "the limit is 64 KB" in response.json()["detail"]
    assert "still in the editor" in response.json()["detail"]
    assert count_rows() == 0


def test_framework_the_exercise_does_not_offer_is_422(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    response = post(
        client, student_headers, exercise="learned-pos-embed-forward", framework="torch"
    )
    assert response.status_code == 422
    assert "choose one of: jax" in response.json()["detail"]


def test_another_students_submission_is_404(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    sid = post(client, student_headers).json()["id"]
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    for url in (f"/api/submissions/{sid}", f"/api/submissions/{sid}/events"):
        assert client.get(url, headers=other).status_code == 404
    assert client.get("/api/submissions/99999", headers=student_headers).status_code == 404


def test_cookie_login_needs_the_csrf_header(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    payload = {"exercise": "position-embedding-gather", "code": CODE, "mode": "run"}
    assert client.post("/api/submissions", json=payload).status_code == 403
    token = csrf_from(client.get("/exercises/position-embedding-gather").text)
    ok = client.post("/api/submissions", json=payload, headers={"X-CSRF-Token": token})
    assert ok.status_code == 202


def test_list_shows_own_submissions_newest_first(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    first = post(client, student_headers).json()["id"]
    second = post(client, student_headers, mode="submit", framework="torch").json()["id"]
    post(client, student_headers, exercise="sinusoidal-positional-encoding")
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    post(client, other)
    listed = client.get(
        "/api/submissions?exercise=position-embedding-gather", headers=student_headers
    ).json()
    assert [row["id"] for row in listed] == [second, first]
    assert {"id", "created_at", "framework", "mode", "verdict", "score", "status"} <= set(listed[0])
    assert listed[0]["framework"] == "torch" and listed[0]["mode"] == "submit"
    everything = client.get("/api/submissions", headers=student_headers).json()
    assert len(everything) == 3
    assert client.get("/api/submissions?limit=1", headers=student_headers).json()[0]["id"] > second
    assert client.get("/api/submissions").status_code == 401
    assert client.get("/api/submissions?exercise=position-embedding-gather", headers=other).json()[
        0
    ]["id"] not in (first, second)


def test_the_submission_limiter_is_set_when_the_app_is_built(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUBMISSIONS_PER_MINUTE", "7")
    get_settings.cache_clear()
    app = create_app()  # built, not yet started: one limiter and one guard per app, no lazy set-up
    limiter, guard = app.state.submission_limiter, app.state.submission_repeats
    assert isinstance(limiter, RateLimiter) and isinstance(guard, RepeatGuard)
    assert limiter.limit == 7
    with TestClient(app):
        assert app.state.submission_limiter is limiter
        assert app.state.submission_repeats is guard
    assert create_app().state.submission_limiter is not limiter  # apps share no counts
