"""Grading by a person with an exercise's rubric, beside the tests: the rubric's part of the
score (its `weight`) comes from the items the grader applied, the rest from the tests.

Until a person grades it, a submission's score is the tests' alone and its student reads that
the rubric part is still waiting. A manual override, when there is one, still wins.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db import retry_conflicts, serialize
from app.events import grade_recorded
from app.instructor.graded_score import RubricResult, rubric_score
from app.instructor.overrides import InstructorError
from app.models_base import utcnow
from app.offerings.access import students_here, work_here
from app.offerings.place import Place
from app.submissions.models import RubricGrade, Submission, graded_by_hand
from app.users.models import User
from graders import Rubric


def grade_by_rubric(
    *,
    session: Session,
    submission: Submission,
    rubric: Rubric,
    applied: list[str],
    comment: str,
    grader: User,
    lab: bool = False,
) -> RubricResult:
    """Store the grading, set the submission's score (unless overridden) and tell the LMS
    (`lab`: a lab's write-up, whose score is the rubric's alone)."""
    if submission.status != "done" or submission.mode != "submit":
        raise InstructorError("Only a graded submission (Submit, not Run) can be graded by hand.")
    known = {i.id for i in rubric.items}
    unknown = [a for a in applied if a not in known]
    if unknown:
        raise InstructorError(f"This rubric has no item {unknown[0]!r}.")
    tests = float((submission.report or {}).get("score") or 0.0)
    result = rubric_score(rubric, applied, tests, lab=lab)

    def store() -> None:
        serialize(session, graded_by_hand(submission.id))  # the student saving a write-up now
        row = session.get(RubricGrade, submission.id) or RubricGrade(submission_id=submission.id)
        row.applied, row.manual_score, row.comment = sorted(set(applied)), result.manual, comment
        row.grader_id, row.grader_name = grader.id, grader.name or "Course staff"
        row.graded_at = utcnow()
        session.add(row)
        if submission.override_score is None:
            submission.score = result.combined
        grade_recorded(  # an exam's answer: its attempt's score and LMS post follow
            session=session,
            user_id=submission.user_id,
            kind="exercise",
            slug=submission.exercise_slug,
            submission_id=submission.id,
            purpose=submission.purpose,
        )
        session.commit()

    retry_conflicts(session, store)  # a double click on Save, two TAs: the last one stays
    return result


def rubric_grade(*, session: Session, submission_id: int) -> RubricGrade | None:
    """The person's grading of this submission, if it was graded by hand."""
    return session.get(RubricGrade, submission_id)


def next_ungraded(
    *, session: Session, exercise: str, place: Place, after: int = 0
) -> Submission | None:
    """The next student's latest graded submission of this exercise that nobody graded by
    hand yet, in this request's offering (after a submission id, so "next" moves on)."""
    latest = (
        select(func.max(Submission.id))
        .where(
            Submission.exercise_slug == exercise,
            Submission.mode == "submit",
            Submission.status == "done",
            work_here(session, Submission.offering_id, place),
            Submission.user_id.in_(select(User.id).where(students_here(place))),
        )
        .group_by(Submission.user_id)
    )
    graded = select(RubricGrade.submission_id)
    query = (
        select(Submission)
        .where(Submission.id.in_(latest), Submission.id.not_in(graded), Submission.id > after)
        .order_by(Submission.id)
        .limit(1)
    )
    return session.scalar(query)
