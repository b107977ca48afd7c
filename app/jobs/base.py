"""The queue interface shared by the embedded queue and the Redis one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

Handler = Callable[[int], object]


class JobQueue(Protocol):
    """Carries submission ids to whoever grades them; at least once, never the only truth."""

    def enqueue(self, submission_id: int) -> None:
        """Ask for this submission to be graded; never raises (the reaper retries from the DB)."""

    def depth(self) -> int:
        """Jobs sent and not yet picked up by a grader."""

    def unsent(self, ids: Sequence[int], stale_seconds: float) -> list[int]:
        """Of these queued ids, those with no message waiting (lost, or waiting far too long)."""

    def waiting(self, older_than_seconds: float) -> list[int]:
        """Ids recorded as sent at least that long ago and not yet picked up."""

    def forget(self, ids: Sequence[int]) -> None:
        """Drop the bookkeeping of jobs that no longer wait (a sweep by the reaper)."""

    def start_consumers(
        self, concurrency: int, handler: Handler, lanes: Sequence[str] = ("grading", "experiments")
    ) -> None:
        """Grade jobs of these lanes here: `concurrency` threads for ordinary jobs, one for
        experiments (app/jobs/lanes.py), each calling `handler(id)`."""

    def try_lock(self, name: str, seconds: float) -> bool:
        """A lock shared by every process of the deployment, expiring by itself."""

    def stop(self, drain_seconds: float) -> None:
        """Stop taking jobs, let running ones finish (up to `drain_seconds`), close."""
