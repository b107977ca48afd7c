"""What the lesson page shows of a quiz: the empty form, or the latest attempt's results.

The form view is built only from prompts and option texts; correct flags, `why` texts and
explanations are read only when showing an attempt that has already been graded.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from sqlalchemy.orm import Session

from app.content.loader import Lesson
from app.content.render import render_markdown
from app.content.schemas import MultipleChoice, Numeric, Question, Shape, SingleChoice
from app.progress.models import QuizAttempt
from app.progress.service import count_quiz_attempts, latest_quiz_attempt
from app.quiz.service import fill, params_for
from app.users.models import User

PLACEHOLDERS = {"numeric": "a number, e.g. 4096 or 64*64", "shape": "e.g. (512, 768)"}


def inline_html(text: str) -> str:
    """Markdown for a short label: the same renderer, without the wrapping paragraph."""
    html = render_markdown(text).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        return html[3:-4]
    return html


@dataclass(frozen=True)
class ChoiceView:
    """An option as the form shows it: its id and text, nothing about whether it is right."""

    id: str
    html: str


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: see _form_question
class QuestionView:
    """One question of the empty form."""

    id: str
    type: str
    number: int
    prompt_html: str
    choices: list[ChoiceView]
    placeholder: str


@dataclass(frozen=True)
class ResultChoiceView:
    """An option after grading: whether it was picked, whether it is right, and why."""

    html: str
    chosen: bool
    correct: bool
    why_html: str


@dataclass(frozen=True)
class ResultView:
    """One graded question of an attempt."""

    id: str
    type: str
    number: int
    prompt_html: str
    correct: bool
    answer: str
    message: str
    explanation_html: str
    choices: list[ResultChoiceView]


@dataclass(frozen=True)
class AttemptView:
    """The latest attempt, ready to show."""

    id: int
    correct: int
    total: int
    percent: int
    created_at: dt.datetime
    results: list[ResultView]


@dataclass(frozen=True)
class QuizView:
    """Everything lesson.html needs for its quiz section."""

    slug: str
    action: str
    questions: list[QuestionView]
    attempt: AttemptView | None
    attempts: int
    logged_in: bool
    login_url: str
    signup_url: str


def question_view(question: Question, number: int, params: Mapping[str, int]) -> QuestionView:
    """The form's view of one question, with this student's numbers filled in."""
    choices: list[ChoiceView] = []
    if isinstance(question, SingleChoice | MultipleChoice):
        choices = [ChoiceView(c.id, inline_html(fill(c.text, params))) for c in question.choices]
    placeholder = (
        PLACEHOLDERS.get(question.type, "") if isinstance(question, Numeric | Shape) else ""
    )
    return QuestionView(
        id=question.id,
        type=question.type,
        number=number,
        prompt_html=render_markdown(fill(question.prompt, params)),
        choices=choices,
        placeholder=placeholder,
    )


def _answer_text(result: Mapping[str, Any]) -> str:
    answer = result.get("answer")
    if result.get("type") in ("single", "multiple"):
        return ""
    return answer.strip() if isinstance(answer, str) and answer.strip() else ""


def _result_view(result: Mapping[str, Any], number: int) -> ResultView:
    choices = [
        ResultChoiceView(
            html=inline_html(str(c.get("text", ""))),
            chosen=bool(c.get("chosen")),
            correct=bool(c.get("correct")),
            why_html=inline_html(str(c["why"]))
            if c.get("why") and (c.get("chosen") or c.get("correct"))
            else "",
        )
        for c in result.get("choices", [])
    ]
    return ResultView(
        id=str(result.get("id", "")),
        type=str(result.get("type", "")),
        number=number,
        prompt_html=render_markdown(str(result.get("prompt", ""))),
        correct=bool(result.get("correct")),
        answer=_answer_text(result),
        message=str(result.get("message") or ""),
        explanation_html=render_markdown(str(result.get("explanation", ""))),
        choices=choices,
    )


def attempt_view(attempt: QuizAttempt) -> AttemptView:
    """A stored attempt as the page shows it (from what was stored, so history stays true)."""
    questions: list[dict[str, Any]] = list(attempt.results.get("questions", []))
    correct = sum(bool(q.get("correct")) for q in questions)
    return AttemptView(
        id=attempt.id,
        correct=correct,
        total=len(questions),
        percent=round(100 * attempt.score),
        created_at=attempt.created_at,
        results=[_result_view(q, i) for i, q in enumerate(questions, start=1)],
    )


# (id of the question, its number, the variant) -> (the question, its view); a bound on the
# entries instead of an LRU: a course has a few hundred (question, variant) pairs.
_FORM_VIEWS: dict[tuple[int, int, tuple[tuple[str, int], ...]], tuple[Question, QuestionView]] = {}
FORM_VIEWS_MAX = 4096


def _form_question(question: Question, number: int, params: Mapping[str, int]) -> QuestionView:
    """The same view object for the same question and numbers, so its HTML is rendered once.

    Why: every student with the same variant sees the same form; building and rendering it for
    each of them was a third of a lesson page (issue 23; templates/quiz/_question.html). The
    entry holds the question itself, so its id is not reused while the entry lives, and content
    loaded again (new question objects) gets new views.
    """
    key = (id(question), number, tuple(sorted(params.items())))
    hit = _FORM_VIEWS.get(key)
    if hit is not None and hit[0] is question:
        return hit[1]
    view = question_view(question, number, params)
    if len(_FORM_VIEWS) >= FORM_VIEWS_MAX:
        _FORM_VIEWS.clear()  # content replaced many times over: start again
    _FORM_VIEWS[key] = (question, view)
    return view


def form_questions(questions: Sequence[Question], user: User | None) -> list[QuestionView]:
    """The empty form, with each student's own variant."""
    user_id = user.id if user else None
    return [_form_question(q, i, params_for(q, user_id)) for i, q in enumerate(questions, start=1)]


def quiz_view(
    *,
    session: Session,
    lesson: Lesson,
    user: User | None,
    retake: bool = False,
    attempts: int | None = None,
    course_slug: str | None = None,
) -> QuizView | None:
    """The quiz section of a lesson page; None when the lesson has no quiz.

    `attempts` is the user's count of attempts when the caller has it already (the lesson page
    reads it with the lesson's read state), saving a query; `course_slug`: the page's course
    (None: the first), whose attempts these are.
    """
    questions = lesson.meta.quiz
    if not questions:
        return None
    slug = lesson.meta.slug
    attempt = None
    if user is None:
        attempts = 0
    else:
        if attempts is None:
            attempts = count_quiz_attempts(
                session=session, user_id=user.id, lesson_slug=slug, course_slug=course_slug
            )
        if attempts and not retake:
            latest = latest_quiz_attempt(
                session=session, user_id=user.id, lesson_slug=slug, course_slug=course_slug
            )
            attempt = attempt_view(latest) if latest else None
    back = quote(f"/lessons/{slug}#quiz", safe="/")
    return QuizView(
        slug=slug,
        action=f"/lessons/{slug}/quiz",
        questions=[] if attempt else form_questions(questions, user),
        attempt=attempt,
        attempts=attempts,
        logged_in=user is not None,
        login_url=f"/login?next={back}",
        signup_url=f"/signup?next={back}",
    )
