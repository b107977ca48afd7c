"""A publish must not orphan students' work: a lesson or exercise someone worked on stays.

Quiz attempts and submissions are kept under the slug they were made at, and the gradebook,
statistics and the LMS read them by the slug the content has now; a renamed or deleted item
would drop every score it holds without a word. An author who truly means it removes the work
first (or keeps the old slug and changes the title, which is free).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.authoring.check import Found
from app.content.loader import Course
from app.progress.models import QuizAttempt
from app.submissions.models import Submission

GONE = (
    "the {kind} '{slug}' is not in this version, but {people} student{s} worked on it "
    "({what}); their scores are kept under that slug, so keep it (a slug is permanent: "
    "change the title instead)"
)


def _quiz_takers(session: Session, course_slug: str, slug: str) -> int:
    who = func.count(func.distinct(QuizAttempt.user_id))
    where = (QuizAttempt.course_slug == course_slug, QuizAttempt.lesson_slug == slug)
    return session.scalar(select(who).where(*where)) or 0


def _submitters(session: Session, course_slug: str, slug: str) -> int:
    who = func.count(func.distinct(Submission.user_id))
    where = (Submission.course_slug == course_slug, Submission.exercise_slug == slug)
    return session.scalar(select(who).where(*where)) or 0


def _gone(kind: str, slug: str, people: int, what: str) -> str:
    return GONE.format(kind=kind, slug=slug, people=people, s="s" * (people != 1), what=what)


def _file(path: Path, folder: Path) -> str:
    try:
        return str(path.resolve().relative_to(folder.resolve()))
    except ValueError:
        return str(path)


def orphaned(
    *, session: Session, course_slug: str, folder: Path, served: Course, candidate: Course
) -> list[Found]:
    """A problem for every lesson or exercise this version drops that students worked on."""
    problems: list[Found] = []
    kept = {lesson.meta.slug for lesson in candidate.lessons}
    for lesson in served.lessons:
        slug = lesson.meta.slug
        people = 0 if slug in kept else _quiz_takers(session, course_slug, slug)
        if people:
            where = _file(lesson.path, folder)
            problems.append(Found(where, None, _gone("lesson", slug, people, "its quiz")))
    kept = {exercise.meta.slug for exercise in candidate.exercises}
    for exercise in served.exercises:
        slug = exercise.meta.slug
        people = 0 if slug in kept else _submitters(session, course_slug, slug)
        if people:
            where = f"exercises/{exercise.path.name}/exercise.yaml"
            problems.append(Found(where, None, _gone("exercise", slug, people, "submissions")))
    return problems
