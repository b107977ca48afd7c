"""Turns raw sandbox results into verdicts, outside the sandbox, against the reference's outputs."""

from __future__ import annotations

import signal
from collections.abc import Callable

import numpy as np

from graders import protocol
from graders.judging.compare import Reason, compare
from graders.judging.feedback import describe, match_misconception
from graders.judging.sandboxed_content import Pending, class_expected, explain_all
from graders.judging.shown import generated_input_text, inputs_only, preview, reveal
from graders.judging.signature import (
    Signature,
    array_signature,
    behaviour,
    failure_signature,
    nearest_mistake,
    tests_behaviour,
)
from graders.judging.spec import Case, ExerciseSpec
from graders.raw_run import RawRun
from graders.report import Report, TestResult, Verdict, file_level, overall

Mistakes = dict[str, dict[int, protocol.Result]]  # mistake id -> its outputs by result id
SLOTS = protocol.SLOTS  # result ids are case_index * SLOTS + slot
RESULT_BYTES = protocol.RESULT_BYTES
MEMORY_BOUND_SHARE = 0.75  # out of time this close to the memory limit: memory is the cause
IDLE_SHARE = 0.5  # out of time with less CPU than this share of the limit: it mostly waited


def result_ids(spec: ExerciseSpec, cases: list[Case]) -> list[int]:
    """The frame ids the harness sends for these cases."""
    slots = (0, 1, 2) if spec.entry_kind == "class" else (0,)
    return [c.index * SLOTS + s for c in cases for s in slots]


def _file_level(run: RawRun, duration: float) -> Report | None:
    raised = run.frames.get(protocol.FILE_LEVEL_TEST)
    if not isinstance(raised, protocol.RaisedError):
        return None
    if raised.type_name == protocol.GRADER_FAULT:
        return file_level(
            "internal_error",
            "The grader could not prepare a safe place to run your code "
            f"({raised.message}). This is not your fault: please submit again in a minute.",
            duration,
        )
    if raised.type_name == "SyntaxError":
        line = _line_of(raised.message)
        return file_level(
            "syntax_error",
            f"Python could not read your code: {raised.message}.",
            duration,
            line=line,
            stdout=run.output,
        )
    if raised.type_name == "TooNested":
        return file_level(
            "invalid_submission",
            f"Python could not read your code: {raised.message}. Split long expressions "
            "into several lines with names for the parts.",
            duration,
            stdout=run.output,
        )
    if raised.type_name == "MissingEntry":
        return file_level(
            "invalid_submission",
            f"{raised.message[0].upper()}{raised.message[1:]}; check the spelling of its name.",
            duration,
            stdout=run.output,
        )
    return file_level(
        "invalid_submission",
        f"Your code stopped while it was being loaded: {raised.message}. "
        "Code outside functions runs once at load time; keep it to imports "
        "and definitions.",
        duration,
        stdout=run.output,
    )


def _line_of(message: str) -> int | None:
    marker = "(line "
    if marker in message:
        digits = message.split(marker, 1)[1].split(")", 1)[0]
        return int(digits) if digits.isdigit() else None
    return None


def _far_below_memory_limit(run: RawRun) -> bool:
    """Peak memory known and under half the limit: a SIGKILL then cannot be the memory's."""
    limit = run.memory_limit_mb
    return bool(limit) and run.max_rss_mb is not None and run.max_rss_mb < limit / 2


def _out_of_time(run: RawRun, limit_ms: int) -> tuple[Verdict, str]:
    """Why the wall clock ran out, from the job's own CPU time and peak memory."""
    limit_s = f"{limit_ms / 1000:g} s"
    peak, allowed = run.max_rss_mb, run.memory_limit_mb
    if peak is not None and allowed and peak >= MEMORY_BOUND_SHARE * allowed:
        return "memory_limit_exceeded", (
            f"Your code was still taking more memory when its {limit_s} ran out: it had reached "
            f"{peak:.0f} MB of the {allowed} MB allowed. Are you building a much larger array "
            "than the output?"
        )
    cpu = run.cpu_ms
    if cpu is not None and run.exit_signal != signal.SIGXCPU and cpu < IDLE_SHARE * limit_ms:
        doing = "waiting"
        if run.sys_ms is not None and run.sys_ms > cpu / 2:
            doing = "asking the system for memory or files"
        return "time_limit_exceeded", (
            f"Your code did not finish within {limit_s}, yet it computed for only "
            f"{cpu / 1000:.2f} s: most of the time it was {doing}. Look for time.sleep, input(), "
            "a lock or a thread that is never released, or a very large allocation."
        )
    return "time_limit_exceeded", (
        f"Your code did not finish within {limit_s}. "
        "Look for a loop that never ends, or work repeated for "
        "every position that could be done once."
    )


