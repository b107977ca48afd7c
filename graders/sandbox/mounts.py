"""What the sandbox sees of the file system: read-only system and interpreter trees, nothing else.

When root runs the grader, bwrap runs under a sandbox uid of its own (see `launch`), so it can
only bind paths whose parent directories that uid may search. The interpreter may live under
/root/.pyenv (/root is 0700); such paths are "staged": the forked child, still root, enters a
private mount namespace and binds them under a tmpfs on a world-searchable stage directory, from
where bwrap binds them to their real path inside the sandbox. The host's mount table is never
changed. Anyone else runs bwrap as themselves, and it binds what they can read: no staging.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import stat
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d")
SANDBOX_TMP = "/tmp"  # noqa: S108 - inside the sandbox: its own private, size-limited tmpfs
RESERVED_DESTS = (SANDBOX_TMP, "/proc", "/dev", "/usr", "/etc")
CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000

_stage_lock = threading.Lock()
_stage_dir: str | None = None


@dataclass
class FilesystemPlan:
    """bwrap arguments for the binds, plus the binds the child must stage first."""

    args: list[str] = field(default_factory=list)
    staged: list[tuple[str, str]] = field(default_factory=list)  # (host source, stage path)
    stage_root: str | None = None


def interpreter_dirs() -> list[str]:
    """The venv and the base installation the running interpreter needs, without nesting."""
    dirs = sorted({os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)})
    return [d for d in dirs if not any(d != o and d.startswith(o + "/") for o in dirs)]


def _searchable_by_others(path: str) -> bool:
    """True when every ancestor directory of `path` grants search (x) to other users."""
    parent = Path(path).parent
    return all(os.stat(d).st_mode & stat.S_IXOTH for d in (parent, *parent.parents))


def _stage_root() -> str:
    global _stage_dir
    with _stage_lock:
        if _stage_dir is None or not os.path.isdir(_stage_dir):
            _stage_dir = tempfile.mkdtemp(prefix="graders-sandbox-stage-")
            os.chmod(_stage_dir, 0o755)  # noqa: S103 - an empty mount point, searchable by bwrap
            atexit.register(_remove_dir, _stage_dir)
        return _stage_dir


def _remove_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(path)


def _check_dest(dest: str) -> str:
    if not dest.startswith("/") or os.path.normpath(dest) != dest or "\0" in dest:
        raise ValueError(f"sandbox path must be absolute and normalised: {dest!r}")
    if dest == "/" or any(dest == d or dest.startswith(d + "/") for d in RESERVED_DESTS):
        raise ValueError(f"sandbox path is reserved: {dest!r}")
    return dest


def plan_filesystem(
    ro_binds: list[tuple[str, str]],
    tmpfs_mb: int,
    *,
    staging: bool = True,
    rw_binds: list[tuple[str, str]] | None = None,
) -> FilesystemPlan:
    """Read-only system dirs, interpreter, caller binds; private /tmp; read-only root and /dev.

    `rw_binds` are the only writable folders (the JAX cache filler's own part of the cache).
    """
    plan = FilesystemPlan()
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            plan.args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            plan.args += ["--ro-bind", path, path]
    for path in SYSTEM_FILES:
        if os.path.exists(path):
            plan.args += ["--ro-bind", path, path]
    # The private /tmp comes before the binds, so an interpreter that lives under /tmp (a
    # checkout in /tmp, as CI may use) is bound on top of it instead of being hidden by it.
    plan.args += ["--perms", "1777", "--size", str(tmpfs_mb * 1024 * 1024), "--tmpfs", SANDBOX_TMP]
    binds = [(d, d, "--ro-bind") for d in interpreter_dirs()]
    binds += [(os.path.realpath(src), _check_dest(dest), "--ro-bind") for src, dest in ro_binds]
    binds += [(os.path.realpath(src), _check_dest(dest), "--bind") for src, dest in rw_binds or []]
    for source, dest, how in binds:
        if not os.path.exists(source):
            raise FileNotFoundError(source)
        if not staging or _searchable_by_others(source):
            plan.args += [how, source, dest]
            continue
        plan.stage_root = plan.stage_root or _stage_root()
        staged = f"{plan.stage_root}/{len(plan.staged)}"
        plan.staged.append((source, staged))
        plan.args += [how, staged, dest]
    plan.args += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--chdir",
        SANDBOX_TMP,
    ]
    return plan


class _Libc:
    """unshare(2) and mount(2), resolved in the parent so the forked child only calls them."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        self.unshare = libc.unshare
        self.unshare.argtypes = (ctypes.c_int,)
        self.mount = libc.mount
        self.mount.argtypes = (
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
            ctypes.c_char_p,
        )


LIBC = _Libc()


def _ok(rc: int, what: str) -> None:
    if rc != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def stage_in_child(plan: FilesystemPlan) -> None:
    """In the forked child (root): private mount namespace, staged binds under a tmpfs."""
    if not plan.staged or plan.stage_root is None:
        return
    _ok(LIBC.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _ok(LIBC.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    _ok(
        LIBC.mount(
            b"tmpfs",
            plan.stage_root.encode(),
            b"tmpfs",
            MS_NOSUID | MS_NODEV,
            b"mode=0755,size=64k",
        ),
        "stage tmpfs",
    )
    for source, staged in plan.staged:
        if os.path.isdir(source):
            os.mkdir(staged, 0o755)
        else:
            os.close(os.open(staged, os.O_CREAT | os.O_WRONLY, 0o644))
        _ok(
            LIBC.mount(source.encode(), staged.encode(), None, MS_BIND | MS_REC, None),
            f"bind {source}",
        )
