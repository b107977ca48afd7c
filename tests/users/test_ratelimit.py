"""Too many failed logins or sign-ups from one IP or for one email answer 429."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.users.ratelimit import MemoryFailureLimiter, minutes_text
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
