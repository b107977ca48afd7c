"""The JSON API exactly as ../shared/interfaces.md names it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.api import MAX_ROW_ID

INTERFACE_EXERCISES = {
    "learned-pos-embed-forward": ["jax"],
    "position-embedding-gather": ["numpy", "torch", "jax"],
    "sinusoidal-positional-encoding": ["numpy", "torch", "jax"],
    "token-plus-position-embedding": ["numpy", "torch", "jax"],
    "learned-positional-embedding-module": ["torch"],
}


def test_healthz(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert {"status": "ok", "grader": "starting"}.items() <= body.items()  # no job graded yet
    assert (body["database"], body["queue"], body["disk"]) == ("ok", "embedded", "ok")


def test_lessons_in_course_order_with_interface_fields(client: TestClient) -> None:
    lessons = client.get("/api/lessons").json()
    assert len(lessons) >= 2
    for lesson in lessons:
        assert {"slug", "title", "url"} <= lesson.keys()
        assert lesson["url"] == f"/lessons/{lesson['slug']}"
    assert [les["order"] for les in lessons] == sorted(les["order"] for les in lessons)
    slugs = [les["slug"] for les in lessons]
    assert "why-position" in slugs and "learned-absolute" in slugs


def test_exercises_match_the_interface(client: TestClient) -> None:
    exercises = {ex["slug"]: ex for ex in client.get("/api/exercises").json()}
    assert INTERFACE_EXERCISES.keys() <= exercises.keys()
    for slug, frameworks in INTERFACE_EXERCISES.items():
        ex = exercises[slug]
        assert ex["frameworks"] == frameworks
        assert ex["default_framework"] == frameworks[0]
        assert ex["url"] == f"/exercises/{slug}" and ex["title"]
    kinds = {slug: ex["kind"] for slug, ex in exercises.items()}
    assert set(kinds.values()) <= {"function", "class", "experiment"}
    assert kinds["position-embedding-gather"] == "function"
    assert kinds["learned-positional-embedding-module"] == "class"
    assert kinds["lab-learned-vs-sinusoidal"] == kinds["lab-relative-extrapolation"] == "experiment"


def test_every_listed_page_answers(client: TestClient) -> None:
    for item in client.get("/api/lessons").json() + client.get("/api/exercises").json():
        response = client.get(item["url"])
        assert response.status_code == 200, item["url"]
        assert item["title"] in response.text


def test_openapi_lists_the_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/healthz", "/api/lessons", "/api/exercises"} <= paths.keys()


def test_unknown_api_path_is_json_404(client: TestClient) -> None:
    response = client.get("/api/nope")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"detail": "Not Found"}


def test_content_problems_api_needs_an_instructor(
    client: TestClient, student_headers: dict[str, str], instructor_headers: dict[str, str]
) -> None:
    assert client.get("/api/content/problems").status_code == 401
    assert client.get("/api/content/problems", headers=student_headers).status_code == 403
    response = client.get("/api/content/problems", headers=instructor_headers)
    assert response.status_code == 200 and response.json() == []


def test_a_bad_token_is_treated_as_no_login(client: TestClient) -> None:
    response = client.get("/api/content/problems", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["detail"] == "Please log in to continue."


HUGE_ID = 17904782118396836592558479108997120  # found by the schema fuzz; once a 500


def test_an_id_beyond_the_database_range_is_a_plain_422_never_a_500(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    for method, path in [
        ("GET", f"/api/submissions/{HUGE_ID}"),
        ("POST", f"/api/submissions/{HUGE_ID}/stop"),
        ("GET", f"/api/submissions/{HUGE_ID}/events"),
        ("GET", f"/api/submissions/{2**31}"),
        ("GET", "/api/submissions/0"),
    ]:
        response = client.request(method, path, headers=student_headers)
        assert response.status_code == 422, path
        (problem,) = response.json()["detail"]
        assert problem["loc"] == ["path", "submission_id"]
        assert "2147483647" in problem["msg"] or "greater than or equal to 1" in problem["msg"]
    page = client.get(f"/submissions/{HUGE_ID}", headers=student_headers)
    assert page.status_code == 422 and "text/html" in page.headers["content-type"]
    # The largest id a row can have is still looked up: simply not there.
    response = client.get(f"/api/submissions/{2**31 - 1}", headers=student_headers)
    assert response.status_code == 404


def test_a_json_body_that_is_not_text_is_a_plain_422(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    response = client.put(
        "/api/drafts/position-embedding-gather",
        content=b"\xb00\xe2g\xff",
        headers={**student_headers, "content-type": "application/json"},
    )
    assert response.status_code == 422
    assert response.json() == {
        "detail": "The request body is not valid JSON: it is not UTF-8 text."
    }


def test_every_operation_declares_its_errors_with_the_shared_bodies(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in spec["components"]["schemas"]  # our 422 replaces it
    bodies = {"#/components/schemas/ErrorOut", "#/components/schemas/InvalidOut"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            errors = {k: v for k, v in operation["responses"].items() if k[0] in "45"}
            if operation.get("parameters") or operation.get("requestBody"):
                assert "422" in errors, where
            if path != "/healthz":  # the only route that never waits in line for the server
                assert "503" in errors, where
            for code, response in errors.items():
                schema = response["content"]["application/json"]["schema"]
                shared = bodies | (
                    {"#/components/schemas/HealthOut"} if path == "/healthz" else set()
                )
                assert schema["$ref"] in shared, f"{where} {code}"


def _api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI keeps included routers whole
        if included is not None:
            yield from _api_routes(included.routes)


def test_every_integer_in_a_path_is_bounded_to_the_database_range() -> None:
    # Pages included: an unbounded id reaches the driver, which raises instead of finding nothing.
    routes = list(_api_routes(create_app().routes))
    assert any(route.path == "/api/submissions/{submission_id}" for route in routes)
    unbounded = [
        f"{route.path} {param.name}"
        for route in routes
        for param in route.dependant.path_params
        if param.field_info.annotation is int
        and not any(getattr(m, "le", None) == MAX_ROW_ID for m in param.field_info.metadata)
    ]
    assert unbounded == []
