"""Explain this mistake: a cluster's program becomes a declared mistake, checked in the sandbox."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from app.authoring.editors import grant
from app.courses.service import app_registry
from app.db import session_factory
from app.users.models import Role
from tests.instructor.conftest import EXERCISE, person

FUNC = EXERCISE.replace("-", "_")
ARANGE = "np.arange(x.shape[1])[None, :, None]"


def _minus(secret: Path, marker: Path, name: str) -> str:
    """Subtracts the positions; tries to copy the secret key out when it runs."""
    return (
        "import numpy as np\n\n\n"
        f"def {FUNC}(x):\n"
        "    try:\n"
        f"        open({str(marker)!r}, 'w').write(open({str(secret)!r}).read())\n"
        "    except OSError:\n"
        "        pass\n"
        f"    {name} = {ARANGE}\n"
        f"    return x - {name}\n"
    )


def _graded(client: TestClient, headers: dict[str, str], code: str) -> dict[str, Any]:
    sid = client.post(
        "/api/submissions", json={"exercise": EXERCISE, "code": code}, headers=headers
    ).json()["id"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/submissions/{sid}", headers=headers).json()
        if body["status"] == "done":
            return body
        time.sleep(0.1)
    raise AssertionError("not graded in time")


def _cluster(client: TestClient, teacher: dict[str, str]) -> dict[str, Any]:
    clusters = client.get(f"/api/instructor/exercises/{EXERCISE}/clusters", headers=teacher)
    assert clusters.status_code == 200, clusters.text
    return clusters.json()[0]  # type: ignore[no-any-return]


def _editor(client: TestClient, email: str) -> str:
    """Make the account an editor of the served course (as a site administrator would); its slug."""
    slug = app_registry(client.app).first_slug
    with session_factory()() as session:
        grant(session=session, course_slug=slug, email=email, by=None)
    return slug


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def secret(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "secret_key"
    path.write_text("the-secret-key")
    return path, tmp_path / "stolen"


def test_a_cluster_becomes_a_declared_mistake_and_its_members_get_the_hint(
    app_client: TestClient, course_dir: Path, secret: tuple[Path, Path]
) -> None:
    _, ann = person("ann@example.org", "Ann")
    _, bob = person("bob@example.org", "Bob")
    _, teacher = person("t@example.org", "Tea", Role.instructor)
    slug = _editor(app_client, "t@example.org")
    _git(course_dir, "init", "-q")
    _git(course_dir, "add", "-A")
    _git(
        course_dir, "-c", "user.name=A", "-c", "user.email=a@example.org", "commit", "-qm", "start"
    )
    first = _graded(app_client, ann, _minus(*secret, "offsets"))
    second = _graded(app_client, bob, _minus(*secret, "pos"))
    assert first["verdict"] == second["verdict"] == "wrong_answer"
    assert all(t["misconception"] is None for t in first["tests"])
    cluster = _cluster(app_client, teacher)
    assert cluster["students"] == 2 and cluster["misconception"] is None
    made = app_client.post(
        f"/api/instructor/exercises/{EXERCISE}/clusters/{cluster['id']}/misconception",
        json={"title": "Subtracted the positions", "hint": "Add the position, do not subtract."},
        headers=teacher,
    )
    assert made.status_code == 201, made.text
    assert made.json() == {"mistake": "subtracted-the-positions", "regraded": 2}
    declared = yaml.safe_load((course_dir / "exercises" / EXERCISE / "mistakes.yaml").read_text())
    entry = declared["mistakes"][-1]
    assert entry["id"] == "subtracted-the-positions" and entry["sandboxed"] is True
    assert "def add_positions" in entry["code"]
    # Written as every edit of the course is: a version in its history and a git commit.
    history = app_client.get(f"/api/courses/{slug}/authoring/versions", headers=teacher).json()
    said = "Explain this mistake in add-positions: Subtracted the positions"
    assert [v["message"] for v in history] == [said]
    assert _git(course_dir, "log", "-1", "--format=%s %an") == f"{said} Tea"
    assert _git(course_dir, "status", "--porcelain") == ""
    for sid, who in ((first["id"], ann), (second["id"], bob)):
        after = app_client.get(f"/api/submissions/{sid}", headers=who).json()
        named = {t["misconception"]["id"] for t in after["tests"] if t["misconception"]}
        assert named == {"subtracted-the-positions"}
    # The next student who makes it gets the hint at once.
    _, cat = person("cat@example.org", "Cat")
    third = _graded(app_client, cat, _minus(*secret, "z"))
    assert any(
        (t["misconception"] or {}).get("hint") == "Add the position, do not subtract."
        for t in third["tests"]
    )
    assert _cluster(app_client, teacher)["misconception"] == "subtracted-the-positions"
    assert not secret[1].exists(), "the student's program ran outside the sandbox"


def test_a_program_that_is_not_the_same_mistake_each_run_is_refused(
    app_client: TestClient, course_dir: Path
) -> None:
    _, ann = person("ann@example.org", "Ann")
    _, teacher = person("t@example.org", "Tea", Role.instructor)
    _editor(app_client, "t@example.org")
    noisy = f"import numpy as np\n\n\ndef {FUNC}(x):\n    return x + np.random.rand()\n"
    _graded(app_client, ann, noisy)
    cluster = _cluster(app_client, teacher)
    before = (course_dir / "exercises" / EXERCISE / "mistakes.yaml").read_text()
    refused = app_client.post(
        f"/api/instructor/exercises/{EXERCISE}/clusters/{cluster['id']}/misconception",
        json={"title": "Random noise", "hint": "Do not add noise."},
        headers=teacher,
    )
    assert refused.status_code == 409, refused.text
    assert "not recognised as this mistake" in refused.text
    assert (course_dir / "exercises" / EXERCISE / "mistakes.yaml").read_text() == before
    page = app_client.get(f"/instructor/exercises/{EXERCISE}/clusters", headers=teacher)
    assert "Explain this mistake" in page.text
    form = app_client.post(
        f"/instructor/exercises/{EXERCISE}/clusters/{cluster['id']}/misconception",
        data={"title": "Random noise", "hint": "Do not add noise."},
        headers=teacher,
    )
    assert form.status_code == 409
    assert "The check failed, so nothing was written" in form.text


def test_an_unknown_cluster_is_404_and_students_are_refused(app_client: TestClient) -> None:
    _, teacher = person("t@example.org", "Tea", Role.instructor)
    _, student = person("s@example.org", "Stu")
    _editor(app_client, "t@example.org")
    url = f"/api/instructor/exercises/{EXERCISE}/clusters/nope/misconception"
    body = {"title": "T", "hint": "H"}
    assert app_client.post(url, json=body, headers=teacher).status_code == 404
    assert app_client.post(url, json=body, headers=student).status_code == 403


def test_an_instructor_who_is_not_an_editor_of_the_course_cannot_declare_a_mistake(
    app_client: TestClient, course_dir: Path, secret: tuple[Path, Path]
) -> None:
    """Teaching an offering does not make one an author of its course: the explanation would
    change every offering's exercise, so it needs the course's editor role; nothing is written."""
    _, ann = person("ann@example.org", "Ann")
    _, teacher = person("t@example.org", "Tea", Role.instructor)
    _graded(app_client, ann, _minus(*secret, "offsets"))
    cluster = _cluster(app_client, teacher)
    mistakes = course_dir / "exercises" / EXERCISE / "mistakes.yaml"
    before = mistakes.read_text()
    body = {"title": "Subtracted the positions", "hint": "Add the position."}
    url = f"/api/instructor/exercises/{EXERCISE}/clusters/{cluster['id']}/misconception"
    refused = app_client.post(url, json=body, headers=teacher)
    assert refused.status_code == 403, refused.text
    assert "Only the editors of this course" in refused.json()["detail"]
    form = app_client.post(url.removeprefix("/api"), data=body, headers=teacher)
    assert form.status_code == 403
    assert "Only the editors of this course" in form.text
    assert "Explain this mistake" in form.text  # the clusters page again, with the reason
    assert mistakes.read_text() == before
    # Made an editor, the same instructor may.
    _editor(app_client, "t@example.org")
    made = app_client.post(url, json=body, headers=teacher)
    assert made.status_code == 201, made.text
