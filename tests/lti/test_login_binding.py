"""The launch must come back to the browser that started the login (OIDC Core 3.1.2.1): by
the state cookie, or, where the LMS frame blocks it, by the LMS's platform storage."""

from __future__ import annotations

import html
import logging
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiUser
from tests.lti.conftest import LEARNER, start_login
from tests.lti.platform import LTI, Platform

EXERCISE = {LTI + "custom": {"target": "exercise:alibi-bias"}}


def _no_account(sub: str) -> bool:
    with session_factory()() as session:
        return session.scalar(select(LtiUser).where(LtiUser.sub == sub)) is None


def _no_session(response: object) -> bool:
    cookies = response.headers.get_list("set-cookie")  # type: ignore[attr-defined]
    return not any(c.startswith("session=") for c in cookies)


def _other_browser(client: TestClient) -> TestClient:
    """A second browser on the same app: its own, empty cookie jar."""
    return TestClient(client.app, base_url="https://testserver")


def test_a_launch_without_the_state_cookie_or_platform_storage_is_refused(
    lti_client: TestClient, platform: Platform, caplog: pytest.LogCaptureFixture
) -> None:
    location = start_login(lti_client, platform, "s-c1")
    _, form = platform.authorize(location, sub="s-c1", roles=[LEARNER], claims=EXERCISE)
    lti_client.cookies.clear()  # the browser dropped the state cookie
    with caplog.at_level(logging.WARNING, logger="app.lti.routes"):
        response = lti_client.post("/lti/launch", data=form, follow_redirects=False)
    assert response.status_code == 403
    assert "blocked the cookie the sign-in needs" in response.text
    assert "new tab" in response.text
    assert "no state cookie and no platform storage" in caplog.text
    assert _no_session(response) and _no_account("s-c1")


@pytest.mark.parametrize("victim_started_a_login", [False, True])
def test_login_csrf_a_launch_started_by_one_browser_is_refused_in_another(
    lti_client: TestClient, platform: Platform, victim_started_a_login: bool
) -> None:
    """The attacker starts the login and hands the signed form to the victim's browser."""
    location = start_login(lti_client, platform, "attacker")
    _, form = platform.authorize(location, sub="attacker", roles=[LEARNER], claims=EXERCISE)
    victim = _other_browser(lti_client)
    if victim_started_a_login:  # the victim's own, unrelated login left its state cookie
        start_login(victim, platform, "victim")
    response = victim.post("/lti/launch", data=form, follow_redirects=False)
    assert response.status_code == 403, response.text
    assert _no_session(response) and _no_account("attacker")
    assert victim.get("/exercises/alibi-bias").text.count("Person attacker") == 0
    # The attacker's own browser still completes its launch: the check is the binding.
    assert lti_client.post("/lti/launch", data=form, follow_redirects=False).status_code == 303


def _storage_login(client: TestClient, platform: Platform, sub: str) -> tuple[str, str]:
    """Login with lti_storage_target: our page (not a redirect) that stores the state first."""
    page = client.post(
        "/lti/login",
        data={**platform.login_params(sub, "https://testserver/"), "lti_storage_target": "_parent"},
    )
    assert page.status_code == 200 and "/static/lti-storage.js" in page.text
    fields = dict(re.findall(r'data-(target|origin|state|redirect)="([^"]*)"', page.text))
    assert fields["target"] == "_parent" and fields["origin"] == platform.url
    redirect = html.unescape(fields["redirect"])
    assert parse_qs(urlsplit(redirect).query)["state"] == [fields["state"]]
    assert client.cookies.get("lti_state") == fields["state"]  # the cookie is still tried
    return redirect, fields["state"]


def test_without_the_cookie_platform_storage_completes_the_launch(
    lti_client: TestClient, platform: Platform
) -> None:
    redirect, state = _storage_login(lti_client, platform, "s-c2")
    _, form = platform.authorize(redirect, sub="s-c2", roles=[LEARNER], claims=EXERCISE)
    lti_client.cookies.clear()  # the LMS frame blocked the cookie
    check = lti_client.post("/lti/launch", data=form, follow_redirects=False)
    assert check.status_code == 200 and 'data-lti-storage="check"' in check.text
    assert f'data-origin="{platform.url}"' in check.text
    assert _no_session(check) and _no_account("s-c2")  # nothing until the state comes back
    read_back = {**form, "storage_state": state}
    done = lti_client.post(
        "/lti/launch",
        data=read_back,
        headers={"sec-fetch-site": "same-origin"},
        follow_redirects=False,
    )
    assert done.status_code == 303 and not _no_session(done)
    assert not _no_account("s-c2")


@pytest.mark.parametrize(
    ("stored", "headers", "reason"),
    [
        ("another-state", {"sec-fetch-site": "same-origin"}, "platform storage state mismatch"),
        # A forged read-back posted by another site's page (the login CSRF again).
        (None, {"sec-fetch-site": "cross-site"}, "storage state from another site"),
        (None, {"origin": "https://evil.example"}, "storage state from another site"),
    ],
)
def test_a_storage_read_back_must_match_and_come_from_our_page(
    lti_client: TestClient,
    platform: Platform,
    caplog: pytest.LogCaptureFixture,
    stored: str | None,
    headers: dict[str, str],
    reason: str,
) -> None:
    redirect, state = _storage_login(lti_client, platform, "s-c3")
    _, form = platform.authorize(redirect, sub="s-c3", roles=[LEARNER], claims=EXERCISE)
    victim = _other_browser(lti_client)
    with caplog.at_level(logging.WARNING, logger="app.lti.routes"):
        response = victim.post(
            "/lti/launch",
            data={**form, "storage_state": stored or state},
            headers=headers,
            follow_redirects=False,
        )
    assert response.status_code == 403 and reason in caplog.text
    assert _no_session(response) and _no_account("s-c3")


def test_a_storage_target_that_is_not_a_frame_name_is_refused(
    lti_client: TestClient, platform: Platform
) -> None:
    params = {**platform.login_params("s-c4", "https://testserver/"), "lti_storage_target": "x y"}
    response = lti_client.post("/lti/login", data=params)
    assert response.status_code == 400 and "storage frame" in response.text
