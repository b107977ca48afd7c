"""Deep linking answers only with what the LMS placement accepts (LTI Deep Linking 2.0 §4.4.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jwt
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import ROOT, get_settings
from app.db import session_factory
from app.lti.models import LtiGradePost, LtiLink
from tests.assessments.conftest import exam, write
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.platform import LTI, Platform

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"


def _picker(client: TestClient, platform: Platform, **settings: Any) -> tuple[str, str]:
    """An instructor's deep linking launch with these settings; returns (ticket, picker page)."""
    claims = {
        LTI + "message_type": "LtiDeepLinkingRequest",
        DL + "deep_linking_settings": {
            "deep_link_return_url": f"{platform.url}/deep-link-return",
            "accept_presentation_document_targets": ["iframe", "window"],
            "data": "opaque-7",
            **settings,
        },
    }
    launched = launch(client, platform, sub="t-1", roles=[INSTRUCTOR], claims=claims)
    assert launched.status_code == 303, launched.text
    picker_url = client.get(launched.headers["location"], follow_redirects=False).headers[
        "location"
    ]
    page = client.get(picker_url)
    assert page.status_code == 200, page.text
    return picker_url.split("t=")[1], page.text


def _csrf(page: str) -> str:
    return page.split('name="csrf_token" value="')[1].split('"')[0]


