"""Live progress of running experiments: the latest {step, steps, loss} per submission.

Also the student's request to stop one: the progress callback sees it at the next frame and
raises StopRequested, which makes the lab kill the sandbox and report the run as stopped.

Why: an experiment trains for seconds, and its page shows the step and the loss meanwhile. Only
the latest frame matters and it is worthless once the report is stored, so it never goes to the
database: it is kept in memory, and in scale-out mode also in Redis with a short expiry, where
the web processes read what the workers' experiments report.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from graders import StopRequested

log = logging.getLogger(__name__)
TTL_SECONDS = 120  # longer than any experiment's time limit; a dead worker's frame goes away

_latest: dict[int, dict[str, float]] = {}
_stops: set[int] = set()
_lock = threading.Lock()
_redis: tuple[Any, str] | None = None  # (client, key prefix) in scale-out mode


def use_redis(client: Any, prefix: str) -> None:
    """Share progress through Redis (scale-out mode: workers report, web processes read)."""
    global _redis
    _redis = (client, f"{prefix}:progress:")


def recorder(submission_id: int) -> Callable[[dict[str, float]], None]:
    """A progress callback for the grader that keeps the latest frame of this submission."""

    def record(frame: dict[str, float]) -> None:
        with _lock:
            _latest[submission_id] = dict(frame)
        if stop_requested(submission_id):
            raise StopRequested(f"submission {submission_id}")
        shared = _redis
        if shared is not None:
            client, prefix = shared
            try:
                client.set(f"{prefix}{submission_id}", json.dumps(frame), ex=TTL_SECONDS)
            except Exception:  # progress is best effort; the report is what counts
                log.debug("could not share progress of %s", submission_id, exc_info=True)

    return record


def request_stop(submission_id: int) -> None:
    """Ask the experiment of this submission to stop at its next progress frame."""
    with _lock:
        _stops.add(submission_id)
    shared = _redis
    if shared is not None:
        client, prefix = shared
        try:
            client.set(f"{_stop_prefix(prefix)}{submission_id}", "1", ex=TTL_SECONDS)
        except Exception:
            log.warning("could not share the stop of %s", submission_id, exc_info=True)


def stop_requested(submission_id: int) -> bool:
    """True once the student asked to stop this submission's experiment."""
    with _lock:
        if submission_id in _stops:
            return True
    shared = _redis
    if shared is None:
        return False
    client, prefix = shared
    try:
        return bool(client.exists(f"{_stop_prefix(prefix)}{submission_id}"))
    except Exception:
        return False


def _stop_prefix(progress_prefix: str) -> str:
    return progress_prefix.replace(":progress:", ":stop:")


def latest(submission_id: int) -> dict[str, float] | None:
    """The newest {step, steps, loss} of a running experiment, or None."""
    with _lock:
        frame = _latest.get(submission_id)
    if frame is not None:
        return dict(frame)
    shared = _redis
    if shared is None:
        return None
    client, prefix = shared
    try:
        raw = client.get(f"{prefix}{submission_id}")
        found: dict[str, float] | None = json.loads(raw) if raw else None
    except Exception:
        return None
    return found


def clear(submission_id: int) -> None:
    """Forget the submission's progress (its report is stored, or it was given back)."""
    with _lock:
        _latest.pop(submission_id, None)
        _stops.discard(submission_id)
    shared = _redis
    if shared is not None:
        client, prefix = shared
        try:
            client.delete(f"{prefix}{submission_id}", f"{_stop_prefix(prefix)}{submission_id}")
        except Exception:
            log.debug("could not clear progress of %s", submission_id, exc_info=True)
