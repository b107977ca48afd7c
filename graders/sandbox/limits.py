"""Resource limits of one sandbox and the rlimits that enforce them (no cgroups needed).

How each limit is enforced (measured on the 2-core Debian 12 development machine):

- cpu_seconds: RLIMIT_CPU with soft = hard, so the kernel sends SIGKILL at the limit (the
  interpreter runs as the namespace's pid 1, which ignores SIGXCPU). It is per process and counts
  from exec, imports included; a child forked by the job starts its own count, which the process
  cap bounds (a fork server's child per job too: each job has the whole budget). Wall time is
  the caller's job (`SandboxProcess.kill_tree`).
- memory_mb: RLIMIT_DATA = memory_mb for every process of the tree; the job process lowers its
  own to the exercise's `limits.memory_mb`. A job is one process (no fork, no shared anonymous
  memory, no memfd: the job filter), so this bounds the whole submission. RLIMIT_AS alone cannot
  be used at realistic limits: `import jax` + one computation peaks at ~1.5 GB of *virtual*
  memory (XLA reserves address space) while its data segment is ~230 MB; torch: 0.64 GB / 0.22
  GB. RLIMIT_DATA counts private writable mappings (heap, anonymous mmap, thread stacks), which
  is what grows when a job allocates. Allocations beyond the limit fail: Python raises
  MemoryError, NumPy "Unable to allocate", torch RuntimeError. What RLIMIT_DATA does not count
  a job cannot get (issue 22): shared mappings, MAP_GROWSDOWN mappings, pages pinned in pipes,
  socket buffers, writes through /proc/self/mem are refused by the job filter; the main stack
  is bounded by RLIMIT_STACK = STACK_MB (soft = hard, so a job cannot raise it: it would grow
  its stack by gigabytes); POSIX timers and queued signals (kernel memory) by RLIMIT_SIGPENDING
  = PENDING_SIGNALS; files by the /tmp size and file count below. A backstop RLIMIT_AS =
  memory_mb + AS_HEADROOM_MB bounds whatever else was missed.
- max_processes: RLIMIT_NPROC, set by `prlimit` run as the sandbox's first program, which then
  execs the interpreter (not here: set on bwrap, the kernel would also count every other
  process of a non-root caller).
  Since Linux 5.14 the count is kept per user namespace, so inside the sandbox's own namespace
  it covers that sandbox's processes and threads only. A job cannot create processes at all
  (the job seccomp filter, graders/sandbox/seccomp.py); its threads count here.
- max_file_mb: RLIMIT_FSIZE (Python ignores SIGXFSZ, so writes fail with EFBIG).
- max_open_files: RLIMIT_NOFILE.  Cores: RLIMIT_CORE = 0.
- tmpfs_mb: `bwrap --size` on the private /tmp; the rest of the file system is read-only.
- tmpfs_files: how many files (inodes: files, folders, links) /tmp may hold, set by remounting
  it once the sandbox is ready (graders/sandbox/tmp_files.py); each costs kernel memory that no
  byte limit counts, about 1.25 kB with a long name.
- output_bytes: the parent keeps only the first output_bytes of stdout+stderr.

A cgroup would bound the *sum* over a tree of processes; instead a job cannot have a tree (see
the seccomp module for why: cgroups are rarely delegated to an ordinary user).
"""

from __future__ import annotations

from dataclasses import dataclass

MB = 1024 * 1024
AS_HEADROOM_MB = 2048
STACK_MB = 8  # the usual Linux default soft limit: thread stacks keep their usual size too
PENDING_SIGNALS = 1024


@dataclass(frozen=True)
class SandboxLimits:
    """What one sandboxed interpreter may use over its whole life (imports included)."""

    cpu_seconds: int
    memory_mb: int
    max_processes: int
    max_file_mb: int
    max_open_files: int
    output_bytes: int
    tmpfs_mb: int
    tmpfs_files: int = 10_000

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive int, not {value!r}")


def rlimits(limits: SandboxLimits) -> list[tuple[str, int, int]]:
    """(prlimit option name, soft, hard) applied to bwrap and inherited by the whole tree."""
    memory = limits.memory_mb * MB
    address_space = memory + AS_HEADROOM_MB * MB
    return [
        ("cpu", limits.cpu_seconds, limits.cpu_seconds),
        ("data", memory, memory),
        ("as", address_space, address_space),
        ("stack", STACK_MB * MB, STACK_MB * MB),
        ("sigpending", PENDING_SIGNALS, PENDING_SIGNALS),
        ("fsize", limits.max_file_mb * MB, limits.max_file_mb * MB),
        ("nofile", limits.max_open_files, limits.max_open_files),
        ("core", 0, 0),
    ]
