"""The Redis queue on the real Redis and PostgreSQL: delivery, acks, dead workers, lost messages.

Each test runs a real Dramatiq worker in this process (the same `JobRuntime` that
`python -m app worker` runs) grading with the real sandboxed grader.
"""

from __future__ import annotations

import pytest
import redis

from app.config import ROOT, get_settings
from app.db import session_factory
from app.grading import leases
from app.grading.runtime import JobRuntime
from app.grading.service import get_grader
from app.jobs.base import GRADE, JobRef
from app.jobs.redis_queue import EXPERIMENT_QUEUE, QUEUE_NAME, RedisQueue
from tests.jobs.conftest import PrivateRedis, RedisSpace, add_submissions, rows
from tests.jobs.helpers import GOOD, wait_until

TIMEOUT = 180.0  # generous: the machine is shared and each job starts a sandbox


@pytest.fixture
def grader(scale_env: dict[str, str]) -> None:
    """A grader that starts interpreters on demand and skips the background priming."""
    get_grader(warm=False)


def producer() -> JobRuntime:
    """What the web process holds in the scale-out mode: a queue it only sends to."""
    return JobRuntime(get_settings(), grade=False)


def worker() -> JobRuntime:
    """What `python -m app worker` runs, with a short grace so the reaper acts quickly."""
    runtime = JobRuntime(get_settings(), grade=True, concurrency=2, role="worker")
    runtime.reaper.grace_seconds = 1.0
    return runtime


def all_done(ids: list[int]) -> bool:
    found = rows(ids)
    return all(found[i].status == "done" for i in ids)


def dramatiq_keys(space: RedisSpace) -> dict[str, int]:
    """Sizes of Dramatiq's queue list and message hash for our queue."""
    ns = f"{space.prefix}:dramatiq:{QUEUE_NAME}"
    return {"queue": int(space.client.llen(ns)), "messages": int(space.client.hlen(f"{ns}.msgs"))}


def test_jobs_are_delivered_graded_and_acknowledged(grader: None, redis_space: RedisSpace) -> None:
    ids = add_submissions([GOOD] * 3)
    web = producer()
    for sid in ids:
        web.queue.enqueue(sid)
    assert web.queue.depth() == 3
    assert dramatiq_keys(redis_space) == {"queue": 3, "messages": 3}
    runtime = worker()
    runtime.start()
    try:
        wait_until(lambda: all_done(ids), TIMEOUT, "three jobs")
    finally:
        runtime.stop(30)
        web.stop(1)
    found = rows(ids)
    assert {(found[i].verdict, found[i].attempts) for i in ids} == {("accepted", 1)}
    assert web.queue.depth() == 0
    wait_until(lambda: dramatiq_keys(redis_space)["messages"] == 0, 10, "acks")
    assert dramatiq_keys(redis_space) == {"queue": 0, "messages": 0}


def test_experiments_go_to_their_own_queue_which_a_worker_opts_into(
    grader: None, redis_space: RedisSpace
) -> None:
    starter = (ROOT / "exercises/lab-learned-vs-sinusoidal/starter/torch.py").read_text()
    (lab,) = add_submissions([starter], exercise="lab-learned-vs-sinusoidal", framework="torch")
    (plain,) = add_submissions([GOOD])
    web = producer()
    web.queue.enqueue(lab)
    web.queue.enqueue(plain)
    lab_queue = f"{redis_space.prefix}:dramatiq:{EXPERIMENT_QUEUE}"
    assert int(redis_space.client.llen(lab_queue)) == 1
    assert dramatiq_keys(redis_space)["queue"] == 1
    ordinary = JobRuntime(  # what `python -m app worker` runs by default: ordinary jobs only
        get_settings(), grade=True, concurrency=2, role="worker", lanes=("grading",)
    )
    ordinary.reaper.grace_seconds = 1.0
    ordinary.start()
    try:
        wait_until(lambda: all_done([plain]), TIMEOUT, "the ordinary job")
        assert rows([lab])[lab].status == "queued"
    finally:
        ordinary.stop(30)
    opted = JobRuntime(
        get_settings(), grade=True, concurrency=1, role="worker", lanes=("experiments",)
    )
    opted.start()
    try:
        wait_until(lambda: all_done([lab]), TIMEOUT, "the experiment")
    finally:
        opted.stop(30)
        web.stop(1)
    found = rows([lab, plain])
    assert found[plain].verdict == "accepted"
    assert found[lab].verdict == "runtime_error"  # the starter raises NotImplementedError


