"""Deep linking: the items an instructor may pick, and the signed response for the LMS."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from app.content.loader import Course
from app.lti import keys
from app.lti.launch import LTI
from app.lti.models import LtiPlatform
from app.lti.service import DEEP_LINKING, check_item, target_path

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"


@dataclass(frozen=True)
class Choice:
    """One item offered in the picker."""

    kind: str
    slug: str
    title: str

    @property
    def key(self) -> str:
        """The form value, e.g. exercise:sinusoidal."""
        return f"{self.kind}:{self.slug}"


def choices(course: Course) -> list[Choice]:
    """Every lesson, every quiz and every published exercise."""
    found: list[Choice] = []
    for lesson in course.lessons:
        found.append(Choice("lesson", lesson.meta.slug, lesson.meta.title))
        if lesson.meta.quiz:
            found.append(Choice("quiz", lesson.meta.slug, f"Quiz: {lesson.meta.title}"))
    for exercise in course.exercises:
        if not exercise.meta.draft:
            found.append(Choice("exercise", exercise.meta.slug, exercise.meta.title))
    return found


def request_claims(claims: dict[str, Any], platform: LtiPlatform) -> dict[str, Any]:
    """What to keep of a deep linking request until the instructor has chosen."""
    settings = claims.get(DEEP_LINKING) or {}
    return {
        "pid": platform.id,
        "dep": str(claims.get(LTI + "deployment_id", "")),
        "ret": str(settings.get("deep_link_return_url", "")),
        "data": settings.get("data"),
        "multi": bool(settings.get("accept_multiple", True)),
    }


def content_items(course: Course, picked: list[str], base_url: str) -> list[dict[str, Any]]:
    """ltiResourceLink items for the picked keys; quizzes and exercises carry a line item."""
    items: list[dict[str, Any]] = []
    titles = {c.key: c.title for c in choices(course)}
    for key in picked:
        kind, _, slug = key.partition(":")
        check_item(course, kind, slug)
        item: dict[str, Any] = {
            "type": "ltiResourceLink",
            "title": titles.get(key, slug),
            "url": base_url.rstrip("/") + target_path(kind, slug).split("#")[0],
            "custom": {"target": key},
        }
        if kind in ("quiz", "exercise"):
            item["lineItem"] = {"scoreMaximum": 100, "label": item["title"], "tag": key}
        items.append(item)
    return items


def response_jwt(
    *, platform: LtiPlatform, request: dict[str, Any], items: list[dict[str, Any]]
) -> str:
    """The LtiDeepLinkingResponse, signed with the tool key, for the auto-posted form."""
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": now,
        "exp": now + 600,
        "nonce": secrets.token_urlsafe(16),
        LTI + "message_type": "LtiDeepLinkingResponse",
        LTI + "version": "1.3.0",
        LTI + "deployment_id": request["dep"],
        DL + "content_items": items,
    }
    if request.get("data") is not None:
        claims[DL + "data"] = request["data"]
    return keys.sign(claims)
