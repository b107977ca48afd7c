"""A local SMTP catcher (aiosmtpd on 127.0.0.1, a free port): tests read what the platform
mailed and never reach a real server."""

from __future__ import annotations

import email
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import Message

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from app.config import get_settings


@dataclass
class Catcher:
    """Every message received, in order, parsed."""

    host: str
    port: int
    messages: list[Message] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """aiosmtpd's hook: keep the message."""
        raw = envelope.content if isinstance(envelope.content, bytes) else b""
        self.messages.append(email.message_from_bytes(raw))
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[Message]:
        """The messages sent to one address."""
        return [m for m in self.messages if address in (m["To"] or "")]

    def link_in(self, message: Message) -> str:
        """The one set-password path in a message's text."""
        payload = message.get_payload(decode=True)
        text = payload.decode() if isinstance(payload, bytes) else str(message.get_payload())
        found = re.search(r"https?://[^/\s]+(/account/password\?token=\S+)", text)
        assert found is not None, text
        return found[1]


def free_port() -> int:
    """A port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def smtp_catcher(monkeypatch: pytest.MonkeyPatch) -> Iterator[Catcher]:
    """Start the catcher and point SMTP_* settings at it."""
    catcher = Catcher("127.0.0.1", free_port())
    controller = Controller(catcher, hostname=catcher.host, port=catcher.port)
    controller.start()
    monkeypatch.setenv("SMTP_HOST", catcher.host)
    monkeypatch.setenv("SMTP_PORT", str(catcher.port))
    monkeypatch.setenv("SMTP_SENDER", "Course <course@example.org>")
    get_settings.cache_clear()
    try:
        yield catcher
    finally:
        controller.stop()
        get_settings.cache_clear()
