"""Small shared helpers: waiting for a condition, and the two submissions every test grades."""

from __future__ import annotations

import time
from collections.abc import Callable

from app.config import ROOT
from app.jobs.base import Ref

GOOD = (ROOT / "exercises/position-embedding-gather/solutions/numpy.py").read_text()
WRONG = (
    "import numpy as np\n\n\n"
    "def position_embedding_gather(positions, embedding_table):\n"
    "    return np.asarray(embedding_table)[np.asarray(positions).astype(np.int64) * 0]\n"
)


def wait_until(check: Callable[[], bool], timeout: float, what: str, step: float = 0.1) -> float:
    """Poll until `check()` is true; returns the seconds it took, fails with `what` on timeout."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(step)
    return time.monotonic() - started


class RecordingQueue:
    """Stands in for the app's job queue (`app.dependency_overrides[get_queue]`): only records."""

    def __init__(self) -> None:
        self.ids: list[Ref] = []

    def enqueue(self, submission_id: Ref) -> None:
        """Record the job (a submission id, or a typed job); nothing is run."""
        self.ids.append(submission_id)

    def depth(self) -> int:
        """Every recorded id still waits."""
        return len(self.ids)
