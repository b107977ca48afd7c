"""Invitations and set-password links by e-mail: written after the roster or the link is
committed, so a mail that fails loses nothing (the page still shows the link to copy)."""

from __future__ import annotations

from app.offerings.models import Offering
from app.users.mail import Mail, send_all
from app.users.password_links import PasswordLink


def invitation(*, offering: Offering, link: PasswordLink, url: str, site: str) -> Mail:
    """The message one person on a roster receives: where, and the one-time link."""
    until = link.expires_at.strftime("%Y-%m-%d %H:%M UTC")
    text = (
        f"You are in “{offering.title}” ({offering.course_slug}) on {site}.\n\n"
        f"If you have no password here yet, choose one with this link (it works once, for "
        f"your account only, until {until}):\n\n{url}\n\n"
        f"If you already have a password, ignore the link and sign in as usual at {site}.\n"
    )
    return Mail(
        to=link.email, subject=f"{offering.title} ({offering.course_slug}): your account", text=text
    )


def mail_links(
    *, offering: Offering, links: list[tuple[PasswordLink, str]], site: str
) -> list[str]:
    """Mail each (link, full URL) to its owner; one status a link, in order."""
    return send_all([invitation(offering=offering, link=k, url=u, site=site) for k, u in links])
