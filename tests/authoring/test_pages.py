"""The authoring pages as plain forms: edit with problems beside their lines, new lesson,
preview with a new variant per reload, publish; students and non-editors get 403."""

from __future__ import annotations

import re

from sqlalchemy import select

from app.authoring.templates import LESSON_TEMPLATE
from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll
from app.users.models import User
from tests.authoring.conftest import Authoring
from tests.authoring.course import LESSON
from tests.users.helpers import form_token, login

COURSE = "/authoring/tiny-course"
EDIT = f"{COURSE}/edit/lessons/first-steps.md"
BROKEN = LESSON.replace("    prompt: Which number is even?", "    prompt: [Which number is even?")


def _log_in_as(a: Authoring, email: str) -> None:
    assert login(a.client, email, password="correct horse").status_code == 303


def _save_form(a: Authoring, text: str) -> str:
    page = a.client.get(EDIT)
    base = re.search(r'name="base" value="([^"]*)"', page.text)
    assert base is not None
    response = a.client.post(
        EDIT, data={"text": text, "base": base.group(1), "csrf_token": form_token(page.text)}
    )
    assert response.status_code == 200, response.text
    return response.text


def test_students_and_instructors_who_are_not_editors_get_403(authoring: Authoring) -> None:
    a = authoring
    for email in ("student@example.org", "teacher@example.org"):
        _log_in_as(a, email)
        for url in (COURSE, EDIT, f"{COURSE}/preview/lessons/first-steps", "/authoring"):
            assert a.client.get(url).status_code == 403, (email, url)


def test_an_editor_fixes_a_yaml_problem_shown_beside_its_line_then_publishes(
    authoring: Authoring,
) -> None:
    a = authoring
    _log_in_as(a, "editor@example.org")
    course = a.client.get(COURSE)
    assert (
        course.status_code == 200 and "first-steps" in course.text and "split-heads" in course.text
    )
    html = _save_form(a, BROKEN)
    line = BROKEN.splitlines().index("    prompt: [Which number is even?") + 1
    marked = re.findall(r'<li value="(\d+)" id="line-\d+" class="has-problem">', html)
    assert marked and int(marked[0]) in (line, line + 1), marked  # YAML names where it noticed
    assert "invalid YAML" in html.split(f'id="line-{marked[0]}"')[1].split("</li>")[0]
    html = _save_form(a, LESSON.replace("Which number is even?", "Which number is even, really?"))
    assert "Draft saved" in html and "has-problem" not in html
    preview = a.client.get(f"{COURSE}/preview/lessons/first-steps")
    assert preview.status_code == 200 and "even, really?" in preview.text
    assert "Preview of a draft" in preview.text
    page = a.client.get(COURSE)
    published = a.client.post(
        f"{COURSE}/publish",
        data={"message": "Clearer question", "csrf_token": form_token(page.text)},
        follow_redirects=False,
    )
    assert published.status_code == 303, published.text
    assert "Clearer question" in a.client.get(COURSE).text
    assert "even, really?" in a.client.get("/lessons/first-steps").text


def test_a_new_lesson_starts_from_the_commented_template_and_loads(authoring: Authoring) -> None:
    a = authoring
    _log_in_as(a, "editor@example.org")
    page = a.client.get(COURSE)
    made = a.client.post(
        f"{COURSE}/new-lesson",
        data={"slug": "fresh-one", "csrf_token": form_token(page.text)},
        follow_redirects=False,
    )
    assert made.status_code == 303
    edit = a.client.get(made.headers["location"])
    assert "# The lesson&#39;s permanent URL name" in edit.text
    assert "has-problem" not in edit.text and "problem" not in edit.text.split("<form")[0].lower()
    assert LESSON_TEMPLATE.count("#") >= 5  # mostly comments, not another working lesson
    preview = a.client.get(f"{COURSE}/preview/lessons/fresh-one")
    assert preview.status_code == 200 and "Ask one thing." in preview.text
    assert a.client.get("/lessons/fresh-one").status_code == 404  # nothing of a draft is served