def _response_claims(client: TestClient, platform: Platform, page: str) -> dict[str, Any]:
    """The signed LtiDeepLinkingResponse in a page's return form, checked as the LMS would."""
    assert f'action="{platform.url}/deep-link-return"' in page
    token = page.split('name="JWT" value="')[1].split('"')[0]
    kid = jwt.get_unverified_header(token)["kid"]
    jwk = next(k for k in client.get("/lti/jwks").json()["keys"] if k["kid"] == kid)
    claims: dict[str, Any] = jwt.decode(
        token, jwt.PyJWK(jwk).key, algorithms=["RS256"], audience=platform.issuer
    )
    assert claims[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[DL + "data"] == "opaque-7"
    return claims


def _submit(client: TestClient, ticket: str, page: str, items: list[str]) -> Any:
    return client.post(
        "/lti/deep-link", data={"t": ticket, "item": items, "csrf_token": _csrf(page)}
    )


def test_a_placement_that_accepts_only_links_gets_link_items(
    lti_client: TestClient, platform: Platform
) -> None:
    ticket, page = _picker(lti_client, platform, accept_types=["link"])
    assert "web links" in page and "not sent to the LMS gradebook" in page
    answer = _submit(lti_client, ticket, page, ["exercise:alibi-bias", "quiz:why-position"])
    assert answer.status_code == 200, answer.text
    items = _response_claims(lti_client, platform, answer.text)[DL + "content_items"]
    assert items == [
        {
            "type": "link",
            "title": "Build the ALiBi attention bias",
            "url": "https://testserver/exercises/alibi-bias",
        },
        {
            "type": "link",
            "title": items[1]["title"],
            "url": "https://testserver/lessons/why-position#quiz",
        },
    ]
    assert items[1]["title"].startswith("Quiz: ")


def test_no_line_item_when_the_placement_does_not_accept_one(
    lti_client: TestClient, platform: Platform
) -> None:
    ticket, page = _picker(
        lti_client, platform, accept_types=["link", "ltiResourceLink"], accept_lineitem=False
    )
    answer = _submit(lti_client, ticket, page, ["exercise:alibi-bias"])
    items = _response_claims(lti_client, platform, answer.text)[DL + "content_items"]
    assert [i["type"] for i in items] == ["ltiResourceLink"]
    assert items[0]["custom"] == {"target": "exercise:alibi-bias"} and "lineItem" not in items[0]


def test_one_item_only_when_the_placement_does_not_accept_several(
    lti_client: TestClient, platform: Platform
) -> None:
    ticket, page = _picker(
        lti_client, platform, accept_types=["ltiResourceLink"], accept_multiple=False
    )
    assert 'type="radio" name="item"' in page and 'type="checkbox"' not in page
    two = _submit(lti_client, ticket, page, ["exercise:alibi-bias", "lesson:why-position"])
    assert two.status_code == 422 and "one item at a time" in two.text
    one = _submit(lti_client, ticket, page, ["exercise:alibi-bias"])
    items = _response_claims(lti_client, platform, one.text)[DL + "content_items"]
    assert len(items) == 1 and "lineItem" in items[0]


def test_a_placement_that_accepts_nothing_we_make_gets_an_errormsg_and_the_instructor_a_reason(
    lti_client: TestClient, platform: Platform
) -> None:
    _, page = _picker(lti_client, platform, accept_types=["file", "html"])
    assert "cannot add course content here" in page
    assert "accepts only file and html" in page
    assert 'name="item"' not in page  # no picker: nothing could be sent
    assert "document.getElementById" not in page  # the instructor reads it, then goes back
    claims = _response_claims(lti_client, platform, page)
    assert claims[DL + "content_items"] == []
    assert "accepts neither LTI links nor web links" in claims[DL + "errormsg"]
    assert "accept_types" in claims[DL + "errorlog"]


def test_an_empty_accept_types_is_not_read_as_accepting_lti_links(
    lti_client: TestClient, platform: Platform
) -> None:
    _, page = _picker(lti_client, platform, accept_types=[])
    assert "cannot add course content here" in page and "accepts only no items" not in page
    assert _response_claims(lti_client, platform, page)[DL + "content_items"] == []


def test_a_lab_is_linked_as_practice_without_a_line_item(
    lti_client: TestClient, platform: Platform
) -> None:
    """Issue 24: a lab's score is practice only, so the LMS gets no gradebook column for it."""
    ticket, page = _picker(lti_client, platform, accept_types=["ltiResourceLink"])
    picked = ["exercise:lab-learned-vs-sinusoidal", "exercise:alibi-bias"]
    answer = _submit(lti_client, ticket, page, picked)
    items = _response_claims(lti_client, platform, answer.text)[DL + "content_items"]
    lab, graded = items
    assert lab["custom"] == {"target": "exercise:lab-learned-vs-sinusoidal"}
    assert "lineItem" not in lab and "lineItem" in graded


@pytest.fixture
def with_exam(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Path:
    """The real lessons and exercises plus the `quick` exam (request it before lti_client)."""
    root = tmp_path / "content"
    root.mkdir()
    (root / "lessons").symlink_to(ROOT / "lessons")
    (root / "exercises").symlink_to(ROOT / "exercises")
    write(root, exam(title="Midterm: positions"))
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    return root


def test_the_offerings_assessments_are_offered_and_their_links_launch_them(
    with_exam: Path, lti_client: TestClient, platform: Platform
) -> None:
    ticket, page = _picker(lti_client, platform, accept_types=["ltiResourceLink"])
    assert 'value="assessment:quick"' in page and "Midterm: positions" in page
    answer = _submit(lti_client, ticket, page, ["assessment:quick", "lesson:why-position"])
    assert answer.status_code == 200, answer.text
    items = _response_claims(lti_client, platform, answer.text)[DL + "content_items"]
    assert items[0] == {
        "type": "ltiResourceLink",
        "title": "Midterm: positions",
        "url": "https://testserver/assessments/quick",
        "custom": {"target": "assessment:quick"},
        "lineItem": {
            "scoreMaximum": 100,
            "label": "Midterm: positions",
            "tag": "assessment:quick",
        },
    }
    assert "lineItem" not in items[1]  # a lesson has no score
    # A student follows the link from the LMS: signed in on the assessment's own page, and the
    # link is remembered so the released score goes back to its gradebook column.
    claims = {LTI + "custom": items[0]["custom"]}
    launched = launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=claims)
    assert launched.status_code == 303, launched.text
    landed = lti_client.get(launched.headers["location"], follow_redirects=False)
    assert landed.headers["location"] == "/assessments/quick"
    intro = lti_client.get("/assessments/quick")
    assert intro.status_code == 200 and "Midterm: positions" in intro.text
    csrf = {"x-csrf-token": intro.text.split('name="csrf-token" content="')[1].split('"')[0]}
    with session_factory()() as session:
        link = session.scalar(select(LtiLink))
        assert link is not None and (link.kind, link.slug) == ("assessment", "quick")
    started = lti_client.post("/api/assessments/quick/attempts", headers=csrf)
    assert started.status_code == 201, started.text
    attempt = started.json()["id"]
    handed = lti_client.post(f"/api/assessments/attempts/{attempt}/submit", headers=csrf)
    assert handed.status_code == 200 and handed.json()["status"] == "submitted"
    with session_factory()() as session:
        post = session.scalar(select(LtiGradePost))
        assert post is not None and post.link_id == link.id  # released on hand-in: queued


def test_assessments_as_web_links_and_by_their_url(
    with_exam: Path, lti_client: TestClient, platform: Platform
) -> None:
    ticket, page = _picker(lti_client, platform, accept_types=["link"])
    answer = _submit(lti_client, ticket, page, ["assessment:quick"])
    items = _response_claims(lti_client, platform, answer.text)[DL + "content_items"]
    assert items == [
        {
            "type": "link",
            "title": "Midterm: positions",
            "url": "https://testserver/assessments/quick",
        }
    ]
    by_url = {LTI + "target_link_uri": "https://testserver/assessments/quick"}
    launched = launch(lti_client, platform, sub="s-2", roles=[LEARNER], claims=by_url)
    landed = lti_client.get(launched.headers["location"], follow_redirects=False)
    assert landed.headers["location"] == "/assessments/quick"


def test_an_assessment_the_course_does_not_have_is_refused(
    with_exam: Path, lti_client: TestClient, platform: Platform
) -> None:
    ticket, page = _picker(lti_client, platform, accept_types=["ltiResourceLink"])
    gone = _submit(lti_client, ticket, page, ["assessment:final"])
    assert gone.status_code == 404 and "assessment &#39;final&#39;" in gone.text
    missing = {LTI + "custom": {"target": "assessment:final"}}
    refused = launch(lti_client, platform, sub="s-3", roles=[LEARNER], claims=missing)
    assert refused.status_code == 404 and "final" in refused.text
