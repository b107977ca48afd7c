"""A quiz question whose own answer cannot be computed is a problem on save and on publish."""

from __future__ import annotations

from typing import Any

from tests.authoring.conftest import Authoring
from tests.authoring.course import LESSON

API = "/api/courses/tiny-course/authoring"
PATH = "lessons/first-steps.md"
NUMERIC = LESSON.replace(
    "    explanation: Two is even; three is not.\n",
    "    explanation: Two is even; three is not.\n"
    "  - id: how-many\n"
    "    type: numeric\n"
    "    prompt: How many heads has BERT-base?\n"
    '    answer: "12 heads"\n'
    "    explanation: Twelve.\n",
)


def _save(a: Authoring, text: str) -> Any:
    loaded = a.client.get(f"{API}/files/{PATH}", headers=a.editor).json()
    return a.client.put(
        f"{API}/files/{PATH}", json={"text": text, "base": loaded["revision"]}, headers=a.editor
    )


def test_a_numeric_question_whose_answer_cannot_be_computed_is_not_published(
    authoring: Authoring,
) -> None:
    a = authoring
    saved = _save(a, NUMERIC)
    assert saved.status_code == 200, saved.text
    check = saved.json()["check"]
    assert not check["ok"], check
    [problem] = check["problems"]
    assert (
        problem["file"] == PATH
        and problem["line"] == NUMERIC.splitlines().index('    answer: "12 heads"') + 1
    )
    assert "'how-many'" in problem["message"] and PATH in problem["message"], problem
    published = a.client.post(f"{API}/publish", json={"message": "numeric"}, headers=a.editor)
    assert published.status_code == 409, published.text
    assert published.json()["problems"] == [problem]
    assert (a.folder / PATH).read_text("utf-8") == LESSON  # the last good version serves
    fixed = _save(a, NUMERIC.replace('"12 heads"', '"12"'))
    assert fixed.json()["check"] == {"ok": True, "problems": []}
