"""An answer saved as the attempt is handed in: graded with it, or refused with a 409, never
stored ungraded. The two requests are interleaved by hand, each with its own session on one
database (SQLite, and PostgreSQL where the hand-in must wait for a save in flight)."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import event
from sqlalchemy.orm import Session

from app.assessments import service
from app.assessments.models import AssessmentAttempt
from app.assessments.service import AssessmentError
from app.content.loader import Course
from app.content.service import load_from_settings
from app.db import session_factory
from app.migrate import upgrade_head
from app.users.models import Role
from app.users.service import create_user
from tests.assessments.test_service import OPENS, Queue, spec
from tests.postgres import throwaway_database
from tests.races import inserting, other_request_before

SHAPE = "q:learned-absolute/table-shape"
RIGHT = "(max_len, d_model)"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(
    request: pytest.FixtureRequest, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """The migrated database both sessions share: the test's SQLite file, or a PostgreSQL one."""
    if request.param == "sqlite":
        yield request.param
        return
    with throwaway_database(monkeypatch, data_dir) as url:
        upgrade_head()
        yield url


@pytest.fixture
def course(database: str) -> Course:
    return load_from_settings()


def _exam_with_the_shape_question() -> Any:
    """The usual test exam with one fixed question besides its pool, so SHAPE is always drawn."""
    parts = [p.model_dump() for p in spec().parts]
    parts[0]["items"] = [i for i in parts[0]["items"] if i["question"] != SHAPE[2:]]
    parts.append({"title": "Fixed", "items": [{"question": SHAPE[2:]}]})
    return spec(parts=parts)


def _begin(course: Course) -> int:
    """Ann starts the exam at its opening; the attempt's id."""
    with session_factory()() as session:
        ann, _ = create_user(
            session=session, email="ann@example.org", password="correct horse", role=Role.student
        )
        attempt = service.start_attempt(
            session=session,
            course=course,
            spec=_exam_with_the_shape_question(),
            user=ann,
            now=OPENS,
            enqueue=Queue(),
        )
        return attempt.id


def _save(session: Session, course: Course, attempt: AssessmentAttempt, value: str) -> None:
    service.save_answer(
        session=session,
        course=course,
        attempt=attempt,
        item_key=SHAPE,
        value=value,
        now=OPENS + dt.timedelta(minutes=10),
        max_code_bytes=100_000,
        enqueue=Queue(),
    )


def _hand_in(course: Course, attempt_id: int, *, by: str = "student") -> None:
    """The other request: hands the attempt in (the student's button, or the clock)."""
    with session_factory()() as session:
        attempt = session.get(AssessmentAttempt, attempt_id)
        assert attempt is not None
        now = OPENS + dt.timedelta(minutes=10 if by == "student" else 60)
        if by == "student":
            service.finish_attempt(
                session=session, course=course, attempt=attempt, now=now, by=by, enqueue=Queue()
            )
        else:
            assert service.finish_if_due(
                session=session, course=course, attempt=attempt, now=now, enqueue=Queue()
            )


def _stored_and_graded(attempt_id: int) -> tuple[Any, Any]:
    """(the answer stored for SHAPE, the answer the hand-in graded), read afresh."""
    with session_factory()() as session:
        attempt = session.get(AssessmentAttempt, attempt_id)
        assert attempt is not None and attempt.status == "submitted"
        stored = service.answers_of(session=session, attempt=attempt)[SHAPE].value
        assert attempt.results is not None
        return stored, attempt.results["items"][SHAPE]["answer"]


@pytest.mark.parametrize("by", ["student", "clock"])
def test_a_save_that_read_the_attempt_before_the_hand_in_is_refused(
    course: Course, by: str
) -> None:
    """The save has read the open attempt; the hand-in commits before the save writes."""
    attempt_id = _begin(course)
    with session_factory()() as saver:
        attempt = saver.get(AssessmentAttempt, attempt_id)
        assert attempt is not None
        _save(saver, course, attempt, "(d_model, max_len)")  # an earlier autosave
        assert attempt.status == "open"  # what this request read
        _hand_in(course, attempt_id, by=by)  # meanwhile, another request hands it in
        with pytest.raises(AssessmentError) as refused:
            _save(saver, course, attempt, RIGHT)
    assert refused.value.status == 409
    assert "already handed in" in refused.value.message
    assert "was not saved" in refused.value.message
    if by == "clock":
        assert "time ran out" in refused.value.message
    stored, graded = _stored_and_graded(attempt_id)
    assert stored == graded == "(d_model, max_len)"  # the refused answer was not stored


def _waiting_for_a_lock(url: str, timeout: float = 10.0) -> bool:
    """Whether another PostgreSQL backend of the database is (or soon is) waiting on a lock."""
    with psycopg.connect(url, autocommit=True) as probe:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = probe.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()
            if found and found[0]:
                return True
            time.sleep(0.02)
    return False


