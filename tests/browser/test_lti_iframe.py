"""The course inside an LMS iframe, in Chromium: launch, solve, and the score reaches the LMS.

The LMS stand-in serves its course page from http://localhost and the tool runs on
http://127.0.0.1, so the iframe is cross-site, as in Canvas or Moodle: the tool's cookies
only work there because they are `SameSite=None; Secure; Partitioned`, and the page only
shows because its CSP lists the LMS in frame-ancestors.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Server, Shots, _watch, launch
from tests.browser.helpers import EXERCISE, GOOD, SLUG, replace_code, wait_verdict
from tests.jobs.helpers import wait_until
from tests.lti.conftest import LEARNER
from tests.lti.platform import LTI, Platform

SUB = "iframe-student"


@pytest.fixture(scope="module")
def lms() -> Iterator[Platform]:
    """The LMS stand-in on another site than the tool (localhost, not 127.0.0.1)."""
    with Platform(host="localhost") as running:
        yield running


@pytest.fixture(scope="module")
def tool(
    lms: Platform, tmp_path_factory: pytest.TempPathFactory, server: Server
) -> Iterator[Server]:
    """A server that lets this LMS frame it and sends grades at once; registered with the LMS."""
    del server  # the package's browser needs the shared server up; this one is separate
    pools = json.dumps({"numpy": 1, "torch": 0, "jax": 0})  # this test submits NumPy only
    with launch(
        tmp_path_factory.mktemp("lti") / "var",
        warm=False,
        POOL_SIZES=pools,
        LTI_FRAME_ANCESTORS=json.dumps([lms.url]),
        LTI_OUTBOX_INTERVAL_SECONDS="0.2",
    ) as running:
        flags = {f"--{k.replace('_', '-')}": v for k, v in lms.registration().items()}
        running.cli("lti", "register", *[part for pair in flags.items() for part in pair])
        with urllib.request.urlopen(f"{running.url}/lti/jwks", timeout=10) as response:
            lms.tool_jwks = json.loads(response.read())["keys"]
        lms.tool_url = running.url
        yield running


def test_launch_in_a_cross_site_iframe_then_solve_and_the_score_reaches_the_lms(
    browser: Any, lms: Platform, tool: Server, shots: Shots
) -> None:
    lms.browser_launch = {
        "sub": SUB,
        "roles": [LEARNER],
        "claims": {LTI + "custom": {"target": f"exercise:{SLUG}"}},
    }
    errors: list[str] = []
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    context.set_default_timeout(20_000)
    context.on("page", lambda page: _watch(page, errors))
    try:
        page = context.new_page()
        page.goto(f"{lms.url}/course")
        frame = page.frame_locator("#tool")
        # Signed in inside the frame, on the linked exercise: the session cookie came back.
        expect(frame.get_by_role("button", name="Log out")).to_contain_text(f"Person {SUB}")
        expect(frame.locator(".cm-editor")).to_be_visible()
        framed = next(f for f in page.frames if f.url.startswith(tool.url))
        assert framed.url == f"{tool.url}{EXERCISE}", framed.url
        assert "Open in a new window" not in framed.content()
        shots.take(page, "launched-in-frame")
        # The cookies are the iframe kind, and only the LMS page (or the tool) may frame us.
        cookies = {c["name"]: c for c in context.cookies(tool.url)}
        assert cookies["session"]["sameSite"] == "None" and cookies["session"]["secure"]
        assert cookies["session"].get("partitionKey", "").startswith("http://localhost")
        # Solving works in the frame too: the form's CSRF token is bound to that cookie.
        replace_code(page, GOOD, frame)
        frame.get_by_role("button", name="Submit", exact=True).click()
        wait_verdict(frame, "Accepted")
        shots.take(page, "accepted-in-frame")
        try:
            wait_until(lambda: bool(lms.scores), 30, "a score at the LMS")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the tool logged:\n{tool.log.read_text()[-3000:]}")
        score = lms.scores[-1]
        assert score["userId"] == SUB and score["scoreGiven"] == score["scoreMaximum"]
        assert score["gradingProgress"] == "FullyGraded"
        assert any(item["id"] == f"{lms.url}{score['lineitem']}" for item in lms.lineitems)
    finally:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def _without_state_cookie(context: Any, tool_url: str, dropped: list[str]) -> Any:
    """A route handler for the tool's /lti/launch: before Chromium sends the request (and
    attaches cookies to it), lti_state leaves its jar (recorded in `dropped`)."""

    def handle(route: Any) -> None:
        jar = context.cookies(tool_url)
        dropped.extend(f"{c['name']}={c['value']}" for c in jar if c["name"] == "lti_state")
        context.clear_cookies(name="lti_state")
        route.continue_()

    return handle


@pytest.mark.parametrize("platform_storage", [True, False])
def test_a_frame_that_drops_the_state_cookie_is_bound_by_platform_storage_or_refused(
    browser: Any, lms: Platform, tool: Server, shots: Shots, platform_storage: bool
) -> None:
    """Where the browser keeps no state cookie in the LMS frame, the launch completes through
    the LMS's platform storage (postMessage), and without that storage it is refused.

    How the cookie is blocked: Chromium keeps partitioned (CHIPS) cookies in cross-site frames
    even with third-party cookies blocked, so no Chromium switch reproduces a browser that
    drops them (Safari's tracking prevention, "block all cookies" settings). The test plays
    that browser by taking the tool's lti_state cookie out of Chromium's jar just before each
    request to /lti/launch leaves (the test asserts it was there to take); the requests are
    otherwise Chromium's own. Rewriting the login answer instead would not do: Chromium then
    treats the tool's page as coming from the public internet and refuses its navigation to
    the loopback LMS (Local Network Access). Everything else is real: the tool's pages and
    script, the LMS page's postMessage storage, cross-site, under the app's CSP.
    """
    sub = f"storage-{platform_storage}".lower()
    lms.storage = platform_storage
    lms.browser_launch = {
        "sub": sub,
        "roles": [LEARNER],
        "claims": {LTI + "custom": {"target": f"exercise:{SLUG}"}},
    }
    errors: list[str] = []
    dropped: list[str] = []
    context = browser.new_context()
    context.set_default_timeout(20_000)
    context.on("page", lambda page: _watch(page, errors))
    launches = re.compile(re.escape(f"{tool.url}/lti/launch"))
    context.route(launches, _without_state_cookie(context, tool.url, dropped))
    trace: list[str] = []
    try:
        page = context.new_page()
        page.on("requestfailed", lambda r: trace.append(f"failed {r.url[:100]} {r.failure}"))
        page.on("response", lambda r: trace.append(f"{r.status} {r.url[:100]}"))
        page.goto(f"{lms.url}/course")
        frame = page.frame_locator("#tool")
        try:
            if platform_storage:
                logged_in = frame.get_by_role("button", name="Log out")
                expect(logged_in).to_contain_text(f"Person {sub}")
            else:
                expect(frame.get_by_role("heading", name="LMS launch refused")).to_be_visible()
                expect(frame.get_by_text("blocked the cookie the sign-in needs")).to_be_visible()
        except AssertionError as exc:
            raise AssertionError(
                f"{exc}\nrequests: {trace}\ntool log: {tool.log.read_text()[-2000:]}"
            )
        log = page.evaluate("window.lmsStorageLog") or []
        asked = {(m["origin"], m["subject"]) for m in log}
        if platform_storage:
            framed = next(f for f in page.frames if f.url.startswith(tool.url))
            assert framed.url == f"{tool.url}{EXERCISE}", framed.url
            assert {(tool.url, "lti.put_data"), (tool.url, "lti.get_data")} <= asked, asked
            shots.take(page, "launched-through-platform-storage")
        else:
            expect(frame.get_by_text("open the course in a new tab")).to_be_visible()
            assert "session" not in {c["name"] for c in context.cookies(tool.url)}
            shots.take(page, "refused-without-cookie-or-storage")
        assert any(value.startswith("lti_state=") for value in dropped), dropped
        assert "lti_state" not in {c["name"] for c in context.cookies(tool.url)}
    finally:
        context.close()
        lms.storage = False
    assert not errors, f"errors in the page: {errors}"
