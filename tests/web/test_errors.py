"""Domain errors answer through one handler: JSON for scripts, an error page for people."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.errors import DomainError
from app.submissions.intake import TooMany


def test_a_domain_refusal_is_json_with_its_status_for_scripts(
    client: TestClient, student_headers: dict[str, str]
) -> None:
    response = client.post(
        "/api/submissions",
        json={"exercise": "no-such-exercise", "code": "x = 1"},
        headers=student_headers,
    )
    assert response.status_code == 404
    assert response.json() == {"detail": "There is no exercise called 'no-such-exercise'."}


def test_a_domain_refusal_is_an_error_page_for_people(
    client: TestClient, instructor_headers: dict[str, str]
) -> None:
    response = client.post(
        "/instructor/problems/99999/resolve",
        headers={**instructor_headers, "accept": "text/html"},
        follow_redirects=False,
    )
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "There is no report with that number." in response.text


def test_a_refusal_carries_its_headers() -> None:
    refusal = TooMany(17, "Too many submissions in the last minute.")
    assert isinstance(refusal, DomainError)
    assert (refusal.status, refusal.headers) == (429, {"retry-after": "17"})
