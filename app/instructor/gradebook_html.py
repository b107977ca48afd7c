"""The gradebook table's body, built in Python in one pass (issue 27, point 6).

A 500-student offering's page has some 25,000 cells; a Jinja loop with a macro call, filters
and attribute lookups per cell took most of the page's time. Here each column's fixed markup
is escaped once, each cell is one f-string, and everything that comes from users (names,
emails) goes through `markupsafe.escape`. The result is `Markup`, so the template prints it as
it is; it is the same markup the template used to write, without the indentation.
"""

from __future__ import annotations

import datetime as dt

from markupsafe import Markup, escape

from app.assessments.gradebook import AssessmentCell
from app.instructor.course_grade import DEFAULT, Scheme, course_grade
from app.instructor.gradebook import ExerciseCell, Gradebook, QuizCell, Row
from app.instructor.web import percent

DASH = "–"
LATE = ' <span class="badge late">late</span>'


def _late(cell: ExerciseCell | QuizCell | AssessmentCell, title: bool = True) -> str:
    if not cell.late:
        return ""
    if not cell.penalty:
        return LATE
    hint = ' title="score before the late penalty"' if title else ""
    return (
        f'{LATE} <small class="muted"{hint}>raw {percent(cell.raw)}, −{percent(cell.penalty)}'
        "</small>"
    )


def _assessment(cell: AssessmentCell | None) -> str:
    if cell is None:
        return DASH
    if cell.best is not None:
        released = "" if cell.released else ' <span class="badge">not released</span>'
        return f"{percent(cell.best)}{_late(cell, title=False)}{released}"
    return "running" if cell.running else "grading" if cell.grading else DASH


AWAITING = '<span class="badge awaiting">awaiting grading</span>'


def _when(value: dt.datetime | None) -> str:
    """As `web.when` writes it; the gradebook's times are already UTC (isoformat is faster)."""
    return DASH if value is None else f"{value.isoformat(' ', 'minutes')[:16]} UTC"


def _value(best: float | None) -> str:
    return "-1" if best is None else str(best)


def table_body(book: Gradebook, base: str = "", scheme: Scheme = DEFAULT) -> Markup:
    """Every `<tr>` of the gradebook's `<tbody>`, escaped, in the rows' order.

    `base` is '' or '/offerings/{id}' (the request's offering): the students' links stay in it.
    """
    exercises = [
        (c.slug, f'<td class="num" data-key="{escape(c.slug)}" data-value="')
        for c in book.shown_exercises
    ]
    quizzes = [
        (c.slug, f'<td class="num" data-key="quiz:{escape(c.slug)}" data-value="')
        for c in book.shown_quizzes
    ]
    assessments = [
        (c.slug, f'<td class="num" data-assessment="{escape(c.slug)}">') for c in book.assessments
    ]
    columns = len(book.exercises)
    items = book.items
    out: list[str] = []
    add = out.append
    for row in book.rows:
        add(_head(row, base))
        for slug, start in exercises:
            ex = row.exercises.get(slug)
            if ex is None:
                add(f'{start}-1">{DASH}</td><td class="num">0</td><td>{DASH}</td>')
            elif ex.awaiting:
                add(f'{start}-1">{AWAITING}</td><td class="num">{ex.attempts}</td><td>{DASH}</td>')
            else:
                add(
                    f'{start}{_value(ex.best)}">{percent(ex.best)}{_late(ex)}</td>'
                    f'<td class="num">{ex.attempts}</td><td>{_when(ex.solved_at)}</td>'
                )
        for slug, start in quizzes:
            quiz = row.quizzes.get(slug)
            if quiz is None:
                add(f'{start}-1">{DASH}</td>')
            else:
                add(f'{start}{_value(quiz.best)}">{percent(quiz.best)}{_late(quiz)}</td>')
        for slug, start in assessments:
            add(f"{start}{_assessment(row.assessments.get(slug))}</td>")
        total, grade = row.total(items), course_grade(book, row, scheme).grade
        add(
            f'<td class="num">{row.solved} / {columns}</td>'
            f'<td class="num" data-key="total" data-value="{total}">{percent(total)}</td>'
            f'<td class="num" data-key="grade" data-value="{grade}">{percent(grade)}</td></tr>\n'
        )
    return Markup("".join(out))  # noqa: S704 - every user-given part is escaped above


def _head(row: Row, base: str) -> str:
    """The row's start: the student's name (a link to their page, under `base`) and email."""
    name, email = row.name, row.email
    return (
        f'<tr data-student="{escape(f"{name} {email}".lower())}">'
        f'<th scope="row" data-key="student" data-value="{escape((name or email).lower())}">'
        f'<a href="{base}/instructor/students/{row.user_id}">{escape(name or "(no name)")}</a></th>'
        f'<td data-key="email" data-value="{escape(email.lower())}">{escape(email)}</td>'
    )
