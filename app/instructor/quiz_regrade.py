"""Regrading a quiz after its answer key changed: every stored attempt in the offering is
scored again against the key now served, in the request (pure Python over stored answers, no
sandbox: about a millisecond an attempt). Changed scores queue their LMS post in the same
transaction; exam attempts holding the quiz's questions are regraded by the exam's own rules
(their post waits for the exam's release)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assessments.models import AssessmentAttempt
from app.assessments.scoring import answers_of_attempt, grade_questions
from app.assessments.scoring import regrade as regrade_exam_attempt
from app.assessments.service import course_slug_of
from app.content.loader import Course
from app.content.schemas import Question
from app.events import grade_recorded
from app.models_base import utcnow
from app.offerings.access import work_here
from app.offerings.place import Place
from app.progress.models import QuizAttempt
from app.quiz.service import grade_quiz


@dataclass(frozen=True)
class QuizRegrade:
    """What a regrade did: attempts looked at and scores changed, practice and exams apart."""

    lesson: str
    attempts: int
    changed: int
    exam_attempts: int
    exam_changed: int

    def as_json(self) -> dict[str, object]:
        """The API's answer."""
        return {
            "lesson": self.lesson,
            "attempts": self.attempts,
            "changed": self.changed,
            "exam_attempts": self.exam_attempts,
            "exam_changed": self.exam_changed,
        }


def _regrade_attempt(session: Session, attempt: QuizAttempt, questions: Sequence[Question]) -> bool:
    """Score one stored attempt against the current key; True (and LMS queued) if it changed."""
    graded = grade_quiz(questions, attempt.answers or {}, user_id=attempt.user_id)
    before = attempt.score
    verdicts_before = [bool(q.get("correct")) for q in attempt.results.get("questions", [])]
    verdicts_now = [bool(q["correct"]) for q in graded.questions]
    if before == graded.score and verdicts_before == verdicts_now:
        return False
    attempt.results = {
        **attempt.results,
        "questions": graded.questions,
        "regraded": {"from": before, "at": utcnow().isoformat()},
    }
    attempt.score = graded.score
    if before != graded.score:  # the gradebook reads the score; the LMS is told in this commit
        grade_recorded(
            session=session, user_id=attempt.user_id, kind="quiz", slug=attempt.lesson_slug
        )
    return before != graded.score


def _exam_key_changed(session: Session, course: Course, sitting: AssessmentAttempt) -> bool:
    """Whether any question of the handed-in attempt now scores otherwise than stored."""
    answers = answers_of_attempt(session, sitting.id)
    fresh = grade_questions(course=course, attempt=sitting, answers=answers)["items"]
    kept = (sitting.results or {}).get("items", {})
    return any(
        key.startswith("q:") and (kept.get(key) or {}).get("score") != value["score"]
        for key, value in fresh.items()
    )


def regrade_quiz(
    *, session: Session, course: Course, lesson_slug: str, place: Place
) -> QuizRegrade:
    """Regrade every attempt at the lesson's quiz made in this request's offering and course,
    then every handed-in exam attempt there that holds one of its questions."""
    lesson = course.lesson(lesson_slug)
    questions = list(lesson.meta.quiz) if lesson is not None else []
    attempts = list(
        session.scalars(
            select(QuizAttempt)
            .where(
                QuizAttempt.lesson_slug == lesson_slug,
                work_here(session, QuizAttempt.offering_id, place),
            )
            .order_by(QuizAttempt.id)
        )
    )
    changed = sum(_regrade_attempt(session, attempt, questions) for attempt in attempts)
    session.commit()
    prefix = f"q:{lesson_slug}/"
    sittings = [
        sitting
        for sitting in session.scalars(
            select(AssessmentAttempt)
            .where(
                AssessmentAttempt.status == "submitted",
                work_here(session, AssessmentAttempt.offering_id, place),
            )
            .order_by(AssessmentAttempt.id)
        )
        if sitting.course_slug == course_slug_of(course)
        and any(str(item.get("key", "")).startswith(prefix) for item in sitting.items)
    ]
    exam_changed = 0
    for sitting in sittings:
        if not _exam_key_changed(session, course, sitting):
            continue  # nothing to tell the LMS again
        before = sitting.score
        regrade_exam_attempt(session=session, course=course, attempt=sitting)
        exam_changed += sitting.score != before
    return QuizRegrade(lesson_slug, len(attempts), changed, len(sittings), exam_changed)
