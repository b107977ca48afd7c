"""Load and faults on the real PostgreSQL and Redis: the issue's end-to-end acceptance test.

One web process (serve only) and two workers, all started with the commands of
docker-compose.yml. LOAD_SUBMISSIONS submissions (1,000 in CI; 200 by default elsewhere) go in
over HTTP with a bearer token, half right and half wrong. Midway the web process is restarted
(while a browser-like client follows a live status stream) and one worker is SIGKILLed with jobs
in hand, then started again. In the end every submission has exactly one final report with the
expected verdict, and the time taken and the throughput are printed.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select

from app.db import session_factory
from app.grading.beacon import live_workers
from app.submissions.models import Submission
from tests.jobs import compose
from tests.jobs.conftest import RedisSpace
from tests.jobs.helpers import GOOD, WRONG, wait_until
from tests.jobs.procs import AppProcess, free_port, pause, run, wait_http_ok

LOAD = int(os.environ.get("LOAD_SUBMISSIONS") or (1000 if os.environ.get("CI") else 200))
LEASE_SECONDS = 10
# The followed submission sleeps once for 4 s (its limit is 5 s) and its stream ends after 1 s,
# so the web restart cuts a stream that has not reached `done`, however fast the rest is graded.
STREAM_SECONDS = 1
SLOW = GOOD.replace(
    "import numpy as np\n", "import time\n\nimport numpy as np\n\ntime.sleep(4)\n", 1
)
EXPECTED = {GOOD: "accepted", WRONG: "wrong_answer", SLOW: "accepted"}


@dataclass
class Client:
    """A student's script: POSTs with an idempotency key, retried while the web is restarting."""

    base: str
    token: str
    http: httpx2.Client = field(default_factory=lambda: httpx2.Client(timeout=30))

    def submit(self, n: int, code: str) -> int:
        body = {"exercise": "position-embedding-gather", "code": code, "framework": "numpy"}
        headers = {"Authorization": f"Bearer {self.token}", "Idempotency-Key": f"load-{n}"}
        deadline = time.monotonic() + 180
        while True:
            try:
                answer = self.http.post(f"{self.base}/api/submissions", json=body, headers=headers)
                if answer.status_code == 202:
                    return int(answer.json()["id"])
                raise AssertionError(f"POST answered {answer.status_code}: {answer.text}")
            except httpx2.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)


class Follower(threading.Thread):
    """Follows one submission's event stream like EventSource: reconnects until `done`."""

    def __init__(self, base: str, token: str, sid: int) -> None:
        super().__init__(daemon=True)
        self.url = f"{base}/api/submissions/{sid}/events"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.events: list[dict[str, Any]] = []
        self.connections = 0
        self.error: str | None = None

    def run(self) -> None:
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            try:
                with httpx2.stream(
                    "GET", self.url, headers=self.headers, timeout=httpx2.Timeout(30, read=120)
                ) as response:
                    self.connections += 1
                    for line in response.iter_lines():
                        if line.startswith("data: "):
                            self.events.append(json.loads(line[len("data: ") :]))
                            if self.events[-1]["status"] == "done":
                                return
            except httpx2.HTTPError:
                pass
            time.sleep(0.5)
        self.error = "the stream never reached done"


def worker_log_entries(*procs: AppProcess) -> list[dict[str, Any]]:
    """Every JSON log line of these processes."""
    entries = []
    for proc in procs:
        for line in proc.log().splitlines():
            if line.startswith("{"):
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    continue
    return entries


def in_flight(proc: AppProcess) -> set[int]:
    """Submissions this worker claimed and has not finished or given back (from its own log)."""
    holding: set[int] = set()
    for entry in worker_log_entries(proc):
        sid = entry.get("submission_id")
        if sid is None or entry.get("pid") != proc.pid:
            continue
        if entry.get("event") == "claimed":
            holding.add(sid)
        elif entry.get("event") in ("stored", "released", "retry", "superseded"):
            holding.discard(sid)
    return holding


