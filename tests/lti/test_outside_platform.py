"""Deep linking driven by an LTI platform library nobody on the project wrote (lti1p3platform).

The library builds the OIDC login initiation, the signed LtiDeepLinkingRequest (a placement that
accepts only `link` items) and checks the tool's signed response the way its LMSs do, against
the tool's published key set and the types it accepts. The stand-in LMS only serves the
library's public key as the platform's JWKS, over HTTP, for the tool to fetch.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from cryptography.hazmat.primitives import serialization
from fastapi.testclient import TestClient
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration

from tests.lti.conftest import INSTRUCTOR
from tests.lti.platform import Platform

TOOL = "https://testserver"


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        return self._registration


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        return url


class _Launch(LTIAdvantageMessageLaunchAbstract):
    preflight: dict[str, Any]

    def get_preflight_response(self) -> dict[str, Any]:
        return self.preflight

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return launch_data


def _local(url: str) -> str:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == TOOL, url
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def test_a_link_only_placement_of_an_outside_platform_accepts_the_tools_answer(
    lti_client: TestClient, platform: Platform
) -> None:
    pem = platform.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    registration = (
        Registration()
        .set_iss(platform.issuer)
        .set_client_id(platform.client_id)
        .set_deployment_id(platform.deployment_id)
        .set_oidc_login_url(f"{TOOL}/lti/login")
        .set_launch_url(f"{TOOL}/")
        .set_deeplink_launch_url(f"{TOOL}/lti/launch")
        .set_platform_private_key(pem)
        .set_tool_key_set(lti_client.get("/lti/jwks").json())
    )
    platform.kid = registration.get_kid()  # the stand-in serves the library's key as the JWKS
    conf = _Conf(registration=registration)
    conf.set_accepted_deeplinking_types(["link"])

    login = _Login(None, conf)
    login.set_lti_message_hint(hint="add-content")
    started = lti_client.get(
        _local(login.set_deeplinking_launch_url().initiate_login("t-1")), follow_redirects=False
    )
    assert started.status_code == 302, started.text
    launch = _Launch(None, conf)
    launch.preflight = dict(parse_qsl(urlsplit(started.headers["location"]).query))
    launch.set_user_data("t-1", [INSTRUCTOR], full_name="Teacher")
    launch.set_launch_context_claim("course-dl", context_title="Transformers 101")
    launch.set_dl(f"{platform.url}/deep-link-return", accept_types={"link"}, extra_data={"k": "v"})
    form = launch.lti_launch()
    landed = lti_client.post(
        _local(form["launch_url"]),
        data={"id_token": form["id_token"], "state": form["state"]},
        follow_redirects=True,
    )
    assert landed.status_code == 200 and "plain web links only" in landed.text
    csrf = landed.text.split('name="csrf_token" value="')[1].split('"')[0]
    ticket = landed.text.split('name="t" value="')[1].split('"')[0]
    answer = lti_client.post(
        "/lti/deep-link",
        data={"t": ticket, "item": ["exercise:alibi-bias"], "csrf_token": csrf},
    )
    assert answer.status_code == 200, answer.text
    token = answer.text.split('name="JWT" value="')[1].split('"')[0]
    items = conf.validate_deeplinking_resp({"JWT": token})  # raises on a type it did not accept
    assert items == [
        {
            "type": "link",
            "title": "Build the ALiBi attention bias",
            "url": f"{TOOL}/exercises/alibi-bias",
        }
    ]
