"""The student's dates on pages: which offering their work in this course counts in, and the
dates that apply to them there (one read per page)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from fastapi import Request
from sqlalchemy.orm import Session

from app.content.loader import Exercise, Lesson
from app.courses.service import graded_in
from app.deadlines.term import ItemDue, StudentTerm, student_term_for_work
from app.offerings.place import offering_named
from app.progress.summary import CourseProgress
from app.users.models import User


def my_term(request: Request, *, session: Session, user: User | None) -> StudentTerm | None:
    """This student's dates in the page's course (None for a visitor who is not signed in)."""
    if user is None:
        return None
    course_slug, _ = graded_in(request)
    return student_term_for_work(
        session=session, user_id=user.id, course_slug=course_slug, named=offering_named(request)
    )


@dataclass(frozen=True)
class DueItem:
    """One exercise or quiz on the student's "due next" list."""

    kind: str
    title: str
    url: str
    due: ItemDue
    done: bool
    overdue: bool


def due_next(
    *,
    term: StudentTerm,
    lessons: list[Lesson],
    exercises: list[Exercise],
    progress: CourseProgress | None,
    now: dt.datetime,
    limit: int = 6,
) -> list[DueItem]:
    """What is due soonest, then what passed its date in the last week unfinished."""
    found: list[DueItem] = []
    for ex in exercises:
        item = term.item("exercise", ex.meta.slug, ex.meta.due)
        standing = progress.exercises.get(ex.meta.slug) if progress else None
        done = standing is not None and standing.state == "solved"
        found.append(
            DueItem("exercise", ex.meta.title, f"/exercises/{ex.meta.slug}", item, done, False)
        )
    for les in lessons:
        if not les.meta.quiz:
            continue
        item = term.item("quiz", les.meta.slug, les.meta.due)
        read = progress.lessons.get(les.meta.slug) if progress else None
        done = read is not None and read.quiz_attempts > 0
        found.append(
            DueItem("quiz", les.meta.title, f"/lessons/{les.meta.slug}#quiz", item, done, False)
        )
    recent = now - dt.timedelta(days=7)
    listed = [
        replace(d, overdue=d.due.due is not None and d.due.due < now)
        for d in found
        if d.due.due is not None and (d.due.due >= now or (d.due.due >= recent and not d.done))
    ]
    return sorted(listed, key=lambda d: (not d.overdue, d.due.due))[:limit]
