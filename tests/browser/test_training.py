"""An experiment in a real browser: the progress bar and the loss move, and Stop stops it."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from app.config import ROOT
from tests.browser.conftest import Server, Shots, sign_up
from tests.browser.helpers import replace_code, wait_verdict

LAB = "lab-learned-vs-sinusoidal"
SOLUTION = (ROOT / "exercises" / LAB / "solutions" / "torch.py").read_text()
# The model solution, slowed to about 20 steps a second: a quiet machine can train the whole run
# before the page has drawn two points of the loss, and this test watches it, then stops it.
SLOW_SOLUTION = "import time\n" + SOLUTION.replace(
    "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n",
    "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        time.sleep(0.02)\n",
)
assert SLOW_SOLUTION.count("time.sleep") == 1


def test_a_student_watches_training_and_stops_it(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "trainer@example.org")
    page.goto(f"/exercises/{LAB}")
    expect(page.locator(".cm-editor")).to_be_visible()
    replace_code(page, SLOW_SOLUTION)
    page.get_by_role("button", name="Submit", exact=True).click()
    training = page.locator("section.training")
    expect(training).to_be_visible(timeout=120_000)
    expect(training.locator("#training-words")).to_contain_text("Step ", timeout=60_000)
    expect(training.locator("progress")).to_have_attribute("max", "400")
    expect(training.locator("polyline")).not_to_have_attribute("points", "", timeout=30_000)
    shots.take(page, "training")
    page.get_by_role("button", name="Stop training").click()
    wait_verdict(page, "Stopped")
    expect(page.locator("#result")).to_contain_text("You stopped this run at step ")
    shots.take(page, "stopped")


def test_a_finished_experiment_shows_its_pictures_and_their_words(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "pictures@example.org")
    page.goto(f"/exercises/{LAB}")
    expect(page.locator(".cm-editor")).to_be_visible()
    replace_code(page, SOLUTION)
    page.get_by_role("button", name="Submit", exact=True).click()
    wait_verdict(page, "Accepted")
    pictures = page.locator("section.lab-report")
    caption = pictures.locator("caption")
    expect(caption).to_contain_text("share answered right")
    expect(caption).to_contain_text("on the new positions only")  # issue 24: new apart
    expect(pictures.locator("td").first).to_have_text("100%")
    images = pictures.locator("img")
    expect(images).to_have_count(3)
    for index in range(3):
        image = images.nth(index)
        image.scroll_into_view_if_needed()
        expect(image).to_have_js_property("complete", True)
        assert image.evaluate("img => img.naturalWidth") > 0, image.get_attribute("src")
        assert len(image.get_attribute("alt") or "") > 30
    expect(images.nth(2)).to_have_attribute("alt", re.compile("Cosine similarity"))
    shots.take(page, "report-pictures")
