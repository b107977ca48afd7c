"""Server-rendered pages: outline, lessons, exercises, errors, docs, security headers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import ROOT
from app.main import create_app
from graders.lab.experiment_reference import content_hash, seeded_names

# Assets are what a page loads by itself: any src=, and href= on <link>. A plain <a href> to a
# paper is a link the reader may follow, not an asset, and lessons cite their sources that way.
EXTERNAL = re.compile(
    r"""(?:\bsrc\s*=\s*["']?|<link\b[^>]*\bhref\s*=\s*["']?)(?:https?:)?//""", re.I
)


def test_home_outline_lists_lessons_then_exercises(client: TestClient) -> None:
    html = client.get("/").text
    lessons = [les["title"] for les in client.get("/api/lessons").json()]
    exercises = [ex["title"] for ex in client.get("/api/exercises").json()]
    positions = [html.index(title) for title in lessons + exercises]
    assert positions == sorted(positions)


def test_lesson_page_renders_math_on_the_server(client: TestClient) -> None:
    html = client.get("/lessons/learned-absolute").text
    assert "<math" in html and "<h1>Learned absolute position embeddings</h1>" in html
    assert html.count("<h1>") == 1, "the title heading must not repeat"


def test_exercise_page_shows_statement_and_starter_per_framework(client: TestClient) -> None:
    html = client.get("/exercises/position-embedding-gather").text
    assert "def position_embedding_gather(" in html and "A small example" in html
    torch_html = client.get("/exercises/position-embedding-gather?framework=torch").text
    assert "import torch" in torch_html


def test_exercise_and_lesson_pages_link_each_other(client: TestClient) -> None:
    html = client.get("/exercises/rope-rotate").text
    assert '<a href="/lessons/beyond-absolute">' in html
    lesson_html = client.get("/lessons/beyond-absolute").text
    assert 'href="/exercises/rope-rotate"' in lesson_html


def test_unknown_framework_is_a_friendly_404(client: TestClient) -> None:
    response = client.get("/exercises/learned-pos-embed-forward?framework=torch")
    assert response.status_code == 404
    assert "not offered in &#39;torch&#39;" in response.text and "jax" in response.text


def test_unknown_pages_get_a_friendly_404(client: TestClient) -> None:
    for url in ("/no/such/page", "/lessons/nope", "/exercises/nope"):
        response = client.get(url, headers={"accept": "text/html"})
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/html")
        assert "Back to the course outline" in response.text


def test_slug_in_404_message_is_escaped(client: TestClient) -> None:
    response = client.get("/lessons/%3Cscript%3Ealert(1)")
    assert response.status_code == 404
    assert "<script>alert(1)" not in response.text and "&lt;script&gt;" in response.text


def test_every_html_response_has_security_headers(client: TestClient) -> None:
    for url in (
        "/",
        "/lessons/why-position",
        "/exercises/position-embedding-gather",
        "/nope",
        "/docs",
    ):
        response = client.get(url)
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp, url
        assert response.headers["x-content-type-options"] == "nosniff"


def test_pages_load_no_asset_from_another_host(client: TestClient) -> None:
    for url in ("/", "/lessons/why-position", "/exercises/position-embedding-gather", "/docs"):
        html = client.get(url).text
        assert not EXTERNAL.search(html), url
        assert "<script>" not in html, f"inline script on {url}"
    assert not EXTERNAL.search('<a href="https://arxiv.org/abs/1706.03762">paper</a>')
    assert EXTERNAL.search('<script src="https://cdn.example/x.js">')
    assert EXTERNAL.search('<link rel="stylesheet" href="//cdn.example/x.css">')


def test_docs_page_uses_bundled_swagger(client: TestClient) -> None:
    html = client.get("/docs").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    bundle = client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and len(bundle.content) > 100_000
    assert client.get("/static/docs-init.js").status_code == 200


def test_static_assets_are_served(client: TestClient) -> None:
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/app.js").status_code == 200
    assert ".highlight" in client.get("/styles/code.css").text


def test_drafts_are_for_instructors_only(
    content_dir: Path, student_headers: dict[str, str], instructor_headers: dict[str, str]
) -> None:
    lesson = content_dir / "lessons" / "99-draft.md"
    lesson.write_text(
        "---\nslug: secret-draft\ntitle: Draft lesson\norder: 99\n"
        "summary: Not yet.\ndraft: true\n---\nWork in progress.\n"
    )
    with TestClient(create_app()) as client:
        assert client.get("/lessons/secret-draft").status_code == 404
        assert client.get("/lessons/secret-draft", headers=student_headers).status_code == 404
        slugs = [les["slug"] for les in client.get("/api/lessons").json()]
        assert "secret-draft" not in slugs
        assert client.get("/lessons/secret-draft", headers=instructor_headers).status_code == 200
        slugs = [
            les["slug"] for les in client.get("/api/lessons", headers=instructor_headers).json()
        ]
        assert "secret-draft" in slugs


def test_broken_content_keeps_the_site_up_and_tells_instructors(
    content_dir: Path, instructor_headers: dict[str, str]
) -> None:
    (content_dir / "lessons" / "01-why-position.md").write_text("---\nslug: [\n---\n")
    with TestClient(create_app()) as client:
        assert client.get("/").status_code == 200
        assert client.get("/lessons/learned-absolute").status_code == 200
        assert client.get("/lessons/why-position").status_code == 404
        problems = client.get("/api/content/problems", headers=instructor_headers).json()
        assert problems[0]["path"] == "lessons/01-why-position.md"
        page = client.get("/instructor/content", headers=instructor_headers).text
        assert "lessons/01-why-position.md" in page and "invalid YAML" in page
        home = client.get("/", headers=instructor_headers).text
        assert "1 content file(s) failed to load" in home


def test_an_experiment_page_shows_cached_reference_runs(client: TestClient, data_dir: Path) -> None:
    lab = ROOT / "exercises" / "lab-learned-vs-sinusoidal"
    assert "lab-reference" not in client.get("/exercises/lab-learned-vs-sinusoidal").text
    cache = data_dir / "experiments-cache"
    cache.mkdir(parents=True, exist_ok=True)
    for scheme, name in seeded_names(lab):
        run = {"train_length": 16, "accuracy_by_length": {"16": 1.0, "24": 0.5}}
        path = cache / f"{lab.name}--{name}--{content_hash(lab, name)}.json"
        path.write_text(json.dumps(run))
    page = client.get("/exercises/lab-learned-vs-sinusoidal").text
    assert 'class="lab-reference"' in page and "<svg" in page and "sinusoidal" in page
    assert "lab-positions" in page and "bars from the lowest to the highest seed" in page
