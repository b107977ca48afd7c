"""The editor form without JavaScript: post, land on a result page that refreshes until done."""

from __future__ import annotations

import re
import time

from fastapi.testclient import TestClient

from app.config import ROOT
from app.jobs.deps import get_queue
from tests.jobs.helpers import RecordingQueue
from tests.users.helpers import csrf_from, form_token, logged_in_client

SLUG = "position-embedding-gather"
PAGE = f"/exercises/{SLUG}"
GOOD = (ROOT / f"exercises/{SLUG}/solutions/numpy.py").read_text()


def form_fields(html: str) -> dict[str, str]:
    key = re.search(r'name="client_id" value="([^"]+)"', html)
    assert key, "the editor form carries a per-page click key"
    return {"csrf_token": form_token(html), "client_id": key.group(1), "framework": "numpy"}


def test_page_has_a_plain_form_that_the_editor_enhances(client: TestClient) -> None:
    html = client.get(PAGE).text
    assert f'<form class="code-form" id="code-form" method="post" action="{PAGE}/submit"' in html
    assert '<textarea id="code" name="code"' in html and "raise NotImplementedError" in html
    assert 'name="mode" value="run"' in html and 'name="mode" value="submit"' in html
    assert '<script src="/static/exercise.js" defer></script>' in html
    assert "log in</a> to run it" in html
    assert client.get("/static/exercise.js").status_code == 200


def test_visitor_post_keeps_the_code_and_asks_to_log_in(client: TestClient) -> None:
    code = "def position_embedding_gather(p, t):\n    return t  # <keep me>\n"
    response = client.post(f"{PAGE}/submit", data={"code": code, "mode": "run"})
    assert response.status_code == 401
    assert "return t  # &lt;keep me&gt;" in response.text
    assert "not logged in, or your session has ended" in response.text
    assert f"/login?next=/exercises/{SLUG}%3Fframework%3Dnumpy" in response.text


def test_form_post_without_csrf_token_is_refused(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    response = client.post(f"{PAGE}/submit", data={"code": GOOD, "mode": "run"})
    assert response.status_code == 403


def test_form_post_shows_the_verdict_and_a_double_post_is_one_attempt(
    client: TestClient,
) -> None:
    logged_in_client(client, "ada@example.org")
    fields = {**form_fields(client.get(PAGE).text), "code": GOOD, "mode": "run"}
    first = client.post(f"{PAGE}/submit", data=fields, follow_redirects=False)
    second = client.post(f"{PAGE}/submit", data=fields, follow_redirects=False)
    assert first.status_code == second.status_code == 303
    location = first.headers["location"]
    assert re.fullmatch(rf"/exercises/{SLUG}/results/\d+", location)
    assert second.headers["location"] == location
    assert len(client.get(f"/api/submissions?exercise={SLUG}").json()) == 1
    deadline = time.monotonic() + 120
    page = client.get(location)
    assert page.headers["cache-control"] == "no-store"
    while "Accepted" not in page.text and time.monotonic() < deadline:
        assert '<meta http-equiv="refresh" content="1">' in page.text
        time.sleep(0.3)
        page = client.get(location)
    assert '<h2 id="verdict-h" class="verdict verdict-ok">Accepted</h2>' in page.text
    assert (
        "8 of 8 tests passed"
    )  # 3 visible and 5 generated in page.text and 'http-equiv="refresh"' not in page.text
    editor = client.get(PAGE).text
    assert 'data-source="draft"' in editor, "the posted code became the draft"


def test_oversized_form_post_is_413_with_the_code_kept(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    big = "# padding line to make the file large\n" * 3000
    fields = {**form_fields(client.get(PAGE).text), "code": big, "mode": "submit"}
    response = client.post(f"{PAGE}/submit", data=fields)
    assert response.status_code == 413
    assert "the limit is 64 KB" in response.text
    assert response.text.count("# padding line to make the file large") == 3000


def test_result_page_of_someone_else_is_404_and_visitors_log_in(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    token = csrf_from(client.get(PAGE).text)
    sid = client.post(
        "/api/submissions",
        json={"exercise": SLUG, "code": GOOD, "mode": "run"},
        headers={"X-CSRF-Token": token},
    ).json()["id"]
    client.post("/logout", data={"csrf_token": csrf_from(client.get("/").text)})
    visitor = client.get(f"{PAGE}/results/{sid}", follow_redirects=False)
    assert visitor.status_code == 303 and visitor.headers["location"].startswith("/login?next=")
    logged_in_client(client, "bob@example.org", name="Bob")
    assert client.get(f"{PAGE}/results/{sid}").status_code == 404
    assert client.get(f"/exercises/sinusoidal-positional-encoding/results/{sid}").status_code == 404


def test_from_loads_an_earlier_submission_into_the_editor(client: TestClient) -> None:
    logged_in_client(client, "ada@example.org")
    token = csrf_from(client.get(PAGE).text)
    code = GOOD + "# from my first try\n"
    sid = client.post(
        "/api/submissions",
        json={"exercise": SLUG, "code": code, "mode": "run", "framework": "numpy"},
        headers={"X-CSRF-Token": token},
    ).json()["id"]
    html = client.get(f"{PAGE}?framework=numpy&from={sid}").text
    assert "# from my first try" in html and 'data-source="submission"' in html
    torch = client.get(f"{PAGE}?framework=torch&from={sid}").text
    assert "# from my first try" not in torch, "a numpy submission does not fill the torch editor"


def test_the_form_queues_through_the_queue_dependency(client: TestClient) -> None:
    queue = RecordingQueue()
    client.app.dependency_overrides[get_queue] = lambda: queue  # type: ignore[attr-defined]
    logged_in_client(client, "ada@example.org")
    fields = {**form_fields(client.get(PAGE).text), "code": GOOD, "mode": "run"}
    response = client.post(f"{PAGE}/submit", data=fields, follow_redirects=False)
    assert response.status_code == 303
    assert [f"/exercises/{SLUG}/results/{i}" for i in queue.ids] == [response.headers["location"]]
