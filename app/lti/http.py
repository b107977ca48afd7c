"""Calls to an LMS (token, line items, scores, rosters) with the standard library only."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.config import get_settings


class LmsError(Exception):
    """The LMS could not be reached or answered with an error; the message says which.

    `status` is the LMS's HTTP status when it answered; `permanent` means retrying cannot help.
    """

    def __init__(self, message: str, *, status: int | None = None, permanent: bool = False):
        super().__init__(message)
        self.status = status
        self.permanent = permanent


@dataclass(frozen=True)
class LmsResponse:
    """Status, headers and parsed JSON body (None when empty)."""

    status: int
    headers: dict[str, str]
    body: Any


def call(
    method: str,
    url: str,
    *,
    token: str | None = None,
    json_body: Any = None,
    form: bytes | None = None,
    content_type: str = "application/json",
    accept: str = "application/json",
) -> LmsResponse:
    """One HTTP call; 4xx/5xx and network failures raise LmsError with the LMS's answer."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise LmsError(f"refusing to call a non-HTTP URL: {url!r}")
    data = form
    headers = {"Accept": accept}
    if json_body is not None:
        data = json.dumps(json_body).encode()
    if data is not None:
        headers["Content-Type"] = content_type
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310
    timeout = get_settings().lti_http_timeout_seconds
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            raw = response.read()
            status = response.status
            found = {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:500].decode("utf-8", "replace")
        raise LmsError(f"{method} {url} answered {exc.code}: {detail}", status=exc.code) from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise LmsError(f"{method} {url} failed: {exc}") from exc
    try:
        body = json.loads(raw) if raw.strip() else None
    except ValueError as exc:
        raise LmsError(f"{method} {url} answered {status} with a body that is not JSON") from exc
    return LmsResponse(status=status, headers=found, body=body)
