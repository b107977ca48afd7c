"""A student's past submissions as pages show them: history rows, one graded report, solutions.

Reports come from the presenter (presenter.py), which cuts hidden tests down for students; the
page prints a declared mistake's hint only beside values the reader may see.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.loader import Exercise
from app.models_base import as_utc, utcnow
from app.submissions.models import PRACTICE, Submission
from app.submissions.presenter import TestView, Viewer, present, verdict_class, verdict_label
from app.submissions.views import FRAMEWORK_LABELS

# Same class names as the lesson code blocks, so /styles/code.css colours this code too.
_FORMATTER = HtmlFormatter(cssclass="highlight", nowrap=True)
_UNITS = (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("hour", 3600))


def iso_utc(value: dt.datetime) -> str:
    """2024-05-01T12:30:00Z: exact, sortable, and the same for every reader."""
    return as_utc(value).isoformat(timespec="seconds").replace("+00:00", "Z")


def relative_label(value: dt.datetime, now: dt.datetime) -> str:
    """'just now', '5 minutes ago', '2 days ago': the rough age next to the exact time."""
    seconds = int((as_utc(now) - as_utc(value)).total_seconds())
    if seconds < 60:
        return "just now"
    for name, size in _UNITS:
        if seconds >= size:
            count = seconds // size
            return f"{count} {name}{'s' if count != 1 else ''} ago"
    minutes = seconds // 60
    return f"{minutes} minute{'s' if minutes != 1 else ''} ago"


def highlight_python(code: str) -> str:
    """Escaped, coloured HTML for Python source (Pygments escapes every character it emits)."""
    return str(highlight(code, PythonLexer(), _FORMATTER))


def editor_url(row: Submission) -> str:
    """The exercise page with this submission's code loaded into the editor."""
    query = urlencode({"framework": row.framework, "from": row.id})
    return f"/exercises/{row.exercise_slug}?{query}"


def percent(score: float | None) -> int | None:
    """A 0-1 score as a whole percentage."""
    return None if score is None else round(100 * score)


@dataclass(frozen=True)
class Stamp:
    """When something happened: the exact UTC time and a rough age."""

    iso: str
    label: str

    @classmethod
    def of(cls, value: dt.datetime, now: dt.datetime) -> Stamp:
        """Both forms of one time."""
        return cls(iso_utc(value), relative_label(value, now))


@dataclass(frozen=True)
class HistoryRow:
    """One line of an exercise's submission history."""

    id: int
    url: str
    when: Stamp
    framework: str
    mode: str
    verdict: str
    verdict_class: str
    score: int | None


@dataclass(frozen=True)
class SubmissionView:
    """One submission page: the code, the graded report, and where to go from here."""

    id: int
    exercise_slug: str
    exercise_title: str
    framework: str
    mode: str
    status: str
    when: Stamp
    verdict: str
    verdict_class: str
    score: int | None
    message: str
    line: int | None
    tests: list[TestView]
    passed: int
    code_html: str
    editor_url: str
    history_url: str
    author: str
    stdout: str


@dataclass(frozen=True)
class SolutionBlock:
    """The model solution in one framework."""

    framework: str
    label: str
    code_html: str


def mode_label(mode: str) -> str:
    """Run (visible tests) or Submit (every test)."""
    return "Submit" if mode == "submit" else "Run"


def own_submissions(
    *, session: Session, user_id: int, exercise_slug: str, course_slug: str
) -> list[Submission]:
    """This student's practice submissions of one course's exercise, newest first (an
    assessment's answers are shown on the attempt's page, with its score, once released)."""
    return list(
        session.scalars(
            select(Submission)
            .where(
                Submission.user_id == user_id,
                Submission.exercise_slug == exercise_slug,
                Submission.course_slug == course_slug,
                Submission.purpose == PRACTICE,
            )
            .order_by(Submission.created_at.desc(), Submission.id.desc())
        )
    )


def history_rows(rows: Sequence[Submission], now: dt.datetime | None = None) -> list[HistoryRow]:
    """The history table, one row per submission, in the order given."""
    now = now or utcnow()
    return [
        HistoryRow(
            id=row.id,
            url=f"/submissions/{row.id}",
            when=Stamp.of(row.created_at, now),
            framework=FRAMEWORK_LABELS.get(row.framework, row.framework),
            mode=mode_label(row.mode),
            verdict=verdict_label(row.verdict, status=row.status),
            verdict_class=verdict_class(row.verdict, row.status),
            score=percent(row.score) if row.status == "done" else None,
        )
        for row in rows
    ]


def submission_view(
    row: Submission,
    *,
    exercise: Exercise | None,
    for_instructor: bool,
    author: str = "",
    now: dt.datetime | None = None,
    hidden_open: bool = False,
) -> SubmissionView:
    """Everything the submission page shows, with hidden tests cut down for students.

    `hidden_open` is the exercise's hidden-test visibility for this student (after the due
    date, or always): the hidden tests then show what they checked, as on the result page.
    """
    report = present(row, viewer=Viewer(staff=for_instructor, hidden_open=hidden_open))
    return SubmissionView(
        id=row.id,
        exercise_slug=row.exercise_slug,
        exercise_title=exercise.meta.title if exercise else row.exercise_slug,
        framework=FRAMEWORK_LABELS.get(row.framework, row.framework),
        mode=mode_label(row.mode),
        status=row.status,
        when=Stamp.of(row.created_at, now or utcnow()),
        verdict=verdict_label(row.verdict, status=row.status),
        verdict_class=verdict_class(row.verdict, row.status),
        score=percent(row.score) if row.status == "done" else None,
        message=row.message or "",
        line=report.line,
        tests=report.tests,
        passed=report.passed,
        code_html=highlight_python(row.code),
        editor_url=editor_url(row),
        history_url=f"/exercises/{row.exercise_slug}/history",
        author=author,
        stdout=report.stdout,
    )


def solution_blocks(exercise: Exercise) -> list[SolutionBlock]:
    """The model solution of every framework the exercise offers, highlighted."""
    return [
        SolutionBlock(fw, FRAMEWORK_LABELS.get(fw, fw), highlight_python(exercise.solutions[fw]))
        for fw in exercise.meta.frameworks
        if fw in exercise.solutions
    ]
