"""The host's memory, watched from outside while a hostile submission runs.

A verdict cannot show memory a job took without being charged for it: a job that mapped 4 GB of
shared memory still ends with `memory_limit_exceeded`, yet the host lost 4 GB meanwhile. So
this test samples the host's MemAvailable every 20 ms in a thread while the real grader runs
each golden submission that tries to take 4 GB by a route RLIMIT_DATA does not count, and
checks that the host lost less than the job's memory limit plus a margin.

It measures, it does not time: the drop is the baseline minus the lowest sample over the job.
Other processes on the machine move MemAvailable too, so the margin is generous; the attacks
aim at 4 GB (2.5 times the limit), so a route left open is unmistakable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pytest

from graders.engine import Grader
from graders.host.interpreter import PoolSettings

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
EXERCISE = "position-embedding-gather"
GOLDEN = Path(__file__).resolve().parent / "golden" / EXERCISE
# Golden submissions that each try to take about 4 GB outside the data limit.
ROUTES = (
    "res-devzero-shared-4gb",
    "res-tmp-shared-files-4gb",
    "res-growsdown-mapping-4gb",
    "res-stack-grown-below-4gb",
    "res-proc-self-mem-4gb",
    "res-vmsplice-hugepages",
    "res-socket-buffers",
    "res-pipe-buffers",
    "res-posix-timers",
    "res-mprotect-upgrade-4gb",
)
# Other processes on the machine and kernel noise: under `-n 2` the other test worker may start
# a torch or JAX interpreter meanwhile (a refused job here once showed a 780 MB drop, 2026-11-29,
# as an ordinary user). An open route still shows far more: the attacks aim at 4 GB, and even
# the slowest machine hands out 1.5-2.2 GB in the job's 5 s; the file hoard took 1,160 MB.
MARGIN_MB = 512
# The job's limit is the lower of the exercise's (1536 MB) and the pool's: 512 MB here, so in
# the 5 s the exercise allows, a route left open shows as far more than limit + margin even on
# a machine that hands out fresh memory slowly (300-450 MB/s on the 2-core development VM).
POOL_MEMORY_MB = 512
SAMPLE_EVERY_S = 0.02
READY_WAIT_S = 120.0


def available_mb() -> int:
    """The host's MemAvailable in MB: memory that can be had without swapping."""
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("/proc/meminfo has no MemAvailable line")


class LowestAvailable:
    """Samples MemAvailable in a thread; `drop_mb` is the baseline minus the lowest sample."""

    def __init__(self) -> None:
        self.baseline = available_mb()
        self.lowest = self.baseline
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.lowest = min(self.lowest, available_mb())
            self._stop.wait(SAMPLE_EVERY_S)

    def __enter__(self) -> LowestAvailable:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self.lowest = min(self.lowest, available_mb())

    @property
    def drop_mb(self) -> int:
        """How far the host's available memory fell below where it started."""
        return self.baseline - self.lowest


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    """One NumPy fork server, so nothing else of the pool starts while a job is measured."""
    settings = PoolSettings(sizes={"numpy": 1, "torch": 0, "jax": 0}, memory_mb=POOL_MEMORY_MB)
    instance = Grader(EXERCISES, settings)
    instance.start()
    yield instance
    instance.stop()


def _wait_for_idle_server(grader: Grader) -> None:
    deadline = time.monotonic() + READY_WAIT_S
    while grader.pool.sizes().get("numpy", 0) < 1:
        assert time.monotonic() < deadline, f"the pool did not fill: {grader.pool.sizes()}"
        time.sleep(0.1)


@pytest.mark.parametrize("name", ROUTES)
def test_hostile_job_takes_no_more_host_memory_than_its_limit(grader: Grader, name: str) -> None:
    code = (GOLDEN / f"{name}.numpy.py").read_text(encoding="utf-8")
    limit_mb = min(grader.spec(EXERCISE).memory_mb, POOL_MEMORY_MB)
    _wait_for_idle_server(grader)
    with LowestAvailable() as memory:
        report = grader.grade(exercise=EXERCISE, code=code, framework="numpy")
    print(f"\n{name}: host MemAvailable fell by {memory.drop_mb} MB (limit {limit_mb} MB)")
    print(f"  {report.verdict}: {report.message}")
    assert report.verdict != "accepted", report.message
    assert memory.drop_mb < limit_mb + MARGIN_MB, (
        f"{name} took {memory.drop_mb} MB of the host's memory with a {limit_mb} MB limit "
        f"({report.verdict}: {report.message})"
    )


def test_a_file_hoard_costs_the_host_no_more_than_its_limit(grader: Grader) -> None:
    # Empty files cost no bytes of /tmp's size but about 1.25 kB of kernel memory each (inode,
    # dentry, a long name): 1.09 M of them pinned 1.36 GB beside the job's own memory (issue
    # 48). /tmp's tmpfs is capped in files too, so the hoard is refused and the answer stands.
    code = (GOLDEN / "res-tmp-inode-hoard.numpy.py").read_text(encoding="utf-8")
    limit_mb = min(grader.spec(EXERCISE).memory_mb, POOL_MEMORY_MB)
    _wait_for_idle_server(grader)
    with LowestAvailable() as memory:
        report = grader.grade(exercise=EXERCISE, code=code, framework="numpy")
    print(f"\nfile hoard: host MemAvailable fell by {memory.drop_mb} MB (limit {limit_mb} MB)")
    print(f"  {report.verdict}: {report.message}")
    assert memory.drop_mb < limit_mb + MARGIN_MB, (
        f"the hoard took {memory.drop_mb} MB of the host's memory with a {limit_mb} MB limit "
        f"({report.verdict}: {report.message})"
    )
    assert report.verdict == "accepted", report.message
