"""Which running jobs stopped renewing their lease, timed on this process's monotonic clock.

Why not compare the lease's end with a clock: every wall clock can jump (NTP, a VM resumed, an
operator), the database server's too. A forward jump made live jobs look lapsed, so they ran
again; a backward one kept a dead worker's job `running` for as long as the jump. A worker renews
its lease every third of its length, and each renewal writes a new `lease_expires_at`; a lease
that this process saw unchanged for a whole lease length on a clock that never jumps has lapsed,
whatever any wall clock says.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable

# (job id: a submission or a `jobs` row, fencing token, lease end): the token and the end
# change with every claim and renewal
Lease = tuple[int, int, dt.datetime | None]


class LeaseWatch:
    """Remembers when it first saw each running job's current lease (one per reaper)."""

    def __init__(
        self, *, lease_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.lease_seconds = lease_seconds
        self._clock = clock
        self._since: dict[int, tuple[Lease, float]] = {}

    def lapsed(self, running: Iterable[Lease]) -> list[Lease]:
        """Of the jobs running now, those whose lease went unrenewed for a lease length."""
        now = self._clock()
        since: dict[int, tuple[Lease, float]] = {}
        found: list[Lease] = []
        for lease in running:
            seen = self._since.get(lease[0])
            first = seen[1] if seen is not None and seen[0] == lease else now
            since[lease[0]] = (lease, first)
            if now - first >= self.lease_seconds:
                found.append(lease)
        self._since = since  # jobs no longer running are forgotten
        return found
