"""What the class last asked the pool for, kept across a restart so its servers start first.

Why: a warmed JAX server takes seconds to start, one at a time (lane.py), and there is one per
exercise. After a restart in the middle of a class the students go on with the exercise they
were on; starting its server first, instead of in the exercises' alphabetical order, brings
their first verdicts seconds sooner (issue 54). The file holds pool keys and times, nothing of
a student: `{"jax:rope-rotate": 1796000000.0, ...}`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)
NOTE_EVERY_S = 60.0  # a key's time is written again only after this: at most one write a minute
COST_ORDER = ("numpy", "torch", "jax")  # cheapest start first among the keys asked for


class Demand:
    """When each pool key was last asked for a job, read at start and noted as jobs come."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._asked = _read(path) if path else {}

    def note(self, key: str) -> None:
        """A job asked for `key`: remember it (written at most once a minute per key)."""
        now = time.time()
        with self._lock:
            if now - self._asked.get(key, 0.0) < NOTE_EVERY_S:
                return
            self._asked[key] = now
            if self._path is not None:
                self._write(self._path)

    def _write(self, path: Path) -> None:
        """Merge with the file (another worker may share it) and replace it whole (lock held)."""
        for key, at in _read(path).items():
            self._asked[key] = max(at, self._asked.get(key, 0.0))
        tmp: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".demand-")
            with os.fdopen(fd, "w") as out:
                json.dump(self._asked, out)
            os.replace(tmp, path)
        except OSError as exc:  # a full or read-only disk costs only the order after a restart
            log.warning("could not remember the pool's demand in %s: %s", path, exc)
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    def order(self, keys: Iterable[str]) -> list[str]:
        """`keys` in start order: those asked for first (cheap frameworks, then the most
        recently asked), then the others as given."""
        keys = list(keys)
        with self._lock:
            asked = dict(self._asked)

        def rank(item: tuple[int, str]) -> tuple[int, int, float, int]:
            index, key = item
            if key not in asked:
                return (1, 0, 0.0, index)
            framework = key.partition(":")[0]
            cost = COST_ORDER.index(framework) if framework in COST_ORDER else len(COST_ORDER)
            return (0, cost, -asked[key], index)

        return [key for _, key in sorted(enumerate(keys), key=rank)]


def _read(path: Path) -> dict[str, float]:
    """The remembered times; an absent, unreadable or malformed file remembers nothing."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float) and v == v}
