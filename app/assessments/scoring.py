"""Grading a handed-in attempt: quiz items here, exercises by the usual submission path."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.assessments.loader import find_exercise, find_question
from app.assessments.models import Accommodation, AssessmentAnswer, AssessmentAttempt
from app.assessments.schema import Item
from app.config import get_settings
from app.content.loader import Course
from app.content.schemas import Question
from app.courses.service import process_registry
from app.deadlines.policy import DEFAULT, Lateness, after_penalty, judge, policy_for
from app.events import GradeRecorded
from app.lti.outbox import queue_grade
from app.models_base import as_utc, utcnow
from app.offerings.first import offering_and_legacy
from app.offerings.service import in_offering, work_in
from app.quiz.grading import grade_question, variant_params
from app.quiz.service import normalise_answer
from app.submissions.models import Submission, attempt_purpose
from app.submissions.service import SubmissionError, create_submission
from app.users.models import User

KIND = "assessment"  # the LTI link kind and the deadline kind of an assessment


def item_of(key: str) -> Item:
    """The Item a stored key stands for."""
    return Item(question=key[2:]) if key.startswith("q:") else Item(exercise=key[2:])


def question_params(attempt: AssessmentAttempt, question: Question) -> dict[str, int]:
    """The numbers this attempt shows for a parameterised question (seeded, reproducible)."""
    if not question.params:
        return {}
    return variant_params(question, seed=f"assessment:{attempt.seed}")


def grade_questions(
    *, course: Course, attempt: AssessmentAttempt, answers: Mapping[str, AssessmentAnswer]
) -> dict[str, Any]:
    """Each quiz item's verdict and points, stored with the attempt; exercises wait."""
    items: dict[str, Any] = {}
    for entry in attempt.items:
        key = entry["key"]
        if not key.startswith("q:"):
            items[key] = {"points": entry["points"], "score": None, "submission": None}
            continue
        question = find_question(course, item_of(key))
        saved = answers.get(key)
        if question is None:
            items[key] = {
                "points": entry["points"],
                "score": 0.0,
                "correct": False,
                "answer": None,
                "message": "This question was removed from the course.",
            }
            continue
        answer = normalise_answer(question, saved.value if saved else None)
        verdict = grade_question(question, answer, params=question_params(attempt, question))
        items[key] = {
            "points": entry["points"],
            "score": entry["points"] if verdict.correct else 0.0,
            "correct": verdict.correct,
            "answer": answer,
            "message": verdict.message,
        }
    return {"items": items}


def submit_exercises(
    *,
    session: Session,
    course: Course,
    attempt: AssessmentAttempt,
    enqueue: Callable[[int], None],
) -> list[int]:
    """Send each exercise's last saved code to the graders once (safe to call again)."""
    user = session.get(User, attempt.user_id)
    if user is None:
        return []
    queued: list[int] = []
    answers = answers_of_attempt(session, attempt.id)
    for entry in attempt.items:
        key = entry["key"]
        saved = answers.get(key)
        if not key.startswith("x:") or saved is None or saved.submission_id is not None:
            continue
        if find_exercise(course, item_of(key)) is None:
            continue
        try:
            row = create_submission(
                session=session,
                course=course,
                user=user,
                exercise=key[2:],
                code=saved.value["code"],
                framework=saved.value["framework"],
                mode="submit",
                max_bytes=get_settings().max_code_bytes,
                course_slug=attempt.course_slug,
                content_version=process_registry().version(attempt.course_slug),
                purpose=attempt_purpose(attempt.id),
                offering_id=attempt.offering_id,
                commit=False,
            )
        except SubmissionError:
            continue  # stays without a submission: the item scores 0
        if not _claimed(session, answer_id=saved.id, submission_id=row.id):
            session.rollback()  # another request sent this answer meanwhile: its row counts
            continue
        set_committed_value(saved, "submission_id", row.id)  # what the UPDATE stored
        session.commit()
        enqueue(row.id)
        queued.append(row.id)
    return queued


def code_to_send(attempt: AssessmentAttempt, answers: Mapping[str, AssessmentAnswer]) -> bool:
    """Whether a code answer of this attempt still waits to go to the graders."""
    return any(
        key.startswith("x:") and key in answers and answers[key].submission_id is None
        for key in (entry["key"] for entry in attempt.items)
    )


