"""The job queue moved to `app.jobs` (embedded and Redis behind one interface); kept for imports."""

from __future__ import annotations

from app.jobs.base import JobQueue
from app.jobs.embedded import EmbeddedQueue
from app.jobs.redis_queue import RedisQueue
from app.jobs.runner import run_job

__all__ = ["EmbeddedQueue", "JobQueue", "RedisQueue", "run_job"]
