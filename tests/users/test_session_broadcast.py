"""Several web processes remember sessions, and a logout in one is seen by the others at once.

On the machine's real PostgreSQL and Redis (the fixtures of tests/jobs/conftest.py).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx2
import psycopg

from app.users.session_broadcast import Listener, Publisher
from tests.jobs import compose
from tests.jobs.conftest import RedisSpace
from tests.jobs.helpers import wait_until
from tests.jobs.procs import AppProcess, free_port
from tests.jobs.procs import wait_http_ok as wait_ok
from tests.users.helpers import PASSWORD, make_user

_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_a_listener_hears_every_publication_once_subscribed(redis_space: RedisSpace) -> None:
    heard = threading.Semaphore(0)
    listener = Listener(redis_space.url, redis_space.prefix, heard.release)
    listener.start()
    try:
        wait_until(lambda: listener.live, 10, "the listener to subscribe")
        assert heard.acquire(timeout=1)  # subscribing itself forgets what came before
        for _ in range(3):
            Publisher().publish(redis_space.url, redis_space.prefix)
            assert heard.acquire(timeout=5)
    finally:
        listener.stop()
    assert not listener.live


def test_without_redis_a_listener_is_never_live_and_a_publish_does_not_raise() -> None:
    cleared = threading.Event()
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    listener = Listener(nowhere, "nobody", cleared.set)
    listener.start()
    try:
        assert cleared.wait(10)  # it tried, failed, and kept nothing
        assert not listener.live
    finally:
        listener.stop()
    Publisher().publish(nowhere, "nobody")  # logged, never raised into the write


def test_the_next_question_after_a_publication_never_finds_it_unhandled(
    redis_space: RedisSpace,
) -> None:
    # On a busy machine the listener's thread may not run before the next request does; that
    # request asks `settled()` first, which takes any message already arrived itself.
    changes = [0]

    def changed() -> None:
        changes[0] += 1

    listener = Listener(redis_space.url, redis_space.prefix, changed)
    listener.start()
    try:
        wait_until(listener.settled, 10, "the listener to subscribe")
        for _ in range(200):
            before = changes[0]
            Publisher().publish(redis_space.url, redis_space.prefix)
            settled = listener.settled()
            assert not settled or changes[0] > before, "a cached answer would have been used"
    finally:
        listener.stop()
    assert not listener.settled()


def _login(client: httpx2.Client, email: str) -> str:
    token = _FIELD.search(client.get("/login").text)
    assert token is not None
    form = {"email": email, "password": PASSWORD, "next": "/", "csrf_token": token.group(1)}
    assert client.post("/login", data=form).status_code == 303
    cookie = client.cookies.get("session")
    assert cookie
    return cookie


def test_a_logout_in_one_web_process_ends_the_session_in_the_others_at_once(
    scale_env: dict[str, str], pg_url: str, tmp_path: Path
) -> None:
    make_user("ada@example.org", name="Ada")
    webs = []
    for name in ("web-a", "web-b"):
        port = free_port()
        argv = compose.native(compose.command("web"), port=port)
        webs.append((AppProcess(name, argv, scale_env, tmp_path).start(), port))
    try:
        for proc, port in webs:
            wait_ok(f"http://127.0.0.1:{port}/healthz", 120, proc)
        a = httpx2.Client(base_url=f"http://127.0.0.1:{webs[0][1]}", timeout=30)
        b = httpx2.Client(base_url=f"http://127.0.0.1:{webs[1][1]}", timeout=30)
        b.cookies.set("session", _login(a, "ada@example.org"))
        assert "Log out" in b.get("/").text

        # B remembers: a change written behind the app's back (no publication) is not seen yet.
        renamed = iter(range(1000))

        def b_remembers() -> bool:
            b.get("/")
            name = f"Renamed {next(renamed)}"
            with psycopg.connect(pg_url, autocommit=True) as raw:
                raw.execute("UPDATE users SET name = %s", (name,))
            return name not in b.get("/").text

        wait_until(b_remembers, 30, "web-b to remember the session", step=0.2)

        csrf = _META.search(a.get("/").text)
        assert csrf is not None
        assert a.post("/logout", data={"csrf_token": csrf.group(1)}).status_code == 303
        html = b.get("/").text  # the very next page, in the other process
        assert "Log out" not in html and "Log in" in html
    finally:
        for proc, _ in webs:
            proc.ensure_stopped()
