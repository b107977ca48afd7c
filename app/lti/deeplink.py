"""Deep linking: the items an instructor may pick, and the signed response for the LMS.

The response offers only what the placement accepts (LTI Deep Linking 2.0 §4.4.1): LTI resource
links when `accept_types` lists them (with a line item unless `accept_lineitem` is false), else
plain web links, else an `errormsg` saying why nothing can be added.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from app.content.loader import Course
from app.lti import keys
from app.lti.launch import LTI
from app.lti.linkables import registered_kinds
from app.lti.models import LtiPlatform
from app.lti.service import DEEP_LINKING, check_item, graded_in_lms, target_path

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
RESOURCE_LINK = "ltiResourceLink"
LINK = "link"


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
    """Every lesson, every quiz, every published exercise, then each registered kind's items
    (the course's assessments, once `app/wiring.py` registered them)."""
    found: list[Choice] = []
    for lesson in course.lessons:
        found.append(Choice("lesson", lesson.meta.slug, lesson.meta.title))
        if lesson.meta.quiz:
            found.append(Choice("quiz", lesson.meta.slug, f"Quiz: {lesson.meta.title}"))
    for exercise in course.exercises:
        if not exercise.meta.draft:
            found.append(Choice("exercise", exercise.meta.slug, exercise.meta.title))
    for extra in registered_kinds():
        found.extend(Choice(extra.kind, item.slug, item.title) for item in extra.items(course))
    return found


def _flag(value: Any, default: bool) -> bool:
    """A boolean setting; some platforms send "false" as a string."""
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no")
    return default if value is None else bool(value)


def _context_id(claims: dict[str, Any]) -> str:
    raw = claims.get(LTI + "context") or {}
    return str(raw.get("id", "")) if isinstance(raw, dict) else ""


def request_claims(claims: dict[str, Any], platform: LtiPlatform) -> dict[str, Any]:
    """What to keep of a deep linking request until the instructor has chosen."""
    settings = claims.get(DEEP_LINKING) or {}
    accepted = settings.get("accept_types")
    types = [str(t) for t in accepted] if isinstance(accepted, list) else [RESOURCE_LINK]
    return {
        "pid": platform.id,
        "dep": str(claims.get(LTI + "deployment_id", "")),
        "ctx": _context_id(claims),
        "ret": str(settings.get("deep_link_return_url", "")),
        "data": settings.get("data"),
        "multi": _flag(settings.get("accept_multiple"), True),
        "types": types,
        "li": _flag(settings.get("accept_lineitem"), True),
    }


def item_type(request: dict[str, Any]) -> str | None:
    """The content item type to answer with: an LTI link if accepted, else a web link, else None."""
    types = request.get("types")
    if types is None:  # a ticket from before accept_types was kept
        types = [RESOURCE_LINK]
    for wanted in (RESOURCE_LINK, LINK):
        if wanted in types:
            return wanted
    return None


def unsupported(request: dict[str, Any]) -> tuple[str, str]:
    """(message for people, log line for the LMS) when no accepted type is one we make."""
    types = [str(t) for t in request.get("types") or []]
    listed = " and ".join([", ".join(types[:-1]), types[-1]] if len(types) > 1 else types)
    accepts = f"accepts only {listed} items" if types else "names no item type it accepts"
    message = (
        f"This LMS placement {accepts}; it accepts neither LTI links nor web links, the two "
        "ways the course tool can add lessons, quizzes and exercises."
    )
    log = f"accept_types {types!r} lists neither {RESOURCE_LINK!r} nor {LINK!r}"
    return message, log


def content_items(
    course: Course,
    picked: list[str],
    base_url: str,
    *,
    kind: str,
    lineitem: bool,
    base: str = "",
) -> list[dict[str, Any]]:
    """Items of type `kind` for the picked keys; graded LTI links carry a line item if wanted."""
    items: list[dict[str, Any]] = []
    titles = {c.key: c.title for c in choices(course)}
    for key in picked:
        what, _, slug = key.partition(":")
        check_item(course, what, slug)
        title = titles.get(key, slug)
        path = base + target_path(what, slug)
        if kind == LINK:
            items.append({"type": LINK, "title": title, "url": base_url.rstrip("/") + path})
            continue
        item: dict[str, Any] = {
            "type": RESOURCE_LINK,
            "title": title,
            "url": base_url.rstrip("/") + path.split("#")[0],
            "custom": {"target": key, **({"course": course.slug} if base else {})},
        }
        if lineitem and graded_in_lms(course, what, slug):
            item["lineItem"] = {"scoreMaximum": 100, "label": title, "tag": key}
        items.append(item)
    return items


def response_jwt(
    *,
    platform: LtiPlatform,
    request: dict[str, Any],
    items: list[dict[str, Any]],
    error: tuple[str, str] | None = None,
) -> str:
    """The LtiDeepLinkingResponse, signed with the tool key; `error` is (errormsg, errorlog)."""
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
    if error is not None:
        claims[DL + "errormsg"], claims[DL + "errorlog"] = error
    return keys.sign(claims)
