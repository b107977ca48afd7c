"""Draft API: per student, exercise and framework; login, CSRF and the size limit apply."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.users.models import Role
from tests.conftest import make_token
from tests.users.helpers import csrf_from, logged_in_client

URL = "/api/drafts/position-embedding-gather"


def test_save_then_read_back_per_framework(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    empty = client.get(URL, headers=student_headers).json()
    assert empty == {
        "exercise": "position-embedding-gather",
        "framework": "numpy",
        "code": None,
        "updated_at": None,
    }
    saved = client.put(URL + "?framework=torch", json={"code": "x = 1\n"}, headers=student_headers)
    assert saved.status_code == 200 and saved.json()["framework"] == "torch"
    client.put(URL + "?framework=torch", json={"code": "x = 2\n"}, headers=student_headers)
    torch = client.get(URL + "?framework=torch", headers=student_headers).json()
    assert torch["code"] == "x = 2\n" and torch["updated_at"]
    assert client.get(URL + "?framework=numpy", headers=student_headers).json()["code"] is None


def test_a_student_sees_only_their_own_draft(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    client.put(URL, json={"code": "secret = 42\n"}, headers=student_headers)
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    assert client.get(URL, headers=other).json()["code"] is None
    assert client.get(URL, headers=student_headers).json()["code"] == "secret = 42\n"


def test_visitors_get_401(client: TestClient) -> None:
    assert client.get(URL).status_code == 401
    assert client.put(URL, json={"code": "x"}).status_code == 401


def test_unknown_exercise_framework_and_oversized_code(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    missing = client.put("/api/drafts/nope", json={"code": "x"}, headers=student_headers)
    assert missing.status_code == 404 and "no exercise called 'nope'" in missing.json()["detail"]
    wrong = client.put(URL + "?framework=tensorflow", json={"code": "x"}, headers=student_headers)
    assert wrong.status_code == 422 and "numpy, torch, jax" in wrong.json()["detail"]
    huge = client.put(URL, json={"code": "#" * (2 * 1024 * 1024)}, headers=student_headers)
    assert huge.status_code == 413
    assert "2048 KB; the limit is 64 KB" in huge.json()["detail"]
    assert client.get(URL, headers=student_headers).json()["code"] is None


def test_cookie_login_needs_the_csrf_header(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    refused = client.put(URL, json={"code": "y = 1\n"})
    assert refused.status_code == 403
    token = csrf_from(client.get("/exercises/position-embedding-gather").text)
    ok = client.put(URL, json={"code": "y = 1\n"}, headers={"X-CSRF-Token": token})
    assert ok.status_code == 200
    assert client.get(URL).json()["code"] == "y = 1\n"


def test_exercise_page_restores_the_draft(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    page = client.get("/exercises/position-embedding-gather")
    assert "raise NotImplementedError" in page.text, "the starter fills an empty editor"
    assert page.headers["cache-control"] == "no-store"
    token = csrf_from(page.text)
    code = "def position_embedding_gather(p, t):\n    return t[p.astype(int)]  # mine <3\n"
    client.put(URL, json={"code": code}, headers={"X-CSRF-Token": token})
    html = client.get("/exercises/position-embedding-gather").text
    assert "return t[p.astype(int)]  # mine &lt;3" in html
    assert 'data-source="draft"' in html and "Your saved draft" in html
    torch_html = client.get("/exercises/position-embedding-gather?framework=torch").text
    assert "mine &lt;3" not in torch_html and "import torch" in torch_html
