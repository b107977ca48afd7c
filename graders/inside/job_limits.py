"""Runs INSIDE the sandbox: the process that runs a job first makes itself the whole job.

The exercise's memory limit and a CPU budget become its own rlimits, then the job seccomp filter
refuses new processes (threads still work), so those per-process limits bound everything the code
can use. Both harnesses (harness.py, experiment_harness.py) call `enter_job` before student code.
"""

from __future__ import annotations

import resource
from typing import Any


def _lower_limit(which: int, value: int) -> None:
    """Set soft and hard limit to `value` unless the current hard limit is already lower."""
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY and hard <= value:
        value = hard
    resource.setrlimit(which, (value, value))


def enter_job(job: Any) -> None:
    """Bound this process by the job's limits and refuse new processes before any student code."""
    import seccomp  # type: ignore[import-not-found]  # bound beside this file

    if job.memory_mb > 0:
        _lower_limit(resource.RLIMIT_DATA, job.memory_mb * 1024 * 1024)
    if job.cpu_seconds > 0:
        # The soft limit sends SIGXCPU (reported as out of time); the hard one SIGKILL after.
        used = resource.getrusage(resource.RUSAGE_SELF)
        soft = int(used.ru_utime + used.ru_stime) + 1 + job.cpu_seconds
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        if hard == resource.RLIM_INFINITY or soft + 1 < hard:
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
    seccomp.install_job_filter()
