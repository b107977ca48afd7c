"""Fork and exec bwrap: fixed fd layout, rlimits, from one long-lived spawner thread.

Who runs bwrap: bubblewrap works for any user through unprivileged user namespaces, and the
sandbox is the same either way (namespaces, seccomp, rlimits; RLIMIT_NPROC is set inside the
sandbox's own user namespace, where it counts only that sandbox). Root adds one optional layer:
each sandbox runs under its own otherwise unused host uid (`allocate_uid`), so a process that
escaped every namespace would still be nobody on the host; the interpreter's folders that such a
uid may not enter (/root is 0700) are then staged first (graders/sandbox/mounts.py).

Why not `subprocess.Popen`: as root the child must stage binds, then drop to the sandbox uid,
and in every case place the job/result pipes at fds 3 and 4; Popen drops the uid before
`preexec_fn` and cannot move fds to fixed numbers safely. Why `prlimit` (util-linux) sets the
rlimits, exec'd before bwrap: below this large process's own size, an RLIMIT_DATA set in Python
could make even the allocations of `os.execve` fail. Why one spawner thread: `bwrap --die-with-
parent` uses PR_SET_PDEATHSIG, which fires when the *thread* that forked bwrap exits, so a
sandbox spawned from a short-lived pool thread would die with that thread.

Why bwrap is not forked from this process directly: a sandbox's peak memory is ru_maxrss from
wait4() on bwrap, and Linux keeps a process's highest resident size across exec, so a bwrap
forked from a 700 MB grader host or test worker reported 700 MB for a 100 MB job (and its
system time included tearing down that copy). So the forked copy does its set-up (session,
staging, fds) and execs `reparent.py` in a fresh `python -I -S` (~10 MB, ~20-30 ms on the
2-core machine), which clones bwrap with CLONE_PARENT and exits: bwrap is still a child of the
spawner thread (wait4, pidfds and PDEATHSIG unchanged) but starts from a few MB. Rejected: a
cgroup's memory.peak (an ordinary user rarely has a delegated cgroup v2), VmHWM from /proc (gone
once the process has exited, exactly when the peak is wanted), a long-lived spawner process
(another process to supervise, with exit statuses and usage relayed over a socket).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import os
import re
import select
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from graders.sandbox.mounts import FilesystemPlan, stage_in_child

T = TypeVar("T")
UID_BASE = 1 << 30  # far above login and subordinate uid ranges
UID_SLOTS = 4096
FIRST_FREE_FD = 10
REPARENT_PYTHON = sys.executable
REPARENT_SCRIPT = str(Path(__file__).with_name("reparent.py"))
_CLONE_PID = re.compile(rb"\0(\d+)\n")
START_SECONDS = 30.0  # a start takes ~20-30 ms; a copy stuck before its exec must not hang the job

_spawner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spawn")
_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()
_uid_next = 0


class LaunchError(RuntimeError):
    """bwrap could not be started; the message says which step of the child failed."""


@dataclass(frozen=True)
class LaunchPlan:
    """Everything the forked child needs; built in the parent, only read in the child."""

    argv: list[str]
    env: dict[str, str]
    uid: int | None  # a host uid to switch to (root only); None: bwrap runs as the caller
    fds: dict[int, int]  # fd number in the child -> fd in the parent
    filesystem: FilesystemPlan


def tool_path(name: str) -> str:
    """Absolute path of a host tool (bwrap from bubblewrap, prlimit from util-linux).

    GRADER_BWRAP names another bwrap (a build of its own, or a test's stand-in that fails).
    """
    override = os.environ.get("GRADER_BWRAP") if name == "bwrap" else None
    path = shutil.which(override or name, path="/usr/bin:/bin:/usr/local/bin")
    if path is None:
        raise LaunchError(f"{name} is not installed")
    return path


def prlimit_args(rlimits: list[tuple[str, int, int]]) -> list[str]:
    """`prlimit --NAME=SOFT:HARD ... --` setting the limits on itself before it execs bwrap."""
    return [tool_path("prlimit"), *(f"--{n}={soft}:{hard}" for n, soft, hard in rlimits), "--"]


def switches_uid() -> bool:
    """Root gives each sandbox a host uid of its own; anyone else runs bwrap as themselves."""
    return os.geteuid() == 0


def allocate_uid() -> int:
    """An unused host uid for one sandbox (root only): nothing else on the host runs as it."""
    global _uid_next
    base = UID_BASE + (os.getpid() % UID_SLOTS) * UID_SLOTS  # separate workers, separate uids
    with _uid_lock:
        for _ in range(UID_SLOTS):
            uid = base + _uid_next % UID_SLOTS
            _uid_next += 1
            if uid not in _uids_in_use:
                _uids_in_use.add(uid)
                return uid
    raise LaunchError(f"more than {UID_SLOTS} sandboxes alive in one process")


def release_uid(uid: int | None) -> None:
    """Give a uid back once every process that used it is gone."""
    if uid is None:
        return
    with _uid_lock:
        _uids_in_use.discard(uid)


def in_spawner(fn: Callable[[], T]) -> T:
    """Run `fn` on the long-lived spawner thread and return its result."""
    return _spawner.submit(fn).result()


def fork_exec(plan: LaunchPlan) -> int:
    """Start `plan.argv` as a child of this thread via the re-parenting script; return its pid.

    The forked copy of this process execs `reparent.py`, which clones the real child and exits;
    that short-lived copy is reaped here. Raises LaunchError with whatever step failed, or once
    START_SECONDS pass without the exec (the stuck processes are killed; the pool retries).
    """
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which always ends in exec or _exit
        try:
            _child(plan, err_w)
        except BaseException as exc:  # report anything to the parent
            try:
                os.write(err_w, f"{type(exc).__name__}: {exc}".encode()[:4000])
            finally:
                os._exit(127)
        os._exit(127)
    os.close(err_w)
    try:
        message, finished = _read_report(err_r, time.monotonic() + START_SECONDS)
    finally:
        os.close(err_r)
    found = _CLONE_PID.search(message)
    if not finished:
        _kill_stuck(pid, found)
        raise LaunchError(f"the sandbox did not start within {START_SECONDS:g} s")
    os.waitpid(pid, 0)  # the forked copy: it has exited once every writer closed the pipe
    message = _CLONE_PID.sub(b"", message)
    if found and message:
        os.waitpid(int(found[1]), 0)  # the clone failed before its exec
    if message or not found:
        text = message.decode("utf-8", "replace")
        raise LaunchError(text or f"{REPARENT_SCRIPT} ended without starting the program")
    return int(found[1])


def _read_report(err_r: int, deadline: float) -> tuple[bytes, bool]:
    """Everything written on the report pipe until its last writer closes it, or the deadline."""
    poller = select.poll()
    poller.register(err_r, select.POLLIN)
    message = b""
    while (left := deadline - time.monotonic()) > 0:
        if not poller.poll(left * 1000):
            break
        chunk = os.read(err_r, 4096)
        if not chunk:
            return message, True
        message += chunk
    return message, False


def _kill_stuck(pid: int, found: re.Match[bytes] | None) -> None:
    """Kill a start that hung before its exec (the copy and any clone share its session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)  # no such group if the copy hung before its setsid
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if found:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(int(found[1]), 0)


def _child(plan: LaunchPlan, err_w: int) -> None:  # pragma: no cover - child only
    err_w = fcntl.fcntl(err_w, fcntl.F_DUPFD_CLOEXEC, FIRST_FREE_FD)
    os.setsid()
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for signum in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)
    stage_in_child(plan.filesystem)
    # Move every source above the targets first, so no dup2 clobbers a later source.
    high = {
        target: fcntl.fcntl(src, fcntl.F_DUPFD_CLOEXEC, FIRST_FREE_FD)
        for target, src in plan.fds.items()
    }
    for target, src in high.items():
        os.dup2(src, target, inheritable=True)
    top = max(plan.fds) + 1
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd >= top and fd != err_w:
            try:
                if os.get_inheritable(fd):
                    os.close(fd)  # close-on-exec fds vanish at exec anyway
            except OSError:
                pass
    os.set_inheritable(err_w, True)  # the re-parenting script reports on it
    uid = "-" if plan.uid is None else str(plan.uid)
    argv = [REPARENT_PYTHON, "-I", "-S", REPARENT_SCRIPT, str(err_w), uid, *plan.argv]
    os.execve(argv[0], argv, plan.env)  # noqa: S606 - argv is ours, no shell
