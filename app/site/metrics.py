"""Prometheus metrics for the whole deployment, read at scrape time from the shared stores.

Counts and the grading-time histogram come from the database, so every web process reports the
same cluster-wide numbers whichever worker did the grading; pool sizes and busy threads come
from the workers' records in Redis (or from this process's own grader in the embedded mode).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from sqlalchemy import case, func, select
from sqlalchemy.orm import Session
from sqlalchemy.pool import QueuePool

from app.config import get_settings
from app.db import get_engine
from app.grading import leases
from app.grading.beacon import live_workers
from app.grading.deps import RunningGraderDep
from app.jobs.base import JobQueue
from app.jobs.deps import QueueDep
from app.models_base import utcnow
from app.submissions.models import Submission
from app.web.request_session import SessionDep
from graders import Grader

router = APIRouter()
BUCKETS_SECONDS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def grading_histogram(session: Session) -> dict[str, tuple[list[int], int, float]]:
    """Per framework: cumulative counts per bucket, total count, sum of seconds."""
    seconds = Submission.duration_ms / 1000.0
    columns = [func.sum(case((seconds <= b, 1), else_=0)) for b in BUCKETS_SECONDS]
    rows = session.execute(
        select(Submission.framework, *columns, func.count(), func.sum(seconds))
        .where(Submission.status == "done", Submission.duration_ms.is_not(None))
        .group_by(Submission.framework)
    )
    return {
        str(row[0]): ([int(v or 0) for v in row[1:-2]], int(row[-2]), float(row[-1] or 0.0))
        for row in rows
    }


def _queue_errors() -> tuple[type[Exception], ...]:
    """A queue that did not answer: Redis's errors once it is loaded (never on the embedded
    queue, issue 54: a start's import), and a queue without the asked part."""
    loaded = sys.modules.get("redis")
    return (loaded.RedisError, AttributeError) if loaded is not None else (AttributeError,)


