"""Steps shared by the browser tests: the editor's text, and the verdict panel."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from app.config import ROOT

SLUG = "position-embedding-gather"
EXERCISE = f"/exercises/{SLUG}"
GOOD = (ROOT / f"exercises/{SLUG}/solutions/numpy.py").read_text()
WRONG = (
    "import numpy as np\n\n\n"
    "def position_embedding_gather(positions, embedding_table):\n"
    '    print("ids as given:", positions[0], "<b>kept as text</b>")\n'
    "    return embedding_table[positions.astype(np.int64) + 1]\n"
)
GRADE_TIMEOUT_MS = 120_000


def editor_text(page: Any) -> str:
    """What the code editor holds (the hidden form field mirrors it)."""
    return str(page.locator("#code").input_value())


def replace_code(page: Any, code: str, frame: Any = None) -> None:
    """Select everything in the editor and paste `code` over it (Ctrl+A, Ctrl+V); `frame` is
    the frame of `page` that holds the editor (an LMS iframe), if any."""
    editor = (frame or page).locator(".cm-content")
    editor.click()  # a frame may use the clipboard only once its document has the focus
    editor.evaluate("(_, text) => navigator.clipboard.writeText(text)", code)
    page.keyboard.press("Control+A")
    page.keyboard.press("Control+V")
    expect((frame or page).locator("#code")).to_have_value(code)


def wait_verdict(page: Any, words: str) -> float:
    """Wait for the verdict heading to read `words`; return the seconds it took."""
    started = time.monotonic()
    expect(page.locator("#verdict-h")).to_have_text(words, timeout=GRADE_TIMEOUT_MS)
    return time.monotonic() - started


def own_submissions(page: Any) -> list[dict[str, Any]]:
    """GET /api/submissions?exercise=... with the page's cookies, newest first."""
    response = page.request.get(f"/api/submissions?exercise={SLUG}")
    assert response.status == 200, response.text()
    rows: list[dict[str, Any]] = response.json()
    return rows


def authoring_bundle() -> Path:
    """The authoring pages' bundle, which `make assets` builds (a missing one fails the test)."""
    served = ROOT / "frontend" / "dist" / "authoring.js"
    assert served.is_file(), "frontend/dist has no authoring.js: run `make assets`"
    return served


def write_in_editor(page: Any, text: str) -> None:
    """Replace the authoring page's CodeMirror text, as typing would; the form field follows."""
    page.locator(".cm-content").first.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)
    expect(page.locator("textarea[data-code-editor]").first).to_have_value(text)
