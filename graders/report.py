"""The grade report contract (docs/report-contract.md): verdicts per test and overall."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal, get_args

Verdict = Literal[
    "accepted",
    "wrong_answer",
    "runtime_error",
    "time_limit_exceeded",
    "memory_limit_exceeded",
    "output_limit_exceeded",
    "syntax_error",
    "invalid_submission",
    "internal_error",
    "cancelled",
]
VERDICTS: frozenset[str] = frozenset(get_args(Verdict))
FILE_LEVEL: frozenset[str] = frozenset({"syntax_error", "invalid_submission"})


@dataclass
class TestResult:
    """One test's outcome; a hidden test keeps its inputs and values apart, in `reveal`."""

    name: str
    hidden: bool
    passed: bool
    verdict: Verdict
    message: str
    details: list[str] = field(default_factory=list)
    misconception: dict[str, str] | None = None
    input_shapes: dict[str, list[int]] | None = None
    expected_shape: list[int] | None = None
    received_shape: list[int] | None = None
    expected: list[Any] | None = None
    received: list[Any] | None = None
    # A hidden test's inputs and values, stored for instructors and for the exercise's
    # `hidden_tests` setting (after_due, visible); the app strips it from students' views.
    reveal: dict[str, Any] | None = None

    __test__ = False  # not a pytest class

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestResult:
        """Read one test back from its JSON form; keys this version does not know are ignored."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        missing = sorted({"name", "hidden", "passed", "verdict", "message"} - known.keys())
        if missing:
            raise ValueError(f"a test result needs {', '.join(missing)}")
        _check_verdict(known["verdict"])
        return cls(**known)


@dataclass
class Report:
    """The whole verdict for one submission."""

    verdict: Verdict
    score: float
    message: str
    duration_ms: float
    tests: list[TestResult] = field(default_factory=list)
    stdout: str = ""
    stdout_truncated: bool = False
    max_rss_mb: float | None = None
    cpu_ms: float | None = None
    line: int | None = None
    metrics: dict[str, Any] | None = None  # experiments: accuracy by length and the loss curve
    # JAX jobs on a warmed server: whether the job needed a new compilation (see RawRun).
    new_compilation: bool | None = None
    # Instructors only: each test's behaviour signature and one key that groups wrong answers
    # (graders/judging/signature.py); the presenter never shows it to students.
    behaviour: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """Read a report back from `to_dict()`'s JSON (as stored with a submission).

        Keys added by later versions are ignored, so an older reader still works; a missing
        required key or an unknown verdict is a ValueError, never a silently wrong report.
        """
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        missing = sorted({"verdict", "score", "message", "duration_ms"} - known.keys())
        if missing:
            raise ValueError(f"a report needs {', '.join(missing)}")
        _check_verdict(known["verdict"])
        known["tests"] = [TestResult.from_dict(t) for t in known.get("tests") or []]
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; keys beyond the contract are additive and only present when set
        (metrics for experiments, new_compilation for JAX jobs on a warmed server, behaviour
        for graded code)."""
        data: dict[str, Any] = _plain(self)
        for key in ("metrics", "new_compilation", "behaviour"):
            if data[key] is None:
                del data[key]
        return data


_LEAVES = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """`dataclasses.asdict`'s form, copied as deeply, without its `copy.deepcopy` of every
    number: a report holds thousands (previews, hidden inputs), and every grade makes one."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list:
        return [_plain(v) for v in value]
    if kind is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    if kind is tuple:
        return tuple(_plain(v) for v in value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    return copy.deepcopy(value)


def _check_verdict(verdict: object) -> None:
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}")


def overall(tests: list[TestResult]) -> tuple[Verdict, float]:
    """First failing test's verdict (visible ones first), and the fraction passed."""
    if not tests:
        return "internal_error", 0.0
    ordered = [t for t in tests if not t.hidden] + [t for t in tests if t.hidden]
    failing = next((t for t in ordered if not t.passed), None)
    score = sum(t.passed for t in tests) / len(tests)
    return (failing.verdict if failing else "accepted"), round(score, 4)


def file_level(
    verdict: Verdict, message: str, duration_ms: float, *, line: int | None = None, stdout: str = ""
) -> Report:
    """A report for a file that cannot be used at all (no per-test results)."""
    return Report(
        verdict=verdict,
        score=0.0,
        message=message,
        duration_ms=duration_ms,
        line=line,
        stdout=stdout,
    )


def not_utf8(raw: bytes, error: UnicodeDecodeError) -> Report:
    """The report for a file that is not UTF-8 text: which byte, on which line and column."""
    line = raw.count(b"\n", 0, error.start) + 1
    column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
    return file_level(
        "syntax_error",
        f"Python could not read your file: byte 0x{raw[error.start]:02x} at line {line}, "
        f"column {column} is not valid UTF-8 text. Save the file as UTF-8 (most editors offer "
        "it under 'Save with encoding') or retype the characters around that place.",
        0.0,
        line=line,
    )


def unavailable(why: str, duration_ms: float) -> Report:
    """The report when no sandbox can run the code: the platform's fault, said plainly."""
    return file_level(
        "internal_error",
        f"Your code could not be run: grading is unavailable on this server ({why}). "
        "This is not your fault; your code is saved, so submit it again once it is fixed.",
        duration_ms,
    )
