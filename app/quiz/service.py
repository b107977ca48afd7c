"""Grading a whole quiz attempt on the server and storing it; answers stay here until then."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.content.schemas import MultipleChoice, Question, SingleChoice
from app.courses.first import first_course_slug
from app.deadlines.policy import refusal_message
from app.deadlines.rules import lateness
from app.hooks import practice_closed
from app.models_base import utcnow
from app.offerings.first import dated_in
from app.offerings.place import Place
from app.offerings.service import offering_for_work
from app.progress.models import QuizAttempt
from app.progress.service import save_quiz_attempt
from app.quiz.grading import first_variant, grade_question, variant_params

Answer = str | list[str]
MAX_ANSWER_CHARS = 1000
MAX_PICKS = 50
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fill(text: str, params: Mapping[str, int]) -> str:
    """Put this student's numbers into {name} placeholders; other braces (LaTeX) stay."""
    if not params:
        return text
    return _PLACEHOLDER.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], text)


def params_for(question: Question, user_id: int | None) -> dict[str, int]:
    """A student's own variant (seeded by the account id); visitors all see the first one."""
    if not question.params:
        return {}
    if user_id is None:
        return first_variant(question)
    return variant_params(question, seed=str(user_id))


def normalise_answer(question: Question, raw: object) -> Answer | None:
    """Bound and tidy one submitted answer so what is stored is what was graded."""
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, int | float):
        raw = repr(raw)
    if isinstance(question, MultipleChoice):
        items = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
        picked = {
            str(item)[:MAX_ANSWER_CHARS] for item in items[:MAX_PICKS] if isinstance(item, str)
        }
        return sorted(picked)
    if isinstance(raw, str):
        return raw[:MAX_ANSWER_CHARS]
    return None


def answers_from_form(questions: Sequence[Question], form: Any) -> dict[str, Answer]:
    """Read `q-<id>` fields from an HTML form; checkboxes repeat their name."""
    answers: dict[str, Answer] = {}
    for question in questions:
        key = f"q-{question.id}"
        if isinstance(question, MultipleChoice):
            values = [v for v in form.getlist(key) if isinstance(v, str)]
            answers[question.id] = values
        else:
            value = form.get(key)
            if isinstance(value, str):
                answers[question.id] = value
    return answers


def _result(question: Question, answer: Answer | None, params: dict[str, int]) -> dict[str, Any]:
    verdict = grade_question(question, answer, params=params)
    message = verdict.message
    choices: list[dict[str, Any]] = []
    if isinstance(question, SingleChoice | MultipleChoice):
        picked = {answer} if isinstance(answer, str) else set(answer or [])
        if not picked:
            message = "No option was chosen."
        choices = [
            {
                "id": c.id,
                "text": fill(c.text, params),
                "chosen": c.id in picked,
                "correct": c.correct,
                "why": fill(c.why, params) if c.why else None,
            }
            for c in question.choices
        ]
    whys = [f"{c['text']}: {c['why']}" for c in choices if c["chosen"] and c["why"]]
    return {
        "id": question.id,
        "type": question.type,
        "correct": verdict.correct,
        "answer": answer,
        "params": params,
        "prompt": fill(question.prompt, params),
        "message": message,
        "explanation": fill(question.explanation, params),
        "feedback": " ".join([message, *whys]).strip(),
        "choices": choices,
    }


@dataclass(frozen=True)
class GradedQuiz:
    """Every question's result plus the overall score."""

    answers: dict[str, Answer | None]
    questions: list[dict[str, Any]]
    ignored: list[str]

    @property
    def correct(self) -> int:
        """How many questions were answered right."""
        return sum(bool(q["correct"]) for q in self.questions)

    @property
    def score(self) -> float:
        """Fraction answered right, 0.0 to 1.0."""
        return self.correct / len(self.questions) if self.questions else 0.0


def grade_quiz(
    questions: Sequence[Question], answers: Mapping[str, object], *, user_id: int | None
) -> GradedQuiz:
    """Grade every question (a missing answer is wrong); unknown ids are listed, not graded."""
    known = {q.id for q in questions}
    ignored = sorted(str(key)[:100] for key in answers if key not in known)
    stored: dict[str, Answer | None] = {}
    results = []
    for question in questions:
        answer = normalise_answer(question, answers.get(question.id))
        stored[question.id] = answer
        results.append(_result(question, answer, params_for(question, user_id)))
    return GradedQuiz(answers=stored, questions=results, ignored=ignored)


