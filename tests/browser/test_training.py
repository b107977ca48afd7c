"""An experiment in a real browser: the progress bar and the loss move, and Stop stops it."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from app.config import ROOT
from tests.browser.conftest import Server, Shots, sign_up
from tests.browser.helpers import replace_code, wait_verdict

LAB = "lab-learned-vs-sinusoidal"
SOLUTION = (ROOT / "exercises" / LAB / "solutions" / "torch.py").read_text()


def test_a_student_watches_training_and_stops_it(
    context_factory: Any, server: Server, shots: Shots
) -> None:
    page = context_factory().new_page()
    sign_up(page, "trainer@example.org")
    page.goto(f"/exercises/{LAB}")
    expect(page.locator(".cm-editor")).to_be_visible()
    replace_code(page, SOLUTION)
    page.get_by_role("button", name="Submit", exact=True).click()
    training = page.locator("section.training")
    expect(training).to_be_visible(timeout=120_000)
    expect(training.locator("#training-words")).to_contain_text("Step ", timeout=60_000)
    expect(training.locator("progress")).to_have_attribute("max", "400")
    expect(training.locator("polyline")).not_to_have_attribute("points", "", timeout=30_000)
    shots.take(page, "training")
    page.get_by_role("button", name="Stop training").click()
    wait_verdict(page, "Stopped by you")
    expect(page.locator("#result")).to_contain_text("You stopped this run at step ")
    shots.take(page, "stopped")
