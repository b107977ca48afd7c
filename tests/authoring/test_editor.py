"""The editor side: new exercise from the commented template, duplicate, every exercise file
editable with its problems, drafts invisible to students until published, and bad input."""

from __future__ import annotations

import re
from typing import Any

import yaml

from app.authoring.models import AuthoringConflict
from app.db import session_factory
from tests.authoring.conftest import Authoring
from tests.users.helpers import form_token, login

API = "/api/courses/tiny-course/authoring"
COURSE = "/authoring/tiny-course"
COPIED = "students will not see it"


def _log_in(a: Authoring, email: str = "editor@example.org") -> None:
    assert login(a.client, email, password="correct horse").status_code == 303


def _post(a: Authoring, url: str, data: dict[str, Any]) -> Any:
    page = a.client.get(COURSE)
    return a.client.post(url, data={**data, "csrf_token": form_token(page.text)})


def _get(a: Authoring, path: str) -> dict[str, Any]:
    response = a.client.get(f"{API}/files/{path}", headers=a.editor)
    assert response.status_code == 200, response.text
    return dict(response.json())


def _save(a: Authoring, path: str, text: str, base: str | None, who: str = "editor") -> Any:
    headers = a.editor if who == "editor" else a.admin
    return a.client.put(f"{API}/files/{path}", json={"text": text, "base": base}, headers=headers)


def _items(a: Authoring) -> dict[str, dict[str, Any]]:
    rows = a.client.get(f"{API}/items", headers=a.editor).json()
    return {f"{r['kind']}:{r['slug']}": r for r in rows}


def test_new_exercise_is_a_commented_blank_draft_students_cannot_see(authoring: Authoring) -> None:
    a = authoring
    _log_in(a)
    made = _post(a, f"{COURSE}/new-exercise", {"slug": "add-one", "frameworks": ["numpy", "jax"]})
    assert made.status_code == 200 and str(made.url).endswith("/exercises/add-one/exercise.yaml")
    assert 'data-code-editor="text"' in made.text
    for name in ("statement.md", "reference.py", "cases.py", "mistakes.yaml", "starter/jax.py"):
        assert f"/edit/exercises/add-one/{name}" in made.text, name
    assert not (a.folder / "exercises" / "add-one").exists()  # drafts only
    solution = _get(a, "exercises/add-one/solutions/numpy.py")["text"]
    assert "TODO" in solution and "NotImplementedError" in solution  # not a working exercise
    meta = yaml.safe_load(_get(a, "exercises/add-one/exercise.yaml")["text"])
    assert meta["slug"] == "add-one" and meta["frameworks"] == ["numpy", "jax"]
    assert _items(a)["exercise:add-one"]["state"] == "draft"
    assert a.client.get("/exercises/add-one", headers=a.student).status_code == 404
    assert a.client.get("/api/exercises", headers=a.student).text.count("add-one") == 0
    again = _post(a, f"{COURSE}/new-exercise", {"slug": "add-one"})
    assert again.status_code == 409 and "already an exercise called &#39;add-one&#39;" in again.text
    bad = _post(a, f"{COURSE}/new-exercise", {"slug": "Add One"})
    assert bad.status_code == 422 and "lowercase letters" in bad.text


def test_every_exercise_file_is_edited_with_its_problem_at_its_line(authoring: Authoring) -> None:
    a = authoring
    path = "exercises/split-heads/solutions/numpy.py"
    loaded = _get(a, path)
    broken = loaded["text"] + "\ndef oops(:\n"
    saved = _save(a, path, broken, loaded["revision"])
    assert saved.status_code == 200
    problems = saved.json()["check"]["problems"]
    assert problems[0]["file"] == path and problems[0]["line"] == broken.count("\n")
    assert "syntax" in problems[0]["message"].lower()
    assert _items(a)["exercise:split-heads"]["state"] == "problems"
    fixed = _save(a, path, loaded["text"], saved.json()["revision"])
    assert fixed.json()["check"] == {"ok": True, "problems": []}
    assert _items(a)["exercise:split-heads"]["state"] == "changed"
    meta = _get(a, "exercises/split-heads/mistakes.yaml")
    bad_yaml = _save(
        a, "exercises/split-heads/mistakes.yaml", "mistakes:\n  - [\n", meta["revision"]
    )
    found = bad_yaml.json()["check"]["problems"]
    assert found and found[0]["file"] == "exercises/split-heads/mistakes.yaml" and found[0]["line"]
    assert "YAML" in found[0]["message"]