def quiz_held(
    *, session: Session, user_id: int, course_slug: str, lesson_slug: str, ids: Sequence[str]
) -> str | None:
    """Why this lesson's quiz is closed to this student now (an exam holds one of its
    questions): no check, and no past results, whose explanations carry the answers."""
    return practice_closed(
        session=session,
        user_id=user_id,
        course_slug=course_slug,
        keys=[f"q:{lesson_slug}/{question_id}" for question_id in ids],
        now=utcnow(),
    )


def submit_attempt(
    *,
    session: Session,
    lesson_slug: str,
    questions: Sequence[Question],
    answers: Mapping[str, object],
    user_id: int,
    graded_in: tuple[str, str | None] | None = None,
    due: dt.datetime | None = None,
    place: Place | None = None,
) -> tuple[QuizAttempt, GradedQuiz]:
    """Grade and store one attempt (`graded_in`: course slug and content version; `due`: the
    content's due date, which the offering's own date and late policy may change).

    A quiz holding a question of the student's running exam is refused whole, ungraded: an
    answer checked here would tell the exam's answer (`hooks.PRACTICE_CLOSED`)."""
    held = quiz_held(
        session=session,
        user_id=user_id,
        course_slug=graded_in[0] if graded_in is not None else first_course_slug(),
        lesson_slug=lesson_slug,
        ids=[question.id for question in questions],
    )
    if held:
        raise QuizRefused(held)
    refuse_if_closed(
        session=session,
        user_id=user_id,
        lesson_slug=lesson_slug,
        due=due,
        course_slug=graded_in[0] if graded_in is not None else None,
        place=place,
    )
    graded = grade_quiz(questions, answers, user_id=user_id)
    attempt = save_quiz_attempt(
        session=session,
        user_id=user_id,
        lesson_slug=lesson_slug,
        answers=dict(graded.answers),
        results={"questions": graded.questions, "ignored": graded.ignored},
        score=graded.score,
        graded_in=graded_in,
        place=place,
    )
    return attempt, graded


class QuizRefused(Exception):
    """An attempt refused, ungraded: the offering's late policy (the message says when it was
    due) or a running exam that holds one of its questions (the message says so)."""


def refuse_if_closed(
    *,
    session: Session,
    user_id: int,
    lesson_slug: str,
    due: dt.datetime | None,
    course_slug: str | None,
    place: Place | None = None,
) -> None:
    """Raise QuizRefused when the offering refuses late work and this quiz is past due."""
    offering_id = offering_for_work(
        session=session,
        user_id=user_id,
        course_slug=course_slug or first_course_slug(),
        named=place.offering_id if place is not None else None,
    )
    standing = lateness(
        session=session,
        user_id=user_id,
        kind="quiz",
        slug=lesson_slug,
        due=due,
        at=utcnow(),
        offering_id=dated_in(
            session=session, offering_id=offering_id, course_slug=course_slug or first_course_slug()
        ),
    )
    if standing.refused and standing.due is not None:
        raise QuizRefused(
            refusal_message(due=standing.due, what="quiz")
            + " Your answers were not saved; they are still in the form."
        )


def ignored_note(ignored: Sequence[str]) -> str | None:
    """Tells an API caller which ids were not part of the quiz."""
    if not ignored:
        return None
    return "These ids are not questions of this quiz and were ignored: " + ", ".join(ignored)


def api_result(question: Mapping[str, Any]) -> dict[str, Any]:
    """One question's result as the JSON API shows it."""
    return {
        "id": question["id"],
        "correct": question["correct"],
        "answer": question["answer"],
        "message": question["message"],
        "explanation": question["explanation"],
        "feedback": question["feedback"],
    }


def api_attempt(attempt: QuizAttempt) -> dict[str, Any]:
    """A stored attempt as the JSON API shows it."""
    questions = attempt.results.get("questions", [])
    ignored = attempt.results.get("ignored", [])
    return {
        "id": attempt.id,
        "lesson": attempt.lesson_slug,
        "score": attempt.score,
        "correct": sum(bool(q.get("correct")) for q in questions),
        "total": len(questions),
        "created_at": attempt.created_at.isoformat(),
        "results": [api_result(q) for q in questions],
        "ignored": ignored,
        "note": ignored_note(ignored),
    }
