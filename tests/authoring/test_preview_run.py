"""Preview's Run grades the author's code against the draft's own tests, through the real
grader and sandbox, and leaves the served exercise as it was."""

from __future__ import annotations

import re

from tests.authoring.conftest import Authoring
from tests.users.helpers import form_token, login

API = "/api/courses/tiny-course/authoring"
PREVIEW = "/authoring/tiny-course/preview/exercises/split-heads"
REFERENCE = "exercises/split-heads/reference.py"


def _run(a: Authoring, code: str, mode: str = "run") -> str:
    page = a.client.get(f"{PREVIEW}?framework=numpy")
    response = a.client.post(
        f"{PREVIEW}/run",
        data={
            "code": code,
            "framework": "numpy",
            "mode": mode,
            "csrf_token": form_token(page.text),
        },
    )
    assert response.status_code == 200, response.text
    verdict = re.search(r'<h2 id="verdict-h" class="verdict [^"]*">([^<]*)</h2>', response.text)
    assert verdict is not None, response.text[-3000:]
    return verdict.group(1)


def test_run_grades_against_the_drafts_tests_not_the_served_ones(authoring: Authoring) -> None:
    a = authoring
    assert login(a.client, "editor@example.org", password="correct horse").status_code == 303
    solution = (a.folder / "exercises/split-heads/solutions/numpy.py").read_text("utf-8")
    assert _run(a, solution, mode="submit") == "Accepted"
    assert _run(a, "def split_heads(x, num_heads):\n    return x\n") != "Accepted"

    opened = a.client.get(f"{API}/files/{REFERENCE}", headers=a.editor).json()
    doubled = opened["text"].replace("    return out\n", "    return 2 * out\n")
    assert doubled != opened["text"]
    saved = a.client.put(
        f"{API}/files/{REFERENCE}",
        json={"text": doubled, "base": opened["revision"]},
        headers=a.editor,
    )
    assert saved.status_code == 200, saved.text
    assert _run(a, solution) != "Accepted"  # the draft's reference now disagrees with it
    twice = solution.replace("return ", "return 2 * ", 1)
    assert "2 * " in twice
    assert _run(a, twice) == "Accepted"
    assert (a.folder / REFERENCE).read_text("utf-8") == opened["text"]  # the disk is untouched
