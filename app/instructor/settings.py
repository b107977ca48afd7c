"""An offering's settings: its late policy and its own due dates for exercises and quizzes."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.content.loader import Course
from app.db import retry_conflicts
from app.deadlines.models import OfferingDue
from app.deadlines.policy import Policy, policy_for, set_policy
from app.deadlines.rules import Kind
from app.instructor.deadlines import refresh_class_late_flags
from app.instructor.overrides import InstructorError, content_due
from app.lti.outbox import queue_offering
from app.models_base import as_utc, utcnow


@dataclass(frozen=True)
class DueRow:
    """One exercise or quiz: the content's due date and the offering's own, if set."""

    kind: Kind
    slug: str
    title: str
    content: dt.datetime | None
    own: dt.datetime | None

    @property
    def field(self) -> str:
        """The form field of this item's date."""
        return f"due-{self.kind}-{self.slug}"

    @property
    def due(self) -> dt.datetime | None:
        """The date that applies in this offering."""
        return self.own if self.own is not None else self.content


def due_rows(*, session: Session, course: Course, offering_id: int) -> list[DueRow]:
    """Every exercise and quiz of the course with the content's and the offering's dates."""
    own = {
        (kind, slug): as_utc(due)
        for kind, slug, due in session.execute(
            select(OfferingDue.kind, OfferingDue.slug, OfferingDue.due_at).where(
                OfferingDue.offering_id == offering_id
            )
        )
    }
    rows = [
        DueRow(
            "exercise",
            ex.meta.slug,
            ex.meta.title,
            ex.meta.due,
            own.get(("exercise", ex.meta.slug)),
        )
        for ex in course.exercises
        if not ex.meta.draft
    ]
    rows += [
        DueRow(
            "quiz", les.meta.slug, les.meta.title, les.meta.due, own.get(("quiz", les.meta.slug))
        )
        for les in course.lessons
        if not les.meta.draft and les.meta.quiz
    ]
    return rows


def set_offering_due(
    *,
    session: Session,
    course: Course,
    offering_id: int,
    kind: str,
    slug: str,
    due_at: dt.datetime | None,
    by: int,
) -> None:
    """Give the item its own date in this offering (None: the content's date applies again)."""
    if kind not in ("exercise", "quiz"):
        raise InstructorError("A due date is for an 'exercise' or a 'quiz'.")
    checked: Kind = "exercise" if kind == "exercise" else "quiz"
    own_due = content_due(course, checked, slug)  # an unknown item is an error

    def store() -> None:  # the row is replaced: delete, then insert
        session.execute(
            delete(OfferingDue).where(
                OfferingDue.offering_id == offering_id,
                OfferingDue.kind == checked,
                OfferingDue.slug == slug,
            )
        )
        if due_at is not None:
            session.add(
                OfferingDue(
                    offering_id=offering_id,
                    kind=checked,
                    slug=slug,
                    due_at=as_utc(due_at),
                    set_by=by,
                    created_at=utcnow(),
                )
            )
        # Every student's score that counts may change with the date: the LMS's columns follow.
        queue_offering(session=session, offering_id=offering_id, kind=checked, slug=slug)
        session.commit()

    retry_conflicts(session, store)  # a double click on Save (PostgreSQL): the last one stays
    if checked == "exercise":  # stored late marks follow the new date (quiz lateness is read)
        refresh_class_late_flags(session=session, slug=slug, due=own_due, offering_id=offering_id)


def set_late_policy(
    *, session: Session, course: Course, offering_id: int, policy: Policy, by: int
) -> None:
    """Store the late policy; what was stored under the old one (LMS scores, late marks) follows."""
    before = policy_for(session=session, offering_id=offering_id)
    set_policy(session=session, offering_id=offering_id, policy=policy, by=by)
    if policy == before:
        return
    queue_offering(session=session, offering_id=offering_id)  # scores are read when sent
    session.commit()
    if policy.grace != before.grace:  # the grace is all a late mark depends on
        for exercise in course.exercises:
            refresh_class_late_flags(
                session=session,
                slug=exercise.meta.slug,
                due=exercise.meta.due,
                offering_id=offering_id,
            )
