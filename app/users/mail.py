"""Mail through the configured SMTP server: each message sent or a plain sentence saying why
not, so the page that asked can say so and show the link to copy instead."""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid

from app.config import Settings, get_settings

NOT_SET_UP = "not sent: e-mail is not set up; copy the link"


@dataclass(frozen=True)
class Mail:
    """One plain-text message to one person."""

    to: str
    subject: str
    text: str


def configured(settings: Settings | None = None) -> bool:
    """Whether SMTP is set up (a host and a sender)."""
    settings = settings or get_settings()
    return bool(settings.smtp_host and settings.smtp_sender)


def _message(settings: Settings, mail: Mail) -> EmailMessage:
    message = EmailMessage()
    message["From"] = settings.smtp_sender
    message["To"] = mail.to
    message["Subject"] = mail.subject
    message["Message-ID"] = make_msgid()
    message.set_content(mail.text)
    return message


def _why(exc: BaseException) -> str:
    """A short sentence for the page: what the server or the network said."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "the mail server refused the address"
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return "the mail server refused the login (SMTP_USERNAME, SMTP_PASSWORD)"
    if isinstance(exc, ConnectionRefusedError):
        return "the mail server refused the connection"
    if isinstance(exc, TimeoutError):
        return "the mail server did not answer in time"
    text = str(exc).strip() or type(exc).__name__
    return text[:160]


def send_all(mails: list[Mail], *, settings: Settings | None = None) -> list[str]:
    """Send every message over one connection; one status a message ("sent to a@b", "could not
    send: why; copy the link", or NOT_SET_UP). Never raises: the link stays on the page."""
    settings = settings or get_settings()
    if not mails:
        return []
    if not configured(settings):
        return [NOT_SET_UP] * len(mails)
    statuses: list[str] = []
    try:
        with smtplib.SMTP(
            settings.smtp_host or "", settings.smtp_port, timeout=settings.smtp_timeout_seconds
        ) as server:
            if settings.smtp_starttls:
                server.starttls(context=ssl.create_default_context())
            if settings.smtp_username:
                server.login(settings.smtp_username, settings.smtp_password or "")
            for mail in mails:
                try:
                    server.send_message(_message(settings, mail))
                    statuses.append(f"sent to {mail.to}")
                except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError) as exc:
                    statuses.append(f"could not send: {_why(exc)}; copy the link")
    except (OSError, smtplib.SMTPException) as exc:
        failed = f"could not send: {_why(exc)}; copy the link"
        statuses += [failed] * (len(mails) - len(statuses))
    return statuses
