"""The database layer: SQLite writers take turns; idle PostgreSQL connections are checked."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, func, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import db, sqlite_file
from app.db import read_rows, session_factory
from app.migrate import upgrade_head
from app.progress.models import LessonRead, QuizAttempt
from app.progress.service import open_lesson, record_lesson_read
from app.users.models import Role, User
from app.users.service import create_user
from tests.postgres import PG_ADMIN, throwaway_database


def _writer_held() -> bool:
    return sqlite_file._sqlite_writer._lock.locked()


@pytest.fixture
def user_id(data_dir: Path) -> int:
    with session_factory()() as session:
        user, _ = create_user(
            session=session, email="w@example.org", password="correct horse", role=Role.student
        )
        return user.id


def test_a_write_holds_the_writer_until_its_transaction_ends(user_id: int) -> None:
    session = session_factory()()
    session.execute(select(LessonRead.id))  # a read takes nothing
    assert not _writer_held()
    session.add(LessonRead(user_id=user_id, lesson_slug="one"))
    session.flush()
    assert _writer_held()
    session.rollback()
    assert not _writer_held()
    session.add(LessonRead(user_id=user_id, lesson_slug="two"))
    session.commit()
    assert not _writer_held()
    session.close()


def test_a_class_opening_lessons_at_once_records_every_first_visit(user_id: int) -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(16)

    def open_lessons(n: int) -> None:
        try:
            start.wait()
            for k in range(10):
                with session_factory()() as session:
                    record_lesson_read(session=session, user_id=user_id, lesson_slug=f"l{n}-{k}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_lessons, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert not _writer_held()
    with session_factory()() as session:
        assert session.scalar(select(func.count(LessonRead.id))) == 160


def test_a_writer_stuck_elsewhere_falls_back_to_sqlite_own_waiting(
    user_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_file._sqlite_writer, "_wait", 0.05)
    assert sqlite_file._sqlite_writer._lock.acquire()  # as if another connection never let go
    try:
        with session_factory()() as session:
            assert record_lesson_read(session=session, user_id=user_id, lesson_slug="late")
    finally:
        sqlite_file._sqlite_writer._lock.release()
    assert not _writer_held()


def _terminate_backends(url: str) -> int:
    """What a PostgreSQL restart does to a pool: every connection of the database is cut."""
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        ).fetchall()
    return len(rows)


def test_a_connection_that_sat_idle_is_checked_before_a_request_uses_it(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.2)
    with throwaway_database(monkeypatch, data_dir) as url:
        engine = db.get_engine()
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar_one() == 1
        assert _terminate_backends(url) == 1
        time.sleep(0.3)  # longer than IDLE_PING_SECONDS: the next checkout pings and reconnects
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 2")).scalar_one() == 2


def test_a_connection_just_given_back_is_handed_out_without_a_ping(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    # Why: a ping per page was one more round trip per page under a class's load (issue 23).
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 60.0)
    with throwaway_database(monkeypatch, data_dir):
        engine = db.get_engine()
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        seen: list[str] = []
        event.listen(engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        with engine.connect() as conn:
            conn.execute(text("SELECT 2"))
        with engine.connect() as conn:
            conn.execute(text("SELECT 3"))
        assert seen == ["SELECT 2", "SELECT 3"]


@pytest.fixture
def pg_web(monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Iterator[str]:
    """The web engine on a migrated throwaway PostgreSQL database."""
    with throwaway_database(monkeypatch, data_dir) as url:
        upgrade_head()
        yield url


def _in_transaction(session: Session) -> bool:
    dbapi = session.connection().connection.dbapi_connection
    assert dbapi is not None
    return bool(dbapi.info.transaction_status != psycopg.pq.TransactionStatus.IDLE)


def test_reads_of_a_web_request_open_no_transaction(pg_web: str) -> None:
    # Why: BEGIN and ROLLBACK around a page's reads were two of its round trips (issue 23).
    with session_factory()() as session:
        assert session.scalar(select(func.count()).select_from(User)) == 0
        assert not _in_transaction(session)


def test_a_locking_read_starts_a_transaction_each_time_a_plain_one_never(pg_web: str) -> None:
    # The decision is remembered per SQL text: the second time must decide the same.
    for _ in range(2):
        with session_factory()() as session:
            session.scalar(select(func.count()).select_from(User))
            assert not _in_transaction(session)
            session.execute(select(User.id).with_for_update()).all()
            assert _in_transaction(session)
            session.rollback()


def test_the_first_write_starts_a_transaction_that_commits_or_rolls_back_whole(
    pg_web: str,
) -> None:
    with session_factory()() as session:
        session.scalar(select(func.count()).select_from(User))
        session.add(User(email="a@example.org", name="A", password_hash="x", role="student"))
        session.flush()
        assert _in_transaction(session)
        session.add(User(email="a@example.org", name="B", password_hash="x", role="student"))
        with pytest.raises(IntegrityError):
            session.flush()
        session.rollback()
    with session_factory()() as session:
        assert session.scalar(select(func.count()).select_from(User)) == 0  # neither row
        session.add(User(email="c@example.org", name="C", password_hash="x", role="student"))
        session.commit()
    with session_factory()() as session:  # the pooled connection is back to reading freely
        assert session.scalar(select(func.count()).select_from(User)) == 1
        assert not _in_transaction(session)


def test_a_lesson_view_is_one_statement_with_no_transaction_around_it(pg_web: str) -> None:
    # Why: BEGIN and COMMIT around the one INSERT were two of a lesson page's round trips, and
    # the SELECT before it a third (issue 23).
    engine = db.get_engine()
    seen: list[tuple[str, object]] = []

    def after(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        status = conn.connection.dbapi_connection.info.transaction_status
        seen.append((statement.split()[0], status))

    with session_factory()() as session:
        student = User(email="r@example.org", name="R", password_hash="x", role="student")
        session.add(student)
        session.commit()
        event.listen(engine, "after_cursor_execute", after)
        try:
            first = open_lesson(session=session, user_id=student.id, lesson_slug="one")
            again = open_lesson(session=session, user_id=student.id, lesson_slug="one")
            assert (first.newly_read, again.newly_read) == (True, False)
            idle = psycopg.pq.TransactionStatus.IDLE
            assert seen == [("WITH", idle), ("WITH", idle)]
            session.add(LessonRead(user_id=student.id, lesson_slug="two"))
            session.flush()  # a transaction is open: the next first view joins it
            assert open_lesson(session=session, user_id=student.id, lesson_slug="three").newly_read
            assert seen[-1] == ("WITH", psycopg.pq.TransactionStatus.INTRANS)
        finally:
            event.remove(engine, "after_cursor_execute", after)
    with session_factory()() as session:
        rows = session.scalars(select(LessonRead.lesson_slug).order_by(LessonRead.lesson_slug))
        assert list(rows) == ["one", "three", "two"]  # committed together, as before
        # Two tabs at once: the second INSERT fails on its own and leaves nothing to undo.
        twice = {"user_id": student.id, "lesson_slug": "one"}
        with pytest.raises(IntegrityError):
            session.execute(insert(LessonRead), twice, execution_options=db.ONE_STATEMENT)
        session.rollback()
        assert session.scalar(select(func.count()).select_from(LessonRead)) == 3
        assert not _in_transaction(session)


def test_tabs_opening_one_lesson_at_once_see_one_first_view_and_the_quiz_count(
    pg_web: str,
) -> None:
    with session_factory()() as session:
        student = User(email="t@example.org", name="T", password_hash="x", role="student")
        session.add(student)
        session.commit()
        session.add(
            QuizAttempt(user_id=student.id, lesson_slug="one", answers={}, results={}, score=0.5)
        )
        session.commit()
        uid = student.id
    start = threading.Barrier(8)
    seen: list[tuple[bool, int]] = []
    errors: list[BaseException] = []

    def open_tab() -> None:
        try:
            start.wait()
            with session_factory()() as session:
                opened = open_lesson(session=session, user_id=uid, lesson_slug="one")
                seen.append((opened.newly_read, opened.quiz_attempts))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_tab) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(seen) == [(False, 1)] * 7 + [(True, 1)]
    with session_factory()() as session:
        assert session.scalar(select(func.count()).select_from(LessonRead)) == 1


def test_background_work_keeps_ordinary_transactions(pg_web: str) -> None:
    with session_factory("background")() as session:
        session.scalar(select(func.count()).select_from(User))
        assert _in_transaction(session)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_serialize_holds_the_next_transaction_off_until_this_one_ends(
    database: str, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """A web session on PostgreSQL reads outside transactions: the advisory lock must start one,
    or it would be let go at once and a second request would pass straight through."""
    import contextlib
    import threading

    from app.db import serialize

    place = throwaway_database(monkeypatch, data_dir) if database == "postgresql" else None
    with place if place is not None else contextlib.nullcontext():
        if place is not None:
            upgrade_head()
        passed = threading.Event()

        def second() -> None:
            with session_factory()() as other:
                serialize(other, "a key")
                passed.set()
                other.rollback()

        with session_factory()() as first:
            serialize(first, "a key")
            thread = threading.Thread(target=second)
            thread.start()
            held = not passed.wait(0.5)  # the second waits while the first holds the key
            first.commit()
        thread.join(10)
    assert held and passed.is_set()


def test_a_page_read_sees_what_its_session_holds_and_skips_the_orm(each_database: None) -> None:
    """`read_rows` (a page's hot reads, issue 54): the rows `Session.execute` would give, the
    session's unflushed objects included, inside its transaction, without the ORM's layers."""
    with session_factory()() as setup:
        user, _ = create_user(
            session=setup, email="r@example.org", password="correct horse", role=Role.student
        )
        user_id = user.id
    slugs = select(LessonRead.lesson_slug).where(LessonRead.user_id == user_id)
    orm_runs: list[object] = []
    session = session_factory()()
    event.listen(session, "do_orm_execute", orm_runs.append)
    try:
        session.add(LessonRead(user_id=user_id, lesson_slug="unflushed"))
        assert read_rows(session, slugs).all() == [("unflushed",)]
        assert orm_runs == []  # no trip through the ORM's compile and result layers
        assert session.execute(slugs).all() == [("unflushed",)]  # the same rows the ORM gives
        assert orm_runs
        with session_factory()() as other:  # not committed: nobody else sees it yet
            assert read_rows(other, slugs).all() == []
        session.rollback()
        assert read_rows(session, slugs).all() == []
    finally:
        session.close()
