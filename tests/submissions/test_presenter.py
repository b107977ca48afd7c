"""The report presenter: one wording per verdict, the hidden-test rule applied once, the API
JSON of saved reports exactly as the code before the presenter gave it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from app.config import ROOT
from app.submissions.models import Submission
from app.submissions.presenter import (
    STAFF,
    STUDENT,
    VERDICT_LABELS,
    Viewer,
    present,
    present_report,
    submission_json,
    verdict_label,
)
from graders import Report
from graders.report import VERDICTS

SAVED = Path(__file__).parent / "saved_reports"
VIEWERS = {
    "student": STUDENT,
    "student_opened": Viewer(hidden_open=True),
    "staff": STAFF,
}
SECRET = "positions = [[7391]]"


def _saved(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SAVED / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _row(name: str, report: dict[str, Any] | None) -> Submission:
    """The row the saved API JSON was captured from (the same columns, the same override)."""
    lab = name.startswith("lab-")
    row = Submission(
        id=7,
        user_id=3,
        exercise_slug="lab-relative-extrapolation" if lab else "position-embedding-gather",
        course_slug="default",
        content_version="v1",
        framework="torch" if lab else "numpy",
        mode="submit",
        code="",
        status="done",
        created_at=dt.datetime(2026, 3, 1, 12, 30, tzinfo=dt.UTC),
        late=name.startswith("input-syntax"),
    )
    if report is None:
        row.status = "queued"
        return row
    row.report, row.verdict, row.score = report, report["verdict"], report["score"]
    row.message, row.duration_ms = report["message"], report["duration_ms"]
    if lab:
        row.override_score, row.override_reason = 0.5, "partly right"
        row.override_at = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)
        row.score = 0.5
    return row


def _hidden_failure() -> dict[str, Any]:
    return {
        "name": "hidden: long sequences",
        "hidden": True,
        "passed": False,
        "verdict": "wrong_answer",
        "message": "values differ",
        "details": ["first difference at [3]"],
        "misconception": {"id": "one-based", "title": "Off by one", "hint": "Start at 0."},
        "input_shapes": None,
        "expected_shape": None,
        "received_shape": None,
        "expected": None,
        "received": None,
        "reveal": {
            "inputs": SECRET,
            "input_shapes": {"positions": [1, 1]},
            "expected_shape": [1, 1, 4],
            "received_shape": [1, 1, 4],
            "expected": [[[0.25]]],
            "received": [[[0.5]]],
        },
    }


def _report(*, stdout: str = "") -> Report:
    visible = {
        "name": "two positions",
        "hidden": False,
        "passed": False,
        "verdict": "wrong_answer",
        "message": "expected shape (2, 4), got (4, 2)",
        "details": ["the axes look swapped"],
        "input_shapes": {"positions": [2]},
        "expected_shape": [2, 4],
        "received_shape": [4, 2],
    }
    return Report.from_dict(
        {
            "verdict": "wrong_answer",
            "score": 0.0,
            "message": "0 of 2 tests passed.",
            "duration_ms": 12.0,
            "tests": [visible, _hidden_failure()],
            "stdout": stdout,
        }
    )


@pytest.mark.parametrize("verdict", sorted(VERDICTS))
def test_every_verdict_of_the_contract_has_one_wording(verdict: str) -> None:
    label = verdict_label(verdict)
    assert label == VERDICT_LABELS[verdict]
    assert label[0].isupper() and "_" not in label
    text = (ROOT / "docs" / "report-contract.md").read_text(encoding="utf-8")
    assert f"`{verdict}`" in text


def test_the_wording_table_names_exactly_the_contract_verdicts() -> None:
    assert set(VERDICT_LABELS) == VERDICTS
    assert len(set(VERDICT_LABELS.values())) == len(VERDICTS)


@pytest.mark.parametrize(
    ("verdict", "status", "line", "words"),
    [
        ("internal_error", "done", None, "Something went wrong on our side"),
        ("cancelled", "done", None, "Stopped"),
        ("syntax_error", "done", 3, "Syntax error on line 3"),
        ("syntax_error", "done", None, "Syntax error"),
        ("wrong_answer", "done", 3, "Wrong answer"),
        (None, "queued", None, "Waiting to be graded"),
        (None, "running", None, "Being graded"),
        (None, "done", None, "Not graded yet"),
        ("accepted", "running", None, "Being graded"),
    ],
)
def test_labels_say_the_status_while_pending_and_the_line_of_a_syntax_error(
    verdict: str | None, status: str, line: int | None, words: str
) -> None:
    assert verdict_label(verdict, status=status, line=line) == words


def test_a_student_sees_a_hidden_test_only_by_name_verdict_message_and_mistake() -> None:
    view = present_report(_report(), viewer=STUDENT)
    visible, hidden = view.tests
    assert (visible.cut, visible.inputs, visible.shapes) == (
        False,
        "positions (2,)",
        "expected shape (2, 4), got (4, 2)",
    )
    assert hidden.cut and not hidden.revealed
    assert (hidden.name, hidden.label, hidden.message) == (
        "hidden: long sequences",
        "Wrong answer",
        "values differ",
    )
    assert hidden.details == [] and hidden.inputs == "" and hidden.shapes == ""
    assert hidden.expected is None and hidden.received is None
    assert (hidden.hint, hidden.hint_title) == ("", "")  # pages print no hint beside it
    shown = hidden.as_json()
    assert sorted(shown) == sorted(
        ["name", "hidden", "passed", "verdict", "message", "misconception", "verdict_label"]
    )
    assert SECRET not in json.dumps([t.as_json() for t in view.tests])


@pytest.mark.parametrize("viewer", [STAFF, Viewer(hidden_open=True)], ids=["staff", "opened"])
def test_staff_and_opened_students_see_what_a_hidden_test_checked(viewer: Viewer) -> None:
    hidden = present_report(_report(), viewer=viewer).tests[1]
    assert hidden.hidden and hidden.revealed and not hidden.cut
    assert hidden.details == [SECRET, "first difference at [3]"]
    assert hidden.shapes == "expected shape (1, 1, 4), got (1, 1, 4)"
    assert hidden.inputs == "positions (1, 1)"
    assert (hidden.hint_title, hidden.hint) == ("Off by one", "Start at 0.")
    shown = hidden.as_json()
    assert "reveal" not in shown and shown["revealed"] is True
    assert shown["expected"] == [[[0.25]]] and shown["received"] == [[[0.5]]]


def test_printed_output_of_hidden_tests_reaches_staff_and_opened_students_only() -> None:
    report = _report(stdout=f"debug {SECRET}\n")
    student = present_report(report, viewer=STUDENT)
    assert student.stdout == "" and student.stdout_hidden
    for viewer in (STAFF, Viewer(hidden_open=True)):
        seen = present_report(report, viewer=viewer)
        assert SECRET in seen.stdout and not seen.stdout_hidden


def test_a_report_without_hidden_tests_shows_its_output_to_students() -> None:
    report = Report.from_dict({**_report(stdout="hi\n").to_dict(), "tests": []})
    view = present_report(report, viewer=STUDENT)
    assert (view.stdout, view.stdout_hidden) == ("hi\n", False)


def test_the_row_columns_win_over_the_report_and_a_pending_row_has_no_report() -> None:
    row = _row("lab-input-absolute-bias", _saved("lab-input-absolute-bias"))
    view = present(row, viewer=STUDENT)
    assert view.score == 0.5 and view.graded_score == row.report["score"]  # an override
    pending = present(_row("queued", None), viewer=STUDENT)
    assert (pending.label, pending.tests, pending.stdout) == ("Waiting to be graded", [], "")


CASES = sorted(p.stem for p in SAVED.glob("*.json") if not p.name.endswith(".api.json"))


@pytest.mark.parametrize("name", [*CASES, "queued"])
@pytest.mark.parametrize("viewer", list(VIEWERS))
def test_the_api_json_of_a_saved_report_is_unchanged(name: str, viewer: str) -> None:
    expected = json.loads((SAVED / f"{name}.api.json").read_text(encoding="utf-8"))[viewer]
    row = _row(name, None if name == "queued" else _saved(name))
    got = json.loads(json.dumps(submission_json(row, viewer=VIEWERS[viewer])))
    assert got == expected
