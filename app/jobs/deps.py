"""The job queue as a FastAPI dependency: routes take `QueueDep`, never `app.state` itself."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.jobs.base import JobQueue


async def get_queue(request: Request) -> JobQueue:
    """The queue the app's lifespan started (`app.state.queue`, app/main.py).

    Async: it does no I/O, so it costs the request no trip to the thread pool (issue 23). Tests
    replace it with `app.dependency_overrides[get_queue]`.
    """
    queue: JobQueue = request.app.state.queue
    return queue


QueueDep = Annotated[JobQueue, Depends(get_queue)]