def _missing(run: RawRun, limit_ms: int) -> tuple[Verdict, str]:
    """Why a test produced no result at all."""
    if run.result_overflow:
        return "output_limit_exceeded", (
            "Your function returned far more data than this test expects (over "
            f"{RESULT_BYTES // 2**20} MB in all) and was stopped. Check the output's shape: is it "
            "building a table for every pair of positions?"
        )
    if run.timed_out or run.exit_signal == signal.SIGXCPU:
        return _out_of_time(run, limit_ms)
    if run.exit_signal == signal.SIGKILL and _far_below_memory_limit(run):
        # A job in a fork server's child is not pid 1, so it can kill itself.
        return "runtime_error", (
            "Your code's process was stopped by a SIGKILL signal that the grader did not send, "
            "while it used little memory. Does your code kill its own process (os.kill, "
            "os.killpg)? Return the result instead."
        )
    if run.exit_signal == signal.SIGKILL:
        # The grader marks its own kills as time or output limits above; a SIGKILL it did not
        # send comes from the kernel running out of memory for this job.
        return "memory_limit_exceeded", (
            "Your code used more memory than allowed and was "
            "stopped. Are you building a much larger array than the "
            "output?"
        )
    if run.exit_signal is not None:
        known = run.exit_signal in {int(sig) for sig in signal.Signals}
        name = signal.Signals(run.exit_signal).name if known else str(run.exit_signal)
        return "runtime_error", f"Your code crashed the Python process ({name})."
    if run.protocol_error and "interfered" in run.protocol_error:
        return "runtime_error", run.protocol_error
    return "runtime_error", (
        "Your code ended the program before this test finished "
        "(sys.exit or os._exit?). Return the result instead."
    )


def _raised(raised: protocol.RaisedError) -> tuple[Verdict, str]:
    if raised.type_name == protocol.RESULT_TOO_LARGE:
        return "output_limit_exceeded", (
            f"Your function returned {raised.message}, more than the grader accepts "
            f"({RESULT_BYTES // 2**20} MB). Check the output's shape: is it building a table "
            "for every pair of positions?"
        )
    if raised.type_name == "MemoryError":
        return "memory_limit_exceeded", (
            "Your code ran out of memory. Are you building a much larger array than the output?"
        )
    if raised.type_name == "RecursionError":
        return "runtime_error", (
            "Your function called itself too many times (RecursionError). "
            "A loop or a vectorised operation is needed here."
        )
    return "runtime_error", f"Your function raised {raised.type_name}: {raised.message}"


def _array_test(
    spec: ExerciseSpec,
    case: Case,
    expected: np.ndarray,
    received: np.ndarray,
    mistakes: Callable[[], Mistakes],
    signatures: dict[int, Signature] | None = None,
    pending: list[Pending] | None = None,
) -> TestResult:
    """One output judged; its behaviour signature goes into `signatures` by case index, and
    its property check (if its case names one) into `pending`."""
    signatures = {} if signatures is None else signatures
    result = compare(expected, received, rtol=spec.rtol, atol=spec.atol)
    test = TestResult(
        name=case.name,
        hidden=case.hidden,
        passed=result.passed,
        verdict="accepted" if result.passed else "wrong_answer",
        message="",
    )
    if not case.hidden:
        test.input_shapes = {
            k: list(np.shape(v)) for k, v in case.inputs.items() if isinstance(v, np.ndarray)
        }
        test.expected_shape, test.received_shape = list(expected.shape), list(received.shape)
    else:
        test.reveal = reveal(case, expected, received)
    if result.passed:
        test.message = "Passed."
        signatures[case.index] = array_signature(
            expected, received, rtol=spec.rtol, atol=spec.atol, verdict=test.verdict
        )
        return test
    feedback = describe(result, expected, received, hidden=case.hidden)
    test.message, test.details = feedback.summary, list(feedback.details)
    check = spec.properties.get(case.property) if case.property else None
    if check is not None and result.reason not in (Reason.SHAPE_MISMATCH, Reason.DTYPE_MISMATCH):
        item = Pending(test, check, case, received, feedback.summary)
        # With `pending`, every check of the report runs in one sandbox once all are judged.
        explain_all([item]) if pending is None else pending.append(item)
    candidates: list[tuple[str, np.ndarray]] = []
    for mid, out in mistakes().items():
        wrong = out.get(case.index * SLOTS)
        if isinstance(wrong, np.ndarray):
            candidates.append((mid, wrong))
    masks = {m.id: m.mask_below for m in spec.mistakes if m.mask_below is not None}
    found = match_misconception(
        received, candidates, rtol=spec.rtol, atol=spec.atol, mask_below=masks
    )
    if found:
        mistake = next(m for m in spec.mistakes if m.id == found)
        test.misconception = {"id": mistake.id, "title": mistake.title, "hint": mistake.hint}
    nearest = (
        None if found else nearest_mistake(received, candidates, rtol=spec.rtol, atol=spec.atol)
    )
    signatures[case.index] = array_signature(
        expected,
        received,
        rtol=spec.rtol,
        atol=spec.atol,
        verdict=test.verdict,
        mistake=found,
        variant=feedback.category,
        nearest=nearest,
    )
    if not case.hidden:
        test.expected, test.received = preview(expected), preview(received)
    if case.generated and not case.hidden:
        test.details.insert(0, generated_input_text(case))
    return test