def released(held: set[int]) -> bool:
    """True once none of these jobs is still leased by its first (dead) run."""
    with session_factory()() as session:
        rows = session.scalars(select(Submission).where(Submission.id.in_(held)))
        return all(r.status == "done" or r.attempts >= 2 or r.status == "queued" for r in rows)


def unfinished(held: set[int]) -> set[int]:
    """The jobs among these whose report is not stored yet."""
    if not held:
        return set()
    with session_factory()() as session:
        rows = session.scalars(select(Submission).where(Submission.id.in_(held)))
        return {r.id for r in rows if r.status != "done"}


def counts() -> dict[str, int]:
    with session_factory()() as session:
        rows = session.execute(select(Submission.status, func.count()).group_by(Submission.status))
        return {str(s): int(n) for s, n in rows}


def test_load_with_a_killed_worker_and_a_restarted_web(
    scale_env: dict[str, str], redis_space: RedisSpace, tmp_path: Path
) -> None:
    env = {
        **scale_env,
        "POOL_SIZES": '{"numpy": 2, "torch": 0, "jax": 0}',
        "GRADING_WORKERS": "2",
        "LEASE_SECONDS": str(LEASE_SECONDS),
        "REAPER_INTERVAL_SECONDS": "1",
        "SUBMISSIONS_PER_MINUTE": "1000000",
        "LOG_FORMAT": "json",
        "SSE_STREAM_SECONDS": str(STREAM_SECONDS),
    }
    assert run(compose.native(compose.command("migrate")), env).returncode == 0
    email = "load@example.org"
    create = [compose.native(["python", "-m", "app"])[0], "-m", "app", "users", "create"]
    assert run([*create, "--email", email, "--password", "correct horse"], env).returncode == 0
    token_run = run([create[0], "-m", "app", "users", "token", "--email", email], env)
    token = token_run.stdout.strip().splitlines()[-1]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    web = AppProcess("web", compose.native(compose.command("web"), port=port), env, tmp_path)
    workers = [
        AppProcess(f"worker{i}", compose.native(compose.command("worker")), env, tmp_path)
        for i in (1, 2)
    ]
    client = Client(base, token)
    codes = [GOOD if n % 2 == 0 else WRONG for n in range(LOAD)]
    codes[LOAD // 2 - 1] = SLOW  # the one the event stream follows across the web restart
    try:
        web.start()
        for worker in workers:
            worker.start()
        wait_http_ok(f"{base}/healthz", 180, web)
        wait_until(
            lambda: len(live_workers(redis_space.client, redis_space.prefix)) == 2,
            180,
            "both workers to announce themselves",
            step=0.5,
        )
        started = time.monotonic()
        half = LOAD // 2
        with ThreadPoolExecutor(8) as pool:
            ids = list(pool.map(client.submit, range(half), codes[:half]))
        follower = Follower(base, token, ids[-1])
        follower.start()
        wait_until(lambda: follower.connections == 1, 60, "the event stream to open")
        # 1. the web process restarts mid-stream and while submissions keep coming
        assert web.signal(signal.SIGTERM) in (0, -signal.SIGTERM)  # uvicorn re-raises it
        assert "Application shutdown complete" in web.log()
        web.start()
        with ThreadPoolExecutor(8) as pool:
            later = pool.map(client.submit, range(half, LOAD), codes[half:])
            wait_http_ok(f"{base}/healthz", 180, web)
            ids += list(later)
        submitted = time.monotonic() - started
        # 2. a worker is SIGKILLed with jobs in hand once ~40% are done, then started again
        wait_until(lambda: counts().get("done", 0) >= 0.4 * LOAD, 3600, "40% done", step=0.5)
        victim = workers[0]
        held: set[int] = set()
        in_hand: set[int] = set()
        held_at_a_kill: set[int] = set()  # every kill's: each may cut a stored job's log line
        for _ in range(10):  # a job takes milliseconds: it may end between the look and the kill
            wait_until(lambda: bool(in_flight(victim)), 120, "the victim to hold a job", step=0.01)
            victim_pid = victim.pid
            assert victim.kill() == -signal.SIGKILL
            held = in_flight(victim)
            held_at_a_kill |= held
            # a job it stored in the instant before the kill, before logging it, is not in hand
            in_hand = unfinished(held)
            if in_hand:
                break
            victim.start()  # it had just finished: start it again and kill it with a job in hand
        assert in_hand, "the victim held no unfinished job when it was killed"
        pause(3)
        victim.start()
        # its jobs go back to the queue (or to the other worker) once their lease runs out
        requeue_seconds = 3 + wait_until(
            lambda: released(held), LEASE_SECONDS + 60, "the dead worker's jobs", step=0.2
        )
        # 3. everything ends
        wait_until(lambda: counts().get("done", 0) == LOAD, 3600, "every verdict", step=0.5)
        elapsed = time.monotonic() - started
        follower.join(timeout=120)
        health = run(compose.native(compose.healthcheck("worker")), env)
        metrics = httpx2.get(f"{base}/metrics", timeout=30).text
        for worker in workers:
            assert worker.signal(signal.SIGTERM, timeout=120) == 0, f"{worker.name} drain"
        assert web.signal(signal.SIGTERM) in (0, -signal.SIGTERM)  # uvicorn re-raises it
        assert "Application shutdown complete" in web.log()
    finally:
        for proc in (web, *workers):
            proc.ensure_stopped()

    print(
        f"\nscale-out load: {LOAD} submissions (half wrong), 2 workers x 2 threads, numpy pool 2; "
        f"submitted in {submitted:.1f} s; all graded in {elapsed:.1f} s "
        f"= {LOAD / elapsed:.2f} submissions/s (web restarted once, a worker SIGKILLed "
        f"and restarted)"
    )
    # none lost, none duplicated, all correct
    assert len(set(ids)) == LOAD
    with session_factory()() as session:
        rows = {r.id: r for r in session.scalars(select(Submission))}
    assert set(rows) == set(ids)
    wrong = [i for i, code in zip(ids, codes, strict=True) if rows[i].verdict != EXPECTED[code]]
    assert not wrong, f"{len(wrong)} unexpected verdicts, e.g. {rows[wrong[0]].message}"
    assert {r.status for r in rows.values()} == {"done"}
    # exactly one final report per submission, across every worker process that ever ran
    stored = Counter(
        e["submission_id"] for e in worker_log_entries(*workers) if e.get("event") == "stored"
    )
    assert set(stored.values()) == {1}
    # a job the victim stored in the instant before a SIGKILL, before it could log it, ran once
    unlogged = set(ids) - set(stored)
    assert unlogged <= held_at_a_kill and all(rows[sid].attempts == 1 for sid in unlogged)
    # the jobs in the killed worker's hands were run again by another process, within the lease
    rerun = held - unlogged
    print(f"killed worker held {sorted(held)}; released after {requeue_seconds:.1f} s")
    assert requeue_seconds < LEASE_SECONDS + 60
    assert rerun and all(rows[sid].attempts >= 2 for sid in rerun)
    rerun_by = {
        e["submission_id"]: e["pid"]
        for e in worker_log_entries(*workers)
        if e.get("event") == "stored" and e["submission_id"] in rerun
    }
    assert set(rerun_by) == rerun and victim_pid not in rerun_by.values()
    # the live status stream survived the web restart
    assert follower.error is None and follower.connections >= 2
    assert [e["status"] for e in follower.events].count("done") == 1
    assert follower.events[-1]["verdict"] == EXPECTED[codes[half - 1]]
    # the operator's view agrees
    assert health.returncode == 0, health.stderr
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(metrics)
        for s in family.samples
    }
    assert samples[("course_submissions", (("status", "done"),))] == LOAD
    verdicts = {k[1][0][1]: v for k, v in samples.items() if k[0] == "course_verdicts_total"}
    assert verdicts == dict(collections.Counter(EXPECTED[code] for code in codes))
    assert samples[("course_grading_seconds_count", (("framework", "numpy"),))] == LOAD
