"""Quiz item statistics in a real browser: a generated class, the instructor's pages and CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from playwright.sync_api import expect

from app.bench.classroom import simulate_class
from tests.browser.a11y import assert_accessible
from tests.browser.conftest import Server, Shots, sign_up
from tests.browser.test_accessibility import make_instructor

CLASS = 30


def test_an_instructor_reads_a_quizs_item_statistics_and_downloads_them(
    server: Server, context_factory: Any, shots: Shots
) -> None:
    made = simulate_class(server.env, CLASS, seed=7)
    assert made["disagreements"] == []
    page = context_factory().new_page()
    sign_up(page, "items@example.org")
    make_instructor(server, "items@example.org")

    page.goto("/instructor/quizzes")
    lesson = page.get_by_role("link", name="Why attention needs position")
    expect(lesson).to_be_visible()
    assert_accessible(page, "instructor-quizzes")
    shots.take(page, "quizzes")
    lesson.click()
    page.wait_for_load_state()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Quiz statistics")
    expect(page.locator("p.meta").first).to_contain_text(f"{CLASS} students")

    # The page shows the numbers the JSON gives, question by question.
    slug = page.url.rstrip("/").rsplit("/", 1)[-1]
    stats = page.request.get(f"/api/instructor/quizzes/{slug}/items").json()
    assert stats["students"] == CLASS and stats["kr20"] is not None
    expect(page.locator("p.meta").first).to_contain_text(f"{stats['kr20']:.2f}")
    for item in stats["items"]:
        section = page.locator(f"#q-{item['id']}")
        expect(section.locator("dd").first).to_have_text(str(item["answered"]))
        if item["discrimination"] is not None:
            expect(section).to_contain_text(f"{item['discrimination']:.2f}")
        for flag in item["flags"]:
            expect(section.get_by_role("note").filter(has_text=flag[:40])).to_have_count(1)
        for choice in item["choices"]:
            row = section.locator("tr").filter(has_text=choice["text"][:40]).first
            expect(row.locator("td.num")).to_have_text(str(choice["picked"]))
    assert_accessible(page, "instructor-quiz")
    shots.take(page, "quiz")

    # The CSV behind the link: a row per question, with the same difficulty.
    answer = page.request.get(
        page.get_by_role("link", name="Download as CSV").get_attribute("href")
    )
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text())))
    assert [r["question"] for r in rows] == [i["id"] for i in stats["items"]]
    for row, item in zip(rows, stats["items"], strict=True):
        assert float(row["difficulty"]) == round(item["difficulty"], 3)
