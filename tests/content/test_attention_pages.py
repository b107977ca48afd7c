"""The attention course's lessons as served: figures, boxes and the links between the courses."""

from __future__ import annotations

from fastapi.testclient import TestClient

BASE = "/courses/attention-step-by-step"


def test_lesson_one_shows_the_measured_scale_and_links_the_first_course(client: TestClient) -> None:
    page = client.get(f"{BASE}/lessons/scaled-dot-product")
    assert page.status_code == 200
    html = page.text
    assert 'src="/plots/attention-scale.svg?max_dk=512&amp;keys=16"' in html
    # the first course by its course URL, so the page's links all stay under /courses/
    link = "/courses/positional-embeddings/lessons/why-position"
    assert f'href="{link}"' in html and client.get(link).status_code == 200
    assert "Common confusion" in html and "Key takeaways" in html
    assert client.get("/plots/attention-scale.svg?max_dk=16&keys=4").status_code == 200


def test_the_first_course_links_the_capstone(client: TestClient) -> None:
    for slug in ("beyond-absolute", "stretching-rope"):
        html = client.get(f"/lessons/{slug}").text
        assert f'href="{BASE}/exercises/causal-self-attention-rope"' in html, slug


def test_lesson_four_is_served_with_its_quiz(client: TestClient) -> None:
    page = client.get(f"{BASE}/lessons/modern-attention")
    assert page.status_code == 200
    assert "repeat_kv" in page.text and "Key takeaways" in page.text
    lessons = client.get("/api/courses/attention-step-by-step/lessons").json()
    assert [lesson["slug"] for lesson in lessons][-1] == "modern-attention"