class DeploymentCollector(Collector):
    """Collects once per scrape; nothing is kept between scrapes."""

    def __init__(
        self,
        request: Request,
        session: Session,
        web: dict[str, int],
        queue: JobQueue,
        grader: Grader | None,
    ) -> None:
        self.request = request
        self.session = session
        self.web = web
        self.queue = queue
        self.grader = grader  # this process's own, if started (never started by a scrape)

    def collect(self) -> Iterator[Metric]:
        """Every metric family of one scrape."""
        yield from self._web()
        yield from self._queue()
        yield from self._submissions()
        yield from self._pools()

    def _queue(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("course_queue_up", "1 when the job queue answered this scrape.")
        depth = GaugeMetricFamily("course_queue_depth", "Jobs sent and not yet picked up.")
        try:
            depth.add_metric([], self.queue.depth())
            up.add_metric([], 1)
            yield depth
        except _queue_errors():
            up.add_metric([], 0)
        yield up

    def _submissions(self) -> Iterator[Metric]:
        by_status = leases.counts(session=self.session)
        submissions = GaugeMetricFamily(
            "course_submissions", "Submissions by status.", labels=["status"]
        )
        for status in (
            "queued",
            "running",
            "done",
            *sorted(set(by_status) - {"queued", "running", "done"}),
        ):
            submissions.add_metric([status], by_status.get(status, 0))
        yield submissions
        in_flight = GaugeMetricFamily(
            "course_jobs_in_flight", "Jobs being graded now (rows holding a lease)."
        )
        in_flight.add_metric([], by_status.get("running", 0))
        yield in_flight
        oldest = self.session.scalar(
            select(func.min(Submission.created_at)).where(Submission.status == "queued")
        )
        wait = GaugeMetricFamily(
            "course_oldest_queued_seconds", "Age of the oldest job still waiting (0 if none)."
        )
        if oldest is not None and oldest.tzinfo is None:
            oldest = oldest.replace(tzinfo=utcnow().tzinfo)
        wait.add_metric([], max(0.0, (utcnow() - oldest).total_seconds()) if oldest else 0.0)
        yield wait
        histogram = HistogramMetricFamily(
            "course_grading_seconds",
            "Time to grade one submission (sandbox and judging), per framework.",
            labels=["framework"],
        )
        for framework, (cumulative, count, total) in sorted(
            grading_histogram(self.session).items()
        ):
            buckets: list[tuple[str, float]] = [
                (repr(b), float(n)) for b, n in zip(BUCKETS_SECONDS, cumulative, strict=True)
            ]
            buckets.append(("+Inf", float(count)))
            histogram.add_metric([framework], buckets, total)
        yield histogram
        verdicts = CounterMetricFamily(
            "course_verdicts", "Final verdicts stored, by verdict.", labels=["verdict"]
        )
        for verdict, n in self.session.execute(
            select(Submission.verdict, func.count())
            .where(Submission.verdict.is_not(None))
            .group_by(Submission.verdict)
        ):
            verdicts.add_metric([str(verdict)], n)
        yield verdicts

    def _web(self) -> Iterator[Metric]:
        """This web process's load, as it was when the scrape arrived."""
        for name, text in WEB_GAUGES.items():
            if name in self.web:
                family = GaugeMetricFamily(name, text)
                family.add_metric([], self.web[name])
                yield family
        for name, text in WEB_COUNTERS.items():
            if name in self.web:
                counter = CounterMetricFamily(name, text)
                counter.add_metric([], self.web[name])
                yield counter

    def _pools(self) -> Iterator[Metric]:
        records = self._grading_processes()
        workers = GaugeMetricFamily("course_workers", "Grading processes alive.")
        workers.add_metric([], len(records))
        yield workers
        threads = GaugeMetricFamily(
            "course_worker_threads", "Jobs the live processes can run at once."
        )
        threads.add_metric([], sum(int(r.get("concurrency", 0)) for r in records))
        yield threads
        ready: dict[str, int] = {}
        target: dict[str, int] = {}
        for record in records:
            for framework, n in record.get("pool_ready", {}).items():
                ready[framework] = ready.get(framework, 0) + int(n)
            for framework, n in record.get("pool_target", {}).items():
                target[framework] = target.get(framework, 0) + int(n)
        ready_family = GaugeMetricFamily(
            "course_pool_ready",
            "Warm sandboxed interpreters ready, per framework.",
            labels=["framework"],
        )
        for framework, n in sorted(ready.items()):
            ready_family.add_metric([framework], n)
        yield ready_family
        target_family = GaugeMetricFamily(
            "course_pool_size", "Warm interpreters configured, per framework.", labels=["framework"]
        )
        for framework, n in sorted(target.items()):
            target_family.add_metric([framework], n)
        yield target_family

    def _grading_processes(self) -> list[dict[str, Any]]:
        settings = get_settings()
        if settings.redis_url is None:
            grader = self.grader
            if grader is None:
                return []
            jobs = getattr(self.request.app.state, "jobs", None)
            return [
                {
                    "concurrency": jobs.concurrency if jobs is not None and jobs.grade else 0,
                    "pool_ready": grader.pool.sizes(),
                    "pool_target": dict(grader.pool.settings.sizes),
                }
            ]
        try:
            client = self.queue.client  # type: ignore[attr-defined]  # the Redis queue's
            return live_workers(client, settings.redis_prefix)
        except _queue_errors():
            return []


WEB_GAUGES = {
    "course_web_requests_active": "Requests being served now (this web process).",
    "course_web_requests_waiting": "Requests waiting in line (this web process).",
    "course_web_threads_busy": "Request threads running a handler (this web process).",
    "course_web_db_connections_in_use": "Web database connections checked out (this process).",
}

WEB_COUNTERS = {
    "course_web_requests_shed": "Requests answered 503 because the server was full.",
    "course_web_requests_admitted": "Requests let in to be served (health and static aside).",
}


def web_load(request: Request) -> dict[str, int]:
    """Read in the event loop, before this scrape takes a thread or a connection itself."""
    found = {
        "course_web_threads_busy": int(
            anyio.to_thread.current_default_thread_limiter().borrowed_tokens
        ),
    }
    pool = get_engine().pool
    if isinstance(pool, QueuePool):
        found["course_web_db_connections_in_use"] = pool.checkedout()
    admission = getattr(request.app.state, "admission", None)
    if admission is not None:
        found["course_web_requests_active"] = admission.busy - 1  # not this scrape
        found["course_web_requests_waiting"] = admission.waiting
        found["course_web_requests_shed"] = admission.shed
        found["course_web_requests_admitted"] = admission.admitted
    return found


@router.get("/metrics", include_in_schema=False)
async def metrics(
    request: Request, session: SessionDep, queue: QueueDep, grader: RunningGraderDep
) -> Response:
    """Queue depth, jobs in flight, grading-time histogram, verdicts, pools, workers, web load."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DeploymentCollector(request, session, web_load(request), queue, grader))
    body = await run_in_threadpool(generate_latest, registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
