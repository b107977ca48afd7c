"""A real server and Debian's Chromium (driven by Playwright) for end-to-end browser tests.

Nothing is downloaded: Playwright drives /usr/bin/chromium. Without Chromium the tests are
skipped on a developer machine, and fail when the CI variable is set.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.config import ROOT
from tests.conftest import shipped_content

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "var" / "test-artifacts" / "browser"
PASSWORD = "correct horse battery"
START_TIMEOUT = 180.0
WARM_TIMEOUT = 900.0  # a busy 2-core machine can need minutes to start JAX


def _require_browser() -> None:
    """Skip only on a developer machine without Chromium; in CI a missing browser is an error."""
    missing = []
    if not CHROMIUM.is_file():
        missing.append(f"{CHROMIUM} (Debian package `chromium`)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("the `playwright` Python package (pip install -e '.[dev]')")
    if not missing:
        return
    message = "browser tests need " + " and ".join(missing)
    if os.environ.get("CI") or CHROMIUM.is_file():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """The app running in its own process with its own data directory."""

    def __init__(self, url: str, data_dir: Path, log: Path, env: dict[str, str]) -> None:
        self.url = url
        self.data_dir = data_dir
        self.log = log
        self.env = env

    def cli(self, *args: str) -> str:
        """`python -m app ...` against this server's data; returns the last line it printed."""
        return _cli(self.env, *args)

    def expire_sessions(self, email: str) -> None:
        """End this account's browser sessions on the server, as if they had timed out."""
        with sqlite3.connect(self.data_dir / "app.db") as db:
            db.execute(
                "UPDATE web_sessions SET expires_at = '2000-01-01 00:00:00.000000' "
                "WHERE user_id = (SELECT id FROM users WHERE email = ?)",
                (email,),
            )


@contextlib.contextmanager
def launch(
    data_dir: Path, *, content_dir: Path | None = None, warm: bool = True, **env_extra: str
) -> Iterator[Server]:
    """`python -m app serve` on a free port over `content_dir` (None: the repository's, its
    exam windows pinned), migrated, its grader warmed (unless `warm` is false: a test that
    grades only right answers needs no known mistakes)."""
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "APP_DATA_DIR": str(data_dir),
        "APP_ENV": "test",
        # The gather exercise's known mistakes are written in all three frameworks, so a wrong
        # answer needs one interpreter of each; cold ones can take a minute on a busy machine.
        "POOL_SIZES": json.dumps({"numpy": 1, "torch": 1, "jax": 1}),
        "POOL_WARM_ON_START": "true",
        "GRADING_WORKERS": "2",
        "CONTENT_DIR": str(content_dir or shipped_content()),
        # A copy of the course's folders has no course.yaml: it stands for the first course
        # (its offerings, made by the migrations, are that course's; app/content/first.py).
        "FIRST_COURSE_SLUG": "positional-embeddings",
        # `expire_sessions` ends sessions by writing the database from outside the server,
        # which a server remembering sessions (issue 23) would see only after a few seconds; a
        # real time-out is seen at once (tests/users/test_session_cache.py).
        "SESSION_CACHE": "false",
        **env_extra,
    }
    migrate = subprocess.run(
        [sys.executable, "-m", "app", "migrate"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert migrate.returncode == 0, migrate.stderr
    port = _free_port()
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, log)
        if warm:
            _warm_grader(url, env, log)
        yield Server(url, data_dir, log, env)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="package")  # stopped before other packages: its pool and event loop
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The course as it is in the repository, served for the browser tests."""
    _require_browser()
    with launch(tmp_path_factory.mktemp("browser") / "var") as running:
        yield running


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited early:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(
        f"no answer from {url}/healthz in {START_TIMEOUT} s:\n{log.read_text()[-3000:]}"
    )


def _cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def _api(url: str, token: str, method: str = "GET", body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _warm_grader(url: str, env: dict[str, str], log: Path) -> None:
    """Grade one wrong gather answer first, so the known mistakes' outputs are computed and
    the timings the tests print are those of a warm server, not of interpreters starting."""
    from tests.browser.helpers import SLUG, WRONG

    _cli(env, "users", "create", "--email", "warm@example.org", "--password", PASSWORD)
    token = _cli(env, "users", "token", "--email", "warm@example.org")
    verdicts = []
    deadline = time.monotonic() + WARM_TIMEOUT
    while time.monotonic() < deadline:
        body = {"exercise": SLUG, "code": WRONG, "mode": "run"}
        sid = _api(f"{url}/api/submissions", token, "POST", body)["id"]
        view = {"status": "queued"}
        while view["status"] != "done" and time.monotonic() < deadline:
            time.sleep(0.5)
            view = _api(f"{url}/api/submissions/{sid}", token)
        verdicts.append(view.get("verdict"))
        if view.get("verdict") == "wrong_answer":
            return
    raise AssertionError(f"the grader never warmed up ({verdicts}):\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="package")  # Playwright runs an event loop on this thread
def browser(server: Server) -> Iterator[Any]:
    """Chromium from Debian, headless; --no-sandbox only when running as root."""
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        yield chromium
        chromium.close()


class Shots:
    """Numbered screenshots of one test's steps, saved under var/test-artifacts/browser/."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(self, page: Any, step: str) -> Path:
        """Save the whole page and print where it went."""
        self.count += 1
        path = ARTIFACTS / f"{self.name}-{self.count:02d}-{step}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    """Screenshots named after the test."""
    return Shots(request.node.name.removeprefix("test_"))


@pytest.fixture
def context_factory(browser: Any, server: Server) -> Iterator[Any]:
    """New browser contexts (separate cookies and storage); fails the test on a page crash."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(**options: Any) -> Any:
        permissions = ["clipboard-read", "clipboard-write"]
        context = browser.new_context(base_url=server.url, permissions=permissions, **options)
        context.set_default_timeout(20_000)
        context.on("page", lambda page: _watch(page, errors))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def _watch(page: Any, errors: list[str]) -> None:
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text
            else None
        ),
    )


def sign_up(page: Any, email: str, name: str = "Ada Lovelace") -> None:
    """Create an account through the sign-up form (works with and without JavaScript)."""
    page.goto("/signup")
    page.get_by_label("Email").fill(email)
    if page.locator("#name").count():
        page.locator("#name").fill(name)
    page.locator("#password").fill(PASSWORD)
    if page.locator("#confirm").count():
        page.locator("#confirm").fill(PASSWORD)
    page.locator("form[action='/signup'] button[type=submit]").click()
    page.wait_for_load_state()
    assert page.get_by_role("button", name="Log out").count() == 1, page.content()[:2000]


def log_in(page: Any, email: str, next_url: str) -> None:
    """Log in through the login form and land on next_url."""
    page.goto(f"/login?next={next_url}")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("form[action='/login'] button[type=submit]").click()
    page.wait_for_load_state()
    assert page.get_by_role("button", name="Log out").count() == 1
