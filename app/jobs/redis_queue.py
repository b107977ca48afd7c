"""The distributed queue: Dramatiq on Redis carries typed jobs; a sorted set records what was sent.

A message is a job's key (`JobRef.key`): a submission id alone for a grade (the format of old,
so messages sent before an upgrade still run), `kind:id` for a row of the `jobs` table.

Dramatiq acknowledges a message only after the job returns, and moves the unacknowledged
messages of a worker whose heartbeat stopped back to the queue ("queue maintenance"). We run
that maintenance on every broker command (it is two small sorted-set reads when nobody died), so
a SIGKILLed worker's prefetched messages come back within `heartbeat_timeout`. The job it was
running is covered by the row's lease instead (see `reaper`).

`<prefix>:jobs:sent` holds the keys sent and not yet picked up (score: when sent). After a Redis
restart it is empty like the queue itself, so the reaper can tell which queued rows lost their
message and send them again.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import cast

import dramatiq
import redis
from dramatiq import Message
from dramatiq.brokers.redis import MAINTENANCE_SCALE
from dramatiq.middleware import Retries, TimeLimit

from app.jobs.base import GRADE, Handler, JobRef, Ref, as_ref, parse_key
from app.jobs.lanes import EXPERIMENTS, GRADING
from app.jobs.redis_wake import WakingRedisBroker

log = logging.getLogger(__name__)
QUEUE_NAME = "grading"
ACTOR_NAME = "grade_submission"
EXPERIMENT_QUEUE = EXPERIMENTS  # a worker opts in: `python -m app worker --lanes ...`
EXPERIMENT_ACTOR = "run_experiment"
EXPERIMENT_THREADS = 1  # per worker process: experiments train one at a time
JOB_TIME_LIMIT_MS = 10 * 60 * 1000  # the grader's own limits are far lower; this is a backstop
# How often an idle worker thread wakes (and a stop may wait): a new job does not wait for it,
# a send wakes a consumer at once (app/jobs/redis_wake.py).
WORKER_TIMEOUT_MS = 1000
# A record this old whose message no queue holds was lost (its send takes milliseconds).
LOST_AFTER_SECONDS = 10.0


def redis_client(url: str) -> redis.Redis:
    """A client that fails fast instead of hanging a request when Redis is away."""
    return redis.Redis.from_url(
        url, socket_connect_timeout=3, socket_timeout=10, health_check_interval=30
    )


class RedisQueue:
    """Producer everywhere; consumer too where `start_consumers` is called (`worker`)."""

    def __init__(
        self,
        *,
        url: str,
        prefix: str,
        heartbeat_seconds: float,
        lane_of: Callable[[int], str] | None = None,
    ) -> None:
        self.client = redis_client(url)
        self.prefix = prefix
        self.sent_key = f"{prefix}:jobs:sent"
        self.broker = WakingRedisBroker(  # type: ignore[no-untyped-call]
            client=self.client,
            namespace=f"{prefix}:dramatiq",
            heartbeat_timeout=int(heartbeat_seconds * 1000),
            maintenance_chance=MAINTENANCE_SCALE,
            middleware=[TimeLimit(), Retries(max_retries=10, min_backoff=1000, max_backoff=60000)],
        )
        self.actor: dramatiq.Actor[[int | str], None] = dramatiq.actor(
            broker=self.broker,
            actor_name=ACTOR_NAME,
            queue_name=QUEUE_NAME,
            time_limit=JOB_TIME_LIMIT_MS,
        )(self._on_message)
        self.experiment_actor: dramatiq.Actor[[int | str], None] = dramatiq.actor(
            broker=self.broker,
            actor_name=EXPERIMENT_ACTOR,
            queue_name=EXPERIMENT_QUEUE,
            time_limit=JOB_TIME_LIMIT_MS,
        )(self._on_message)
        self._lane_of = lane_of
        self._handler: Handler | None = None
        self._workers: list[dramatiq.Worker] = []

    def enqueue(self, job: Ref) -> None:
        """Record the message, then send it: a worker may take it before the next command, and
        its `zrem` must find the record (sent first, a late record outlived the job)."""
        ref = as_ref(job)
        grade = ref.kind == GRADE
        lane = self._lane_of(ref.id) if grade and self._lane_of is not None else GRADING
        message: int | str = ref.id if grade else ref.key()
        try:
            self.client.zadd(self.sent_key, {ref.key(): time.time()})
        except redis.RedisError as exc:
            self._not_sent(ref, exc)
            return
        try:
            (self.experiment_actor if lane == EXPERIMENTS else self.actor).send(message)
        except (redis.RedisError, dramatiq.errors.DramatiqError) as exc:
            self._not_sent(ref, exc)
            # No record: the reaper sends it again after its grace period (if Redis refuses
            # this too, the record goes stale and the reaper resends after STALE_SECONDS).
            with contextlib.suppress(redis.RedisError):
                self.client.zrem(self.sent_key, ref.key())

    @staticmethod
    def _not_sent(ref: JobRef, exc: Exception) -> None:
        """The row stays queued; the reaper sends it again."""
        log.warning(
            "could not queue job %s (%s); it stays queued and will be sent again",
            ref.key(),
            exc,
            extra={"job": ref.key()},
        )

    def depth(self) -> int:
        """Jobs sent and not yet picked up."""
        return int(self.client.zcard(self.sent_key))

    def unsent(self, ids: Sequence[Ref], stale_seconds: float) -> list[Ref]:
        """Queued jobs with no record of a message, whose message is older than stale or than
        Redis's last start, or whose recorded message is in none of Dramatiq's queues (a send
        that failed as Redis went down, and so did the removal of its record)."""
        if not ids:
            return []
        scores = self.client.zmscore(self.sent_key, [as_ref(i).key() for i in ids])
        now = time.time()
        oldest, settled = now - stale_seconds, now - LOST_AFTER_SECONDS
        started = self._started_at(now)
        if started <= settled:  # its consumers have had the time to connect again
            oldest = max(oldest, started)
        unsent = [
            i for i, score in zip(ids, scores, strict=True) if score is None or score < oldest
        ]
        recorded = [
            i for i, s in zip(ids, scores, strict=True) if s is not None and oldest <= s < settled
        ]
        if recorded:
            waiting = self._keys_in_queues()
            unsent += [i for i in recorded if as_ref(i).key() not in waiting]
        return unsent

    def _started_at(self, now: float) -> float:
        """When Redis last started (to within about a second, so a message sent just after it
        may be sent twice: a second message finds its row taken and does nothing).

        Why a job still queued whose message was sent before that is sent again: a consumer
        whose connection broke drops the messages it had fetched and not begun, and they stay
        held for its worker, which is alive and never runs them (compose-check, 905 s)."""
        uptime = self.client.info("server").get("uptime_in_seconds", 0)
        return now - float(uptime)

    def _keys_in_queues(self) -> set[str]:
        """The jobs whose message Dramatiq holds: queued, delayed or taken and not yet acked."""
        keys: set[str] = set()
        for queue_name in (QUEUE_NAME, EXPERIMENT_QUEUE):
            for name in (queue_name, f"{queue_name}.DQ"):
                stored = self.client.hvals(f"{self.broker.namespace}:{name}.msgs")
                for raw in cast(list[bytes], stored):
                    with contextlib.suppress(Exception):  # not ours to judge: leave it be
                        keys.add(parse_key(Message.decode(raw).args[0]).key())
        return keys

    def waiting(self, older_than_seconds: float) -> list[JobRef]:
        """Jobs recorded as sent before that age (for the reaper's sweep)."""
        members = self.client.zrangebyscore(self.sent_key, "-inf", time.time() - older_than_seconds)
        return [parse_key(m) for m in cast(list[bytes], members)]

    def forget(self, ids: Sequence[Ref]) -> None:
        """Drop the records of jobs that no longer wait."""
        if ids:
            self.client.zrem(self.sent_key, *[as_ref(i).key() for i in ids])

    def try_lock(self, name: str, seconds: float) -> bool:
        """SET NX with an expiry: one holder per deployment until it expires."""
        key = f"{self.prefix}:lock:{name}"
        return bool(self.client.set(key, uuid.uuid4().hex, nx=True, px=int(seconds * 1000)))

    def _on_message(self, message: int | str) -> None:
        """Dramatiq calls this in a worker thread; the ack follows when it returns."""
        ref: JobRef = parse_key(message)
        try:
            self.client.zrem(self.sent_key, ref.key())
        except redis.RedisError as exc:
            # Redis went away with the message in hand: run it anyway (the row is the truth;
            # the reaper sweeps the record once the row is done). Raising here dropped the
            # message and left the row queued until the 15-minute stale-message rule.
            log.warning(
                "could not forget the record of job %s's message (%s); running it",
                ref.key(),
                exc,
                extra={"job": ref.key()},
            )
        if self._handler is None:
            raise RuntimeError("this process does not run jobs")
        self._handler(ref)

    def start_consumers(
        self, concurrency: int, handler: Handler, lanes: Sequence[str] = (GRADING,)
    ) -> None:
        """Start a Dramatiq worker per lane here: `concurrency` threads for ordinary jobs, one
        for experiments (only if this worker opted into that lane)."""
        self._handler = handler
        plan = {GRADING: (QUEUE_NAME, concurrency), EXPERIMENTS: (EXPERIMENT_QUEUE, 1)}
        for lane in lanes:
            queue_name, threads = plan[lane]
            worker = dramatiq.Worker(
                self.broker,
                queues={queue_name},
                worker_threads=threads if lane == GRADING else EXPERIMENT_THREADS,
                worker_timeout=WORKER_TIMEOUT_MS,
            )
            worker.start()
            self._workers.append(worker)

    def stop(self, drain_seconds: float) -> None:
        """Finish running jobs, give prefetched messages back to Redis, close connections."""
        for worker in self._workers:
            worker.stop(timeout=int(drain_seconds * 1000))
        self._workers = []
        self.broker.close()
        self.client.close()
