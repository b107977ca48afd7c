"""One lane for background work: sandbox starts take turns, and a start a job waits for goes first.

Why: on a small machine, starting interpreters (imports, JAX warm-ups) competes for the same
cores as students' jobs. A fork server starts at a lower priority (its session at nice 19, or 10
when a job waits for it; each job a session of its own at 0: graders/inside/zygote.py), but that
only orders who runs first on a busy core; it does not stop ten starts at once from filling
memory and the caches. Keeping background starts to one at a time leaves the other cores to the
jobs; putting first the start of a key that a job is waiting for keeps the first verdicts after
a restart quick (NumPy before the sixth JAX exercise's warm-up).
A start nobody waits for (a refill, a warm-up ahead of demand) waits until no student's job is
running or waiting (`busy`), so under a burst every core works on students' jobs.
A start a job waits for does not wait behind starts that no job waits for any more (a JAX burst
server still warming after its burst ended): it goes beside them (issue 54).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Lane:
    """A lock handed to the most urgent waiter: `urgent(key)` true first, then `rank(key)`
    (the pool's start order), then arrival order."""

    def __init__(
        self,
        urgent: Callable[[str], bool],
        width: int = 1,
        busy: Callable[[], bool] = lambda: False,
        rank: Callable[[str], int] = lambda key: 0,
    ) -> None:
        self._urgent = urgent
        self._rank = rank
        self._busy_with_jobs = busy
        self._width = width
        self._busy = 0
        self._holding: list[str] = []  # keys of the starts holding the lane now
        self._queue: list[tuple[int, int, str]] = []  # (rank, arrival, key)
        self._order = itertools.count()
        self._cond = threading.Condition()

    @contextmanager
    def turn(self, key: str, *, rank: int | None = None) -> Iterator[None]:
        """Hold the lane for a start of `key` (waits for its turn); `rank`: its place in the
        pool's fill, else `rank(key)`."""
        ticket = (self._rank(key) if rank is None else rank, next(self._order), key)
        with self._cond:
            self._queue.append(ticket)
            while not self._may_go(ticket):
                self._cond.wait(0.5)  # urgency can change without a notify: look again
            self._queue.remove(ticket)
            self._busy += 1
            self._holding.append(key)
        try:
            yield
        finally:
            with self._cond:
                self._busy -= 1
                self._holding.remove(key)
                self._cond.notify_all()

    def _may_go(self, ticket: tuple[int, int, str]) -> bool:
        """Its turn, a free place, and either a job waits for it or no job runs or waits; or a job
        waits for it and none waits for any start holding the lane."""
        if self._next() != ticket:
            return False
        urgent = self._urgent(ticket[2])
        if self._busy >= self._width:
            return urgent and not any(self._urgent(key) for key in self._holding)
        return urgent or not self._busy_with_jobs()

    def _next(self) -> tuple[int, int, str] | None:
        urgent = [t for t in self._queue if self._urgent(t[2])]
        return min(urgent or self._queue, default=None)

    def nudge(self) -> None:
        """Urgency changed (a job started waiting): let waiters look again now."""
        with self._cond:
            self._cond.notify_all()
