"""Check on save: an exercise's file queues its grading check as a job that a worker runs; the
editor polls it and sees each problem with its file and line."""

from __future__ import annotations

import html
import re
import time
from typing import Any

from app.authoring import check_job, drafts
from app.db import session_factory
from app.jobs.models import Job
from app.users.models import User
from tests.authoring.conftest import Authoring
from tests.authoring.course import SLUG
from tests.users.helpers import form_token, login

API = "/api/courses/tiny-course/authoring"
FOLDER = "exercises/split-heads"
STATEMENT = f"{FOLDER}/statement.md"


def _plant(a: Authoring, path: str, text: str) -> None:
    """A draft of a code file, as the editor will save it once code runs sandboxed (point 7)."""
    with session_factory()() as session:
        editor = session.query(User).filter_by(email="editor@example.org").one()
        current = drafts.load(session=session, folder=a.folder, course_slug=SLUG, path=path)
        drafts.save(
            session=session,
            folder=a.folder,
            course_slug=SLUG,
            path=path,
            text=text,
            base=current.revision,
            user=editor,
        )


def _save(a: Authoring, path: str, text: str) -> dict[str, Any]:
    base = a.client.get(f"{API}/files/{path}", headers=a.editor).json()["revision"]
    saved = a.client.put(f"{API}/files/{path}", json={"text": text, "base": base}, headers=a.editor)
    assert saved.status_code == 200, saved.text
    return saved.json()  # type: ignore[no-any-return]


def _finished(a: Authoring, url: str, timeout: float = 400) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = a.client.get(url, headers=a.editor).json()
        if body["state"] in ("done", "failed"):
            return body  # type: ignore[no-any-return]
        time.sleep(0.2)
    raise AssertionError("the check did not finish")


def test_a_solution_that_fails_its_own_tests_is_named_with_file_and_line(
    authoring: Authoring,
) -> None:
    a = authoring
    statement = (a.folder / STATEMENT).read_text("utf-8")

    solution = (a.folder / FOLDER / "solutions/numpy.py").read_text("utf-8")
    planted = solution.replace("return ", "return 2 * ", 1)
    assert planted != solution
    _plant(a, f"{FOLDER}/solutions/numpy.py", planted)
    saved = _save(a, STATEMENT, statement + "\nAnd another.\n")
    assert saved["check"] == {"ok": True, "problems": []}  # the text check, as documented
    assert saved["grading"]["state"] == "queued"
    job = saved["grading"]["job"]
    assert saved["grading"]["url"] == f"{API}/checks/{job}"
    found = _finished(a, saved["grading"]["url"])
    assert found["state"] == "done" and found["ok"] is False
    mine = [p for p in found["problems"] if p["file"] == f"{FOLDER}/solutions/numpy.py"]
    assert len(mine) == 1, found["problems"]
    line = planted.splitlines()[mine[0]["line"] - 1]
    assert line.startswith("def split_heads(")
    assert mine[0]["message"].startswith("the model solution is not accepted: ")
    with session_factory()() as session:  # run by the queue's worker, not the request
        row = session.get(Job, job)
        assert row is not None and (row.kind, row.attempts) == ("check", 1)
    assert login(a.client, "editor@example.org", password="correct horse").status_code == 303
    page = html.unescape(a.client.get(f"/authoring/tiny-course/edit/{STATEMENT}").text)
    shown = page.split('id="grading-check"')[1].split("</section>")[0]  # the file's page too
    assert f"{FOLDER}/solutions/numpy.py</a>, line {mine[0]['line']}: the model solution" in shown


def test_a_save_from_the_form_queues_the_same_check_and_the_page_shows_its_state(
    authoring: Authoring,
) -> None:
    a = authoring
    assert login(a.client, "editor@example.org", password="correct horse").status_code == 303
    path = f"{FOLDER}/exercise.yaml"
    edit = f"/authoring/tiny-course/edit/{path}"
    opened = a.client.get(edit)
    assert 'id="grading-check"' not in opened.text  # no check of this exercise yet
    base = re.search(r'name="base" value="([^"]*)"', opened.text)
    assert base is not None
    broken = "title: [Split the heads\n"  # the exercise no longer loads: a quick check
    saved = a.client.post(
        edit, data={"text": broken, "base": base.group(1), "csrf_token": form_token(opened.text)}
    )
    assert saved.status_code == 200 and "invalid YAML" in saved.text
    with session_factory()() as session:
        row = session.query(Job).filter_by(kind="check").one()  # the same job as the API's
        job, payload = row.id, row.payload
    assert payload == {"course": SLUG, "exercise": "split-heads"}
    url = f"{API}/checks/{job}"
    state = re.search(r'<p class="check-state" data-state="(\w+)">', saved.text)
    assert state is not None and state.group(1) in ("queued", "running", "done")
    if state.group(1) != "done":
        assert f'data-check-poll="{url}"' in saved.text  # the bundle follows it in place
    assert _finished(a, url)["ok"] is False
    page = html.unescape(a.client.get(edit).text)  # without JavaScript: the page, reloaded
    assert '<p class="check-state" data-state="done">' in page and "data-check-poll" not in page
    shown = page.split('id="grading-check"')[1].split("</section>")[0]
    assert "1 problem found before any grading (the exercise does not load):" in shown
    assert re.search(rf"{path}, <a [^>]*>line 2</a>: invalid YAML", shown), shown


def test_a_lesson_has_no_grading_check_and_others_cannot_poll(authoring: Authoring) -> None:
    a = authoring
    path = "lessons/first-steps.md"
    text = (a.folder / path).read_text("utf-8")
    assert _save(a, path, text + "\nMore.\n")["grading"] is None
    statement = (a.folder / STATEMENT).read_text("utf-8")
    url = _save(a, STATEMENT, statement + "\nMore.\n")["grading"]["url"]
    for who in (a.instructor, a.student):
        assert a.client.get(url, headers=who).status_code == 403
    assert a.client.get(f"{API}/checks/999999", headers=a.editor).status_code == 404
    assert a.client.get(url, headers=a.admin).status_code == 200


def test_only_drafts_of_grading_files_take_the_check_off_the_served_folder() -> None:
    text_only = {f"{FOLDER}/statement.md": "x", f"{FOLDER}/hints/1.md": "x", "lessons/a.md": "x"}
    assert not check_job.grading_inputs_drafted(text_only, "split-heads")
    assert check_job.grading_inputs_drafted(
        {**text_only, f"{FOLDER}/solutions/numpy.py": "x"}, "split-heads"
    )
    assert not check_job.grading_inputs_drafted({"exercises/other/cases.py": "x"}, "split-heads")