def test_the_preview_draws_a_new_variant_on_reload(authoring: Authoring) -> None:
    a = authoring
    numeric = LESSON.replace(
        "quiz:\n",
        "quiz:\n  - id: count\n    type: numeric\n    params:\n"
        "      n: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n"
        '    prompt: What is {n} times 1000?\n    answer: "n * 1000"\n'
        "    explanation: It is {n} thousand.\n",
    )
    _log_in_as(a, "editor@example.org")
    html = _save_form(a, numeric)
    assert "Draft saved" in html, html
    seen = {
        re.search(
            r"What is (\d+) times", a.client.get(f"{COURSE}/preview/lessons/first-steps").text
        ).group(1)  # type: ignore[union-attr]
        for _ in range(8)
    }
    assert len(seen) > 1
    page = a.client.get(f"{COURSE}/preview/lessons/first-steps")
    new = '<form method="get" action="/authoring/tiny-course/preview/lessons/first-steps#quiz"'
    assert new in page.text and "Draw a new quiz variant" in page.text


def test_the_staff_menu_leads_instructors_in_and_says_who_may_author(authoring: Authoring) -> None:
    a = authoring
    with session_factory()() as session:
        teacher = session.scalar(select(User).where(User.email == "teacher@example.org"))
        assert teacher is not None
        term = create_offering(session=session, course_slug="tiny-course", title="Term 1")
        enroll(session=session, offering=term, user=teacher, role=OfferingRole.instructor)
        staff = f"/offerings/{term.id}/instructor"
    menu = a.client.get(f"{staff}/gradebook", headers=a.instructor)
    assert f'href="{staff}/authoring"' in menu.text
    entry = a.client.get(f"{staff}/authoring", headers=a.instructor)
    assert entry.status_code == 200
    assert "teaching an offering\n  does not make you one" in entry.text
    assert 'href="/authoring/tiny-course"' not in entry.text
    assert a.client.get("/authoring/tiny-course", headers=a.instructor).status_code == 403
    granted = a.client.post(
        "/api/courses/tiny-course/authoring/editors",
        json={"email": "teacher@example.org"},
        headers=a.admin,
    )
    assert granted.status_code == 201, granted.text
    entry = a.client.get(f"{staff}/authoring", headers=a.instructor)
    assert 'href="/authoring/tiny-course"' in entry.text
    assert a.client.get("/authoring/tiny-course", headers=a.instructor).status_code == 200


def test_a_stale_form_save_keeps_both_texts_shows_both_until_resolved(authoring: Authoring) -> None:
    a = authoring
    _log_in_as(a, "editor@example.org")
    opened = a.client.get(EDIT)
    base = re.search(r'name="base" value="([^"]*)"', opened.text)
    assert base is not None
    _save_form(a, LESSON.replace("Some text", "Newer text"))  # another tab saves first
    late = a.client.post(
        EDIT,
        data={
            "text": LESSON.replace("Some text", "My text"),
            "base": base.group(1),
            "csrf_token": form_token(opened.text),
        },
    )
    assert late.status_code == 409
    assert "kept as a conflict" in late.text
    assert "Newer text" in late.text.split("<textarea")[1].split("</textarea>")[0]
    conflict = late.text.split("Conflicting saves to resolve")[1]
    current = conflict.split('class="conflict-current">')[1].split("</pre>")[0]
    kept = conflict.split('class="conflict-kept">')[1].split("</pre>")[0]
    assert "Newer text" in current and "My text" in kept
    resolve = re.search(r'action="(/authoring/tiny-course/conflicts/\d+/resolve)"', conflict)
    assert resolve is not None
    other = a.client.post(
        "/authoring/tiny-course/conflicts/999999/resolve",
        data={"csrf_token": form_token(late.text)},
    )
    assert other.status_code == 404
    done = a.client.post(resolve.group(1), data={"csrf_token": form_token(late.text)})
    assert done.status_code == 200 and "Conflicting saves to resolve" not in done.text
    assert "Newer text" in done.text.split("<textarea")[1]
