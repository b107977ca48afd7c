"""An app serving the tiny course (its own git repository) and accounts of every kind."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import session_factory
from app.main import create_app
from app.users.models import Role, User
from tests.authoring.course import GIT, git, make_course
from tests.conftest import make_token


@dataclass(frozen=True)
class Authoring:
    """The client, the course folder, and bearer headers of each kind of account."""

    client: TestClient
    folder: Path
    admin: dict[str, str]
    editor: dict[str, str]
    instructor: dict[str, str]
    student: dict[str, str]


def bearer(email: str, role: Role, *, admin: bool = False) -> dict[str, str]:
    """Headers of a new account."""
    token = make_token(email, role)
    if admin:
        with session_factory()() as session:
            user = session.query(User).filter_by(email=email).one()
            user.is_admin = True
            session.commit()
    return {"Authorization": f"Bearer {token}"}


def _served(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Authoring]:
    """The app serving this course folder; the editor is granted by the admin."""
    monkeypatch.setenv("CONTENT_DIR", str(folder))
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        admin = bearer("admin@example.org", Role.instructor, admin=True)
        editor = bearer("editor@example.org", Role.instructor)
        granted = client.post(
            "/api/courses/tiny-course/authoring/editors",
            json={"email": "editor@example.org"},
            headers=admin,
        )
        assert granted.status_code == 201, granted.text
        yield Authoring(
            client,
            folder,
            admin,
            editor,
            bearer("teacher@example.org", Role.instructor),
            bearer("student@example.org", Role.student),
        )


@pytest.fixture
def authoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> Iterator[Authoring]:
    """The app with the tiny course as its only course; the editor is granted by the admin."""
    yield from _served(make_course(tmp_path / "course"), monkeypatch)


@pytest.fixture
def exam_authoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> Iterator[Authoring]:
    """The same with an exam over the lesson's quiz question, open now for an hour more."""
    folder = make_course(tmp_path / "course")
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    exam = {
        "slug": "quick",
        "title": "Quick exam",
        "kind": "exam",
        "opens": (now - dt.timedelta(hours=1)).isoformat(),
        "closes": (now + dt.timedelta(hours=1)).isoformat(),
        "time_limit_minutes": 30,
        "attempts": 1,
        "release": "on_submit",
        "parts": [{"title": "One", "items": [{"question": "first-steps/pick-one"}]}],
    }
    (folder / "assessments").mkdir()
    (folder / "assessments" / "quick.yaml").write_text(yaml.safe_dump(exam), "utf-8")
    git(folder, "add", "-A")
    git(folder, *GIT, "commit", "-q", "-m", "Exam")
    yield from _served(folder, monkeypatch)
