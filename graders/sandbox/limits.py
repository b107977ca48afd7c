"""Resource limits of one sandbox and the rlimits that enforce them (no cgroups needed).

How each limit is enforced (measured on the 2-core Debian 12 development machine):

- cpu_seconds: RLIMIT_CPU with soft = hard, so the kernel sends SIGKILL at the limit (the
  interpreter runs as the namespace's pid 1, which ignores SIGXCPU). It is per process and counts
  from exec, imports included; a child forked by the job starts its own count, which the process
  cap bounds (a fork server's child per job too: each job has the whole budget). Wall time is
  the caller's job (`SandboxProcess.kill_tree`).
- memory_mb: RLIMIT_DATA = memory_mb for every process of the tree. RLIMIT_AS alone cannot be
  used at realistic limits: `import jax` + one computation peaks at ~1.5 GB of *virtual* memory
  (XLA reserves address space) while its data segment is ~230 MB; torch: 0.64 GB / 0.22 GB.
  RLIMIT_DATA counts private writable mappings (heap, anonymous mmap, thread stacks), which is
  what grows when a job allocates. A backstop RLIMIT_AS = memory_mb + AS_HEADROOM_MB bounds what
  RLIMIT_DATA does not see (MAP_SHARED anonymous memory). Allocations beyond the limit fail:
  Python raises MemoryError, NumPy "Unable to allocate", torch RuntimeError.
- max_processes: RLIMIT_NPROC, made effective by running each sandbox under its own otherwise
  unused host uid (the count is per real uid; uid 0 is exempt). Threads count as processes.
- max_file_mb: RLIMIT_FSIZE (Python ignores SIGXFSZ, so writes fail with EFBIG).
- max_open_files: RLIMIT_NOFILE.  Cores: RLIMIT_CORE = 0.
- tmpfs_mb: `bwrap --size` on the private /tmp; the rest of the file system is read-only.
- output_bytes: the parent keeps only the first output_bytes of stdout+stderr.

A cgroup would bound the *sum* over the tree; on this machine the only writable memory cgroup is
the one the host's session manager placed us in (cgroup v1), so it is not used.
"""

from __future__ import annotations

from dataclasses import dataclass

MB = 1024 * 1024
AS_HEADROOM_MB = 2048


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
        ("fsize", limits.max_file_mb * MB, limits.max_file_mb * MB),
        ("nofile", limits.max_open_files, limits.max_open_files),
        ("core", 0, 0),
        ("nproc", limits.max_processes, limits.max_processes),
    ]
