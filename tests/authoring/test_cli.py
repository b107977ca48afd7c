"""`courses editor add|remove SLUG EMAIL`: a site administrator's grant, from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.authoring.editors import is_editor
from app.cli import main
from app.db import session_factory
from app.users.models import Role
from app.users.service import create_user, get_user_by_email

FIRST = "positional-embeddings"


def _is_editor(email: str) -> bool:
    with session_factory()() as session:
        user = get_user_by_email(session=session, email=email)
        assert user is not None
        return is_editor(session=session, user=user, course_slug=FIRST)


def test_add_then_remove_an_editor(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with session_factory()() as session:
        create_user(
            session=session, email="ta@example.org", password="correct horse", role=Role.instructor
        )
    assert not _is_editor("ta@example.org")
    assert main(["courses", "editor", "add", FIRST, "ta@example.org"]) == 0
    assert "ta@example.org is now an editor of positional-embeddings." in capsys.readouterr().out
    assert _is_editor("ta@example.org")
    assert main(["courses", "editor", "remove", FIRST, "ta@example.org"]) == 0
    assert not _is_editor("ta@example.org")
    assert main(["courses", "editor", "remove", FIRST, "ta@example.org"]) == 1
    assert main(["courses", "editor", "add", "no-such-course", "ta@example.org"]) == 2
    assert main(["courses", "editor", "add", FIRST, "nobody@example.org"]) == 2
    assert "There is no account with that email address." in capsys.readouterr().err
