"""What came back from one sandboxed run, before judging (shared by jobs and experiments)."""

from __future__ import annotations

from dataclasses import dataclass

from graders import protocol


@dataclass
class RawRun:
    """What came back from one sandboxed run, before judging."""

    frames: dict[int, protocol.Result]
    ended: bool
    timed_out: bool
    exit_code: int | None
    exit_signal: int | None
    output: str
    output_truncated: bool
    max_rss_mb: float | None
    cpu_ms: float | None
    protocol_error: str | None
    result_overflow: bool = False
    time_limit_ms: int = 0
    memory_limit_mb: int = 0
    sys_ms: float | None = None
    wall_ms: int = 0
    stopped_at: dict[str, float] | None = None  # the last progress when the student stopped it
    # JAX on a warmed server: True when its child needed a compilation the server had not done
    # (the job then ran again on a client of its own, or on a fresh JAX), False when it did not;
    # None for other jobs.
    new_compilation: bool | None = None