def _int(value: object) -> int:
    return int(np.asarray(value).reshape(-1)[0])


def _class_test(
    spec: ExerciseSpec,
    case: Case,
    frames: dict[int, protocol.Result],
    run: RawRun,
    mistakes: Callable[[], Mistakes],
    signatures: dict[int, Signature],
    by_table: dict[int, np.ndarray],
    pending: list[Pending],
) -> TestResult:
    base = case.index * SLOTS
    out, count, params = frames.get(base), frames.get(base + 1), frames.get(base + 2)
    max_len, d_model = _int(case.inputs["max_len"]), _int(case.inputs["d_model"])
    name, hidden = case.name, case.hidden
    if isinstance(count, np.ndarray) and int(count.reshape(-1)[0]) != max_len * d_model:
        return TestResult(
            name,
            hidden,
            False,
            "wrong_answer",
            f"Your module has {int(count.reshape(-1)[0])} trainable parameters; "
            f"a ({max_len}, {d_model}) table has {max_len * d_model}. Register "
            "the table with nn.Parameter (a buffer or a plain tensor is not "
            "trained).",
        )
    if case.expect_error:
        if isinstance(out, protocol.RaisedError):
            return TestResult(name, hidden, True, "accepted", "Passed: a clear error was raised.")
        return TestResult(
            name,
            hidden,
            False,
            "wrong_answer",
            "A sequence longer than max_len must raise an error (for example "
            "ValueError) instead of returning a result.",
        )
    if isinstance(out, protocol.RaisedError):
        verdict, message = _raised(out)
        return TestResult(name, hidden, False, verdict, message)
    if not isinstance(out, np.ndarray) or not isinstance(params, np.ndarray):
        verdict, message = _missing(run, run.time_limit_ms or spec.time_ms)
        return TestResult(name, hidden, False, verdict, message)
    # The reference on the grader's own table (copied into the module before forward), else on
    # the module's own: computed in the sandbox for every case at once (class_expected).
    return _array_test(spec, case, by_table[case.index], out, mistakes, signatures, pending)


def judge_outputs(
    *,
    spec: ExerciseSpec,
    cases: list[Case],
    run: RawRun,
    mistakes: Callable[[], Mistakes],
) -> Report:
    """Build the report: per-test verdicts, then the overall verdict and score."""
    early = _file_level(run, 0.0)
    if early is not None:
        early.behaviour = behaviour([failure_signature(early.verdict)])
        return early
    expected = spec.expected() if spec.entry_kind == "function" else {}
    by_table = class_expected(spec, cases, run.frames) if spec.entry_kind == "class" else {}
    tests: list[TestResult] = []
    signatures: dict[int, Signature] = {}
    pending: list[Pending] = []
    for case in cases:
        if spec.entry_kind == "class":
            tests.append(
                _class_test(spec, case, run.frames, run, mistakes, signatures, by_table, pending)
            )
            continue
        got = run.frames.get(case.index * SLOTS)
        if isinstance(got, np.ndarray):
            tests.append(
                _array_test(spec, case, expected[case.index], got, mistakes, signatures, pending)
            )
        elif isinstance(got, protocol.RaisedError):
            verdict, message = _raised(got)
            tests.append(TestResult(case.name, case.hidden, False, verdict, message))
        else:
            verdict, message = _missing(run, run.time_limit_ms or spec.time_ms)
            tests.append(TestResult(case.name, case.hidden, False, verdict, message))
    explain_all(pending)
    for case, test in zip(cases, tests, strict=True):
        if case.hidden and not test.passed and test.reveal is None:
            test.reveal = inputs_only(case)
    verdict, score = overall(tests)
    first = next((t for t in tests if not t.passed and not t.hidden), None) or next(
        (t for t in tests if not t.passed), None
    )
    if first is None:
        message = f"All {len(tests)} tests passed."
    else:
        message = (
            f"{sum(t.passed for t in tests)} of {len(tests)} tests passed. "
            f"First problem, in '{first.name}': {first.message}"
        )
    return Report(
        verdict=verdict,
        score=score,
        message=message,
        duration_ms=0.0,
        tests=tests,
        stdout=run.output,
        stdout_truncated=run.output_truncated,
        max_rss_mb=run.max_rss_mb,
        cpu_ms=run.cpu_ms,
        behaviour=tests_behaviour(cases, tests, run.frames, signatures),
    )
