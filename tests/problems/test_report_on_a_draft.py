"""A draft is not there for students: a report naming it (or one of its quiz questions) gets
the same 404 as a slug that does not exist, so reports cannot tell which drafts exist."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from app.users.models import Role
from tests.conftest import make_token


def _report(client: TestClient, who: dict[str, str], slug: str, question: str) -> int:
    form = {"kind": "quiz", "slug": slug, "question": question, "message": "Typo in (b)."}
    return client.post("/problems", data=form, headers=who).status_code


def test_a_report_on_a_draft_lesson_is_refused_as_if_it_did_not_exist(
    content_dir: Path,
) -> None:
    path = content_dir / "lessons" / "03-learned-absolute.md"
    path.write_text(path.read_text().replace("order: 3\n", "order: 3\ndraft: true\n", 1))
    ann = {"Authorization": f"Bearer {make_token('ann@example.org', Role.student)}"}
    tea = {"Authorization": f"Bearer {make_token('tea@example.org', Role.instructor)}"}
    with TestClient(create_app()) as client:
        assert client.get("/lessons/learned-absolute", headers=ann).status_code == 404
        statuses = [
            _report(client, ann, "learned-absolute", "table-shape"),
            _report(client, ann, "learned-absolute", "nope"),
            _report(client, ann, "no-such-lesson", "table-shape"),
        ]
        assert statuses == [404, 404, 404]
        # Staff preview drafts, and may report on them.
        assert _report(client, tea, "learned-absolute", "table-shape") == 200
