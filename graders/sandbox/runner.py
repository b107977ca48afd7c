"""Spawn one sandboxed interpreter for the warm pool: bwrap + seccomp + rlimits.

The child sees the job pipe as fd 3 (read end) and the result pipe as fd 4 (write end); stdin is
/dev/null; stdout and stderr go to one pipe whose first `output_bytes` the parent keeps. Wall
time is the caller's: `kill_tree()` SIGKILLs the sandbox's pid-namespace init (every process of
the job dies with it) and bwrap, and returns once they are gone.

The interpreter runs as pid 1 of its namespace (`--as-pid-1`): bwrap then reaps it with wait4,
so the rusage we get from bwrap covers the whole tree (with bwrap's own init in between, bwrap
exits before reaping and the usage is lost). As pid 1 it ignores signals it has no handler for
when they come from inside the namespace, so a job cannot kill its own harness by signal. (A fork
server, graders/inside/zygote.py, is that pid 1; its jobs run in forked children, which can.)
"""

from __future__ import annotations

import os
import socket
import sys

from graders.sandbox import launch
from graders.sandbox.limits import SandboxLimits, rlimits
from graders.sandbox.mounts import SANDBOX_TMP, FilesystemPlan, plan_filesystem
from graders.sandbox.process import (
    READY,
    ExitStatus,
    OutputCollector,
    ResourceUsage,
    SandboxError,
    SandboxProcess,
)
from graders.sandbox.seccomp import filter_fd

SANDBOX_UID = 1000
JOB_FD, RESULT_FD, SECCOMP_FD, INFO_FD = 3, 4, 5, 6
# Single-threaded Eigen in XLA's CPU backend (the often-quoted bare
# "intra_op_parallelism_threads=1" is not an XLA flag and is silently ignored). JAX still starts
# ~16 threads, which count against max_processes.
XLA_SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false"

__all__ = [
    "READY",
    "ExitStatus",
    "ResourceUsage",
    "SandboxError",
    "SandboxLimits",
    "SandboxProcess",
    "base_env",
    "spawn",
]


def sandbox_python() -> str:
    """This interpreter by a path that exists inside the sandbox, which binds only real paths.

    A virtualenv reached through a symlink (`.venv -> /data/venv`) runs as `.venv/bin/python`,
    a path the sandbox does not have; its real folder is what gets bound.
    """
    return os.path.join(os.path.realpath(sys.prefix), "bin", os.path.basename(sys.executable))


def base_env() -> dict[str, str]:
    """The allow-listed environment every sandbox starts from (nothing of the parent's)."""
    venv_bin = os.path.join(os.path.realpath(sys.prefix), "bin")
    return {
        "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": SANDBOX_TMP,
        "TMPDIR": SANDBOX_TMP,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONNOUSERSITE": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "XLA_FLAGS": XLA_SINGLE_THREAD,
        "JAX_PLATFORMS": "cpu",
        # No source locations in compiled programs: neither the warm-up's (model solutions,
        # mistakes, the checkout's paths) nor the persistent cache's name a file (issue 48).
        "JAX_TRACEBACK_IN_LOCATIONS_LIMIT": "0",
        "TF_CPP_MIN_LOG_LEVEL": "2",
    }


def _check_env(env: dict[str, str]) -> dict[str, str]:
    for key, value in env.items():
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"invalid environment entry {key!r}")
    return env


def spawn(
    argv: list[str],
    *,
    limits: SandboxLimits,
    ro_binds: list[tuple[str, str]],
    env: dict[str, str],
    control_socket: bool = False,
    rw_binds: list[tuple[str, str]] | None = None,
) -> SandboxProcess:
    """Start `argv` in a fresh sandbox; `ro_binds` are (host path, sandbox path) pairs, and
    `rw_binds` the same for the only writable folders (none for anything a student runs).

    With `control_socket`, fd 3 is a Unix socket instead of the job pipe (for a fork server,
    which receives each job's descriptors over it); `job_fd` is then the parent's end.
    """
    if not argv:
        raise ValueError("argv must not be empty")
    sandbox_env = _check_env({**base_env(), **env})
    filesystem = plan_filesystem(
        ro_binds, limits.tmpfs_mb, staging=launch.switches_uid(), rw_binds=rw_binds
    )
    setenv = [arg for key, value in sandbox_env.items() for arg in ("--setenv", key, value)]
    bwrap_argv = [
        *launch.prlimit_args(rlimits(limits)),
        launch.tool_path("bwrap"),
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--new-session",
        "--die-with-parent",
        "--as-pid-1",
        "--cap-drop",
        "ALL",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "sandbox",
        *filesystem.args,
        "--clearenv",
        *setenv,
        "--seccomp",
        str(SECCOMP_FD),
        "--info-fd",
        str(INFO_FD),
        "--",
        # RLIMIT_NPROC is set here, inside the sandbox's own user namespace, where the kernel
        # counts this sandbox's processes and threads only (graders/sandbox/limits.py).
        launch.tool_path("prlimit"),
        f"--nproc={limits.max_processes}:{limits.max_processes}",
        "--",
        *argv,
    ]
    return launch.in_spawner(lambda: _start(bwrap_argv, limits, filesystem, control_socket))


def _start(
    argv: list[str], limits: SandboxLimits, filesystem: FilesystemPlan, control_socket: bool
) -> SandboxProcess:
    opened: list[int] = []

    def track(*fds: int) -> tuple[int, ...]:
        opened.extend(fds)
        return fds

    uid = launch.allocate_uid() if launch.switches_uid() else None
    try:
        if control_socket:
            job_w, job_r = (s.detach() for s in socket.socketpair(socket.AF_UNIX))
            track(job_r, job_w)
            os.set_inheritable(job_w, False)
        else:
            job_r, job_w = track(*os.pipe())
        result_r, result_w = track(*os.pipe())
        out_r, out_w = track(*os.pipe())
        info_r, info_w = track(*os.pipe())
        (seccomp,) = track(filter_fd())
        (devnull,) = track(os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
        plan = launch.LaunchPlan(
            argv=argv,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            uid=uid,
            fds={
                0: devnull,
                1: out_w,
                2: out_w,
                JOB_FD: job_r,
                RESULT_FD: result_w,
                SECCOMP_FD: seccomp,
                INFO_FD: info_w,
            },
            filesystem=filesystem,
        )
        pid = launch.fork_exec(plan)
    except BaseException:
        for fd in opened:
            os.close(fd)
        launch.release_uid(uid)
        raise
    for fd in (job_r, result_w, out_w, info_w, seccomp, devnull):
        os.close(fd)
    return SandboxProcess(
        pid=pid,
        uid=uid,
        job_fd=job_w,
        result_fd=result_r,
        info_fd=info_r,
        output=OutputCollector(out_r, limits.output_bytes),
        tmp_files=limits.tmpfs_files,
    )
