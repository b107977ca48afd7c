"""Grades one quiz question on the server; answers never need to reach the browser first."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from app.content.schemas import MultipleChoice, Numeric, Question, Shape, SingleChoice
from app.quiz.answers import AnswerError, evaluate, numeric_correct, shape_correct


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
    except AnswerError as exc:
        return QuestionResult(False, f"We could not read that answer: {exc}.")
    return QuestionResult(ok, "")


def check_examples(question: Question) -> list[str]:
    """Problems with a question's own accept/reject examples (empty when all behave)."""
    if not isinstance(question, Numeric | Shape):
        return []
    params = first_variant(question)
    problems: list[str] = []
    if isinstance(question, Numeric):
        try:
            evaluate(question.answer, params)
        except AnswerError as exc:
            problems.append(f"question '{question.id}': its answer cannot be computed: {exc}")
            return problems
    prefix = f"question '{question.id}'"
    for example in question.accept:
        if not grade_question(question, example, params=params).correct:
            problems.append(f"{prefix}: accepted example '{example}' is graded wrong")
    for example in question.reject:
        if grade_question(question, example, params=params).correct:
            problems.append(f"{prefix}: rejected example '{example}' is graded right")
    return problems