def test_a_dead_workers_jobs_are_rerun_within_the_lease(
    grader: None, redis_space: RedisSpace
) -> None:
    running, prefetched = add_submissions([GOOD, GOOD])
    web = producer()
    web.queue.enqueue(running)
    web.queue.enqueue(prefetched)
    # A worker takes both messages, starts the first job, then is killed: nothing acks them.
    dead = RedisQueue(
        url=redis_space.url,
        prefix=redis_space.prefix,
        heartbeat_seconds=get_settings().lease_seconds,
    )
    consumer = dead.broker.consume(QUEUE_NAME, prefetch=2, timeout=100)
    taken = [next(consumer), next(consumer)]
    assert [m.args[0] for m in taken if m is not None] == [running, prefetched]
    dead.client.zrem(dead.sent_key, str(running))
    with session_factory()() as session:
        assert leases.claim(session=session, submission_id=running, lease_seconds=4) is not None
    runtime = worker()
    runtime.start()
    try:
        took = wait_until(lambda: all_done([running, prefetched]), TIMEOUT, "recovery")
        # Dramatiq also gives the dead worker's messages back, and the reaper may have sent a
        # job again meanwhile: the worker takes each one. (Waited for once the worker had
        # stopped, a message the reaper sent in its last second stayed: a fresh clone, 11-29.)
        wait_until(lambda: dramatiq_keys(redis_space)["messages"] == 0, 30, "redelivered acks")
    finally:
        runtime.stop(30)
        web.stop(1)
    found = rows([running, prefetched])
    # the started job ran again under a new lease; the waiting one ran once (redelivered);
    # the extra messages' runs stored nothing new
    assert (found[running].verdict, found[running].attempts) == ("accepted", 2)
    assert (found[prefetched].verdict, found[prefetched].attempts) == ("accepted", 1)
    assert took < TIMEOUT


def test_jobs_lost_with_redis_data_are_sent_again_from_the_database(
    grader: None, redis_space: RedisSpace
) -> None:
    ids = add_submissions([GOOD, GOOD])
    web = producer()
    for sid in ids:
        web.queue.enqueue(sid)
    for key in redis_space.all_keys():  # what a Redis restart without persistence leaves behind
        redis_space.client.delete(key)
    assert web.queue.depth() == 0
    runtime = worker()
    runtime.start()
    try:
        wait_until(lambda: all_done(ids), TIMEOUT, "recovered jobs")
    finally:
        runtime.stop(30)
        web.stop(1)
    found = rows(ids)
    assert {(found[i].verdict, found[i].attempts) for i in ids} == {("accepted", 1)}


def test_a_redis_restart_loses_no_job(
    grader: None,
    private_redis: PrivateRedis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port, procs, restart = private_redis
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{port}/0")
    get_settings.cache_clear()
    before = add_submissions([GOOD])
    runtime = worker()
    web = producer()
    runtime.start()
    try:
        web.queue.enqueue(before[0])
        wait_until(lambda: all_done(before), TIMEOUT, "the job before the restart")
        procs[-1].kill()
        procs[-1].wait()
        during = add_submissions([GOOD, GOOD])
        for sid in during:
            web.queue.enqueue(sid)  # Redis is down: logged, the rows stay queued
        assert {r.status for r in rows(during).values()} == {"queued"}
        restart(port)
        wait_until(lambda: all_done(during), TIMEOUT, "the jobs queued while Redis was down")
    finally:
        runtime.stop(30)
        web.stop(1)
    found = rows(before + during)
    assert {found[i].verdict for i in found} == {"accepted"}


def test_a_message_taken_while_redis_goes_away_is_still_graded(
    redis_space: RedisSpace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen in `make compose-check` (restart redis mid-burst): a worker took submission 104's
    # message just before Redis stopped; forgetting its record of the send failed, the message
    # was dropped, and the row sat queued until the reaper's 15-minute stale-message rule.
    queue = RedisQueue(url=redis_space.url, prefix=redis_space.prefix, heartbeat_seconds=10)
    handled: list[JobRef] = []
    queue._handler = handled.append

    def refused(*_args: object) -> int:
        raise redis.ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

    monkeypatch.setattr(queue.client, "zrem", refused)
    queue._on_message(104)
    assert handled == [JobRef(GRADE, 104)]  # graded now; the reaper sweeps the record later


def test_a_message_taken_before_its_sender_returns_leaves_no_record(
    redis_space: RedisSpace,
) -> None:
    """A worker can take a message between the send and the sender's next command; the record
    of what waits must not outlive it (it did: CI saw a failed job still counted as waiting)."""
    import threading

    queue = RedisQueue(url=redis_space.url, prefix=redis_space.prefix, heartbeat_seconds=5)
    taken = threading.Event()
    send = queue.actor.send

    def send_then_wait_for_the_worker(*args: object) -> object:
        message = send(*args)
        assert taken.wait(30), "the worker never took the message"
        return message

    queue.actor.send = send_then_wait_for_the_worker  # type: ignore[method-assign]
    queue.start_consumers(1, lambda ref: taken.set())
    try:
        queue.enqueue(JobRef("check", 7))
    finally:
        queue.stop(5)
    assert taken.is_set()
    watcher = RedisQueue(url=redis_space.url, prefix=redis_space.prefix, heartbeat_seconds=5)
    try:
        assert watcher.depth() == 0
    finally:
        watcher.stop(1)
