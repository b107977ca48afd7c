"""The one base class of domain errors, so routes need not translate each domain's refusals.

Why: services raise what they refuse with a status and a plain sentence; `app/web/errors.py`
maps every `DomainError` to the HTTP response (JSON or an error page) in one handler.
"""

from __future__ import annotations


class DomainError(Exception):
    """A request a domain refuses: the HTTP status, a plain message for the user, any headers."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers
