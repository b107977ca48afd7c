"""Group wrong submissions by behaviour key, biggest first; pick one program to stand for each."""

from __future__ import annotations

import datetime as dt
import difflib
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

MAX_DIFFS = 20  # other programs shown diffed against the representative, per cluster


@dataclass(frozen=True)
class Row:
    """One wrong graded submission, as clustering needs it."""

    submission_id: int
    user_id: int
    email: str
    key: str
    code: str
    created_at: dt.datetime
    framework: str = "numpy"


@dataclass
class Cluster:
    """Submissions that behaved alike: same outputs' shapes, same differing elements.

    Read `members` and `representative` only once every row is in (they are computed once)."""

    key: str
    rows: list[Row] = field(default_factory=list)

    @cached_property
    def members(self) -> list[Row]:
        """Each student once, by their latest submission in this cluster."""
        latest: dict[int, Row] = {}
        for row in sorted(self.rows, key=lambda r: (r.created_at, r.submission_id)):
            latest[row.user_id] = row
        return sorted(latest.values(), key=lambda r: r.email)

    @property
    def students(self) -> int:
        """How many students made this mistake."""
        return len({r.user_id for r in self.rows})

    @cached_property
    def representative(self) -> Row:
        """The most common program (spacing and comments aside), the earliest on a tie."""
        counts = Counter(normalised(r.code) for r in self.rows)
        ordered = sorted(self.rows, key=lambda r: (r.created_at, r.submission_id))
        return max(ordered, key=lambda r: counts[normalised(r.code)])  # max keeps the first

    def diffs(self) -> list[tuple[Row, list[str]]]:
        """Other members' programs as unified diffs against the representative."""
        base = self.representative
        seen = {normalised(base.code)}
        found: list[tuple[Row, list[str]]] = []
        for row in self.members:
            program = normalised(row.code)
            if program in seen or len(found) >= MAX_DIFFS:
                continue
            seen.add(program)
            found.append((row, diff_lines(base.code, row.code)))
        return found


def normalised(code: str) -> str:
    """The program without blank lines, comment lines or trailing spaces."""
    lines = (line.rstrip() for line in code.splitlines())
    return "\n".join(x for x in lines if x and not x.lstrip().startswith("#"))


def diff_lines(base: str, other: str) -> list[str]:
    """A unified diff of two programs, without the file header lines."""
    lines = difflib.unified_diff(base.splitlines(), other.splitlines(), lineterm="", n=2)
    return [line for line in lines if not line.startswith(("---", "+++"))]


def group(rows: list[Row]) -> list[Cluster]:
    """Clusters by behaviour key: most students first, then most submissions."""
    clusters: dict[str, Cluster] = {}
    for row in rows:
        clusters.setdefault(row.key, Cluster(row.key)).rows.append(row)
    return sorted(clusters.values(), key=lambda c: (-c.students, -len(c.rows), c.key))
