"""Job queue behind one interface: jobs are submission ids; the database row is the truth."""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Protocol

from app.db import session_factory
from app.grading.service import get_grader
from app.submissions import service
from graders.engine import Mode, UnknownExercise, UnknownFramework
from graders.report import file_level

log = logging.getLogger(__name__)


class JobQueue(Protocol):
    """What the web app needs from a queue (embedded threads or a distributed engine)."""

    def enqueue(self, submission_id: int) -> None:
        """Ask for this submission to be graded (at least once; grading is idempotent)."""

    def depth(self) -> int:
        """Jobs waiting."""


def grade_submission(submission_id: int) -> None:
    """Run one job: claim the row, grade, store. Safe to run twice for the same id."""
    with session_factory()() as session:
        row = service.claim(session=session, submission_id=submission_id)
        if row is None:
            return
        exercise, code, framework = row.exercise_slug, row.code, row.framework
        mode: Mode = "run" if row.mode == "run" else "submit"
        log.info("grading submission %s (%s, %s)", submission_id, exercise, framework)
        try:
            report = (
                get_grader()
                .grade(exercise=exercise, code=code, framework=framework, mode=mode)
                .to_dict()
            )
        except (UnknownExercise, UnknownFramework) as exc:
            report = file_level(
                "invalid_submission",
                f"This exercise can no longer be graded ({exc}); ask your instructor.",
                0.0,
            ).to_dict()
        except Exception:
            log.exception("internal error grading submission %s", submission_id)
            report = file_level(
                "internal_error",
                "The grader failed; this is our fault, not "
                "yours. Your code is saved; please submit again.",
                0.0,
            ).to_dict()
        service.store_report(session=session, submission_id=submission_id, report=report)
        log.info("submission %s: %s", submission_id, report["verdict"])


class EmbeddedQueue:
    """In-process queue with worker threads; pending rows are re-queued at start-up."""

    def __init__(self, workers: int) -> None:
        self._queue: queue.Queue[int | None] = queue.Queue()
        self._threads = [
            threading.Thread(target=self._work, daemon=True, name=f"grader-{i}")
            for i in range(workers)
        ]

    def start(self) -> None:
        """Start workers and recover jobs a previous process left unfinished."""
        for thread in self._threads:
            thread.start()
        with session_factory()() as session:
            for submission_id in service.pending_ids(session=session):
                self.enqueue(submission_id)

    def enqueue(self, submission_id: int) -> None:
        """Queue one job."""
        self._queue.put(submission_id)

    def depth(self) -> int:
        """Jobs waiting."""
        return self._queue.qsize()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                grade_submission(item)
            except Exception:
                log.exception("job %s failed; it stays queued for the next start", item)
                time.sleep(0.5)

    def stop(self) -> None:
        """Let workers finish their current job and exit."""
        for _ in self._threads:
            self._queue.put(None)
