"""/metrics: Prometheus text an operator can scrape, with cluster-wide numbers in both modes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.config import get_settings
from app.db import session_factory
from app.grading import leases
from app.grading.runtime import JobRuntime
from app.grading.service import get_grader
from app.main import create_app
from tests.jobs.conftest import add_submissions

DURATIONS_MS = [40.0, 300.0, 3000.0]


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample as {(name, sorted labels): value}."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def _grade_directly(ids: list[int]) -> None:
    with session_factory()() as session:
        for sid, ms in zip(ids, DURATIONS_MS, strict=True):
            held = leases.claim(session=session, submission_id=sid, lease_seconds=30)
            assert held is not None
            verdict = "accepted" if ms < 1000 else "wrong_answer"
            report = {"verdict": verdict, "score": 1.0, "message": "", "duration_ms": ms}
            assert leases.finish(session=session, held=held, report=report)


@pytest.fixture
def scale_client(scale_env: dict[str, str]) -> Iterator[TestClient]:
    """The web app in the scale-out mode."""
    with TestClient(create_app()) as client:
        yield client


def test_scale_out_metrics_add_up_the_database_and_the_live_workers(
    scale_client: TestClient,
) -> None:
    graded = add_submissions(["a = 1"] * 3)
    _grade_directly(graded)
    waiting = add_submissions(["b = 2"] * 2)
    for sid in waiting:
        scale_client.app.state.queue.enqueue(sid)  # type: ignore[attr-defined]
    get_grader(warm=False)
    worker = JobRuntime(get_settings(), grade=True, concurrency=3, role="worker")
    assert worker.beacon is not None
    worker.beacon.beat()  # announce a worker without letting it take the two waiting jobs
    try:
        m = scrape(scale_client)
    finally:
        worker.beacon.stop()
    assert m[("course_queue_up", ())] == 1
    assert m[("course_queue_depth", ())] == 2
    assert m[("course_submissions", (("status", "done"),))] == 3
    assert m[("course_submissions", (("status", "queued"),))] == 2
    assert m[("course_jobs_in_flight", ())] == 0
    assert m[("course_oldest_queued_seconds", ())] >= 0
    fw = (("framework", "numpy"),)
    assert m[("course_grading_seconds_count", fw)] == 3
    assert m[("course_grading_seconds_sum", fw)] == pytest.approx(3.34)
    assert m[("course_grading_seconds_bucket", (*fw, ("le", "0.05")))] == 1
    assert m[("course_grading_seconds_bucket", (*fw, ("le", "0.5")))] == 2
    assert m[("course_grading_seconds_bucket", (*fw, ("le", "+Inf")))] == 3
    assert m[("course_verdicts_total", (("verdict", "accepted"),))] == 2
    assert m[("course_verdicts_total", (("verdict", "wrong_answer"),))] == 1
    assert m[("course_workers", ())] == 1
    assert m[("course_worker_threads", ())] == 3
    assert ("course_pool_ready", fw) in m and ("course_pool_size", fw) in m


def test_embedded_metrics_report_this_process(client: TestClient) -> None:
    get_grader(warm=False)
    _grade_directly(add_submissions(["a = 1"] * 3))  # written straight to SQLite
    m = scrape(client)
    fw = (("framework", "numpy"),)
    assert m[("course_grading_seconds_count", fw)] == 3
    assert m[("course_grading_seconds_bucket", (*fw, ("le", "0.1")))] == 1
    assert m[("course_submissions", (("status", "done"),))] == 3
    assert m[("course_queue_depth", ())] == 0
    assert m[("course_workers", ())] == 1
    assert m[("course_worker_threads", ())] == get_settings().grading_workers
    assert ("course_pool_ready", (("framework", "numpy"),)) in m
