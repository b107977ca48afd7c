"""Judging edge cases: strict-JSON previews (NaN, infinities) and signals nobody expected."""

from __future__ import annotations

import json
import signal

import numpy as np
import pytest

from graders.engine import RawRun
from graders.judging.judge import _missing
from graders.judging.shown import preview as _preview


def test_preview_turns_non_finite_values_into_null() -> None:
    array = np.array([[0.0, -np.inf], [np.nan, 2.5]], dtype=np.float32)
    preview = _preview(array)
    assert preview == [[0.0, None], [None, 2.5]]
    assert json.loads(json.dumps(preview, allow_nan=False)) == preview


def test_preview_keeps_the_first_matrix_of_a_3d_output() -> None:
    array = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    assert _preview(array) == np.arange(12).reshape(3, 4).tolist()


def test_preview_skips_scalars_empty_and_huge_outputs() -> None:
    assert _preview(np.float32(3.0).reshape(())) is None
    assert _preview(np.zeros((0, 4))) is None
    assert _preview(np.zeros((100, 100))) is None


def _killed_run(max_rss_mb: float | None) -> RawRun:
    return RawRun(
        frames={},
        ended=False,
        timed_out=False,
        exit_code=None,
        exit_signal=signal.SIGKILL,
        output="",
        output_truncated=False,
        max_rss_mb=max_rss_mb,
        cpu_ms=5.0,
        protocol_error=None,
        time_limit_ms=2000,
        memory_limit_mb=2048,
    )


def test_a_sigkill_with_little_memory_used_is_the_jobs_own_doing() -> None:
    verdict, message = _missing(_killed_run(60.0), 2000)
    assert verdict == "runtime_error"
    assert "kill its own process" in message


def test_a_sigkill_near_the_memory_limit_or_of_unknown_size_is_memory() -> None:
    assert _missing(_killed_run(2000.0), 2000)[0] == "memory_limit_exceeded"
    assert _missing(_killed_run(None), 2000)[0] == "memory_limit_exceeded"


def _timed_out_run(
    *, cpu_ms: float, sys_ms: float = 0.0, max_rss_mb: float = 40.0, exit_signal: int | None = None
) -> RawRun:
    return RawRun(
        frames={},
        ended=False,
        timed_out=exit_signal is None,
        exit_code=None,
        exit_signal=exit_signal or signal.SIGKILL,
        output="",
        output_truncated=False,
        max_rss_mb=max_rss_mb,
        cpu_ms=cpu_ms,
        sys_ms=sys_ms,
        protocol_error=None,
        time_limit_ms=5000,
        memory_limit_mb=1536,
    )


def test_a_timeout_spent_computing_points_at_a_loop() -> None:
    verdict, message = _missing(_timed_out_run(cpu_ms=4990.0), 5000)
    assert verdict == "time_limit_exceeded"
    assert "loop that never ends" in message


def test_a_timeout_spent_waiting_says_so_with_the_cpu_time_used() -> None:
    verdict, message = _missing(_timed_out_run(cpu_ms=12.0), 5000)
    assert verdict == "time_limit_exceeded"
    assert "computed for only 0.01 s" in message and "waiting" in message
    assert "loop that never ends" not in message


def test_a_timeout_spent_in_the_system_says_memory_or_files() -> None:
    _, message = _missing(_timed_out_run(cpu_ms=900.0, sys_ms=850.0), 5000)
    assert "asking the system for memory or files" in message


def test_a_timeout_close_to_the_memory_limit_is_a_memory_verdict() -> None:
    # A memory bomb on a cold machine: page faults are slow, so the wall clock comes first.
    run = _timed_out_run(cpu_ms=1500.0, sys_ms=1400.0, max_rss_mb=1400.0)
    verdict, message = _missing(run, 5000)
    assert verdict == "memory_limit_exceeded"
    assert "1400 MB of the 1536 MB allowed" in message


def test_the_cpu_limit_signal_is_always_time() -> None:
    run = _timed_out_run(cpu_ms=100.0, exit_signal=signal.SIGXCPU)
    verdict, message = _missing(run, 5000)
    assert verdict == "time_limit_exceeded"
    assert "loop that never ends" in message


def test_a_cases_input_text_is_written_once_and_follows_new_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The text is kept per case object: the same case gives it without printing again, an
    edited case (a new object, as new content makes) gives its own, and the store is bounded."""
    from graders.judging import shown
    from graders.judging.spec import Case

    ids = np.array([[0, 2, 1]])
    case = Case(index=0, name="g", hidden=True, inputs={"ids": ids, "d_model": 4})
    first = shown.generated_input_text(case)
    assert first == "Its input: ids = [[0, 2, 1]]; d_model = 4."
    printed: list[object] = []
    monkeypatch.setattr(shown.np, "array2string", lambda *a, **k: printed.append(a) or "?")
    assert shown.generated_input_text(case) == first and printed == []
    edited = Case(index=0, name="g", hidden=True, inputs={"ids": ids + 1, "d_model": 4})
    assert shown.generated_input_text(edited) == "Its input: ids = ?; d_model = 4."
    monkeypatch.setattr(shown, "INPUT_TEXTS", 2)
    for n in range(5):
        shown.generated_input_text(Case(index=n, name="g", hidden=True, inputs={"n": n}))
    assert len(shown._texts) <= 2
