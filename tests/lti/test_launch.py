"""Launches through the real OIDC dance, and every refusal a forged or replayed launch gets."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiLink, LtiUser
from app.offerings.models import OfferingRole
from app.offerings.service import first_offering, role_in
from app.users.models import Role, User
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch, start_login
from tests.lti.platform import LTI, Platform, new_key

EXERCISE = {LTI + "custom": {"target": "exercise:alibi-bias"}}


def _follow_to_item(client: TestClient, response: object) -> str:
    assert response.status_code == 303, response.text  # type: ignore[attr-defined]
    cont = client.get(response.headers["location"], follow_redirects=False)  # type: ignore[attr-defined]
    assert cont.status_code == 303, cont.text
    return cont.headers["location"]


def test_login_redirect_carries_every_oidc_parameter(
    lti_client: TestClient, platform: Platform
) -> None:
    location = start_login(lti_client, platform, "s-1")
    query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
    assert query["redirect_uri"] == "https://testserver/lti/launch"
    assert query["lti_message_hint"] == "hint-42"
    assert query["login_hint"] == "s-1"
    assert len(query["nonce"]) > 20 and len(query["state"]) > 20
    cookie = lti_client.cookies.get("lti_state")
    assert cookie == query["state"]


def test_student_launch_signs_in_and_lands_on_the_exercise(
    lti_client: TestClient, platform: Platform
) -> None:
    response = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE)
    set_cookie = response.headers["set-cookie"]
    assert "session=" in set_cookie and "SameSite=None" in set_cookie
    assert "Secure" in set_cookie and "Partitioned" in set_cookie
    assert _follow_to_item(lti_client, response) == "/exercises/alibi-bias"
    page = lti_client.get("/exercises/alibi-bias")
    assert "Person s-1" in page.text  # signed in with the app's normal session
    csp = page.headers["content-security-policy"]
    assert f"frame-ancestors 'self' {platform.url}" in csp and "x-frame-options" not in page.headers
    with session_factory()() as session:
        link = session.scalar(select(LtiUser).where(LtiUser.sub == "s-1"))
        assert link is not None and link.issuer == platform.issuer
        user = session.get(User, link.user_id)
        assert user is not None and user.role == Role.student
        assert session.scalar(select(LtiLink.slug)) == "alibi-bias"
    again = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE)
    assert again.status_code == 303
    with session_factory()() as session:
        assert len(session.scalars(select(LtiUser)).all()) == 1  # found, not created twice


def test_instructor_launch_via_target_link_uri_lands_on_the_quiz(
    lti_client: TestClient, platform: Platform
) -> None:
    claims = {LTI + "target_link_uri": "https://testserver/lessons/why-position/quiz"}
    response = launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR], claims=claims)
    assert _follow_to_item(lti_client, response) == "/lessons/why-position#quiz"
    with session_factory()() as session:
        link = session.scalar(select(LtiUser).where(LtiUser.sub == "t-1"))
        user = session.get(User, link.user_id)  # type: ignore[union-attr]
        assert user is not None
        first = first_offering(session=session).id  # the LMS course feeds the first offering
        held = role_in(session=session, user_id=user.id, offering_id=first)
        assert held == OfferingRole.instructor
    assert lti_client.get("/instructor/lti").status_code == 200


def test_blocked_cookie_offers_a_new_window(lti_client: TestClient, platform: Platform) -> None:
    response = launch(lti_client, platform, sub="s-2", roles=[LEARNER], claims=EXERCISE)
    lti_client.cookies.clear()  # what a browser blocking third-party cookies does
    page = lti_client.get(response.headers["location"])
    assert page.status_code == 200 and "Open in a new window" in page.text
    open_url = page.text.split('href="/lti/open?')[1].split('"')[0].replace("&amp;", "&")
    opened = lti_client.get(f"/lti/open?{open_url}", follow_redirects=False)
    assert opened.headers["location"] == "/exercises/alibi-bias"
    assert "Person s-2" in lti_client.get("/exercises/alibi-bias").text
    reused = lti_client.get(f"/lti/open?{open_url}", follow_redirects=False)
    assert reused.status_code == 400 and "already used" in reused.text


@pytest.mark.parametrize(
    ("token_args", "status", "reason"),
    [
        ({"key": new_key()}, 401, "bad signature"),
        ({"aud": "someone-else"}, 401, "wrong audience"),
        # OIDC Core 3.1.3.7: an extra audience we do not trust, even with azp naming us ...
        (
            {"aud": ["tool-client", "another-tool"], "claims": {"azp": "tool-client"}},
            401,
            "untrusted audience",
        ),
        # ... several audiences without azp, and an authorized party that is someone else.
        ({"aud": ["tool-client", "tool-client"]}, 401, "azp mismatch"),
        ({"claims": {"azp": "another-tool"}}, 401, "azp mismatch"),
        ({"exp_in": -3600}, 401, "expired id_token"),
        ({"claims": {LTI + "deployment_id": "dep-unknown"}}, 403, "unknown deployment"),
    ],
)
def test_forged_launches_are_refused(
    lti_client: TestClient,
    platform: Platform,
    caplog: pytest.LogCaptureFixture,
    token_args: dict[str, object],
    status: int,
    reason: str,
) -> None:
    with caplog.at_level(logging.WARNING, logger="app.lti.routes"):
        response = launch(lti_client, platform, sub="s-x", roles=[LEARNER], **token_args)
    assert response.status_code == status
    assert "LMS launch refused" in response.text and "text/html" in response.headers["content-type"]
    assert reason in caplog.text
    with session_factory()() as session:
        assert session.scalar(select(LtiUser)) is None


def test_replayed_launch_is_refused(
    lti_client: TestClient, platform: Platform, caplog: pytest.LogCaptureFixture
) -> None:
    location = start_login(lti_client, platform, "s-3")
    _, form = platform.authorize(location, sub="s-3", roles=[LEARNER], claims=EXERCISE)
    first = lti_client.post("/lti/launch", data=form, follow_redirects=False)
    assert first.status_code == 303
    with caplog.at_level(logging.WARNING, logger="app.lti.routes"):
        second = lti_client.post("/lti/launch", data=form, follow_redirects=False)
    assert second.status_code == 403 and "already used" in second.text
    assert "replayed" in caplog.text


def test_nonce_from_another_login_is_refused(lti_client: TestClient, platform: Platform) -> None:
    location = start_login(lti_client, platform, "s-4")
    _, form = platform.authorize(location, sub="s-4", roles=[LEARNER])
    other = platform.id_token(nonce="made-up", sub="s-4", roles=[LEARNER])
    response = lti_client.post(
        "/lti/launch", data={"id_token": other, "state": form["state"]}, follow_redirects=False
    )
    assert response.status_code == 403 and "does not match" in response.text


def test_unknown_platform_and_unknown_item(lti_client: TestClient, platform: Platform) -> None:
    response = lti_client.post(
        "/lti/login", data={"iss": "https://nope.example", "login_hint": "x"}
    )
    assert response.status_code == 400 and "not registered" in response.text
    missing = {LTI + "custom": {"target": "exercise:does-not-exist"}}
    refused = launch(lti_client, platform, sub="s-5", roles=[LEARNER], claims=missing)
    assert refused.status_code == 404 and "does-not-exist" in refused.text


def test_jwks_serves_the_tool_key(lti_client: TestClient) -> None:
    keys = lti_client.get("/lti/jwks").json()["keys"]
    assert keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and keys[0]["kid"]
    assert "d" not in keys[0]  # public half only


def test_a_launch_to_a_lab_lands_on_it_but_links_no_grade(
    lti_client: TestClient, platform: Platform
) -> None:
    """Issue 24: a lab is practice only; no link row means no score is ever queued for the LMS."""
    lab = {LTI + "custom": {"target": "exercise:lab-learned-vs-sinusoidal"}}
    response = launch(lti_client, platform, sub="s-9", roles=[LEARNER], claims=lab)
    assert _follow_to_item(lti_client, response) == "/exercises/lab-learned-vs-sinusoidal"
    with session_factory()() as session:
        assert session.scalars(select(LtiLink.slug)).all() == []


def test_an_lms_that_rotates_its_key_under_the_same_kid_is_still_trusted(
    lti_client: TestClient, platform: Platform
) -> None:
    """The tool cached the LMS's key; the LMS replaces it keeping the kid: the next launch
    fetches the key set again once, instead of refusing every student for five minutes."""
    assert (
        launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code == 303
    )
    platform.key = new_key()  # its key set now serves this one, under the same kid
    again = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE)
    assert again.status_code == 303, again.text
    forged = launch(
        lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE, key=new_key()
    )
    assert forged.status_code == 401  # a key it never published still fails (no fetch storm)
