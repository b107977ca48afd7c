"""The JSON API's shared contract, declared once: error bodies and id parameters.

Clients generated from `/openapi.json` only handle what it declares, so every route lists the
error codes it can answer (`responses=errors(...)`) with these bodies, and every id in a path
is bounded to what the database can hold.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import BaseModel, Field

# Ids are INTEGER columns: 32-bit on PostgreSQL, so a larger id can never exist and must not
# reach the driver (it raises instead of finding nothing).
MAX_ROW_ID = 2**31 - 1

RowId = Annotated[
    int, Path(ge=1, le=MAX_ROW_ID, description="An id as the API gave it (1 to 2147483647).")
]


class ErrorOut(BaseModel):
    """Body of every API error except 422: one sentence that says what to do."""

    detail: str = Field(description="What went wrong, in plain words.")


class FieldProblem(BaseModel):
    """One input that failed validation."""

    loc: list[str | int] = Field(description="Where: e.g. ['body', 'code'] or ['path', 'id'].")
    msg: str = Field(description="What is wrong with it.")
    type: str = Field(description="A machine-readable kind of problem.")


class InvalidOut(BaseModel):
    """Body of 422: a sentence, or one entry per input that failed validation."""

    detail: str | list[FieldProblem] = Field(
        description="A sentence when the request as a whole is wrong, else a list of inputs."
    )


DESCRIPTIONS = {
    304: "Not modified: the copy you have (If-None-Match) is current.",
    400: "This action does not apply to this item (the message says why).",
    401: "Not logged in: send a session cookie or an `Authorization: Bearer` token.",
    403: "Not allowed: instructors only, or a browser request without its CSRF token.",
    404: "There is no such item (the message names it).",
    409: "The item's state does not allow this now (the message says why).",
    413: "The request is larger than the limit (the message gives both sizes).",
    422: "The input is invalid (the message or the list says which part and why).",
    429: "Too many requests: wait the seconds in `Retry-After`.",
    503: (
        "The server is full, or its database, queue or disk is away for a moment (nothing saved "
        "is lost): wait the seconds in `Retry-After` (a page if HTML was asked for)."
    ),
}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}
HTML = {"text/html": {"schema": {"type": "string"}}}


def errors(*codes: int, html: bool = False) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: these codes, and the 503 any route may answer when the server
    is full, with the shared bodies (`html`: a browser gets the message as a page)."""
    declared: dict[int | str, dict[str, Any]] = {}
    for code in (*codes, 503):
        entry: dict[str, Any] = {"description": DESCRIPTIONS[code]}
        if code == 304:
            declared[code] = entry
            continue
        entry["model"] = InvalidOut if code == 422 else ErrorOut
        if html or code == 503:
            entry["content"] = HTML
        if code in (429, 503):
            entry["headers"] = RETRY_AFTER
        declared[code] = entry
    return declared
