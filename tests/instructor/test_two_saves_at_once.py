"""A staff form saved twice at once (a double click on Save, two TAs on one submission) where
the first save makes the row: both requests read "none yet" and both insert it, and the second
met the unique constraint: a 500, and on PostgreSQL even for a due date (deleted, then added).

The other request's save runs, whole and committed, on a connection of its own right before
this one inserts; this one must still save, and the row must exist once, holding this save.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.assessments.accommodations import set_accommodation
from app.assessments.models import Accommodation
from app.content.loader import Course
from app.content.service import load_from_settings
from app.db import session_factory
from app.deadlines.models import DeadlineExtension, LatePolicy, OfferingDue
from app.deadlines.policy import Policy, set_policy
from app.instructor.course_grade import Scheme, set_scheme
from app.instructor.models import GradeScheme
from app.instructor.overrides import grant_extension
from app.instructor.rubric_grading import grade_by_rubric
from app.instructor.settings import set_offering_due
from app.migrate import upgrade_head
from app.offerings.models import OfferingRole
from app.offerings.place import Place
from app.offerings.service import enroll, first_offering
from app.submissions.models import RubricGrade, Submission
from app.users.models import Role, User
from app.users.service import create_user
from graders.exercise_format import Rubric
from tests.assessments.test_service import spec as exam_spec
from tests.postgres import throwaway_database
from tests.races import WRITING, inserting, other_request_before

EXERCISE = "position-embedding-gather"
DUE = dt.datetime(2026, 12, 20, 17, 0, tzinfo=dt.UTC)
RUBRIC = Rubric.model_validate(
    {"weight": 0.5, "items": [{"id": "clear", "title": "Clear names", "points": 2}]}
)
Save = Callable[[Session, Course, dict[str, int], str], object]


@pytest.fixture(params=["sqlite", "postgresql"])
def database(
    request: pytest.FixtureRequest, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    if request.param == "sqlite":
        yield request.param
        return
    with throwaway_database(monkeypatch, data_dir):
        upgrade_head()
        yield request.param


def _people(session: Session) -> dict[str, int]:
    """An instructor, a student of the first offering and a graded submission of theirs."""
    teacher, _ = create_user(
        session=session, email="teacher@example.org", password="pw-12345678", role=Role.instructor
    )
    ann, _ = create_user(session=session, email="ann@example.org", password="pw-12345678")
    offering = first_offering(session=session)
    enroll(session=session, offering=offering, user=ann, role=OfferingRole.student)
    row = Submission(
        user_id=ann.id,
        exercise_slug=EXERCISE,
        framework="numpy",
        mode="submit",
        code="x",
        status="done",
        score=1.0,
        report={"score": 1.0},
        offering_id=offering.id,
    )
    session.add(row)
    session.commit()
    return {"teacher": teacher.id, "ann": ann.id, "offering": offering.id, "submission": row.id}


def _user(session: Session, ids: dict[str, int], who: str) -> User:
    found = session.get(User, ids[who])
    assert found is not None
    return found


def _policy(session: Session, _course: Course, ids: dict[str, int], note: str) -> None:
    days = 10.0 if note == "ours" else 20.0
    set_policy(
        session=session,
        offering_id=ids["offering"],
        policy=Policy("penalty", days, 50.0, 0),
        by=ids["teacher"],
    )


def _scheme(session: Session, _course: Course, ids: dict[str, int], note: str) -> None:
    weight = 2.0 if note == "ours" else 3.0
    set_scheme(
        session=session,
        offering_id=ids["offering"],
        scheme=Scheme({"exercise": weight, "quiz": 1.0}, {}),
        by=ids["teacher"],
    )


def _due(session: Session, course: Course, ids: dict[str, int], note: str) -> None:
    set_offering_due(
        session=session,
        course=course,
        offering_id=ids["offering"],
        kind="exercise",
        slug=EXERCISE,
        due_at=DUE if note == "ours" else DUE + dt.timedelta(days=1),
        by=ids["teacher"],
    )


def _extension(session: Session, course: Course, ids: dict[str, int], note: str) -> None:
    grant_extension(
        session=session,
        course=course,
        student=_user(session, ids, "ann"),
        kind="exercise",
        slug=EXERCISE,
        due_at=DUE + dt.timedelta(days=3),
        reason=note,
        instructor=_user(session, ids, "teacher"),
        place=Place(course, ids["offering"]),
    )


def _rubric(session: Session, _course: Course, ids: dict[str, int], note: str) -> None:
    submission = session.get(Submission, ids["submission"])
    assert submission is not None
    grade_by_rubric(
        session=session,
        submission=submission,
        rubric=RUBRIC,
        applied=["clear"],
        comment=note,
        grader=_user(session, ids, "teacher"),
    )


def _accommodation(session: Session, course: Course, ids: dict[str, int], note: str) -> None:
    set_accommodation(
        session=session,
        spec=exam_spec(),
        user_id=ids["ann"],
        extra_minutes=30.0 if note == "ours" else 15.0,
        opens_at=None,
        closes_at=None,
        reason=note,
        by=_user(session, ids, "teacher"),
        place=Place(course, ids["offering"]),
    )


def _kept(session: Session, model: type[Any]) -> tuple[int, object]:
    """(rows, what the row holds that tells the two saves apart)."""
    rows = session.scalars(select(model)).all()
    telling = {
        LatePolicy: "percent_per_day",
        GradeScheme: "weights",
        OfferingDue: "due_at",
        DeadlineExtension: "reason",
        RubricGrade: "comment",
        Accommodation: "reason",
    }[model]
    return len(rows), getattr(rows[-1], telling) if rows else None


# Where the other request lands: right before this one's insert; a rubric grade takes a lock
# first (the student's write-up save waits on it), so there, before the lock.
CASES: dict[str, tuple[Save, re.Pattern[str], type[Any]]] = {
    "late policy": (_policy, inserting("late_policies"), LatePolicy),
    "grading scheme": (_scheme, inserting("grade_schemes"), GradeScheme),
    "offering due date": (_due, inserting("offering_dues"), OfferingDue),
    "extension": (_extension, inserting("deadline_extensions"), DeadlineExtension),
    "rubric grade": (_rubric, WRITING, RubricGrade),
    "exam accommodation": (_accommodation, inserting("assessment_accommodations"), Accommodation),
}


# SQLite has no due-date race: the save's delete takes its one writer before the insert.
PAIRS = [
    (base, case)
    for base in ("sqlite", "postgresql")
    for case in CASES
    if (base, case) != ("sqlite", "offering due date")
]


@pytest.mark.parametrize(("database", "case"), PAIRS, indirect=["database"])
def test_a_first_save_clicked_twice_saves_once(database: str, case: str) -> None:
    save, landing, model = CASES[case]
    course = load_from_settings()
    with session_factory()() as session:
        ids = _people(session)
        if case == "extension":  # an item with a due date in the offering, to extend
            _due(session, course, ids, "ours")
    with (
        other_request_before(landing, lambda other: save(other, course, ids, "theirs")) as ran,
        session_factory()() as session,
    ):
        save(session, course, ids, "ours")
    assert ran == [True], f"no statement matched {landing.pattern}"
    with session_factory()() as session:
        expected = {
            "late policy": 10.0,
            "grading scheme": {"exercise": 2.0, "quiz": 1.0},
            "offering due date": DUE,
            "extension": "ours",
            "rubric grade": "ours",
            "exam accommodation": "ours",
        }[case]
        count, held = _kept(session, model)
        if isinstance(held, dt.datetime) and held.tzinfo is None:
            held = held.replace(tzinfo=dt.UTC)
        assert (count, held) == (1, expected)
        assert session.scalar(select(func.count()).select_from(model)) == 1


def test_a_double_click_on_regrade_all_starts_one_regrade(database: str) -> None:
    """Both clicks read "no regrade running": each started one, so every submission was graded
    twice. The second click now waits for the first and finds its regrade running."""
    from app.instructor.models import RegradeJob
    from app.instructor.regrade import start_regrade

    with session_factory()() as session:
        ids = _people(session)
    launched: list[int] = []

    def click(session: Session) -> tuple[Any, bool]:
        teacher = _user(session, ids, "teacher")
        place = Place(load_from_settings(), ids["offering"])
        return start_regrade(
            session=session, slug=EXERCISE, instructor=teacher, launch=launched.append, place=place
        )

    with other_request_before(WRITING, click) as ran, session_factory()() as session:
        _, started = click(session)
    with session_factory()() as session:
        regrades = session.scalar(select(func.count()).select_from(RegradeJob))
    assert (ran, started, len(launched), regrades) == ([True], False, 1, 1)