def test_duplicate_copies_an_exercise_and_a_lesson_under_new_names(authoring: Authoring) -> None:
    a = authoring
    _log_in(a)
    copy = _post(
        a, f"{COURSE}/duplicate", {"kind": "exercise", "slug": "split-heads", "new_slug": "split-2"}
    )
    assert copy.status_code == 200 and copy.url.path.endswith("/exercises/split-2/exercise.yaml")
    old = yaml.safe_load((a.folder / "exercises/split-heads/exercise.yaml").read_text())
    new = yaml.safe_load(_get(a, "exercises/split-2/exercise.yaml")["text"])
    assert new["slug"] == "split-2" and new["uuid"] != str(old["uuid"])
    assert (
        _get(a, "exercises/split-2/solutions/torch.py")["text"]
        == (a.folder / "exercises/split-heads/solutions/torch.py").read_text()
    )
    assert new["draft"] is True and "draft" not in old  # hidden from students once published
    assert COPIED in copy.text  # the page that confirms the copy says so
    items = _items(a)
    assert items["exercise:split-2"]["state"] == "draft", items["exercise:split-2"]
    lesson = _post(
        a, f"{COURSE}/duplicate", {"kind": "lesson", "slug": "first-steps", "new_slug": "second"}
    )
    assert lesson.status_code == 200 and "slug: second" in lesson.text and COPIED in lesson.text
    front = _get(a, "lessons/second.md")["text"].split("---")[1]
    assert yaml.safe_load(front)["draft"] is True
    assert _items(a)["lesson:second"]["state"] == "draft"
    assert a.client.get("/lessons/second", headers=a.student).status_code == 404
    taken = _post(
        a, f"{COURSE}/duplicate", {"kind": "lesson", "slug": "first-steps", "new_slug": "second"}
    )
    assert taken.status_code == 409


def test_a_duplicated_lesson_does_not_reopen_an_open_exams_question(
    exam_authoring: Authoring,
) -> None:
    a = exam_authoring
    started = a.client.post("/api/assessments/quick/attempts", headers=a.student)
    assert started.status_code == 201, started.text
    answers = {"answers": {"pick-one": "three"}}
    held = a.client.post("/api/lessons/first-steps/quiz", json=answers, headers=a.student)
    assert held.status_code == 409, held.text  # the exam holds the original
    _log_in(a)
    copied = _post(
        a, f"{COURSE}/duplicate", {"kind": "lesson", "slug": "first-steps", "new_slug": "again"}
    )
    assert copied.status_code == 200, copied.text
    published = a.client.post(f"{API}/publish", json={"message": "copy"}, headers=a.editor)
    assert published.status_code == 200, published.text
    copy = a.client.post("/api/lessons/again/quiz", json=answers, headers=a.student)
    assert copy.status_code == 404, ("the exam's answer is told", copy.text)
    assert a.client.get("/lessons/again", headers=a.student).status_code == 404


def test_the_exercise_preview_shows_the_draft_with_a_code_editor(authoring: Authoring) -> None:
    a = authoring
    _log_in(a)
    statement = _get(a, "exercises/split-heads/statement.md")
    text = statement["text"] + "\nA drafted sentence with $x^2$.\n"
    assert (
        _save(a, "exercises/split-heads/statement.md", text, statement["revision"]).status_code
        == 200
    )
    page = a.client.get(f"{COURSE}/preview/exercises/split-heads?framework=torch")
    assert page.status_code == 200
    assert "A drafted sentence" in page.text and 'data-code-editor="python"' in page.text
    assert "/static/authoring.js" in page.text and "PyTorch" in page.text
    served = a.client.get("/exercises/split-heads", headers=a.student)
    assert "A drafted sentence" not in served.text  # students see the published one
    missing = a.client.get(f"{COURSE}/preview/exercises/nothing-here")
    assert missing.status_code == 404 and "does not load" in missing.text


