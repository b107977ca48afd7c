"""Fixtures: a running LMS stand-in registered with the app, and an HTTPS test client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from fastapi.testclient import TestClient

from app.config import get_settings
from app.db import session_factory
from app.lti import launch as lti_launch
from app.lti.registry import register_platform
from app.main import create_app
from tests.lti.platform import Platform

INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


@pytest.fixture
def platform(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Platform]:
    """A fresh LMS; the tool forgets earlier ones' keys (a later test's LMS may get its port)."""
    monkeypatch.setattr(lti_launch, "_jwks_clients", {})
    monkeypatch.setattr(lti_launch, "_refetched_at", {})
    with Platform() as running:
        with session_factory()() as session:
            register_platform(session=session, **running.registration())
        yield running


@pytest.fixture
def lti_client(platform: Platform, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """HTTPS so Secure cookies are kept; a fast outbox loop; the LMS may frame us."""
    monkeypatch.setenv("LTI_OUTBOX_INTERVAL_SECONDS", "0.1")
    monkeypatch.setenv("REAPER_INTERVAL_SECONDS", "0.2")  # it queues the `lms_post` jobs
    monkeypatch.setenv("LTI_RETRY_BASE_SECONDS", "0.1")
    monkeypatch.setenv("LTI_FRAME_ANCESTORS", f'["{platform.url}"]')
    get_settings.cache_clear()
    with TestClient(create_app(), base_url="https://testserver") as client:
        platform.fetch_tool_jwks = lambda: client.get("/lti/jwks").json()["keys"]
        platform.cached_tool_jwks()  # the LMS fetched the tool's keys when it was set up
        yield client


def start_login(client: TestClient, platform: Platform, sub: str, **params: str) -> str:
    """The LMS starts the OIDC dance; returns where the app sent the browser."""
    form = {**platform.login_params(sub, "https://testserver/"), **params}
    response = client.post("/lti/login", data=form, follow_redirects=False)
    assert response.status_code == 302, response.text
    return response.headers["location"]


def launch(
    client: TestClient, platform: Platform, *, sub: str, roles: list[str], **token_args: Any
) -> httpx2.Response:
    """The whole dance: login initiation, platform authorization, form post of the id_token."""
    location = start_login(client, platform, sub)
    redirect_uri, form = platform.authorize(location, sub=sub, roles=roles, **token_args)
    assert urlsplit(redirect_uri).path == "/lti/launch"
    return client.post("/lti/launch", data=form, follow_redirects=False)
