"""The embedded queue: threads of this process; after a restart the reaper refills it."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Sequence

from app.jobs.base import Handler

log = logging.getLogger(__name__)


class EmbeddedQueue:
    """In-process FIFO of submission ids; one id waits at most once."""

    def __init__(self) -> None:
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._waiting: dict[int, float] = {}
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()

    def enqueue(self, submission_id: int) -> None:
        """Queue one job (a second request for a waiting id is dropped)."""
        with self._lock:
            if submission_id in self._waiting:
                return
            self._waiting[submission_id] = time.monotonic()
        self._queue.put(submission_id)

    def depth(self) -> int:
        """Jobs waiting."""
        with self._lock:
            return len(self._waiting)

    def unsent(self, ids: Sequence[int], stale_seconds: float) -> list[int]:
        """Ids not waiting here (a job can only be lost here when the process restarts)."""
        with self._lock:
            return [i for i in ids if i not in self._waiting]

    def waiting(self, older_than_seconds: float) -> list[int]:
        """Nothing to sweep: the in-memory set is exact."""
        return []

    def forget(self, ids: Sequence[int]) -> None:
        """Nothing to sweep: the in-memory set is exact."""

    def try_lock(self, name: str, seconds: float) -> bool:
        """One process: always granted."""
        return True

    def start_consumers(self, concurrency: int, handler: Handler) -> None:
        """Start `concurrency` grading threads."""
        self._stopping.clear()
        for i in range(concurrency):
            thread = threading.Thread(
                target=self._work, args=(handler,), daemon=True, name=f"grader-{i}"
            )
            thread.start()
            self._threads.append(thread)

    def _work(self, handler: Handler) -> None:
        while not self._stopping.is_set():
            item = self._queue.get()
            if item is None or self._stopping.is_set():
                return  # an id taken here stays queued in the database for the next start
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
        for _ in self._threads:
            self._queue.put(None)
        deadline = time.monotonic() + drain_seconds
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self._threads.clear()
