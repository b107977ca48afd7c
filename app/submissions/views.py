"""How a graded submission reads to a student: verdicts in words, test rows, list entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models_base import as_utc
from app.submissions.models import Submission

FRAMEWORK_LABELS = {"numpy": "NumPy", "torch": "PyTorch", "jax": "JAX / Flax"}
VERDICT_LABELS = {
    "accepted": "Accepted",
    "wrong_answer": "Wrong answer",
    "runtime_error": "Runtime error",
    "time_limit_exceeded": "Time limit exceeded",
    "memory_limit_exceeded": "Memory limit exceeded",
    "output_limit_exceeded": "Output limit exceeded",
    "syntax_error": "Syntax error",
    "invalid_submission": "Invalid submission",
    "internal_error": "Something went wrong on our side",
    "cancelled": "Stopped by you",
}
STATUS_LABELS = {"queued": "Queued: waiting for a grader", "running": "Running your code"}
MAX_LISTED = 200


def verdict_label(verdict: str | None, *, status: str = "done", line: int | None = None) -> str:
    """'Wrong answer', 'Syntax error on line 3', or the status while it is still pending."""
    if status != "done" or verdict is None:
        return STATUS_LABELS.get(status, "Not graded yet")
    words = VERDICT_LABELS.get(verdict, verdict.replace("_", " ").capitalize())
    if verdict == "syntax_error" and line:
        words += f" on line {line}"
    return words


def with_labels(view: dict[str, Any], row: Submission) -> dict[str, Any]:
    """The public view plus verdicts in words (overall and per test) for the editor."""
    report = row.report or {}
    return {
        **view,
        "verdict_label": verdict_label(row.verdict, status=row.status, line=report.get("line")),
        "stdout_truncated": bool(report.get("stdout_truncated")),
        "tests": [
            {**test, "verdict_label": verdict_label(test.get("verdict"))}
            for test in view.get("tests", [])
        ],
    }


def list_own(
    *, session: Session, user_id: int, exercise: str | None, limit: int
) -> list[dict[str, Any]]:
    """This account's own submissions, newest first, as short list entries."""
    query = select(Submission).where(Submission.user_id == user_id)
    if exercise:
        query = query.where(Submission.exercise_slug == exercise)
    query = query.order_by(Submission.created_at.desc(), Submission.id.desc())
    rows = session.scalars(query.limit(max(1, min(limit, MAX_LISTED))))
    return [
        {
            "id": row.id,
            "exercise": row.exercise_slug,
            "created_at": as_utc(row.created_at).isoformat(),
            "framework": row.framework,
            "mode": row.mode,
            "status": row.status,
            "verdict": row.verdict,
            "score": row.score,
        }
        for row in rows
    ]


def _shape(value: Any) -> str:
    return "(" + ", ".join(str(n) for n in value) + (",)" if len(value) == 1 else ")")


@dataclass(frozen=True)
class TestLine:
    """One test as the result page lists it."""

    name: str
    hidden: bool
    passed: bool
    verdict: str
    message: str
    inputs: str = ""
    shapes: str = ""
    details: list[str] = field(default_factory=list)
    hint_title: str = ""
    hint: str = ""


def test_lines(tests: list[dict[str, Any]]) -> list[TestLine]:
    """Rows for the server-rendered result page (hidden tests are already cut down)."""
    lines = []
    for t in tests:
        shapes = t.get("input_shapes") or {}
        inputs = ", ".join(f"{k} {_shape(v)}" for k, v in shapes.items())
        expected, received = t.get("expected_shape"), t.get("received_shape")
        outputs = ""
        if not t.get("passed") and expected is not None and received is not None:
            outputs = f"expected shape {_shape(expected)}, yours {_shape(received)}"
        hint = t.get("misconception") or {}
        lines.append(
            TestLine(
                name=str(t.get("name", "")),
                hidden=bool(t.get("hidden")),
                passed=bool(t.get("passed")),
                verdict=verdict_label(t.get("verdict")),
                message=str(t.get("message") or ""),
                inputs=inputs,
                shapes=outputs,
                details=[str(d) for d in t.get("details") or []],
                hint_title=str(hint.get("title") or ""),
                hint=str(hint.get("hint") or ""),
            )
        )
    return lines
