"""The embedded queue: threads of this process; after a restart the reaper refills it."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence

from app.jobs.base import GRADE, Handler, JobRef, Ref, as_ref
from app.jobs.lanes import EXPERIMENTS, GRADING, LANES

EXPERIMENT_THREADS = 1  # experiments train one at a time, on threads of their own

log = logging.getLogger(__name__)


class EmbeddedQueue:
    """In-process FIFOs of typed jobs, one per lane; one job waits at most once."""

    def __init__(self, lane_of: Callable[[int], str] | None = None) -> None:
        self._queues: dict[str, queue.Queue[JobRef | None]] = {
            GRADING: queue.Queue(),
            EXPERIMENTS: queue.Queue(),
        }
        self._lane_of = lane_of
        self._waiting: dict[JobRef, float] = {}
        self._lock = threading.Lock()
        self._threads: list[tuple[threading.Thread, str]] = []
        self._stopping = threading.Event()

    def enqueue(self, job: Ref) -> None:
        """Queue one job in its lane (a second request for a waiting job is dropped); typed jobs
        other than grades take the ordinary lane."""
        ref = as_ref(job)
        with self._lock:
            if ref in self._waiting:
                return
            self._waiting[ref] = time.monotonic()
        grade = ref.kind == GRADE and self._lane_of is not None
        lane = self._lane_of(ref.id) if grade and self._lane_of is not None else GRADING
        self._queues[lane if lane in self._queues else GRADING].put(ref)

    def depth(self) -> int:
        """Jobs waiting."""
        with self._lock:
            return len(self._waiting)

    def unsent(self, ids: Sequence[Ref], stale_seconds: float) -> list[Ref]:
        """Jobs not waiting here (a job can only be lost here when the process restarts)."""
        with self._lock:
            return [i for i in ids if as_ref(i) not in self._waiting]

    def waiting(self, older_than_seconds: float) -> list[JobRef]:
        """Nothing to sweep: the in-memory set is exact."""
        return []

    def forget(self, ids: Sequence[Ref]) -> None:
        """Nothing to sweep: the in-memory set is exact."""

    def try_lock(self, name: str, seconds: float) -> bool:
        """One process: always granted."""
        return True

    def start_consumers(
        self, concurrency: int, handler: Handler, lanes: Sequence[str] = LANES
    ) -> None:
        """Start `concurrency` grading threads and the experiments' own thread."""
        self._stopping.clear()
        threads = [GRADING] * concurrency * (GRADING in lanes)
        threads += [EXPERIMENTS] * EXPERIMENT_THREADS * (EXPERIMENTS in lanes)
        for i, lane in enumerate(threads):
            thread = threading.Thread(
                target=self._work, args=(handler, lane), daemon=True, name=f"{lane}-{i}"
            )
            thread.start()
            self._threads.append((thread, lane))

    def _work(self, handler: Handler, lane: str) -> None:
        while not self._stopping.is_set():
            item = self._queues[lane].get()
            if item is None or self._stopping.is_set():
                return  # a job taken here stays queued in the database for the next start
            with self._lock:
                self._waiting.pop(item, None)
            try:
                handler(item)
            except Exception:
                log.exception("job %s failed; the reaper will retry it", item)
                time.sleep(0.5)

    def stop(self, drain_seconds: float) -> None:
        """Let each thread finish its current job, then end; waiting jobs stay queued in the DB."""
        self._stopping.set()
        for _, lane in self._threads:
            self._queues[lane].put(None)
        deadline = time.monotonic() + drain_seconds
        for thread, _ in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self._threads.clear()
