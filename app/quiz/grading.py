"""Grades one quiz question on the server; answers never need to reach the browser first."""

from __future__ import annotations

import hashlib
import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from app.content.schemas import MultipleChoice, Numeric, Question, Shape, SingleChoice
from app.quiz.answers import (
    AnswerError,
    ExpectedError,
    evaluate,
    numeric_correct,
    shape_correct,
)

log = logging.getLogger(__name__)
UNCHECKABLE = "This question cannot be checked right now; your instructor has been told."
MAX_VARIANTS = 1000  # every student's numbers are checked, up to this many combinations


@dataclass(frozen=True)
class QuestionResult:
    """The verdict on one answer, with what to show the student."""

    correct: bool
    message: str


def variant_params(question: Question, *, seed: str) -> dict[str, int]:
    """This student's numbers for a parameterised question: stable, different per student."""
    chosen: dict[str, int] = {}
    for name, values in sorted(question.params.items()):
        digest = hashlib.sha256(f"{seed}:{question.id}:{name}".encode()).digest()
        chosen[name] = values[int.from_bytes(digest[:8], "big") % len(values)]
    return chosen


def first_variant(question: Question) -> dict[str, int]:
    """The first value of every parameter (what validate checks accept/reject lists with)."""
    return {name: values[0] for name, values in question.params.items()}


def grade_question(
    question: Question, answer: str | list[str] | None, *, params: Mapping[str, int]
) -> QuestionResult:
    """Grade one answer; unreadable input is wrong with a message saying how to write it."""
    if isinstance(question, SingleChoice):
        right = next(c.id for c in question.choices if c.correct)
        chosen = answer if isinstance(answer, str) else None
        return QuestionResult(chosen == right, "" if chosen else "No option was chosen.")
    if isinstance(question, MultipleChoice):
        picked = {answer} if isinstance(answer, str) else set(answer or [])
        right_set = {c.id for c in question.choices if c.correct}
        return QuestionResult(picked == right_set, "")
    if not isinstance(answer, str) or not answer.strip():
        return QuestionResult(False, "No answer was given.")
    try:
        if isinstance(question, Numeric):
            ok = numeric_correct(
                answer, expected=question.answer, tolerance=question.tolerance, params=params
            )
        else:
            assert isinstance(question, Shape)
            ok = shape_correct(
                answer, expected=question.answer, aliases=question.aliases, params=params
            )
    except ExpectedError as exc:  # the author's mistake: logged for staff, hidden from students
        log.error("quiz question '%s' cannot be checked with %s: %s", question.id, params, exc)
        return QuestionResult(False, UNCHECKABLE)
    except AnswerError as exc:
        return QuestionResult(False, f"We could not read that answer: {exc}.")
    return QuestionResult(ok, "")


def answer_problem(question: Numeric) -> str | None:
    """Why the question's own answer cannot be computed for some student's numbers, or None."""
    names = sorted(question.params)
    for values in itertools.islice(
        itertools.product(*(question.params[n] for n in names)), MAX_VARIANTS
    ):
        params = dict(zip(names, values, strict=True))
        try:
            evaluate(question.answer, params)
        except AnswerError as exc:
            numbers = ", ".join(f"{name}={value}" for name, value in params.items())
            where = f" with {numbers}" if numbers else ""
            return f"its answer '{question.answer}' cannot be computed{where}: {exc}"
    return None


def question_problems(question: Question) -> list[str]:
    """What is wrong with a question's own answer and accept/reject examples (empty if none)."""
    if not isinstance(question, Numeric | Shape):
        return []
    if isinstance(question, Numeric) and (problem := answer_problem(question)) is not None:
        return [problem]
    params = first_variant(question)
    problems: list[str] = []
    for example in question.accept:
        if not grade_question(question, example, params=params).correct:
            problems.append(f"accepted example '{example}' is graded wrong")
    for example in question.reject:
        if grade_question(question, example, params=params).correct:
            problems.append(f"rejected example '{example}' is graded right")
    return problems


def check_examples(question: Question) -> list[str]:
    """The same, each naming the question (as `validate` prints them)."""
    return [f"question '{question.id}': {problem}" for problem in question_problems(question)]
