"""Pieces of `make compose-check`: a student's HTTP client, the check's clock, docker commands.

Standard library and PyYAML only (Compose 1.29 brings PyYAML), so the check runs with the
interpreter of the `docker-compose` script on any machine that has Debian's Compose.
"""

from __future__ import annotations

import concurrent.futures
import http.cookiejar
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


class Miss(Exception):
    """A step found the deployment not doing what it must."""


@dataclass
class Steps:
    """One line per step with its time; any miss makes the run fail."""

    misses: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @contextmanager
    def step(self, name: str) -> Iterator[list[str]]:
        """Time a step; the body appends details to the list it is given."""
        notes: list[str] = []
        start = time.monotonic()
        try:
            yield notes
        except Miss as exc:
            self.misses.append(f"{name}: {exc}")
            self._line("MISS", name, start, [str(exc), *notes])
            return
        except Exception as exc:  # an error, not a finding: named with its step, then raised
            said = f"{type(exc).__name__}: {exc}"
            self.misses.append(f"{name}: {said}")
            self._line("MISS", name, start, [said, *notes])
            raise
        self._line("ok", name, start, notes)

    def summary(self, what: str) -> int:
        """The last line: passed, or failed with the steps that missed; the exit status."""
        took = time.monotonic() - self.started
        if self.misses:
            named = " | ".join(m[:160] for m in self.misses)
            failed = f"{what}: FAILED ({len(self.misses)} misses) in {took:.0f} s"
            print(f"{failed}: {named}", flush=True)
            return 1
        print(f"{what}: all steps passed in {took:.0f} s", flush=True)
        return 0

    def _line(self, status: str, name: str, start: float, notes: list[str]) -> None:
        seconds = time.monotonic() - start
        detail = "; ".join(notes)
        print(f"compose-check: {status:<4} {name:<52} {seconds:7.1f} s  {detail}", flush=True)


def run(
    argv: list[str] | str,
    *,
    check: bool = True,
    input: bytes | None = None,
    timeout: float = 900,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run a command (a string is split like a shell would); raise Miss when it fails."""
    args = shlex.split(argv) if isinstance(argv, str) else argv
    result = subprocess.run(
        args, input=input, capture_output=True, timeout=timeout, check=False, env=env
    )
    if check and result.returncode != 0:
        tail = (result.stderr or result.stdout).decode(errors="replace").strip()[-600:]
        raise Miss(f"{' '.join(args[:6])} exited {result.returncode}: {tail}")
    return result


def wait_for(what: str, probe: Any, timeout: float, every: float = 2.0) -> Any:
    """Call `probe` until it returns something true; Miss after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = probe()
        except (OSError, Miss, ValueError):
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise Miss(f"{what}: not within {timeout:.0f} s")
        time.sleep(every)


@dataclass
class Answer:
    """A reply: status, headers and body (500s and 503s are answers too, not exceptions)."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Statuses:
    """Every status the web tier answered during a window, for the 503-not-500 rule."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def record(self, answer: Answer) -> None:
        label = str(answer.status)
        if answer.status == 503:
            label += "+Retry-After" if "retry-after" in answer.headers else " without Retry-After"
        with self.lock:
            self.counts[label] += 1

    def bad(self) -> dict[str, int]:
        """5xx answers a student must never see: 500s, and 503s that do not say when to retry."""
        return {
            k: v
            for k, v in self.counts.items()
            if v and k.startswith("5") and k != "503+Retry-After"
        }

    def summary(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in sorted(self.counts.items()) if v)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Student:
    """A browser-like client on 127.0.0.1: cookies, the CSRF token, JSON calls."""

    def __init__(self, base: str, email: str, statuses: Statuses | None = None) -> None:
        self.base = base
        self.email = email
        self.password = "compose-check " + uuid.uuid4().hex
        # APP_ENV=production marks cookies Secure; browsers send those to http://127.0.0.1 too
        # (a local address is a secure context), so the check does the same.
        policy = http.cookiejar.DefaultCookiePolicy(secure_protocols=("https", "wss", "http"))
        self.jar = http.cookiejar.CookieJar(policy)
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect()
        )
        self.csrf = ""
        self.statuses = statuses

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> Answer:
        req = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
            self.base + path, data=body, method=method, headers=headers or {}
        )
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                answer = Answer(
                    resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
                )
        except urllib.error.HTTPError as exc:
            answer = Answer(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())
        if self.statuses is not None:
            self.statuses.record(answer)
        return answer

    def signup(self) -> None:
        """The sign-up form, as a person fills it in."""
        page = self.request("GET", "/signup")
        found = CSRF_FIELD.search(page.body.decode())
        if page.status != 200 or not found:
            raise Miss(f"GET /signup answered {page.status} without a form")
        form = urllib.parse.urlencode(
            {
                "csrf_token": found.group(1),
                "email": self.email,
                "name": "Compose Check",
                "password": self.password,
                "confirm": self.password,
                "next_url": "/",
            }
        ).encode()
        done = self.request(
            "POST", "/signup", form, {"content-type": "application/x-www-form-urlencoded"}
        )
        if done.status != 303:
            raise Miss(f"POST /signup answered {done.status}: {done.body[:200]!r}")
        self.refresh_csrf()

    def refresh_csrf(self) -> None:
        home = self.request("GET", "/")
        found = CSRF_META.search(home.body.decode(errors="replace"))
        if home.status != 200 or not found:
            raise Miss(f"GET / answered {home.status} without a CSRF token")
        self.csrf = found.group(1)

    def post_json(self, path: str, data: dict[str, Any], key: str | None = None) -> Answer:
        headers = {"content-type": "application/json", "x-csrf-token": self.csrf}
        if key:
            headers["idempotency-key"] = key
        return self.request("POST", path, json.dumps(data).encode(), headers)

    def submit(self, exercise: str, framework: str, code: str, patience: float = 180) -> int:
        """Post a submission like a student who retries when told to; return its id."""
        key = uuid.uuid4().hex
        deadline = time.monotonic() + patience
        while True:
            answer = self.post_json(
                "/api/submissions",
                {"exercise": exercise, "framework": framework, "code": code},
                key,
            )
            if answer.status in (200, 201, 202):
                return int(answer.json()["id"])
            retry = answer.headers.get("retry-after")
            if answer.status in (429, 503) and retry and time.monotonic() < deadline:
                time.sleep(min(float(retry), 10))
                continue
            if answer.status >= 500 and time.monotonic() < deadline:
                time.sleep(1)  # a person tries again; the same key cannot make a second one
                continue
            raise Miss(f"POST /api/submissions answered {answer.status}: {answer.body[:200]!r}")

    def verdict(self, sub_id: int, timeout: float = 600) -> dict[str, Any]:
        """Wait for the stored verdict of one submission."""

        def done() -> dict[str, Any] | None:
            answer = self.request("GET", f"/api/submissions/{sub_id}")
            data = answer.json() if answer.status == 200 else {}
            return data if data.get("status") == "done" else None

        found: dict[str, Any] = wait_for(f"verdict of submission {sub_id}", done, timeout, 1.0)
        return found


