"""How one submission stands for its student: its due date, whether it is late, the score that
counts (the gradebook's and the LMS's number) and what staff wrote about it."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.orm import Session

from app.deadlines.term import ItemDue, student_term
from app.offerings.first import NOWHERE, where_row_counts
from app.submissions.comments import comment_json, comments_on
from app.submissions.models import (
    PRACTICE,
    RegradeRequest,
    RubricGrade,
    Submission,
    SubmissionComment,
)
from app.submissions.regrade_requests import request_for, request_json
from graders import Rubric


@dataclass(frozen=True)
class Standing:
    """A submission's date, lateness, counted score and comments, read once for a page."""

    item: ItemDue
    late: bool
    score: float | None
    counted: float | None  # None for a Run or before grading: nothing counts yet
    comments: list[SubmissionComment]
    regrade: RegradeRequest | None = None  # the student's request about this exercise
    rubric: Rubric | None = None  # the exercise's rubric, when a person grades part of it
    by_hand: RubricGrade | None = None  # that person's grading, once done
    lab: bool = False  # a lab: only a person's rubric grade of its write-up counts

    @property
    def awaiting_grading(self) -> bool:
        """A lab with a rubric that no person has graded yet: nothing counts until then."""
        return self.lab and self.rubric is not None and self.by_hand is None

    def as_json(self) -> dict[str, Any]:
        """The keys the API adds to a submission: `due`, `late`, `counted_score`, `comments`."""
        return {
            **self.item.as_json(),
            "late": self.late,
            "counted_score": self.counted,
            "comments": [comment_json(c) for c in self.comments],
            "regrade_request": None if self.regrade is None else request_json(self.regrade),
            "rubric": self.rubric_json(),
            "awaiting_grading": self.awaiting_grading,
        }

    def rubric_json(self) -> dict[str, Any] | None:
        """The rubric's items, which the grader applied, their comment, and the part's score."""
        if self.rubric is None:
            return None
        graded = self.by_hand
        applied = set(graded.applied) if graded else set()
        return {
            "weight": self.rubric.weight,
            "graded": graded is not None,
            "items": [
                {"id": i.id, "title": i.title, "points": i.points, "applied": i.id in applied}
                for i in self.rubric.items
            ],
            "manual_score": graded.manual_score if graded else None,
            "comment": graded.comment if graded else None,
            "by": graded.grader_name if graded else None,
        }

    @property
    def late_words(self) -> str:
        """'Late: handed in after 2027-03-01 17:00 UTC; 45% counts after the late penalty.'"""
        if not self.late:
            return ""
        due = f" after {self.item.words.removeprefix('Due ')}" if self.item.due else ""
        counted, score = self.counted, self.score
        if counted is None or score is None or abs(counted - score) < 1e-9:
            return f"Late: handed in{due}."
        return f"Late: handed in{due}; {counted:.0%} counts after the late penalty."

    def on_line(self, number: int) -> list[SubmissionComment]:
        """The comments written on one line of the code (1-based)."""
        return [c for c in self.comments if c.line == number]


def standing_of(
    *,
    session: Session,
    row: Submission,
    content_due: dt.datetime | None,
    rubric: Rubric | None = None,
    lab: bool = False,
) -> Standing:
    """Judge the submission under its offering's dates and policy, as the gradebook does (a
    lab with a rubric counts only once a person graded its write-up)."""
    found = _standing(session=session, row=row, content_due=content_due, rubric=rubric)
    if lab and rubric is not None:
        counted = found.counted if found.by_hand is not None else None
        return replace(found, lab=True, counted=counted)
    return found


def _standing(
    *,
    session: Session,
    row: Submission,
    content_due: dt.datetime | None,
    rubric: Rubric | None,
) -> Standing:
    if row.purpose != PRACTICE:  # an exam's answer: the exam's rules, not the practice dates
        return Standing(
            item=ItemDue(None),
            late=False,
            score=row.score,
            counted=row.score if row.status == "done" else None,
            comments=comments_on(session=session, submission_id=row.id),
            rubric=rubric,
            by_hand=session.get(RubricGrade, row.id) if rubric is not None else None,
        )
    where = where_row_counts(
        session=session, offering_id=row.offering_id, course_slug=row.course_slug
    )
    term = student_term(
        session=session, user_id=row.user_id, offering_id=NOWHERE if where is None else where
    )
    counted = None
    if row.mode == "submit" and row.status == "done":
        counted = term.counted(
            "exercise", row.exercise_slug, content_due, row.score, row.created_at
        )
    return Standing(
        item=term.item("exercise", row.exercise_slug, content_due),
        late=row.late,
        score=row.score,
        counted=counted,
        comments=comments_on(session=session, submission_id=row.id),
        regrade=request_for(session=session, submission=row),
        rubric=rubric,
        by_hand=session.get(RubricGrade, row.id) if rubric is not None else None,
    )
