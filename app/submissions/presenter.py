"""The one place a stored grade report becomes what a reader sees (docs/report-contract.md).

The API and its event stream, the result and history pages, the instructor pages and the
command line all take their verdict words, test rows and printed output from here, so a
verdict reads the same everywhere and the hidden-test rule is applied once, for one `Viewer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from app.jobs import live
from app.submissions.models import Submission
from graders import Report, TestResult

# The only table of verdict words: pages, the API's `verdict_label`, instructor pages, the CLI.
VERDICT_LABELS: dict[str, str] = {
    "accepted": "Accepted",
    "wrong_answer": "Wrong answer",
    "runtime_error": "Runtime error",
    "time_limit_exceeded": "Time limit exceeded",
    "memory_limit_exceeded": "Memory limit exceeded",
    "output_limit_exceeded": "Output limit exceeded",
    "syntax_error": "Syntax error",
    "invalid_submission": "Invalid submission",
    "internal_error": "Something went wrong on our side",
    "cancelled": "Stopped",
}
STATUS_LABELS: dict[str, str] = {"queued": "Waiting to be graded", "running": "Being graded"}
NOT_GRADED = "Not graded yet"
# What a hidden test that is not opened keeps, for a student (the contract's list).
CUT_KEYS = ("name", "hidden", "passed", "verdict", "message", "misconception")


def verdict_label(verdict: str | None, *, status: str = "done", line: int | None = None) -> str:
    """'Wrong answer', 'Syntax error on line 3', or the status while it is still pending."""
    if status != "done" or verdict is None:
        return STATUS_LABELS.get(status, NOT_GRADED)
    words = VERDICT_LABELS.get(verdict, verdict.replace("_", " ").capitalize())
    if verdict == "syntax_error" and line:
        words += f" on line {line}"
    return words


def verdict_class(verdict: str | None, status: str) -> str:
    """A CSS hook: ok, bad or pending."""
    if status != "done" or verdict is None:
        return "pending"
    return "ok" if verdict == "accepted" else "bad"


@dataclass(frozen=True)
class Viewer:
    """Who is looking: staff see every test whole; a student sees what hidden tests checked
    only when the exercise opens them (`hidden_tests`) and nothing, such as an exam, locks them."""

    staff: bool = False
    hidden_open: bool = False

    @property
    def sees_hidden_values(self) -> bool:
        """Whether hidden tests show their inputs and values in place."""
        return self.staff or self.hidden_open


STUDENT = Viewer()
STAFF = Viewer(staff=True)


def shape_text(shape: list[int]) -> str:
    """(2, 4) and (4,): a shape as Python prints a tuple."""
    return "(" + ", ".join(str(n) for n in shape) + (",)" if len(shape) == 1 else ")")


@dataclass(frozen=True)
class TestView:
    """One test as this viewer may see it; a cut hidden test keeps only `CUT_KEYS`."""

    name: str
    hidden: bool
    passed: bool
    verdict: str
    label: str
    message: str
    misconception: dict[str, str] | None = None
    details: list[str] = field(default_factory=list)
    input_shapes: dict[str, list[int]] | None = None
    expected_shape: list[int] | None = None
    received_shape: list[int] | None = None
    expected: list[Any] | None = None
    received: list[Any] | None = None
    cut: bool = False  # a hidden test this viewer sees only by name, verdict and message
    revealed: bool = False  # a hidden test shown with what it checked (still marked hidden)
    # The API has always passed a student's visible test through whole, `reveal` included.
    reveal: dict[str, Any] | None = None
    keeps_reveal: bool = False

    __test__ = False  # not a pytest class

    @property
    def inputs(self) -> str:
        """'positions (2, 4), table (8, 3)': the inputs' shapes, when this viewer may see them."""
        return ", ".join(f"{k} {shape_text(v)}" for k, v in (self.input_shapes or {}).items())

    @property
    def shapes(self) -> str:
        """'expected shape (2, 4), got (4, 2)', when both shapes are known and may be seen."""
        if self.expected_shape is None or self.received_shape is None:
            return ""
        expected, received = shape_text(self.expected_shape), shape_text(self.received_shape)
        return f"expected shape {expected}, got {received}"

    @property
    def hint_title(self) -> str:
        """A declared mistake's title; pages print hints only beside values the viewer sees."""
        return "" if self.cut else str((self.misconception or {}).get("title") or "")

    @property
    def hint(self) -> str:
        """A declared mistake's hint (see hint_title)."""
        return "" if self.cut else str((self.misconception or {}).get("hint") or "")

    def as_json(self) -> dict[str, Any]:
        """The test in the API's submission JSON (field names as the API has always had them)."""
        if self.cut:
            data = {key: getattr(self, key) for key in CUT_KEYS}
        else:
            data = {key: getattr(self, key) for key in TestResult.__dataclass_fields__}
            if not self.keeps_reveal:
                del data["reveal"]
            if self.revealed:
                data["revealed"] = True
        data["verdict_label"] = self.label
        return data