# PostgreSQL only: SQLite has one writer at a time, so a hand-in cannot start inside a save.
@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_a_hand_in_during_a_save_waits_for_it_and_grades_the_answer(
    course: Course, database: str
) -> None:
    """The save has written but not committed when the hand-in starts: it waits, then grades."""
    attempt_id = _begin(course)
    handing_in = threading.Thread(target=_hand_in, args=(course, attempt_id))
    waited: list[bool] = []

    def hand_in_before_the_save_commits(_session: Session) -> None:
        if not waited:
            handing_in.start()
            waited.append(_waiting_for_a_lock(database))

    with session_factory()() as saver:
        attempt = saver.get(AssessmentAttempt, attempt_id)
        assert attempt is not None
        event.listen(saver, "before_commit", hand_in_before_the_save_commits)
        _save(saver, course, attempt, RIGHT)
        event.remove(saver, "before_commit", hand_in_before_the_save_commits)
    handing_in.join(timeout=30)
    assert not handing_in.is_alive()
    assert waited == [True], "the hand-in did not wait for the answer being saved"
    stored, graded = _stored_and_graded(attempt_id)
    assert stored == graded == RIGHT
    with session_factory()() as session:
        attempt = session.get(AssessmentAttempt, attempt_id)
        assert attempt is not None and attempt.results is not None
        assert attempt.results["items"][SHAPE]["correct"] is True


CODE = "x:position-embedding-gather"


def _other_request_reads(course: Course, attempt_id: int, queue: Queue) -> Any:
    """Another request reads the handed-in attempt (its page, the clock's job): an attempt
    handed in with no score yet sends its code to the graders."""

    def read(session: Session) -> None:
        attempt = session.get(AssessmentAttempt, attempt_id)
        assert attempt is not None
        service.finish_if_due(
            session=session, course=course, attempt=attempt, now=OPENS, enqueue=queue
        )

    return read


def test_code_handed_in_while_another_request_reads_the_attempt_is_graded_once(
    course: Course,
) -> None:
    """A double click on Hand in (or a page read beside the clock's hand-in): both requests
    find the code answer not yet sent; it is sent once, and the answer points at that one."""
    from sqlalchemy import func, select

    from app.assessments.models import AssessmentAnswer
    from app.submissions.models import Submission

    attempt_id = _begin(course)
    theirs, ours = Queue(), Queue()
    with session_factory()() as session:
        attempt = session.get(AssessmentAttempt, attempt_id)
        assert attempt is not None
        service.save_answer(
            session=session,
            course=course,
            attempt=attempt,
            item_key=CODE,
            value={"framework": "numpy", "code": "def position_embedding_gather(p, t):\n"},
            now=OPENS,
            max_code_bytes=100_000,
            enqueue=Queue(),
        )
        reads = _other_request_reads(course, attempt_id, theirs)
        with other_request_before(inserting("submissions"), reads) as ran:
            service.finish_attempt(
                session=session,
                course=course,
                attempt=attempt,
                now=OPENS + dt.timedelta(minutes=3),
                by="student",
                enqueue=ours,
            )
    assert ran == [True]
    with session_factory()() as session:
        sent = session.scalar(select(func.count()).select_from(Submission))
        answer = session.scalar(
            select(AssessmentAnswer).where(
                AssessmentAnswer.attempt_id == attempt_id, AssessmentAnswer.item_key == CODE
            )
        )
    assert (sent, len(theirs.ids + ours.ids)) == (1, 1)
    assert answer is not None and answer.submission_id == (theirs.ids + ours.ids)[0]


@pytest.mark.parametrize("by", ["student", "clock"])
def test_a_page_read_during_the_hand_in_of_questions_never_shows_a_score_still_coming(
    course: Course, by: str
) -> None:
    """An exam of questions only is scored at its hand-in: a page read while the hand-in runs
    sees the attempt open (and waits) or handed in with its score, never handed in with "Your
    code is being graded" (the clock's hand-in showed that, and the page never reloaded)."""
    with session_factory()() as session:
        ann, _ = create_user(
            session=session, email="ann@example.org", password="correct horse", role=Role.student
        )
        questions = [p.model_dump() for p in spec().parts if p.title != "Code"]
        attempt = service.start_attempt(
            session=session,
            course=course,
            spec=spec(parts=questions),
            user=ann,
            now=OPENS,
            enqueue=Queue(),
        )
        attempt_id = attempt.id
    seen: list[tuple[str, float | None]] = []

    def page_reads(session: Session) -> None:
        row = session.get(AssessmentAttempt, attempt_id)
        assert row is not None
        seen.append((row.status, row.score))

    scoring = re.compile(r'\s*UPDATE "?assessment_attempts"? SET .*results', re.S)
    with other_request_before(scoring, page_reads) as ran:
        _hand_in(course, attempt_id, by=by)
    assert ran == [True]
    assert seen[0][0] == "open" or seen[0][1] is not None, seen