def _claimed(session: Session, *, answer_id: int, submission_id: int) -> bool:
    """Point the answer at this submission unless another request already did (a double click
    on Hand in, a page read beside the clock's hand-in): each answer is graded once."""
    claimed = session.execute(
        update(AssessmentAnswer)
        .where(AssessmentAnswer.id == answer_id, AssessmentAnswer.submission_id.is_(None))
        .values(submission_id=submission_id)
        .execution_options(synchronize_session=False)
    )
    return bool(claimed.rowcount == 1)  # type: ignore[attr-defined]


def answers_of_attempt(session: Session, attempt_id: int) -> dict[str, AssessmentAnswer]:
    """Saved answers by item key."""
    rows = session.scalars(
        select(AssessmentAnswer).where(AssessmentAnswer.attempt_id == attempt_id)
    )
    return {row.item_key: row for row in rows}


def settle(*, session: Session, attempt: AssessmentAttempt) -> bool:
    """Fill in exercise scores that are graded; once all are, store the attempt's score and
    queue its LMS post. Never commits: it runs inside the grade recorder's transaction too
    (`hooks.GRADE_RECORDED`), so the caller commits the grade and all that follows at once."""
    if attempt.status != "submitted" or attempt.results is None:
        return False
    answers = answers_of_attempt(session, attempt.id)
    items = {key: dict(value) for key, value in attempt.results.get("items", {}).items()}
    waiting = False
    for key, result in items.items():
        if not key.startswith("x:"):
            continue
        saved = answers.get(key)
        if saved is None or saved.submission_id is None:
            result.update(score=0.0, submission=None)
            continue
        row = session.get(Submission, saved.submission_id)
        if row is None or row.status != "done":
            waiting = True
            continue
        result.update(score=(row.score or 0.0) * result["points"], submission=row.id)
    attempt.results = {**attempt.results, "items": items}
    total = sum(r["points"] for r in items.values())
    if not waiting:
        got = sum(r["score"] or 0.0 for r in items.values())
        attempt.score = got / total if total else 0.0
    if not waiting:
        queue_grade(
            session=session,
            user_id=attempt.user_id,
            kind=KIND,
            slug=attempt.assessment_slug,
            not_before=attempt.release_at,
        )
    session.flush()
    return not waiting


def settle_for_submission(*, session: Session, submission_id: int) -> None:
    """A graded submission that belongs to a handed-in attempt completes that attempt's score.

    Called in the grader's transaction, after the report is written; the grader commits both.
    """
    attempt_id = session.scalar(
        select(AssessmentAnswer.attempt_id).where(AssessmentAnswer.submission_id == submission_id)
    )
    if attempt_id is None:
        return
    attempt = session.get(AssessmentAttempt, attempt_id)
    if attempt is not None:
        settle(session=session, attempt=attempt)


def settle_recorded_grade(event: GradeRecorded) -> None:
    """The subscriber: a graded submission settles the exam attempt it belongs to, if any."""
    if event.submission_id is not None:
        settle_for_submission(session=event.session, submission_id=event.submission_id)


def release_time(
    *,
    release: str | dt.datetime,
    closes: dt.datetime,
    accommodation: Accommodation | None,
    submitted_at: dt.datetime,
) -> dt.datetime:
    """When this attempt's score may be shown: at hand-in, after everyone's window, or a date."""
    if isinstance(release, dt.datetime):
        return as_utc(release)
    if release == "on_submit":
        return as_utc(submitted_at)
    own = accommodation.closes_at if accommodation and accommodation.closes_at else None
    return max(as_utc(closes), as_utc(own)) if own else as_utc(closes)


def set_release(*, session: Session, attempt: AssessmentAttempt) -> None:
    """Store when the attempt's score is released, by the rules frozen at its start."""
    rules = attempt.rules or {}
    if attempt.submitted_at is None or "release" not in rules:
        return
    # after_close waits for every student's window in the attempt's offering (a make-up
    # sitting too), so no one's results are out while another student may still sit it.
    found = session.scalar(
        select(Accommodation)
        .where(
            Accommodation.assessment_slug == attempt.assessment_slug,
            Accommodation.closes_at.is_not(None),
            in_offering(
                session=session,
                column=Accommodation.offering_id,
                offering_id=attempt.offering_id,
                course_slug=attempt.course_slug,
            ),
        )
        .order_by(Accommodation.closes_at.desc(), Accommodation.id)
    )
    release = rules["release"]
    attempt.release_at = release_time(
        release=release if release in ("on_submit", "after_close") else _when(release),
        closes=_when(rules["closes"]),
        accommodation=found,
        submitted_at=attempt.submitted_at,
    )


