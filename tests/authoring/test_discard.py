"""Discarding one file's draft (API and the edit page's button) so the others can be published;
only editors of that course may, and a discard names the draft it saw."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import get_settings
from app.db import session_factory
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll
from app.users.models import Role, User
from tests.authoring.conftest import Authoring, bearer
from tests.authoring.course import GIT, LESSON, git, make_course
from tests.courses.helpers import tiny_course
from tests.users.helpers import form_token, login

API = "/api/courses/tiny-course/authoring"
LESSON_PATH = "lessons/first-steps.md"
STATEMENT = "exercises/split-heads/statement.md"
EDIT = f"/authoring/tiny-course/edit/{LESSON_PATH}"
DISCARD = f"/authoring/tiny-course/discard/{LESSON_PATH}"
MINE = LESSON.replace("Some text", "Edited text")
FIXED = LESSON.replace("A short lesson", "A short, fixed lesson")


def _get(a: Authoring, path: str = LESSON_PATH) -> dict[str, Any]:
    response = a.client.get(f"{API}/files/{path}", headers=a.editor)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _draft(a: Authoring, path: str, text: str) -> None:
    body = {"text": text, "base": _get(a, path)["revision"]}
    saved = a.client.put(f"{API}/files/{path}", json=body, headers=a.editor)
    assert saved.status_code == 200, saved.text


def _discard(a: Authoring, headers: dict[str, str], base: str | None = None) -> Any:
    query = {"base": base} if base else {}
    return a.client.delete(f"{API}/drafts/{LESSON_PATH}", params=query, headers=headers)


def _publish(a: Authoring) -> Any:
    return a.client.post(f"{API}/publish", json={"message": "m"}, headers=a.editor)


def test_discarding_the_stale_draft_lets_the_other_drafts_publish(authoring: Authoring) -> None:
    a = authoring
    statement = (_get(a, STATEMENT)["text"] or "") + "\nOne more line.\n"
    _draft(a, LESSON_PATH, MINE)
    _draft(a, STATEMENT, statement)
    (a.folder / LESSON_PATH).write_text(FIXED, "utf-8")
    git(a.folder, "add", "-A")
    git(a.folder, *GIT, "commit", "-q", "-m", "Fix on disk")
    assert _publish(a).status_code == 409  # the lesson's draft blocks the statement's
    discarded = _discard(a, a.editor)
    assert discarded.status_code == 200, discarded.text
    assert discarded.json()["discarded"] is True
    opened = _get(a)
    assert opened["text"] == FIXED and not opened["draft"] and not opened["disk_changed"]
    assert _publish(a).status_code == 200
    assert (a.folder / STATEMENT).read_text("utf-8") == statement
    assert (a.folder / LESSON_PATH).read_text("utf-8") == FIXED
    assert _discard(a, a.editor).status_code == 404  # no draft left


def test_a_discard_naming_an_older_draft_keeps_the_newer_one(authoring: Authoring) -> None:
    a = authoring
    _draft(a, LESSON_PATH, MINE)
    seen = _get(a)["revision"]
    _draft(a, LESSON_PATH, MINE + "\nNewer.\n")  # another tab saved since
    late = _discard(a, a.editor, base=seen)
    assert late.status_code == 409
    assert _get(a)["text"] == MINE + "\nNewer.\n"
    assert _discard(a, a.editor, base=_get(a)["revision"]).status_code == 200


@pytest.fixture
def two_courses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> Iterator[Authoring]:
    """The tiny course and another one, each with its own editor."""
    folder = make_course(tmp_path / "course")
    other = tiny_course(tmp_path / "other", "other-course", "Other")
    monkeypatch.setenv("CONTENT_DIR", str(folder))
    monkeypatch.setenv("COURSE_DIRS", json.dumps([str(other)]))
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        admin = bearer("admin@example.org", Role.instructor, admin=True)
        editor = bearer("editor@example.org", Role.instructor)
        bearer("other@example.org", Role.instructor)
        for course, email in (("tiny-course", "editor"), ("other-course", "other")):
            granted = client.post(
                f"/api/courses/{course}/authoring/editors",
                json={"email": f"{email}@example.org"},
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


def test_only_editors_of_the_course_may_discard(two_courses: Authoring) -> None:
    a = two_courses
    ta = bearer("ta@example.org", Role.instructor)
    with session_factory()() as session:
        term = create_offering(session=session, course_slug="tiny-course", title="Term 1")
        roles = {"ta@example.org": OfferingRole.ta, "student@example.org": OfferingRole.student}
        for email, role in roles.items():
            user = session.scalar(select(User).where(User.email == email))
            assert user is not None
            enroll(session=session, offering=term, user=user, role=role)
    other = bearer("other@example.org", Role.instructor)  # an editor of other-course only
    _draft(a, LESSON_PATH, MINE)
    for who in (ta, a.student, a.instructor, other):
        assert _discard(a, who).status_code == 403, who
    for email in ("ta@example.org", "student@example.org", "other@example.org"):
        a.client.cookies.clear()
        assert login(a.client, email, password="correct horse").status_code == 303
        token = form_token(a.client.get("/").text)
        refused = a.client.post(DISCARD, data={"csrf_token": token}, follow_redirects=False)
        assert refused.status_code == 403, (email, refused.status_code)
    assert _get(a)["text"] == MINE and _get(a)["draft"]
    assert _discard(a, a.editor).status_code == 200  # its own editor may


def test_the_edit_page_discards_its_draft_with_a_button(authoring: Authoring) -> None:
    a = authoring
    assert login(a.client, "editor@example.org", password="correct horse").status_code == 303
    assert 'action="/authoring/tiny-course/discard/' not in a.client.get(EDIT).text  # no draft
    _draft(a, LESSON_PATH, MINE)
    page = a.client.get(EDIT)
    assert f'action="{DISCARD}"' in page.text
    forged = a.client.post(DISCARD, data={}, follow_redirects=False)
    assert forged.status_code == 403 and _get(a)["draft"]  # no CSRF token: refused
    base = _get(a)["revision"]
    done = a.client.post(DISCARD, data={"csrf_token": form_token(page.text), "base": base})
    assert done.status_code == 200 and str(done.url).endswith(EDIT + "?discarded=1")
    assert "Draft discarded" in done.text
    assert "Some text" in done.text.split("<textarea")[1] and not _get(a)["draft"]
