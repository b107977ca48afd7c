"""Experiments queue apart: a long training run never keeps ordinary jobs waiting."""

from __future__ import annotations

import threading
import time

from app.config import ROOT
from app.jobs import live
from app.jobs.base import JobRef
from app.jobs.embedded import EmbeddedQueue
from app.jobs.lanes import EXPERIMENTS, GRADING, exercise_lane
from tests.jobs.conftest import RedisSpace


def test_exercise_lanes_follow_the_kind() -> None:
    exercises = ROOT / "exercises"
    assert exercise_lane(exercises, "lab-learned-vs-sinusoidal") == EXPERIMENTS
    assert exercise_lane(exercises, "lab-relative-extrapolation") == EXPERIMENTS
    assert exercise_lane(exercises, "position-embedding-gather") == GRADING
    assert exercise_lane(exercises, "no-such-exercise") == GRADING


def test_ordinary_jobs_pass_a_running_experiment() -> None:
    release = threading.Event()
    done: list[int] = []
    lock = threading.Lock()

    def handler(job: JobRef) -> None:  # a grade of submission `job.id`
        if job.id >= 100:  # an experiment: holds its thread until released
            release.wait(30)
        with lock:
            done.append(job.id)

    queue = EmbeddedQueue(lambda i: EXPERIMENTS if i >= 100 else GRADING)
    queue.start_consumers(1, handler)
    try:
        for submission_id in (100, 101, 1, 2, 3):
            queue.enqueue(submission_id)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with lock:
                if len(done) == 3:
                    break
            time.sleep(0.02)
        with lock:
            assert done == [1, 2, 3]  # one grading thread, not blocked by the experiments
        assert queue.depth() == 1  # experiment 101 waits for the experiments' own thread
    finally:
        release.set()
        deadline = time.monotonic() + 30
        while queue.depth() and time.monotonic() < deadline:
            time.sleep(0.02)
        queue.stop(5)
    assert sorted(done) == [1, 2, 3, 100, 101]


def test_a_worker_takes_only_its_lanes() -> None:
    taken: list[JobRef] = []
    queue = EmbeddedQueue(lambda i: EXPERIMENTS if i >= 100 else GRADING)
    queue.start_consumers(1, taken.append, lanes=(GRADING,))
    queue.enqueue(100)
    queue.enqueue(1)
    deadline = time.monotonic() + 30
    while not taken and time.monotonic() < deadline:
        time.sleep(0.02)
    queue.stop(5)
    assert taken == [JobRef("grade", 1)] and queue.depth() == 1


def test_progress_reported_by_a_worker_is_read_by_the_web(redis_space: RedisSpace) -> None:
    live.use_redis(redis_space.client, redis_space.prefix)
    try:
        live.recorder(7)({"step": 40, "steps": 400, "loss": 1.5})
        with live._lock:
            live._latest.clear()  # the web process never saw the frame itself
        assert live.latest(7) == {"step": 40, "steps": 400, "loss": 1.5}
        live.clear(7)
        assert live.latest(7) is None
        assert redis_space.all_keys() == []
    finally:
        live._redis = None
