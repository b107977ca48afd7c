"""Security headers on every response: a strict CSP so injected markup cannot run script."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import get_settings

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


def csp_with(**directives: str) -> str:
    """The site CSP with some directives replaced, e.g. csp_with(form_action="'self' https://x")."""
    parts = dict(part.split(" ", 1) for part in CSP.split("; "))
    framers = get_settings().lti_frame_ancestors
    if framers:
        parts["frame-ancestors"] = " ".join(["'self'", *framers])
    for name, value in directives.items():
        parts[name.replace("_", "-")] = value
    return "; ".join(f"{name} {value}" for name, value in parts.items())


def headers_for(frame_ancestors: list[str]) -> list[tuple[bytes, bytes]]:
    """The headers; LMS origins allowed to frame the course (LTI) relax frame-ancestors only."""
    if not frame_ancestors:
        return HEADERS
    allowed = "frame-ancestors " + " ".join(["'self'", *frame_ancestors])
    csp = "; ".join(
        allowed if part.startswith("frame-ancestors ") else part for part in CSP.split("; ")
    )
    return [(b"content-security-policy", csp.encode())] + [
        (k, v) for k, v in HEADERS if k not in (b"content-security-policy", b"x-frame-options")
    ]


class SecurityHeadersMiddleware:
    """Pure ASGI middleware (works with streaming responses such as Server-Sent Events)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = headers_for(get_settings().lti_frame_ancestors)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                existing = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in existing]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)
