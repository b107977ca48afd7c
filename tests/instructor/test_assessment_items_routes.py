"""An assessment's item statistics from real attempts: the page, the CSV, the JSON and the CLI,
and who may read them."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import ROOT, get_settings
from app.db import session_factory
from app.main import create_app
from app.offerings.models import OfferingRole
from app.offerings.service import create_offering, enroll, first_offering
from app.users.models import Role, User
from tests.assessments.conftest import exam, write
from tests.conftest import run_cli
from tests.instructor.conftest import person

CSV_URL = "/instructor/assessments/quick/items.csv"
SHAPE = "q:learned-absolute/table-shape"
PARAMS = "q:learned-absolute/bert-base-params"
MODELS = "q:learned-absolute/which-models-learned"


def _serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: dict[str, Any]) -> Path:
    """The real lessons and exercises with this assessment file, as the site's content."""
    root = tmp_path / "content"
    root.mkdir()
    (root / "lessons").symlink_to(ROOT / "lessons")
    (root / "exercises").symlink_to(ROOT / "exercises")
    write(root, spec)
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    return root


@pytest.fixture
def quick_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> Iterator[TestClient]:
    """The real lessons and exercises with the three-question `quick` exam."""
    _serve(tmp_path, monkeypatch, exam())
    with TestClient(create_app()) as client:
        yield client


def _take(client: TestClient, email: str, answers: dict[str, Any]) -> None:
    """A student starts the exam, saves these answers and hands in."""
    _, headers = person(email)
    _hand_in(client, headers, answers)


def _hand_in(
    client: TestClient, headers: dict[str, str], answers: dict[str, Any], prefix: str = ""
) -> None:
    """Start the exam (under an offering's URL prefix), save these answers and hand in."""
    attempt = client.post(f"{prefix}/api/assessments/quick/attempts", headers=headers).json()["id"]
    for item, value in answers.items():
        saved = client.put(
            f"/api/assessments/attempts/{attempt}/answers",
            json={"item": item, "value": value},
            headers=headers,
        )
        assert saved.status_code == 200, saved.text
    handed = client.post(f"/api/assessments/attempts/{attempt}/submit", headers=headers)
    assert handed.status_code == 200, handed.text


def _ta(email: str) -> dict[str, str]:
    """A teaching assistant of the first offering."""
    uid, headers = person(email, "Tay")
    with session_factory()() as session:
        user = session.get(User, uid)
        assert user is not None
        enroll(
            session=session,
            offering=first_offering(session=session),
            user=user,
            role=OfferingRole.ta,
        )
    return headers


@pytest.fixture
def taken(quick_client: TestClient) -> TestClient:
    """Three students hand in: (right, right, 2 of 4 models), (wrong, right, –), (–, wrong, all)."""
    models = ["bert", "gpt-2", "gpt-3", "roberta"]
    _take(
        quick_client,
        "ann@example.org",
        {SHAPE: "(max_len, d_model)", PARAMS: "393216", MODELS: models[:2]},
    )
    _take(quick_client, "bob@example.org", {SHAPE: "(d_model, max_len)", PARAMS: "393,216"})
    _take(quick_client, "cy@example.org", {PARAMS: "786432", MODELS: models})
    return quick_client


def test_the_page_csv_and_json_show_the_same_numbers(taken: TestClient) -> None:
    _, teacher = person("teacher@example.org", "Tea", Role.instructor)
    found = taken.get("/api/instructor/assessments/quick/items", headers=teacher).json()
    assert found["students"] == 3
    items = {item["key"]: item for item in found["items"]}
    assert items[SHAPE]["answered"] == 3 and items[SHAPE]["difficulty"] == pytest.approx(1 / 3)
    assert items[SHAPE]["common_wrong"] == [["(d_model, max_len)", 1], ["(no answer)", 1]]
    assert items[PARAMS]["difficulty"] == pytest.approx(2 / 3)
    assert items[PARAMS]["common_wrong"] == [["786432", 1]]
    picked = {c["id"]: c["picked"] for c in items[MODELS]["choices"]}
    assert picked["bert"] == 2 and picked["roberta"] == 1
    # totals (2, 1, 1) of three right-or-wrong items: KR-20 is defined
    assert found["reliability_method"] == "KR-20" and found["reliability"] is not None
    page = taken.get("/instructor/assessments/quick", headers=teacher)
    assert page.status_code == 200
    assert "Item statistics" in page.text and f'data-item="{SHAPE}"' in page.text
    assert f"{found['reliability']:.2f}" in page.text and CSV_URL in page.text
    answer = taken.get(CSV_URL, headers=teacher)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert [r["item"] for r in rows] == [key[2:] for key in (SHAPE, PARAMS, MODELS)]
    assert rows[0]["difficulty"] == "0.333" and rows[0]["attempts"] == "3"
    assert rows[1]["common wrong answers"] == "786432: 1"
    assert rows[2]["reliability method"] == "KR-20"
    # totals (2/3 Ann, 1/3 Bob, 1/3 Cy); 27% of 3 rounds to 1. Shape: Ann (right) on top; Bob
    # and Cy tie at the bottom (both wrong): 1. Parameters: Ann (right); Bob (right) and Cy
    # (wrong) tie at the bottom, each counts half: 1 - 0.5 = 0.5.
    assert items[SHAPE]["upper_lower"] == 1.0 and items[PARAMS]["upper_lower"] == 0.5
    assert rows[0]["upper_lower"] == "1.000" and rows[1]["upper_lower"] == "0.500"
    assert "Upper − lower" in page.text


