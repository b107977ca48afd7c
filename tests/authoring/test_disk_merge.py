"""A draft whose file changed on disk (a git commit): loading it shows the disk's text, a save
that names the disk revision it merged lets publish through, one that does not stays refused."""

from __future__ import annotations

import re
from typing import Any

from tests.authoring.conftest import Authoring
from tests.authoring.course import GIT, LESSON, git
from tests.users.helpers import form_token, login

API = "/api/courses/tiny-course/authoring"
PATH = "lessons/first-steps.md"
EDIT = f"/authoring/tiny-course/edit/{PATH}"
MINE = LESSON.replace("Some text", "Edited text")
FIXED = LESSON.replace("A short lesson", "A short, fixed lesson")
MERGED = FIXED.replace("Some text", "Edited text")


def _get(a: Authoring) -> dict[str, Any]:
    response = a.client.get(f"{API}/files/{PATH}", headers=a.editor)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _put(a: Authoring, text: str, base: str | None, **disk: str | None) -> Any:
    body = {"text": text, "base": base, **disk}
    return a.client.put(f"{API}/files/{PATH}", json=body, headers=a.editor)


def _publish(a: Authoring, message: str = "m") -> Any:
    return a.client.post(f"{API}/publish", json={"message": message}, headers=a.editor)


def _commit_on_disk(a: Authoring, text: str | None) -> None:
    """Someone else changes the file in git, outside the browser."""
    if text is None:
        (a.folder / PATH).unlink()
    else:
        (a.folder / PATH).write_text(text, "utf-8")
    git(a.folder, "add", "-A")
    git(a.folder, *GIT, "commit", "-q", "-m", "Changed on disk")


def _draft_then_commit(a: Authoring, on_disk: str | None = FIXED) -> dict[str, Any]:
    assert _put(a, MINE, _get(a)["revision"]).status_code == 200
    _commit_on_disk(a, on_disk)
    refused = _publish(a)
    assert refused.status_code == 409 and "changed on disk" in refused.json()["detail"]
    return _get(a)


def test_a_draft_whose_file_changed_on_disk_can_be_published_after_a_merge(
    authoring: Authoring,
) -> None:
    a = authoring
    opened = _draft_then_commit(a)
    assert opened["text"] == MINE and opened["draft"] and opened["disk_changed"]
    assert opened["disk_text"] == FIXED and "changed on disk" in opened["message"]
    saved = _put(a, MERGED, opened["revision"], disk=opened["disk_revision"])
    assert saved.status_code == 200, saved.text
    assert saved.json()["disk_changed"] is False
    assert _get(a)["disk_changed"] is False
    published = _publish(a, "merged")
    assert published.status_code == 200, published.text
    assert (a.folder / PATH).read_text("utf-8") == MERGED


def test_a_save_that_has_not_seen_the_disk_text_is_still_refused(authoring: Authoring) -> None:
    a = authoring
    opened = _draft_then_commit(a)
    saved = _put(a, MINE + "\nMore.\n", opened["revision"])
    assert saved.status_code == 200 and saved.json()["disk_changed"] is True
    assert _get(a)["disk_changed"] is True
    assert _publish(a).status_code == 409
    assert (a.folder / PATH).read_text("utf-8") == FIXED


def test_a_merge_of_an_older_disk_text_does_not_cover_a_later_commit(authoring: Authoring) -> None:
    a = authoring
    opened = _draft_then_commit(a)
    _commit_on_disk(a, FIXED + "\nLater.\n")  # committed while the editor merged
    saved = _put(a, MERGED, opened["revision"], disk=opened["disk_revision"])
    assert saved.status_code == 200 and saved.json()["disk_changed"] is True
    assert _publish(a).status_code == 409
    assert (a.folder / PATH).read_text("utf-8") == FIXED + "\nLater.\n"


def test_a_file_deleted_on_disk_is_written_again_once_the_draft_says_it_saw(
    authoring: Authoring,
) -> None:
    a = authoring
    opened = _draft_then_commit(a, None)
    assert opened["disk_changed"] and opened["disk_text"] is None
    assert opened["disk_revision"] is None
    assert _put(a, MINE, opened["revision"]).json()["disk_changed"] is True
    saved = _put(a, MINE, _get(a)["revision"], disk=None)  # null: seen that it is gone
    assert saved.status_code == 200 and saved.json()["disk_changed"] is False
    assert _publish(a).status_code == 200
    assert (a.folder / PATH).read_text("utf-8") == MINE


def _textarea(html: str) -> str:
    return html.split("<textarea")[1].split("</textarea>")[0]


def test_the_edit_page_shows_the_disk_text_beside_the_draft_until_merged(
    authoring: Authoring,
) -> None:
    a = authoring
    assert login(a.client, "editor@example.org", password="correct horse").status_code == 303
    _draft_then_commit(a)
    course = a.client.get("/authoring/tiny-course").text.split('id="publish"')[1]
    assert "changed on disk since this draft began" in course.split("</li>")[0]
    page = a.client.get(EDIT)
    assert page.status_code == 200
    assert "changed on disk since this draft began" in page.text
    disk = page.text.split('class="disk-text"')[1].split("</pre>")[0]
    assert "A short, fixed lesson" in disk and "Edited text" not in disk
    assert "Edited text" in _textarea(page.text)
    seen = re.search(r'name="disk" value="([^"]*)"', page.text)
    base = re.search(r'name="base" value="([^"]*)"', page.text)
    assert seen is not None and base is not None
    form = {"text": MERGED, "base": base.group(1), "csrf_token": form_token(page.text)}
    unticked = a.client.post(EDIT, data=form)
    assert unticked.status_code == 200
    assert "changed on disk since this draft began" in unticked.text
    base = re.search(r'name="base" value="([^"]*)"', unticked.text)
    assert base is not None
    ticked = a.client.post(EDIT, data={**form, "base": base.group(1), "disk": seen.group(1)})
    assert ticked.status_code == 200
    assert "changed on disk since this draft began" not in ticked.text
    published = a.client.post(
        "/authoring/tiny-course/publish",
        data={"message": "merged", "csrf_token": form_token(ticked.text)},
        follow_redirects=False,
    )
    assert published.status_code == 303, published.text
    assert (a.folder / PATH).read_text("utf-8") == MERGED
