"""Grade passback through the real outbox and HTTP, deep linking, roster sync, registration."""

from __future__ import annotations

import jwt
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db import session_factory
from app.lti.models import LtiGradePost, LtiPlatform, LtiUser
from app.progress.service import save_quiz_attempt
from app.users.models import User
from tests.conftest import run_cli
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.helpers import EXERCISE, _all_sent, _graded_submission, _user_id, _wait
from tests.lti.platform import LTI, Platform


def test_graded_submission_score_arrives_at_the_lms(
    lti_client: TestClient, platform: Platform
) -> None:
    assert (
        launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code == 303
    )
    platform.fail_scores = 1  # the first post fails: the outbox must retry it
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_all_sent)
    score = platform.scores[0]
    assert score["userId"] == "s-1" and score["scoreGiven"] == 75.0 and score["scoreMaximum"] == 100
    assert score["gradingProgress"] == "FullyGraded"
    assert platform.lineitems[0]["tag"] == "exercise:alibi-bias"  # created on the platform
    assert score["lineitem"].endswith("/lineitems/1")
    assert platform.assertions[0]["iss"] == platform.client_id  # private_key_jwt checked
    with session_factory()() as session:
        post = session.scalars(select(LtiGradePost)).one()
        assert post.status == "sent" and post.attempts == 1 and post.score_sent == 0.75
    # Best score policy: a worse later submission still sends the best one.
    _graded_submission(_user_id("s-1"), 0.5)
    _wait(lambda: len(platform.scores) == 2 and _all_sent())
    assert platform.scores[1]["scoreGiven"] == 75.0
    assert len(platform.lineitems) == 1  # the line item is reused


def test_quiz_attempt_score_arrives(lti_client: TestClient, platform: Platform) -> None:
    claims = {LTI + "custom": {"target": "quiz:why-position"}}
    assert (
        launch(lti_client, platform, sub="s-2", roles=[LEARNER], claims=claims).status_code == 303
    )
    with session_factory()() as session:
        save_quiz_attempt(
            session=session,
            user_id=_user_id("s-2"),
            lesson_slug="why-position",
            answers={},
            results={},
            score=0.5,
        )
    _wait(lambda: platform.scores)
    assert platform.scores[0]["scoreGiven"] == 50.0 and platform.scores[0]["userId"] == "s-2"


