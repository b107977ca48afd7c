"""The `memory` scenario: thousands of jobs back to back; the server's memory must level off.

Why (issue 54): fork servers live across jobs and the web process keeps grading state for the
life of the server, so a leak of a few kB per job would only show after days of use. This
sends `--jobs` submissions (mostly NumPy, every 10th torch, every 40th JAX: the corpus's
never-seen files, so children reset too), right and wrong alternating, `--clients` at a time,
and every `--sample-every` verdicts samples the server's processes from /proc: the web process
(in the embedded default it also runs the grader pool; in scale-out, the workers beside it),
every fork server (the sandboxes' pid 1; each is replaced after its 500th job) and the whole
tree's processes, plus the web process's descriptors and threads. It prints the first, highest
and last value of each with its slope per 1,000 jobs, over the run and over its last quarter,
and calls the run bounded when the last quarter's slopes stay under SLOPE_LIMIT.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from app.bench.scenarios import Answer, alternating, answers, drawn
from app.bench.server import Deployment

GATHER = "position-embedding-gather"
# Per 1,000 jobs, over the last quarter: MB for memory, a count for the others.
SLOPE_LIMIT = {
    "web_mb": 1.0,
    "servers_mb": 1.0,
    "largest_server_mb": 1.0,
    "processes": 1.0,
    "fds": 1.0,
    "threads": 1.0,
}
HARNESS = b"/grader/harness.py"


@dataclass(frozen=True)
class Sample:
    """The server's processes after `jobs` verdicts."""

    jobs: int
    seconds: float
    web_mb: float  # RSS of the web process (and workers)
    servers_mb: float  # RSS of every fork server, summed (pages they share count in each)
    servers: int
    largest_server_mb: float
    processes: int  # every process under the web process (and workers)
    fds: int  # open descriptors of the web process (and workers)
    threads: int