def test_students_are_refused_and_staff_may_read(taken: TestClient) -> None:
    _, teacher = person("teacher@example.org", "Tea", Role.instructor)
    _, student = person("ann@example.org")
    ta = _ta("ta@example.org")
    api = "/api/instructor/assessments/quick/items"
    with session_factory()() as session:
        offering = first_offering(session=session).id
    for url in (CSV_URL, api, f"/offerings/{offering}{CSV_URL}", f"/offerings/{offering}{api}"):
        assert taken.get(url, headers=student).status_code == 403, url
        assert taken.get(url, follow_redirects=False).status_code in (401, 303), url
        assert taken.get(url, headers=ta).status_code == 200, url
        assert taken.get(url, headers=teacher).status_code == 200, url
    missing = taken.get("/instructor/assessments/nothing/items.csv", headers=teacher)
    assert missing.status_code == 404 and "no assessment called &#39;nothing&#39;" in missing.text
    assert (
        taken.get("/instructor/assessments/nothing/items.csv", headers=student).status_code == 403
    )
    assert taken.get(f"/offerings/999999{CSV_URL}", headers=teacher).status_code == 404


def test_stats_items_for_an_assessment_ends_with_json(taken: TestClient, data_dir: Path) -> None:
    result = run_cli(
        "stats", "items", "--assessment", "quick", "--json", env={"APP_DATA_DIR": str(data_dir)}
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["assessment"] == "quick" and found["students"] == 3
    first = found["items"][0]
    assert first["item"] == "learned-absolute/table-shape" and first["attempts"] == 3
    assert first["difficulty"] == pytest.approx(1 / 3) and first["upper_lower"] == 1.0
    unknown = run_cli(
        "stats", "items", "--assessment", "nothing", env={"APP_DATA_DIR": str(data_dir)}
    )
    assert unknown.returncode == 1
    assert (
        unknown.stderr.strip().splitlines()[-1] == "error: there is no assessment called 'nothing'"
    )


def test_each_offering_counts_only_the_attempts_made_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    # Issue 27: a member of one offering sees nothing of another. Ann and Bob are students of
    # two offerings. In the first both hand in (Ann has the shape right, Bob wrong); in the
    # second only Ann does, and gets the shape wrong but the parameters right.
    _serve(tmp_path, monkeypatch, exam(attempts=2))
    ann, as_ann = person("ann@example.org")
    bob, as_bob = person("bob@example.org")
    tess, teacher = person("teacher@example.org", "Tea", Role.instructor)
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        for uid, role in (
            (ann, OfferingRole.student),
            (bob, OfferingRole.student),
            (tess, OfferingRole.instructor),
        ):
            user = session.get(User, uid)
            assert user is not None
            enroll(session=session, offering=spring, user=user, role=role)
        second = spring.id
    with TestClient(create_app()) as client:
        _hand_in(client, as_ann, {SHAPE: "(max_len, d_model)"}, f"/offerings/{first}")
        _hand_in(client, as_bob, {SHAPE: "(d_model, max_len)"}, f"/offerings/{first}")
        _hand_in(
            client, as_ann, {SHAPE: "(d_model, max_len)", PARAMS: "393216"}, f"/offerings/{second}"
        )
        api = "/api/instructor/assessments/quick/items"
        found = {
            offering: client.get(f"/offerings/{offering}{api}", headers=teacher).json()
            for offering in (first, second)
        }
        csv_rows = {
            offering: list(
                csv.DictReader(
                    io.StringIO(client.get(f"/offerings/{offering}{CSV_URL}", headers=teacher).text)
                )
            )
            for offering in (first, second)
        }
    shown = {
        offering: (
            answer["students"],
            {item["key"]: (item["answered"], item["difficulty"]) for item in answer["items"]},
        )
        for offering, answer in found.items()
    }
    assert shown[first] == (2, {SHAPE: (2, 0.5), PARAMS: (2, 0.0), MODELS: (2, 0.0)})
    assert shown[second] == (1, {SHAPE: (1, 0.0), PARAMS: (1, 1.0), MODELS: (1, 0.0)})
    assert [(r["attempts"], r["difficulty"]) for r in csv_rows[first]][:2] == [
        ("2", "0.500"),
        ("2", "0.000"),
    ]
    assert [(r["attempts"], r["difficulty"]) for r in csv_rows[second]][:2] == [
        ("1", "0.000"),
        ("1", "1.000"),
    ]
    result = run_cli(
        "stats",
        "items",
        "--assessment",
        "quick",
        "--offering",
        str(second),
        "--json",
        env={"APP_DATA_DIR": str(data_dir)},
    )
    assert result.returncode == 0, result.stderr
    cli = json.loads(result.stdout.strip().splitlines()[-1])
    assert cli["students"] == 1 and cli["items"][0]["difficulty"] == 0.0