def test_deep_linking_returns_signed_resource_links(
    lti_client: TestClient, platform: Platform
) -> None:
    claims = {
        LTI + "message_type": "LtiDeepLinkingRequest",
        "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
            "deep_link_return_url": f"{platform.url}/deep-link-return",
            "accept_types": ["ltiResourceLink"],
            "data": "opaque-123",
        },
    }
    response = launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR], claims=claims)
    picker_url = lti_client.get(response.headers["location"], follow_redirects=False).headers[
        "location"
    ]
    picker = lti_client.get(picker_url)
    assert picker.status_code == 200 and 'value="exercise:alibi-bias"' in picker.text
    csrf = picker.text.split('name="csrf_token" value="')[1].split('"')[0]
    ticket = picker_url.split("t=")[1]
    form = {"t": ticket, "item": ["exercise:alibi-bias", "lesson:why-position"]}
    refused = lti_client.post("/lti/deep-link", data=form)
    assert refused.status_code == 403  # no CSRF token
    page = lti_client.post("/lti/deep-link", data={**form, "csrf_token": csrf})
    assert page.status_code == 200
    assert f'action="{platform.url}/deep-link-return"' in page.text
    assert f"form-action 'self' {platform.url}" in page.headers["content-security-policy"]
    token = page.text.split('name="JWT" value="')[1].split('"')[0]
    kid = jwt.get_unverified_header(token)["kid"]
    jwk = next(k for k in lti_client.get("/lti/jwks").json()["keys"] if k["kid"] == kid)
    claims_back = jwt.decode(
        token, jwt.PyJWK(jwk).key, algorithms=["RS256"], audience=platform.issuer
    )
    assert claims_back[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert claims_back["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-123"
    items = claims_back["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert [i["type"] for i in items] == ["ltiResourceLink", "ltiResourceLink"]
    assert items[0]["custom"] == {"target": "exercise:alibi-bias"} and "lineItem" in items[0]
    assert items[1]["url"] == "https://testserver/lessons/why-position"


def test_students_cannot_deep_link(lti_client: TestClient, platform: Platform) -> None:
    claims = {LTI + "message_type": "LtiDeepLinkingRequest"}
    response = launch(lti_client, platform, sub="s-9", roles=[LEARNER], claims=claims)
    assert response.status_code == 403


def test_roster_sync_creates_members(lti_client: TestClient, platform: Platform) -> None:
    platform.members = [
        {
            "user_id": "m-1",
            "name": "Ada",
            "email": "ada@example.org",
            "roles": [LEARNER],
            "status": "Active",
        },
        {"user_id": "m-2", "name": "Bo", "roles": [INSTRUCTOR], "status": "Active"},
        {"user_id": "m-3", "name": "Gone", "roles": [LEARNER], "status": "Inactive"},
        {"user_id": "t-1", "name": "Teacher", "roles": [INSTRUCTOR]},
    ]
    launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR])
    page = lti_client.get("/instructor/lti")
    csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    synced = lti_client.post("/instructor/lti/contexts/1/sync", data={"csrf_token": csrf})
    assert synced.status_code == 200 and "3 members, 2 new accounts" in synced.text
    with session_factory()() as session:
        subs = set(session.scalars(select(LtiUser.sub)))
    assert subs == {"t-1", "m-1", "m-2"}


def test_registration_page_and_cli_are_idempotent(
    lti_client: TestClient, platform: Platform, data_dir: object
) -> None:
    launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR])
    page = lti_client.get("/instructor/lti")
    assert 'action="/instructor/lti/platforms"' not in page.text  # an instructor, not an admin
    csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    # An LMS is trusted site-wide: whoever sets its key URL signs launches as anyone, with any
    # role. An instructor (here one an LMS launch made) may not point it elsewhere.
    taken = lti_client.post(
        "/instructor/lti/platforms",
        data={**platform.registration(), "jwks_url": "https://evil.example/j", "csrf_token": csrf},
    )
    assert taken.status_code == 403 and "Only a site administrator" in taken.text
    with session_factory()() as session:
        kept = session.scalar(select(LtiPlatform.jwks_url))
        assert kept == platform.registration()["jwks_url"]
        linked = session.scalar(select(LtiUser.user_id).where(LtiUser.sub == "t-1"))
        user = session.get(User, linked)
        assert user is not None
        user.is_admin = True  # a site administrator may
        session.commit()
    page = lti_client.get("/instructor/lti")
    assert 'action="/instructor/lti/platforms"' in page.text
    bad = lti_client.post(
        "/instructor/lti/platforms",
        data={**platform.registration(), "auth_url": "ftp://x", "csrf_token": csrf},
    )
    assert bad.status_code == 422 and "auth URL must be an absolute http(s) URL" in bad.text
    again = lti_client.post(
        "/instructor/lti/platforms", data={**platform.registration(), "csrf_token": csrf}
    )
    assert again.status_code == 200 and "Updated" in again.text
    args = [
        "lti",
        "register",
        "--issuer",
        "https://lms.example",
        "--client-id",
        "c1",
        "--auth-url",
        "https://lms.example/a",
        "--token-url",
        "https://lms.example/t",
        "--jwks-url",
        "https://lms.example/j",
        "--deployment-id",
        "d1",
    ]
    assert "registered" in run_cli(*args).stdout
    assert "updated" in run_cli(*args).stdout
    before = {k["kid"] for k in lti_client.get("/lti/jwks").json()["keys"]}
    rotated = run_cli("lti", "rotate-key")
    assert rotated.returncode == 0, rotated.stderr
    after = [k["kid"] for k in lti_client.get("/lti/jwks").json()["keys"]]
    assert len(after) == 2 and after[0] in before and after[1] not in before  # next: published
