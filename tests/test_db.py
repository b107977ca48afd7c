"""The database layer: SQLite writers take turns inside the process instead of sleeping."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app import db
from app.db import session_factory
from app.progress.models import LessonRead
from app.progress.service import record_lesson_read
from app.users.models import Role
from app.users.service import create_user


def _writer_held() -> bool:
    return db._sqlite_writer._lock.locked()


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
    monkeypatch.setattr(db._sqlite_writer, "_wait", 0.05)
    assert db._sqlite_writer._lock.acquire()  # as if another connection never let go
    try:
        with session_factory()() as session:
            assert record_lesson_read(session=session, user_id=user_id, lesson_slug="late")
    finally:
        db._sqlite_writer._lock.release()
    assert not _writer_held()