def present_test(test: TestResult, viewer: Viewer) -> TestView:
    """One test with the hidden-test rule applied: the one place it is."""
    label = verdict_label(test.verdict)
    if test.hidden and not viewer.sees_hidden_values:
        return TestView(
            name=test.name,
            hidden=True,
            passed=test.passed,
            verdict=test.verdict,
            label=label,
            message=test.message,
            misconception=test.misconception,
            cut=True,
        )
    view = TestView(
        name=test.name,
        hidden=test.hidden,
        passed=test.passed,
        verdict=test.verdict,
        label=label,
        message=test.message,
        misconception=test.misconception,
        details=list(test.details),
        input_shapes=test.input_shapes,
        expected_shape=test.expected_shape,
        received_shape=test.received_shape,
        expected=test.expected,
        received=test.received,
        reveal=test.reveal,
        keeps_reveal=not viewer.sees_hidden_values,
    )
    reveal = test.reveal
    if not viewer.sees_hidden_values or not test.hidden or not isinstance(reveal, dict):
        return view
    details = list(test.details)
    if reveal.get("inputs"):
        details.insert(0, str(reveal["inputs"]))
    return replace(
        view,
        details=details,
        revealed=True,
        reveal=None,
        input_shapes=reveal.get("input_shapes"),
        expected_shape=reveal.get("expected_shape"),
        received_shape=reveal.get("received_shape"),
        expected=reveal.get("expected"),
        received=reveal.get("received"),
    )


@dataclass(frozen=True)
class ReportView:
    """A submission's report as one viewer may see it: the view model every reader renders."""

    status: str
    verdict: str | None
    label: str
    score: float | None
    message: str | None
    duration_ms: float | None
    tests: list[TestView]
    stdout: str = ""
    stdout_hidden: bool = False  # printed output withheld: it could show hidden inputs
    stdout_truncated: bool = False
    line: int | None = None
    metrics: dict[str, Any] | None = None
    new_compilation: bool | None = None
    graded_score: float | None = None  # the report's own score, before any override

    @property
    def passed(self) -> int:
        """How many tests passed."""
        return sum(t.passed for t in self.tests)


def read_report(stored: dict[str, Any] | None) -> Report | None:
    """The typed report stored with a submission (None before it is graded)."""
    return Report.from_dict(stored) if stored else None


def present_report(report: Report | None, *, viewer: Viewer, status: str = "done") -> ReportView:
    """A report alone (as the grader wrote it) for this viewer."""
    if report is None:
        return ReportView(status, None, verdict_label(None, status=status), None, None, None, [])
    # Printed output of a job with hidden tests could show their inputs: Run shows it.
    hides_output = any(t.hidden for t in report.tests) and not viewer.hidden_open
    return ReportView(
        status=status,
        verdict=report.verdict,
        label=verdict_label(report.verdict, status=status, line=report.line),
        score=report.score,
        message=report.message,
        duration_ms=report.duration_ms,
        tests=[present_test(t, viewer) for t in report.tests],
        stdout=report.stdout if viewer.staff or not hides_output else "",
        stdout_hidden=hides_output and not viewer.staff,
        stdout_truncated=report.stdout_truncated,
        line=report.line,
        metrics=report.metrics,
        new_compilation=report.new_compilation,
        graded_score=report.score,
    )


def present(row: Submission, *, viewer: Viewer) -> ReportView:
    """A submission's report for this viewer; the row's columns (an override's score) win."""
    view = present_report(read_report(row.report), viewer=viewer, status=row.status)
    return replace(
        view,
        verdict=row.verdict,
        label=verdict_label(row.verdict, status=row.status, line=view.line),
        score=row.score,
        message=row.message,
        duration_ms=row.duration_ms,
    )


def override_json(row: Submission) -> dict[str, Any] | None:
    """An instructor's manual score with the reason, shown to the student too."""
    if row.override_score is None:
        return None
    return {
        "score": row.override_score,
        "reason": row.override_reason or "",
        "at": row.override_at.isoformat() if row.override_at else None,
        "graded_score": (row.report or {}).get("score"),
    }


def submission_json(row: Submission, *, viewer: Viewer) -> dict[str, Any]:
    """GET /api/submissions/{id} and its events: field names outside scripts rely on."""
    view = present(row, viewer=viewer)
    data: dict[str, Any] = {
        "id": row.id,
        "exercise": row.exercise_slug,
        "course": row.course_slug,
        "content_version": row.content_version,
        "framework": row.framework,
        "mode": row.mode,
        "status": row.status,
        "verdict": row.verdict,
        "score": row.score,
        "message": row.message,
        "tests": [t.as_json() for t in view.tests],
        "duration_ms": row.duration_ms,
        "stdout": view.stdout,
        "stdout_hidden": view.stdout_hidden,
        "line": view.line,
        "created_at": row.created_at.isoformat(),
        "late": row.late,
        "override": override_json(row),
    }
    if view.metrics is not None:  # experiments: accuracy by length, the loss curve
        data["metrics"] = view.metrics
    if view.new_compilation is not None:  # JAX: did the job compile anything new
        data["new_compilation"] = view.new_compilation
    if row.status == "running":
        frame = live.latest(row.id)  # an experiment's step and loss while it trains
        if frame is not None:
            data["progress"] = frame
    data["verdict_label"] = view.label
    data["stdout_truncated"] = view.stdout_truncated
    return data
