"""Runs INSIDE the sandbox: empties /tmp after a job, in a child of the fork server, on a budget.

A job may leave at most as many files as /tmp's cap allows (graders/sandbox/tmp_files.py,
10,000) and 64 MB; emptying that took 0.20 s on the loaded 2-core machine. The fork server has
already sent the job's status when this runs (graders/inside/zygote.py), so the job's time and
verdict never include it. Each cleaner is a fresh child with a budget of CLEANER_BUDGET_S: past
it, the child is killed and replaced by another that goes on where it stopped (a removed file
stays removed); the fork server is never replaced for taking time, only if /tmp cannot be
emptied at all (a cleaner failed, or MAX_CLEANERS in turn ran out of time).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal

SANDBOX_TMP = "/tmp"  # noqa: S108 - the sandbox's private tmpfs
CLEANER_BUDGET_S = 1.0
MAX_CLEANERS = 5

Kept = tuple[frozenset[str], frozenset[str]]


def kept_mounts() -> Kept:
    """Mount points below /tmp (an interpreter checked out under /tmp is bound there) and the
    folders leading to them: these are the sandbox's own and stay; everything else goes."""
    mounts: set[str] = set()
    with open("/proc/self/mountinfo", encoding="utf-8") as table:
        for line in table:
            point = line.split()[4].encode().decode("unicode_escape")
            if point.startswith(SANDBOX_TMP + "/"):
                mounts.add(point)
    keep = {parent for point in mounts for parent in _parents(point)}
    return frozenset(mounts), frozenset(keep - mounts)


def _parents(path: str) -> list[str]:
    parts = path[len(SANDBOX_TMP) + 1 :].split("/")
    return [f"{SANDBOX_TMP}/{'/'.join(parts[:n])}" for n in range(1, len(parts))]


def empty_folder(folder: str, kept: Kept) -> bool:
    """Remove everything a job left under `folder`; False if something cannot go."""
    mounts, keep = kept
    with os.scandir(folder) as scan:
        entries = list(scan)
    for entry in entries:
        if entry.path in mounts:
            continue
        if entry.path in keep:
            if not empty_folder(entry.path, kept):
                return False
            continue
        if entry.is_dir(follow_symlinks=False):
            os.chdir(folder)
            _remove_tree(entry.name)
        else:
            os.unlink(entry.path)
    left = {os.path.join(folder, name) for name in os.listdir(folder)}
    return left <= (mounts | keep)


def _remove_tree(name: str) -> None:
    """Remove the folder `name` of the working folder and all it holds, however deep.

    Iterative and by relative names (chdir down and up), so neither Python's recursion limit
    nor PATH_MAX stops it; the permissions a job removed from its own folders are given back
    on the way down. Each folder is listed once: the names of those still to visit are kept.
    """
    os.chmod(name, 0o700)
    os.chdir(name)
    stack = [(name, _unlink_files())]
    while stack:
        folder, pending = stack[-1]
        if pending:
            child = pending.pop()
            os.chmod(child, 0o700)
            os.chdir(child)
            stack.append((child, _unlink_files()))
        else:
            stack.pop()
            os.chdir("..")
            os.rmdir(folder)


def _unlink_files() -> list[str]:
    """Unlink every non-folder of the working folder; the names of its folders."""
    with os.scandir(".") as scan:
        entries = list(scan)
    folders = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            folders.append(entry.name)
        else:
            os.unlink(entry.name)
    return folders


def is_empty(kept: Kept, folder: str = SANDBOX_TMP) -> bool:
    """True when a job left nothing under `folder` (most jobs): no cleaner is needed."""
    mounts, keep = kept
    try:
        names = os.listdir(folder)
    except OSError:
        return False  # a cleaner will find out
    for name in names:
        path = os.path.join(folder, name)
        if path in keep and is_empty(kept, path):
            continue
        if path not in mounts:
            return False
    return True


def empty_tmp(kept: Kept, budget_s: float = CLEANER_BUDGET_S, cleaners: int = MAX_CLEANERS) -> bool:
    """Empty /tmp in a child; a child past its budget is replaced; False if /tmp stays dirty."""
    for _ in range(cleaners):
        done = _one_cleaner(kept, budget_s)
        if done is not None:
            return done
    return False


def _one_cleaner(kept: Kept, budget_s: float) -> bool | None:
    """Fork one cleaner and wait up to its budget: its answer, or None if it ran out of time."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the cleaner
        clean = False
        try:
            clean = empty_folder(SANDBOX_TMP, kept)
        finally:
            os._exit(0 if clean else 1)
    pidfd = os.pidfd_open(pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        in_time = bool(poller.poll(int(budget_s * 1000)))
        if not in_time:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    finally:
        os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    if not in_time:
        return None
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