def plan(jobs: int) -> list[Answer]:
    """`jobs` answers: every 10th torch, every 40th JAX, else NumPy; right and wrong alternate."""
    numpy = alternating(*_declared(GATHER, "numpy"), jobs)
    torch = alternating(*_declared(GATHER, "torch"), jobs // 10 + 1)
    jax = alternating(*drawn(GATHER, "jax"), jobs // 40 + 1)
    chosen = []
    for n in range(jobs):
        if n % 40 == 39:
            chosen.append(jax[n // 40])
        elif n % 10 == 9:
            chosen.append(torch[n // 10])
        else:
            chosen.append(numpy[n])
    return chosen


def _declared(exercise: str, framework: str) -> tuple[list[Answer], list[Answer]]:
    right, wrong = answers(exercise, framework)
    return [right], wrong


def _read_proc() -> tuple[dict[int, list[int]], dict[int, int]]:
    """Children of each pid, and each pid's parent."""
    children: dict[int, list[int]] = {}
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
        children.setdefault(ppid, []).append(int(name))
        parents[int(name)] = ppid
    return children, parents


def _status(pid: int, field: str) -> int:
    """A number from /proc/PID/status (VmRSS in kB, Threads); 0 once the process ended."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _is_harness(pid: int) -> bool:
    """A sandboxed interpreter (not the bwrap that started it, whose argv names it too)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
    except OSError:
        return False
    return b"python" in argv[0] and HARNESS in argv


def _fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def sample(roots: list[int], jobs: int, seconds: float) -> Sample:
    """Read the processes under `roots` (the web process, the workers) from /proc."""
    children, parents = _read_proc()
    tree, frontier = [], list(roots)
    while frontier:
        pid = frontier.pop()
        tree.append(pid)
        frontier.extend(children.get(pid, ()))
    harness = {pid for pid in tree if pid not in roots and _is_harness(pid)}
    # a fork server is a harness whose parent is not one (its jobs' children are)
    servers = [_status(pid, "VmRSS") / 1024 for pid in harness if parents.get(pid) not in harness]
    return Sample(
        jobs=jobs,
        seconds=round(seconds, 1),
        web_mb=round(sum(_status(pid, "VmRSS") for pid in roots) / 1024, 1),
        servers_mb=round(sum(servers), 1),
        servers=len(servers),
        largest_server_mb=round(max(servers, default=0.0), 1),
        processes=len(tree),
        fds=sum(_fds(pid) for pid in roots),
        threads=sum(_status(pid, "Threads") for pid in roots),
    )


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x (0 for fewer than two distinct x)."""
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def summarise(samples: list[Sample]) -> dict[str, Any]:
    """First, highest, last and slopes (per 1,000 jobs) of each figure; bounded or not."""
    quarter = [s for s in samples if s.jobs >= samples[-1].jobs * 0.75]
    figures: dict[str, Any] = {}
    for name in SLOPE_LIMIT:
        values = [(s.jobs / 1000, float(getattr(s, name))) for s in samples]
        last = [(s.jobs / 1000, float(getattr(s, name))) for s in quarter]
        figures[name] = {
            "first": values[0][1],
            "max": max(v for _, v in values),
            "last": values[-1][1],
            "slope_per_1000": round(slope(values), 2),
            "last_quarter_slope_per_1000": round(slope(last), 2),
        }
    bounded = all(
        figures[name]["last_quarter_slope_per_1000"] <= limit for name, limit in SLOPE_LIMIT.items()
    )
    return {"figures": figures, "bounded": bounded}


def run_memory(run: Deployment, *, jobs: int, every: int, clients: int) -> dict[str, Any]:
    """Send `jobs` answers, `clients` at a time, in batches of `every`; sample after each batch,
    once its last verdict is in (no job in flight: in-flight requests and jobs hold descriptors
    and threads, which would hide a slow leak in noise)."""
    roots = [proc.pid for proc in [*run.processes, *run.workers]]
    answers_ = plan(jobs)
    lock = threading.Lock()
    wrong, lost = [0], [0]
    samples = [sample(roots, 0, 0.0)]
    started = time.monotonic()

    def one(answer: Answer) -> None:
        _, event = run.api.submit_and_follow(answer.exercise, answer.framework, answer.code)
        verdict = str(event["verdict"])
        with lock:
            lost[0] += verdict == "lost"
            wrong[0] += (
                verdict in ("lost", "internal_error") or (verdict == "accepted") != answer.right
            )

    with ThreadPoolExecutor(clients) as pool:
        for first in range(0, jobs, every):
            batch = answers_[first : first + every]
            list(pool.map(one, batch))
            samples.append(sample(roots, first + len(batch), time.monotonic() - started))
            if len(samples) % 4 == 1 or first + every >= jobs:
                print(f"  {_line(samples[-1])}", flush=True)
    seconds = time.monotonic() - started
    found = summarise(samples)
    found.update(
        jobs=jobs,
        seconds=round(seconds, 1),
        per_second=round(jobs / seconds, 1),
        wrong_verdicts=wrong[0],
        lost=lost[0],
        samples=[asdict(s) for s in samples],
    )
    return found


def _line(s: Sample) -> str:
    return (
        f"{s.jobs:6d} jobs {s.seconds:7.1f} s: web {s.web_mb:7.1f} MB, {s.servers} fork servers"
        f" {s.servers_mb:7.1f} MB (largest {s.largest_server_mb:6.1f}), {s.processes} processes,"
        f" {s.fds} fds, {s.threads} threads"
    )


LABELS = {
    "web_mb": "web process RSS, MB",
    "servers_mb": "fork servers' RSS, MB",
    "largest_server_mb": "largest fork server, MB",
    "processes": "processes in the tree",
    "fds": "web process's fds",
    "threads": "web process's threads",
}


def table(found: dict[str, Any]) -> list[str]:
    """The printed report."""
    lines = [
        f"  {found['jobs']} jobs in {found['seconds']} s ({found['per_second']}/s),"
        f" {found['wrong_verdicts']} wrong verdicts, {found['lost']} lost"
    ]
    for name, label in LABELS.items():
        f = found["figures"][name]
        lines.append(
            f"  {label:26s} first {f['first']:8.1f}  max {f['max']:8.1f}  last {f['last']:8.1f}"
            f"  slope {f['slope_per_1000']:+7.2f}, last quarter"
            f" {f['last_quarter_slope_per_1000']:+7.2f} per 1,000 jobs"
        )
    limits = ", ".join(f"{name} {limit}" for name, limit in SLOPE_LIMIT.items())
    verdict = "bounded" if found["bounded"] else "NOT bounded"
    lines.append(f"  {verdict} (last-quarter slope per 1,000 jobs at most: {limits})")
    return lines
