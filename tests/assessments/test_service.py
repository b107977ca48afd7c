"""The rules of an attempt, with the clock passed in: windows, draws, deadlines, hand-in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.assessments import service
from app.assessments.accommodations import set_accommodation
from app.assessments.models import AssessmentAnswer, AssessmentAttempt
from app.assessments.schema import AssessmentFile
from app.assessments.service import AssessmentError
from app.content.loader import Course
from app.content.service import load_from_settings
from app.db import session_factory
from app.models_base import as_utc
from app.offerings.models import OfferingRole
from app.offerings.place import Place
from app.offerings.service import enroll, first_offering
from app.users.models import Role, User
from app.users.service import create_user

OPENS = dt.datetime(2026, 12, 14, 9, 0, tzinfo=dt.UTC)
CLOSES = OPENS + dt.timedelta(hours=3)
POOL = [
    "why-position/dog-bites-man",
    "learned-absolute/table-shape",
    "learned-absolute/bert-base-params",
    "learned-absolute/which-models-learned",
    "adding-positions/what-is-scaled",
]


def spec(**overrides: Any) -> AssessmentFile:
    data: dict[str, Any] = {
        "slug": "quick",
        "title": "Quick exam",
        "kind": "exam",
        "opens": OPENS,
        "closes": CLOSES,
        "time_limit_minutes": 60,
        "attempts": 2,
        "parts": [
            {"title": "Pool", "draw": 2, "items": [{"question": q} for q in POOL]},
            {"title": "Code", "items": [{"exercise": "position-embedding-gather", "points": 3}]},
        ],
    }
    data.update(overrides)
    return AssessmentFile.model_validate(data)


@pytest.fixture
def session(data_dir: object) -> Iterator[Session]:
    with session_factory()() as db:
        yield db


@pytest.fixture
def course(data_dir: object) -> Course:
    return load_from_settings()


def student(session: Session, email: str = "ann@example.org", role: Role = Role.student) -> User:
    """An account; a student is placed in the first offering (sign-up places nobody)."""
    user, _ = create_user(session=session, email=email, password="correct horse", role=role)
    if role == Role.student:
        first = first_offering(session=session)
        enroll(session=session, offering=first, user=user, role=OfferingRole.student)
    return user


class Queue:
    """Collects the submission ids an attempt sends to the graders."""

    def __init__(self) -> None:
        self.ids: list[int] = []

    def __call__(self, submission_id: int) -> None:
        self.ids.append(submission_id)


def start(session: Session, course: Course, user: User, at: dt.datetime, **kw: Any) -> Any:
    return service.start_attempt(
        session=session, course=course, spec=spec(**kw), user=user, now=at, enqueue=Queue()
    )


def test_starting_outside_the_window_is_refused(session: Session, course: Course) -> None:
    ann = student(session)
    with pytest.raises(AssessmentError) as early:
        start(session, course, ann, OPENS - dt.timedelta(seconds=1))
    assert (early.value.status, early.value.message) == (
        403,
        "'Quick exam' opens at 2026-12-14 09:00:00 UTC.",
    )
    with pytest.raises(AssessmentError) as late:
        start(session, course, ann, CLOSES)
    assert late.value.message == "'Quick exam' closed at 2026-12-14 12:00:00 UTC."
    assert session.query(AssessmentAttempt).count() == 0


def test_the_deadline_is_the_time_limit_or_the_close(session: Session, course: Course) -> None:
    early = start(session, course, student(session), OPENS + dt.timedelta(minutes=5))
    assert as_utc(early.deadline) == OPENS + dt.timedelta(minutes=65)
    late = start(
        session, course, student(session, "bob@example.org"), CLOSES - dt.timedelta(minutes=10)
    )
    assert as_utc(late.deadline) == CLOSES


def test_extra_time_and_an_own_window(session: Session, course: Course) -> None:
    ann, bob, teacher = (
        student(session),
        student(session, "bob@example.org"),
        student(session, "t@example.org", Role.instructor),
    )
    set_accommodation(
        session=session,
        spec=spec(),
        user_id=ann.id,
        extra_minutes=30,
        opens_at=None,
        closes_at=None,
        reason="extra time",
        by=teacher,
        place=Place(course),
    )
    own_opens = CLOSES + dt.timedelta(days=1)
    set_accommodation(
        session=session,
        spec=spec(),
        user_id=bob.id,
        extra_minutes=0,
        opens_at=own_opens,
        closes_at=own_opens + dt.timedelta(hours=2),
        reason="sick",
        by=teacher,
        place=Place(course),
    )
    attempt = start(session, course, ann, OPENS)
    assert as_utc(attempt.deadline) == OPENS + dt.timedelta(minutes=90)
    with pytest.raises(AssessmentError, match="opens at 2026-12-15 12:00:00 UTC"):
        start(session, course, bob, OPENS)  # the class's window is not his
    bobs = start(session, course, bob, own_opens + dt.timedelta(minutes=1))
    assert as_utc(bobs.deadline) == own_opens + dt.timedelta(minutes=61)


def test_bad_accommodations_are_refused_and_change_nothing(
    session: Session, course: Course
) -> None:
    ann, teacher = student(session), student(session, "t@example.org", Role.instructor)
    cases = [
        ({"extra_minutes": -5}, "Extra time must be between 0 and 10080 minutes."),
        ({"closes_at": OPENS - dt.timedelta(hours=1)}, "The window must close after it opens"),
        ({"extra_minutes": 200}, "The time limit with the extra time (260 minutes) is longer"),
    ]
    for change, message in cases:
        kwargs: dict[str, Any] = {"extra_minutes": 0, "opens_at": None, "closes_at": None, **change}
        with pytest.raises(AssessmentError) as refused:
            set_accommodation(
                session=session,
                spec=spec(),
                user_id=ann.id,
                reason="",
                by=teacher,
                place=Place(course),
                **kwargs,
            )
        assert refused.value.status == 422 and refused.value.message.startswith(message)
    with pytest.raises(AssessmentError, match="There is no student with id"):
        set_accommodation(
            session=session,
            spec=spec(),
            user_id=teacher.id,
            extra_minutes=5,
            opens_at=None,
            closes_at=None,
            reason="",
            by=teacher,
            place=Place(course),
        )
    window = service.window_for(session=session, spec=spec(), user_id=ann.id, offering_id=None)
    assert window.extra_minutes == 0


def test_pools_are_drawn_per_student_and_a_regrade_draws_the_same(
    session: Session, course: Course
) -> None:
    attempt = start(session, course, student(session), OPENS)
    keys = [item["key"] for item in attempt.items]
    assert len(keys) == 3 and keys[-1] == "x:position-embedding-gather"
    assert set(keys[:2]) <= {f"q:{q}" for q in POOL}
    assert service.draw_items(spec=spec(), seed=attempt.seed) == attempt.items
    draws = {tuple(i["key"] for i in service.draw_items(spec=spec(), seed=s)) for s in range(40)}
    assert len(draws) > 3  # different students get different questions


def test_starting_again_continues_and_attempts_are_limited(
    session: Session, course: Course
) -> None:
    ann = student(session)
    first = start(session, course, ann, OPENS)
    assert start(session, course, ann, OPENS + dt.timedelta(minutes=1)).id == first.id
    after_first = OPENS + dt.timedelta(minutes=61)  # the first one's time ran out
    second = start(session, course, ann, after_first)
    session.refresh(first)
    assert (first.status, first.submitted_by, second.number) == ("submitted", "clock", 2)
    service.finish_attempt(
        session=session,
        course=course,
        attempt=second,
        now=after_first,
        by="student",
        enqueue=Queue(),
    )
    with pytest.raises(AssessmentError) as used:
        start(session, course, ann, after_first + dt.timedelta(minutes=1))
    assert (used.value.status, used.value.message) == (
        409,
        "You have used all 2 attempts at 'Quick exam'.",
    )


def test_saving_rules(session: Session, course: Course) -> None:
    ann, bob = student(session), student(session, "bob@example.org")
    attempt = start(session, course, ann, OPENS)
    # One typed or single-choice question (a multiple-choice answer is stored as a list).
    key = next(
        i["key"] for i in attempt.items if i["key"].startswith("q:") and "which" not in i["key"]
    )

    def save(item: str, value: Any, at: dt.datetime = OPENS) -> AssessmentAnswer:
        return service.save_answer(
            session=session,
            course=course,
            attempt=attempt,
            item_key=item,
            value=value,
            now=at,
            max_code_bytes=1000,
            enqueue=Queue(),
        )

    assert save(key, "first").saves == 1
    assert save(key, "second").value == "second"
    with pytest.raises(AssessmentError, match="is not one of this attempt's questions"):
        save("q:why-position/not-drawn", "x")
    code_key = "x:position-embedding-gather"
    with pytest.raises(AssessmentError, match="An exercise answer is "):
        save(code_key, "print(1)")
    with pytest.raises(AssessmentError, match="Choose one of: numpy, torch, jax"):
        save(code_key, {"framework": "tensorflow", "code": "x"})
    with pytest.raises(AssessmentError, match="the limit is 0 KB") as big:
        save(code_key, {"framework": "numpy", "code": "x" * 2000})
    assert big.value.status == 413
    with pytest.raises(AssessmentError) as other:
        service.own_attempt(session=session, attempt_id=attempt.id, user=bob)
    assert other.value.status == 403
    with pytest.raises(AssessmentError) as late:
        save(key, "too late", OPENS + dt.timedelta(minutes=60))
    assert late.value.status == 409
    assert late.value.message == (
        "Time is up: this attempt ended at 2026-12-14 10:00:00 UTC. This answer arrived after "
        "the end and was not saved; the answers saved before it were handed in."
    )
    answers = service.answers_of(session=session, attempt=attempt)
    assert {k: a.value for k, a in answers.items()} == {key: "second"}
    assert attempt.status == "submitted" and as_utc(attempt.submitted_at) == OPENS + dt.timedelta(
        minutes=60
    )  # type: ignore[arg-type]


def test_handing_in_grades_questions_and_sends_code_to_the_graders(
    session: Session, course: Course
) -> None:
    from app.assessments.scoring import released, settle_for_submission
    from app.submissions.models import Submission

    ann = student(session)
    attempt = start(session, course, ann, OPENS, release="after_close")
    code = {"framework": "numpy", "code": "def position_embedding_gather(p, t):\n    return t[p]\n"}
    service.save_answer(
        session=session,
        course=course,
        attempt=attempt,
        item_key="x:position-embedding-gather",
        value=code,
        now=OPENS,
        max_code_bytes=100_000,
        enqueue=Queue(),
    )
    queue = Queue()
    service.finish_attempt(
        session=session,
        course=course,
        attempt=attempt,
        now=OPENS + dt.timedelta(minutes=3),
        by="student",
        enqueue=queue,
    )
    assert attempt.score is None  # the code is still being graded
    assert as_utc(attempt.release_at) == CLOSES  # type: ignore[arg-type]
    [submission_id] = queue.ids
    row = session.get(Submission, submission_id)
    assert row is not None and row.code == code["code"] and row.mode == "submit"
    row.status, row.score = "done", 1.0
    settle_for_submission(session=session, submission_id=submission_id)
    session.refresh(attempt)
    assert attempt.score == pytest.approx(3 / 5)  # 3 code points of 5; both questions unanswered
    assert not released(attempt, CLOSES - dt.timedelta(seconds=1)) and released(attempt, CLOSES)
    again = Queue()  # a second read does not grade the code twice
    service.finish_if_due(
        session=session, course=course, attempt=attempt, now=CLOSES, enqueue=again
    )
    assert again.ids == []


def test_a_regrade_uses_the_recorded_draw_and_the_stored_answers(
    session: Session, course: Course
) -> None:
    from app.assessments.scoring import regrade

    ann = student(session)
    questions_only = spec(parts=[spec().parts[0].model_dump()])
    attempt = service.start_attempt(
        session=session, course=course, spec=questions_only, user=ann, now=OPENS, enqueue=Queue()
    )
    right = {
        "q:learned-absolute/table-shape": "(max_len, d_model)",
        "q:learned-absolute/bert-base-params": "393216",
        "q:why-position/dog-bites-man": "no",
    }
    for item in attempt.items:
        if item["key"] in right:
            service.save_answer(
                session=session,
                course=course,
                attempt=attempt,
                item_key=item["key"],
                value=right[item["key"]],
                now=OPENS,
                max_code_bytes=1000,
                enqueue=Queue(),
            )
    service.finish_attempt(
        session=session, course=course, attempt=attempt, now=OPENS, by="student", enqueue=Queue()
    )
    first = attempt.score
    assert attempt.results is not None
    # A stored verdict that is wrong (say the answer key was fixed since): the regrade fixes it.
    broken = {k: {**v, "score": 0.0} for k, v in attempt.results["items"].items()}
    attempt.results, attempt.score = {"items": broken}, 0.0
    session.commit()
    assert regrade(session=session, course=course, attempt=attempt) == first
    assert service.draw_items(spec=questions_only, seed=attempt.seed) == attempt.items