def _when(text: str) -> dt.datetime:
    return as_utc(dt.datetime.fromisoformat(text))


def released(attempt: AssessmentAttempt, now: dt.datetime) -> bool:
    """Whether the student (and the LMS) may see this attempt's score now."""
    return attempt.release_at is not None and as_utc(attempt.release_at) <= now


def lateness_of(*, session: Session, attempt: AssessmentAttempt, closes: dt.datetime) -> Lateness:
    """How a handed-in homework attempt stands against its closing time (exams are never late)."""
    if attempt.submitted_at is None or attempt.rules.get("kind", "exam") == "exam":
        return judge(DEFAULT, at=closes, due=closes)
    policy = policy_for(session=session, offering_id=attempt.offering_id)
    return judge(policy, at=attempt.submitted_at, due=closes)


def closes_for(
    attempt: AssessmentAttempt, own_closes: Mapping[tuple[int, str], dt.datetime]
) -> dt.datetime:
    """When the attempt's assessment closed for its student: their accommodation's own closing
    time (OWN_CLOSES, by user and slug), else the one the attempt froze at its start."""
    own = own_closes.get((attempt.user_id, attempt.assessment_slug))
    return own or as_utc(dt.datetime.fromisoformat(str(attempt.rules.get("closes"))))


def counted_score(
    *, session: Session, attempt: AssessmentAttempt, closes: dt.datetime
) -> tuple[float, Lateness]:
    """The score that counts (the gradebook's and the LMS's): the raw score less the penalty
    the offering's late policy takes from late homework."""
    standing = lateness_of(session=session, attempt=attempt, closes=closes)
    return after_penalty(attempt.score, standing.penalty) or 0.0, standing


def released_score(
    *, session: Session, user_id: int, slug: str, policy: str, offering_id: int | None = None
) -> float | None:
    """The 0..1 score an LMS receives, as the gradebook counts it (late homework less its
    penalty): best or latest released, fully graded attempt made in the offering the LMS course
    feeds (None: the first)."""
    here, legacy = offering_and_legacy(session=session, offering_id=offering_id)
    attempts = session.scalars(
        select(AssessmentAttempt)
        .where(
            AssessmentAttempt.user_id == user_id,
            AssessmentAttempt.assessment_slug == slug,
            AssessmentAttempt.status == "submitted",
            AssessmentAttempt.score.is_not(None),
            AssessmentAttempt.release_at <= utcnow(),
            work_in(AssessmentAttempt.offering_id, here, legacy=legacy),
        )
        .order_by(AssessmentAttempt.id.desc())
    ).all()
    if not attempts:
        return None
    own = {
        (a.user_id, a.assessment_slug): as_utc(a.closes_at)
        for a in session.scalars(
            select(Accommodation).where(
                Accommodation.user_id == user_id,
                Accommodation.assessment_slug == slug,
                work_in(Accommodation.offering_id, here, legacy=legacy),
            )
        )
        if a.closes_at is not None
    }
    counted = [
        counted_score(session=session, attempt=a, closes=closes_for(a, own))[0] for a in attempts
    ]
    return max(counted) if policy == "best" else counted[0]


def regrade(*, session: Session, course: Course, attempt: AssessmentAttempt) -> float | None:
    """Grade a handed-in attempt's questions again (after a fix to one) from its stored answers.

    The items are the attempt's own, drawn once with its recorded seed; exercise scores are
    kept and read again from their submissions. Returns the new score (None: still grading).
    """
    if attempt.status != "submitted" or attempt.results is None:
        return None
    answers = answers_of_attempt(session, attempt.id)
    fresh = grade_questions(course=course, attempt=attempt, answers=answers)["items"]
    kept = attempt.results.get("items", {})
    merged = {k: (kept.get(k, v) if k.startswith("x:") else v) for k, v in fresh.items()}
    version = process_registry().version(attempt.course_slug)
    attempt.results = {
        **attempt.results,
        "items": merged,
        "regraded": True,
        "content_version": version,  # the course version the regrade graded against
    }
    attempt.score = None
    session.commit()
    settle(session=session, attempt=attempt)
    session.commit()
    return attempt.score
