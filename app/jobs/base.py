"""The queue interface shared by the embedded queue and the Redis one, and the jobs it carries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

GRADE = "grade"


@dataclass(frozen=True)
class JobRef:
    """A typed job: its kind and the id of the row that is its truth.

    `grade` names a submission row; every other kind (regrade, check, preview_run, lms_post,
    hand_in) names a row of the `jobs` table (app/jobs/models.py). A bare int is a grade, as
    before.
    """

    kind: str
    id: int

    def key(self) -> str:
        """The message text: a grade is its submission id alone (the wire format of old)."""
        return str(self.id) if self.kind == GRADE else f"{self.kind}:{self.id}"


Ref = int | JobRef  # what `enqueue` takes: a submission id, or a typed job


def as_ref(job: Ref) -> JobRef:
    """Either form as a JobRef."""
    return job if isinstance(job, JobRef) else JobRef(GRADE, int(job))


def parse_key(key: str | int | bytes) -> JobRef:
    """A message or record key back to its job ("12": grade 12, "check:7": jobs row 7)."""
    text = key.decode() if isinstance(key, bytes) else str(key)
    kind, _, number = text.rpartition(":")
    return JobRef(kind or GRADE, int(number))


Handler = Callable[[JobRef], object]


class JobQueue(Protocol):
    """Carries typed jobs to whoever runs them; at least once, never the only truth (the row is)."""

    def enqueue(self, job: Ref) -> None:
        """Ask for this job to run (an int: grade that submission); never raises (the reaper
        retries from the DB)."""

    def depth(self) -> int:
        """Jobs sent and not yet picked up."""

    def unsent(self, ids: Sequence[Ref], stale_seconds: float) -> list[Ref]:
        """Of these queued jobs, those with no message waiting (lost, or waiting far too long)."""

    def waiting(self, older_than_seconds: float) -> list[JobRef]:
        """Jobs recorded as sent at least that long ago and not yet picked up."""

    def forget(self, ids: Sequence[Ref]) -> None:
        """Drop the bookkeeping of jobs that no longer wait (a sweep by the reaper)."""

    def start_consumers(
        self, concurrency: int, handler: Handler, lanes: Sequence[str] = ("grading", "experiments")
    ) -> None:
        """Run jobs of these lanes here: `concurrency` threads for ordinary jobs, one for
        experiments (app/jobs/lanes.py), each calling `handler(job)`."""

    def try_lock(self, name: str, seconds: float) -> bool:
        """A lock shared by every process of the deployment, expiring by itself."""

    def stop(self, drain_seconds: float) -> None:
        """Stop taking jobs, let running ones finish (up to `drain_seconds`), close."""
