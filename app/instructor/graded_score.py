"""The score a submission has when no override stands: the tests', with a person's rubric grade
on top (a lab's: the rubric's alone). Grading by hand, removing an override and a regrade all
set it from here, so none of them drops the person's grade for the tests' score alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.courses.service import process_registry
from app.submissions.models import RubricGrade, Submission
from graders import Rubric


@dataclass(frozen=True)
class RubricResult:
    """The rubric's part and the score that results."""

    manual: float  # the rubric's part alone, 0 to 1
    combined: float  # (1 - weight) x tests + weight x rubric


def combined_score(rubric: Rubric, manual: float, tests: float, *, lab: bool = False) -> float:
    """The rubric's part weighed against the tests' (a lab's score is the rubric's alone: its
    run's verdict comes from the student's process, which could fake it)."""
    return manual if lab else (1 - rubric.weight) * tests + rubric.weight * manual


def rubric_score(
    rubric: Rubric, applied: list[str], tests: float, *, lab: bool = False
) -> RubricResult:
    """Points of the applied items over full marks, kept within 0 and 1, then combined."""
    points = sum(i.points for i in rubric.items if i.id in set(applied))
    manual = min(1.0, max(0.0, points / rubric.full_marks))
    return RubricResult(manual, combined_score(rubric, manual, tests, lab=lab))


def graded_rubric(course_slug: str, slug: str) -> tuple[Rubric | None, bool]:
    """The exercise's rubric (None: it has none, or is gone) and whether it is a lab, from the
    course as this process serves it (as the LMS's score reader reads it)."""
    course = process_registry().content(course_slug)
    exercise = None if course is None else course.exercise(slug)
    if exercise is None:
        return None, False
    return exercise.meta.rubric, exercise.meta.entry.kind == "experiment"


def score_without_override(*, session: Session, submission: Submission) -> float | None:
    """The tests' score, with the stored rubric grade applied when a person graded it (the
    grade the student reads stands: its stored part, not one recomputed from changed items)."""
    tests = (submission.report or {}).get("score")
    graded = session.get(RubricGrade, submission.id)
    if graded is None:
        return tests if tests is None else float(tests)
    rubric, lab = graded_rubric(submission.course_slug, submission.exercise_slug)
    if rubric is None:  # the rubric was taken out of the exercise: the tests decide again
        return tests if tests is None else float(tests)
    return combined_score(rubric, graded.manual_score, float(tests or 0.0), lab=lab)
