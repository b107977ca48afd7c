"""POST /api/lessons/{slug}/quiz and GET .../attempts: grading, storage and clear errors."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from app.users.models import Role
from tests.conftest import make_token

URL = "/api/lessons/learned-absolute/quiz"
RIGHT = {
    "table-shape": "(max_len, d_model)",
    "batch-lookup-shape": "(N, T, d_model)",
    "bert-base-params": "393,216",
    "which-models-learned": ["bert", "gpt-2", "gpt-3", "roberta"],
    "past-max-len": "no-row",
}


def post(client: TestClient, headers: dict[str, str], body: Any) -> Any:
    return client.post(URL, json=body, headers=headers)


def test_grades_stores_and_explains(client: TestClient, student_headers: dict[str, str]) -> None:
    answers = {**RIGHT, "past-max-len": "wraps"}
    response = post(client, student_headers, {"answers": answers})
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 6 and body["correct"] == 4  # table-params missing, wraps wrong
    assert abs(body["score"] - 4 / 6) < 1e-9
    results = {r["id"]: r for r in body["results"]}
    assert {"id", "correct", "explanation", "feedback"} <= results["past-max-len"].keys()
    assert results["past-max-len"]["correct"] is False
    assert "Lookups do not wrap around" in results["past-max-len"]["feedback"]
    assert "no extrapolation is possible" in results["past-max-len"]["explanation"]
    assert results["table-params"]["message"] == "No answer was given."
    assert results["which-models-learned"]["correct"] is True
    assert body["ignored"] == [] and body["note"] is None


def test_numbers_may_be_sent_as_json_numbers(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    body = post(client, student_headers, {"answers": {"bert-base-params": 393216}}).json()
    assert next(r for r in body["results"] if r["id"] == "bert-base-params")["correct"] is True


def test_unknown_question_ids_are_ignored_with_a_note(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    body = post(client, student_headers, {"answers": {**RIGHT, "nope": "x"}}).json()
    assert body["ignored"] == ["nope"] and "nope" in body["note"]
    assert [r["id"] for r in body["results"]] == [
        "table-shape",
        "batch-lookup-shape",
        "bert-base-params",
        "table-params",
        "which-models-learned",
        "past-max-len",
    ]


def test_attempts_are_listed_newest_first_and_only_your_own(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    post(client, student_headers, {"answers": {}})
    post(client, student_headers, {"answers": RIGHT})
    other = {"Authorization": f"Bearer {make_token('other@example.org', Role.student)}"}
    post(client, other, {"answers": RIGHT})
    attempts = client.get(f"{URL}/attempts", headers=student_headers).json()
    assert [a["correct"] for a in attempts] == [5, 0]
    assert attempts[0]["id"] > attempts[1]["id"] and attempts[0]["lesson"] == "learned-absolute"
    assert len(client.get(f"{URL}/attempts", headers=other).json()) == 1


def test_login_required(client: TestClient) -> None:
    response = client.post(URL, json={"answers": RIGHT})
    assert response.status_code == 401 and "log in" in response.json()["detail"]
    assert client.get(f"{URL}/attempts").status_code == 401


def test_unknown_lesson_is_404(client: TestClient, student_headers: dict[str, str]) -> None:
    response = client.post("/api/lessons/nope/quiz", json={"answers": {}}, headers=student_headers)
    assert response.status_code == 404 and "nope" in response.json()["detail"]
    assert client.get("/api/lessons/nope/quiz/attempts", headers=student_headers).status_code == 404


def test_malformed_json_is_a_plain_422(client: TestClient, student_headers: dict[str, str]) -> None:
    headers = {**student_headers, "content-type": "application/json"}
    response = client.post(URL, content=b'{"answers": {', headers=headers)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail.startswith("The request body is not valid JSON")


def test_wrong_shapes_are_422_with_the_field(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    for body in ({"answer": {}}, {"answers": ["a"]}, {"answers": {"x": {"y": 1}}}):
        response = post(client, student_headers, body)
        assert response.status_code == 422, body
        assert response.json()["detail"].startswith("The answers could not be read")


def test_too_big_payloads_are_refused(client: TestClient, student_headers: dict[str, str]) -> None:
    huge = {"answers": {"table-shape": "x" * 70_000}}
    assert post(client, student_headers, huge).status_code == 413
    many = {"answers": {f"q{i}": "1" for i in range(500)}}
    assert len(json.dumps(many)) < 64 * 1024
    assert post(client, student_headers, many).status_code == 422
    long_answer = {"answers": {"table-shape": "x" * 5000}}
    assert post(client, student_headers, long_answer).status_code == 422
