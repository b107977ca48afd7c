"""Too many failed logins or sign-ups from one IP or for one email answer 429."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import get_settings
from app.main import create_app
from app.users.ratelimit import MemoryFailureLimiter, get_auth_limiter, minutes_text
from tests.users.helpers import PASSWORD, login, make_user, signup


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_limiter_blocks_after_max_failures_and_recovers() -> None:
    clock = FakeClock()
    limiter = MemoryFailureLimiter(max_failures=3, window_seconds=300, clock=clock)
    for _ in range(2):
        limiter.record_failure(["ip:1", "email:a"])
        clock.now += 10
    assert limiter.retry_after(["ip:1"]) == 0
    limiter.record_failure(["ip:1", "email:a"])
    assert limiter.retry_after(["ip:1"]) == 280  # the first failure leaves the window at 1300
    assert limiter.retry_after(["email:b"]) == 0, "other keys are unaffected"
    clock.now += 281
    assert limiter.retry_after(["ip:1", "email:a"]) == 0


def test_limiter_reset_forgets_one_key() -> None:
    limiter = MemoryFailureLimiter(max_failures=1, window_seconds=60, clock=FakeClock())
    limiter.record_failure(["ip:1", "email:a"])
    limiter.reset("email:a")
    assert limiter.retry_after(["email:a"]) == 0 and limiter.retry_after(["ip:1"]) == 60


def test_minutes_text_rounds_up() -> None:
    assert minutes_text(1) == "1 minute"
    assert minutes_text(61) == "2 minutes"
    assert minutes_text(300) == "5 minutes"


def test_login_is_limited_per_client(client: TestClient) -> None:
    make_user("grace@example.org")
    for _ in range(10):
        assert login(client, "grace@example.org", password="wrong guess").status_code == 401
    blocked = login(client, "grace@example.org")  # even the right password waits
    assert blocked.status_code == 429
    assert "Too many attempts. Please try again in 5 minutes." in blocked.text
    assert 0 < int(blocked.headers["retry-after"]) <= 300
    assert "session" not in blocked.cookies


def test_login_is_limited_per_email(client: TestClient) -> None:
    make_user("grace@example.org")
    for _ in range(10):
        login(client, "grace@example.org", password="wrong guess")
    # The same email from another address is still blocked.
    other = TestClient(client.app, client=("203.0.113.9", 50000))
    assert login(other, "grace@example.org").status_code == 429
    # Another account from that address is not.
    make_user("ada@example.org")
    assert login(other, "ada@example.org").status_code == 303


def test_signup_failures_are_limited(client: TestClient) -> None:
    for _ in range(10):
        assert signup(client, confirm="different").status_code == 400
    response = signup(client)
    assert response.status_code == 429 and "Too many attempts" in response.text
    assert PASSWORD not in response.text


def test_the_limiter_is_set_when_the_app_is_built(data_dir: Path) -> None:
    app = create_app()  # built, not yet started: a request may come right after start-up
    limiter = app.state.auth_limiter
    assert isinstance(limiter, MemoryFailureLimiter)
    settings = get_settings()
    assert (limiter.max_failures, limiter.window) == (
        settings.auth_max_failures,
        settings.auth_window_seconds,
    )
    with TestClient(app):
        assert app.state.auth_limiter is limiter  # start-up keeps it: one per app


class Blocked:
    """A limiter that blocks every key for two minutes."""

    def retry_after(self, keys: Iterable[str]) -> float:
        return 120.0

    def record_failure(self, keys: Iterable[str]) -> None:
        raise AssertionError("a blocked attempt is not counted")

    def reset(self, key: str) -> None:
        raise AssertionError("a blocked attempt is not a success")


def test_login_and_signup_read_the_limiter_through_the_dependency(client: TestClient) -> None:
    client.app.dependency_overrides[get_auth_limiter] = Blocked  # type: ignore[attr-defined]
    make_user("grace@example.org")
    blocked = login(client, "grace@example.org")
    assert blocked.status_code == 429 and "try again in 2 minutes" in blocked.text
    assert signup(client).status_code == 429
