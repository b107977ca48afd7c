"""CSRF: cookie-authenticated writes need a token bound to the session; bearer calls do not."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.web.csrf import make_token, token_matches
from tests.users.helpers import PASSWORD, csrf_from, form_token, logged_in_client, make_user

QUIZ_API = "/api/lessons/learned-absolute/quiz"


def test_tokens_are_bound_and_signed() -> None:
    token = make_token("s:abc")
    assert token_matches(token, "s:abc")
    assert not token_matches(token, "s:abd")
    nonce, _, signature = token.partition(".")
    assert not token_matches(f"{nonce}.{signature[:-2]}AA", "s:abc")
    assert not token_matches("", "s:abc") and not token_matches("no-dot", "s:abc")
    assert make_token("s:abc") != token, "each page gets a fresh nonce"


def test_login_form_without_or_with_a_bad_token_is_refused(client: TestClient) -> None:
    make_user("grace@example.org")
    client.get("/login")  # sets the pre-session cookie
    data = {"email": "grace@example.org", "password": PASSWORD}
    response = client.post("/login", data=data, follow_redirects=False)
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("text/plain")
    assert "Reload the page and try again" in response.text
    bad = client.post("/login", data={**data, "csrf_token": "x.y"}, follow_redirects=False)
    assert bad.status_code == 403


def test_token_from_a_different_browser_is_refused(client: TestClient) -> None:
    make_user("grace@example.org")
    stolen = form_token(client.get("/login").text)
    client.cookies.clear()
    client.get("/login")  # a new pre-session cookie
    data = {"email": "grace@example.org", "password": PASSWORD, "csrf_token": stolen}
    assert client.post("/login", data=data, follow_redirects=False).status_code == 403


def test_logout_needs_the_session_token(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    assert client.post("/logout", follow_redirects=False).status_code == 403
    assert "Log out" in client.get("/").text, "a forged logout must not log anyone out"
    token = csrf_from(client.get("/").text)
    assert (
        client.post("/logout", data={"csrf_token": token}, follow_redirects=False).status_code
        == 303
    )


def test_pre_login_token_stops_working_after_login(client: TestClient) -> None:
    make_user("grace@example.org")
    before = form_token(client.get("/login").text)
    data = {"email": "grace@example.org", "password": PASSWORD, "csrf_token": before}
    assert client.post("/login", data=data, follow_redirects=False).status_code == 303
    response = client.post("/logout", data={"csrf_token": before}, follow_redirects=False)
    assert response.status_code == 403


def test_header_token_works_for_json_from_the_browser(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    body = {"answers": {"past-max-len": "no-row"}}
    refused = client.post(QUIZ_API, json=body)
    assert refused.status_code == 403 and "security token" in refused.json()["detail"]
    token = csrf_from(client.get("/").text)
    accepted = client.post(QUIZ_API, json=body, headers={"X-CSRF-Token": token})
    assert accepted.status_code == 200 and accepted.json()["total"] == 6


def test_submissions_api_from_the_browser_needs_the_header(client: TestClient) -> None:
    logged_in_client(client, "grace@example.org")
    body = {"exercise": "no-such-exercise", "code": "x = 1\n"}
    assert client.post("/api/submissions", json=body).status_code == 403
    token = csrf_from(client.get("/").text)
    response = client.post("/api/submissions", json=body, headers={"X-CSRF-Token": token})
    assert response.status_code == 404, "the token let the request through to the route"


def test_bearer_requests_are_exempt(client: TestClient, student_headers: dict[str, str]) -> None:
    body = {"answers": {"past-max-len": "no-row"}}
    response = client.post(QUIZ_API, json=body, headers=student_headers)
    assert response.status_code == 200
    # Even with a session cookie around, the bearer token is what authenticates.
    logged_in_client(client, "grace@example.org")
    response = client.post(QUIZ_API, json=body, headers=student_headers)
    assert response.status_code == 200


def test_visitors_without_cookies_get_401_not_403(client: TestClient) -> None:
    response = client.post(QUIZ_API, json={"answers": {}})
    assert response.status_code == 401
    response = client.post("/api/submissions", json={"exercise": "x", "code": ""})
    assert response.status_code == 401


def test_every_page_has_the_meta_token_and_forms_carry_it(client: TestClient) -> None:
    for url in ("/", "/lessons/learned-absolute", "/login", "/signup", "/nope"):
        html = client.get(url).text
        assert csrf_from(html), url
    logged_in_client(client, "grace@example.org")
    html = client.get("/lessons/learned-absolute").text
    assert html.count('name="csrf_token"') == 3, "the logout, quiz and report-a-problem forms"