class Burst:
    """Students submitting at once (right and wrong answers), with a fault done in the middle.

    Students keep submitting (every 2 s each, under the 30-a-minute limit) and one keeps
    reloading the home page (every 0.25 s) until 3 s after the fault is over, so requests
    meet the fault whatever it takes.
    """

    def __init__(
        self, students: list[Student], per_student: int, exercise: tuple[str, str, str, str]
    ) -> None:
        self.exercise, self.framework, self.right, self.wrong = exercise
        self.students = students
        self.per_student = per_student
        self.sent: list[tuple[Student, int, bool]] = []
        self.lock = threading.Lock()
        self.over = threading.Event()

    def _one_student(self, student: Student, index: int) -> None:
        n = 0
        while n < self.per_student or not self.over.is_set():
            good = (n + index) % 2 == 0
            sid = student.submit(self.exercise, self.framework, self.right if good else self.wrong)
            with self.lock:
                self.sent.append((student, sid, good))
            n += 1
            if n >= 4 * self.per_student:
                break
            time.sleep(0.3 if n < self.per_student else 2.0)

    def _reader(self) -> None:
        while not self.over.is_set():
            self.students[0].request("GET", "/", timeout=30)
            time.sleep(0.25)

    def _fault(self, fault: Any) -> None:
        try:
            fault()
            time.sleep(3)
        finally:
            self.over.set()

    def run(self, fault: Any, after: int) -> list[tuple[Student, int, bool]]:
        """Submit; once `after` are in, do `fault` on a thread of its own; wait for all."""
        self.sent = []
        self.over.clear()
        with concurrent.futures.ThreadPoolExecutor(len(self.students) + 2) as pool:
            jobs = [pool.submit(self._one_student, s, i) for i, s in enumerate(self.students)]
            try:
                wait_for("the burst's first submissions", lambda: len(self.sent) >= after, 300, 0.2)
            finally:
                jobs += [pool.submit(self._fault, fault), pool.submit(self._reader)]
            for job in jobs:
                job.result(timeout=900)
        return list(self.sent)


def log(message: str) -> None:
    print(f"compose-check: .... {message}", file=sys.stderr, flush=True)


def env_with(**values: str) -> dict[str, str]:
    return {**os.environ, **values}


def seed_caches(docker: str, image: str, volume: str, source: Path) -> str:
    """Copy grading caches made on this machine (`make prepare`: var/mistakes-cache and
    var/jax-cache) into the app-data volume, keeping what is there; `prepare` then computes
    only what they lack. Both are keyed by the exercise's files and library versions, so an
    entry made here is the entry the container would make when the versions agree."""
    mounts = []
    for name in ("mistakes-cache", "jax-cache"):
        if (source / name).is_dir():
            mounts += ["-v", f"{source / name}:/seed/{name}:ro"]
    if not mounts:
        return f"no caches in {source} to seed"
    copy = "cp -rn /seed/. /data/ && chown -R app:app /data && du -sh /data | cut -f1"
    argv = [docker, "run", "--rm", "--network", "none", "--user", "0", "-v", f"{volume}:/data"]
    out = run([*argv, *mounts, image, "sh", "-c", copy], timeout=300).stdout.decode().strip()
    return f"grading caches seeded from {source} ({out} in the volume)"