def test_bad_input_is_refused_in_words_and_nothing_is_lost(authoring: Authoring) -> None:
    a = authoring
    _log_in(a)
    for path, status, words in (
        ("course.yaml", 403, "not part of a lesson or an exercise"),
        ("%2e%2e/other-course/lessons/a.md", 422, "may not contain &#39;..&#39;"),
        ("lessons/%2e%2e/course.yaml", 422, "may not contain &#39;..&#39;"),
        ("var/secret_key", 404, "no such file"),
    ):
        page = a.client.get(f"{COURSE}/edit/{path}")
        assert page.status_code == status and words in page.text, (path, page.status_code)
    page = a.client.get(f"{COURSE}/edit/lessons/first-steps.md")
    base = re.search(r'name="base" value="([^"]*)"', page.text)
    assert base is not None
    huge = a.client.post(
        f"{COURSE}/edit/lessons/first-steps.md",
        data={
            "text": "x" * (10 * 1024 * 1024),
            "base": base.group(1),
            "csrf_token": form_token(page.text),
        },
    )
    assert (
        huge.status_code == 413 and "at most 1 MB" in huge.text and "nothing was saved" in huge.text
    )
    big = a.client.post(
        f"{COURSE}/edit/lessons/first-steps.md",
        data={
            "text": "x" * (600 * 1024),
            "base": base.group(1),
            "csrf_token": form_token(page.text),
        },
    )
    assert big.status_code == 413 and "over 512 KB" in big.text
    assert _get(a, "lessons/first-steps.md")["draft"] is False  # nothing saved, nothing lost


def test_two_editors_saving_one_exercise_file_keep_both_texts(authoring: Authoring) -> None:
    a = authoring
    path = "exercises/split-heads/cases.py"
    opened = _get(a, path)
    mine = opened["text"] + "\n# the editor's change\n"
    theirs = opened["text"] + "\n# the admin's change\n"
    assert _save(a, path, theirs, opened["revision"], who="admin").status_code == 200
    late = _save(a, path, mine, opened["revision"])
    assert late.status_code == 409 and "kept as a conflict" in late.json()["detail"]
    assert _get(a, path)["text"] == theirs
    _log_in(a)
    page = a.client.get(f"{COURSE}/edit/{path}")
    assert (
        "the admin&#39;s change"
        in page.text.split('class="conflict-current">')[1].split("</pre>")[0]
    )
    assert (
        "the editor&#39;s change" in page.text.split('class="conflict-kept">')[1].split("</pre>")[0]
    )


def test_a_conflict_of_another_course_is_not_found(authoring: Authoring) -> None:
    a = authoring
    with session_factory()() as session:
        other = AuthoringConflict(
            course_slug="another-course",
            path="lessons/a.md",
            text="theirs",
            base=None,
            user_id=None,
        )
        session.add(other)
        session.commit()
        other_id = other.id
    _log_in(a)
    refused = _post(a, f"{COURSE}/conflicts/{other_id}/resolve", {})
    assert refused.status_code == 404 and "no such conflict" in refused.text
    with session_factory()() as session:
        assert session.get(AuthoringConflict, other_id) is not None


def test_the_course_page_lists_quizzes_and_offers_new_and_duplicate(authoring: Authoring) -> None:
    a = authoring
    _log_in(a)
    page = a.client.get(COURSE)
    assert "first-steps (quiz of 1 question)" in page.text
    assert 'action="/authoring/tiny-course/new-exercise"' in page.text
    assert page.text.count('action="/authoring/tiny-course/duplicate"') == 2


def test_the_new_routes_are_for_editors_only(authoring: Authoring) -> None:
    a = authoring
    for email in ("student@example.org", "teacher@example.org"):
        _log_in(a, email)
        page = a.client.get("/")
        token = form_token(page.text)
        for url in (
            f"{COURSE}/new-exercise",
            f"{COURSE}/duplicate",
            f"{COURSE}/preview/exercises/split-heads/run",
            f"{COURSE}/conflicts/1/resolve",
        ):
            refused = a.client.post(url, data={"csrf_token": token, "slug": "x-1"})
            assert refused.status_code == 403, (email, url, refused.status_code)
        assert a.client.get(f"{COURSE}/preview/exercises/split-heads").status_code == 403


def test_saving_content_code_never_runs_it_in_the_web_process(
    authoring: Authoring, tmp_path: Any
) -> None:
    a = authoring
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('ran')\n"
    for name in ("reference.py", "cases.py", "properties.py", "solutions/numpy.py"):
        path = f"exercises/split-heads/{name}"
        opened = _get(a, path)
        saved = _save(a, path, code + (opened["text"] or ""), opened["revision"])
        assert saved.status_code == 200, saved.text
    assert a.client.get(f"{API}/items", headers=a.editor).status_code == 200
    assert not marker.exists()  # only compiled to find syntax errors; graded in the sandbox
