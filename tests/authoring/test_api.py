"""The authoring API: editors only, drafts never on disk, checks with lines, publish, roll back."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.authoring.models import AuthoringConflict
from app.authoring.paths import REFUSED
from app.courses.models import CourseFolder
from app.db import session_factory
from app.users.models import User
from tests.authoring.conftest import Authoring
from tests.authoring.course import LESSON, git
from tests.users.helpers import make_instructor

API = "/api/courses/tiny-course/authoring"
LESSON_PATH = "lessons/first-steps.md"
NEW_QUESTION = LESSON.replace("Which number is even?", "Which number is prime and even?")


def _get(a: Authoring, path: str = LESSON_PATH) -> dict[str, Any]:
    response = a.client.get(f"{API}/files/{path}", headers=a.editor)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _save(a: Authoring, text: str, base: str | None, path: str = LESSON_PATH) -> Any:
    return a.client.put(f"{API}/files/{path}", json={"text": text, "base": base}, headers=a.editor)


def test_only_editors_and_site_admins_author(authoring: Authoring) -> None:
    a = authoring
    with session_factory()() as session:
        teacher = session.scalar(select(User).where(User.email == "teacher@example.org"))
        assert teacher is not None
    make_instructor(teacher.id)  # teaches an offering of the course: still not an editor
    for headers in (a.student, a.instructor):
        for method, url, body in (
            ("GET", f"{API}/items", None),
            ("GET", f"{API}/files/{LESSON_PATH}", None),
            ("PUT", f"{API}/files/{LESSON_PATH}", {"text": "x", "base": None}),
            ("POST", f"{API}/publish", {"message": "m"}),
            ("GET", f"{API}/versions", None),
            ("POST", f"{API}/versions/1/restore", None),
            ("POST", f"{API}/editors", {"email": "student@example.org"}),
        ):
            response = a.client.request(method, url, json=body, headers=headers)
            assert response.status_code == 403, (method, url, response.text)
    assert a.client.get(f"{API}/items").status_code == 401
    assert a.client.get(f"{API}/items", headers=a.admin).status_code == 200
    assert a.client.get(f"{API}/items", headers=a.editor).status_code == 200
    gone = a.client.request(
        "DELETE", f"{API}/editors", json={"email": "editor@example.org"}, headers=a.admin
    )
    assert gone.status_code == 200
    assert a.client.get(f"{API}/items", headers=a.editor).status_code == 403


def test_items_list_lessons_and_exercises_with_their_state(authoring: Authoring) -> None:
    a = authoring
    items = a.client.get(f"{API}/items", headers=a.editor).json()
    lesson = {"kind": "lesson", "slug": "first-steps", "state": "published", "problems": 0}
    assert lesson | {"path": "lessons/first-steps.md"} in items
    exercise = {"kind": "exercise", "slug": "split-heads", "state": "published", "problems": 0}
    assert exercise | {"path": "exercises/split-heads/exercise.yaml"} in items
    loaded = _get(a)
    assert _save(a, NEW_QUESTION, loaded["revision"]).status_code == 200
    new = _save(a, LESSON.replace("first-steps", "second-steps"), None, "lessons/second-steps.md")
    assert new.status_code == 200, new.text
    items = a.client.get(f"{API}/items", headers=a.editor).json()
    states = {(i["kind"], i["slug"]): i["state"] for i in items}
    assert states[("lesson", "first-steps")] == "changed"
    assert states[("lesson", "second-steps")] == "draft"


def test_a_save_is_a_draft_checked_with_lines_and_never_on_disk(authoring: Authoring) -> None:
    a = authoring
    loaded = _get(a)
    broken = LESSON.replace("    type: single", "    type: single\n   prompt: [unclosed")
    saved = _save(a, broken, loaded["revision"])
    assert saved.status_code == 200, saved.text
    check = saved.json()["check"]
    assert not check["ok"]
    problem = check["problems"][0]
    assert problem["file"] == LESSON_PATH and "YAML" in problem["message"]
    assert broken.splitlines()[problem["line"] - 1].strip().startswith(("prompt", "- id", "type"))
    assert (a.folder / LESSON_PATH).read_text("utf-8") == LESSON  # the folder is untouched
    again = _get(a)
    assert again["text"] == broken and again["draft"]  # the draft is kept
    fixed = _save(a, NEW_QUESTION, again["revision"]).json()
    assert fixed["check"] == {"ok": True, "problems": []}
    student_page = a.client.get("/lessons/first-steps", headers=a.student)
    assert "Which number is even?" in student_page.text
    assert "prime and even" not in student_page.text


def test_a_stale_base_is_a_409_and_both_texts_are_kept(authoring: Authoring) -> None:
    a = authoring
    base = _get(a)["revision"]
    assert _save(a, NEW_QUESTION, base).status_code == 200
    late = _save(a, LESSON + "\nMine.\n", base)
    assert late.status_code == 409 and "kept as a conflict" in late.json()["detail"]
    assert _get(a)["text"] == NEW_QUESTION
    with session_factory()() as session:
        kept = session.scalars(select(AuthoringConflict.text)).all()
    assert kept == [LESSON + "\nMine.\n"]


def test_bad_paths_types_and_sizes_are_refused(authoring: Authoring) -> None:
    a = authoring
    refused = _save(a, "x: 1", None, "course.yaml")
    assert refused.status_code == 403 and refused.json()["detail"] == REFUSED
    for path in ("assessments/midterm.yaml", "exercises/split-heads/helpers.py"):
        assert _save(a, "x", None, path).status_code == 403, path
    assert _save(a, "x", None, "lessons/../../etc/passwd").status_code in (404, 422)
    assert _save(a, "x", None, "lessons/%2e%2e/secret.md").status_code in (404, 422)
    assert _save(a, "x", None, "secrets/key.md").status_code == 404
    big = _save(a, "a" * (512 * 1024 + 1), _get(a)["revision"])
    assert big.status_code == 413 and "512 KB" in big.json()["detail"]
    statement = _get(a, "exercises/split-heads/statement.md")
    ok = _save(
        a,
        statement["text"] + "\nOne more line.\n",
        statement["revision"],
        "exercises/split-heads/statement.md",
    )
    assert ok.status_code == 200 and ok.json()["check"]["ok"], ok.text
    hint = _save(a, "Look at the shapes.\n", None, "exercises/split-heads/hints/9.md")
    assert hint.status_code == 200, hint.text


def test_publish_commits_refreshes_and_restores(authoring: Authoring) -> None:
    a = authoring
    assert _save(a, NEW_QUESTION, _get(a)["revision"]).status_code == 200
    published = a.client.post(
        f"{API}/publish", json={"message": "Harder question"}, headers=a.editor
    )
    assert published.status_code == 200, published.text
    assert (a.folder / LESSON_PATH).read_text("utf-8") == NEW_QUESTION
    assert git(
        a.folder, "log", "-1", "--format=%an|%ae|%s"
    ) == "Ada|editor@example.org|Harder question" or (
        git(a.folder, "log", "-1", "--format=%ae|%s") == "editor@example.org|Harder question"
    )
    assert git(a.folder, "status", "--porcelain") == ""
    assert "prime and even" in a.client.get("/lessons/first-steps", headers=a.student).text
    versions = a.client.get(f"{API}/versions", headers=a.editor).json()
    assert [v["message"] for v in versions] == ["Harder question"]
    first = versions[0]["version"]
    assert _save(a, LESSON.replace("Two", "Four"), _get(a)["revision"]).status_code == 200
    second = a.client.post(f"{API}/publish", json={"message": "Four"}, headers=a.editor)
    assert second.status_code == 200
    back = a.client.post(f"{API}/versions/{first}/restore", headers=a.admin)
    assert back.status_code == 200, back.text
    assert (a.folder / LESSON_PATH).read_text("utf-8") == NEW_QUESTION
    assert a.client.post(f"{API}/versions/{first}/restore", headers=a.admin).status_code == 409
    history = a.client.get(f"{API}/versions", headers=a.editor).json()
    assert (
        history[0]["message"] == f"Restore version {first}" and history[0]["restored_from"] == first
    )


def test_publish_refuses_a_change_on_disk_and_new_problems(authoring: Authoring) -> None:
    a = authoring
    assert _save(a, NEW_QUESTION, _get(a)["revision"]).status_code == 200
    (a.folder / LESSON_PATH).write_text(LESSON + "\nEdited on disk.\n", "utf-8")
    clash = a.client.post(f"{API}/publish", json={"message": "m"}, headers=a.editor)
    assert clash.status_code == 409
    assert clash.json()["detail"].startswith(
        f"{LESSON_PATH} changed on disk since this draft began"
    )
    assert (a.folder / LESSON_PATH).read_text("utf-8") == LESSON + "\nEdited on disk.\n"
    (a.folder / LESSON_PATH).write_text(LESSON, "utf-8")
    broken = LESSON.replace("order: 1", "order: [1")
    assert _save(a, broken, _get(a)["revision"]).status_code == 200
    refused = a.client.post(f"{API}/publish", json={"message": "m"}, headers=a.editor)
    assert refused.status_code == 409, refused.text
    assert refused.json()["problems"][0]["file"] == LESSON_PATH
    assert (a.folder / LESSON_PATH).read_text("utf-8") == LESSON  # the old file is back
    assert "Which number is even?" in a.client.get("/lessons/first-steps", headers=a.student).text


def test_a_10_mb_paste_is_refused_and_nothing_is_kept(authoring: Authoring) -> None:
    a = authoring
    huge = _save(a, "a" * (10 * 1024 * 1024), _get(a)["revision"])
    assert huge.status_code == 413, huge.text[:200]
    assert not _get(a)["draft"]


def test_after_a_publish_disk_edits_and_refresh_still_work_and_other_servers_are_told(
    authoring: Authoring,
) -> None:
    a = authoring
    assert _save(a, NEW_QUESTION, _get(a)["revision"]).status_code == 200
    assert (
        a.client.post(f"{API}/publish", json={"message": "m"}, headers=a.editor).status_code == 200
    )
    with session_factory()() as session:
        mark = session.get(CourseFolder, "tiny-course")
        assert mark is not None and mark.refresh_requested_at is not None  # other processes
    on_disk = NEW_QUESTION.replace("prime and even", "prime, even and small")
    (a.folder / LESSON_PATH).write_text(on_disk, "utf-8")
    refreshed = a.client.post("/api/courses/tiny-course/refresh", headers=a.admin)
    assert refreshed.status_code == 200 and refreshed.json()["applied"], refreshed.text
    assert "prime, even and small" in a.client.get("/lessons/first-steps", headers=a.student).text
    versions = a.client.get(f"{API}/versions", headers=a.editor).json()
    assert _save(a, on_disk + "\nMore.\n", _get(a)["revision"]).status_code == 200
    assert (
        a.client.post(f"{API}/publish", json={"message": "2"}, headers=a.editor).status_code == 200
    )
    (a.folder / LESSON_PATH).write_text(on_disk + "\nOn disk again.\n", "utf-8")
    restore = a.client.post(f"{API}/versions/{versions[0]['version']}/restore", headers=a.editor)
    assert restore.status_code == 409
    assert restore.json()["detail"].startswith(f"{LESSON_PATH} changed on disk since version ")
    assert (a.folder / LESSON_PATH).read_text("utf-8") == on_disk + "\nOn disk again.\n"
