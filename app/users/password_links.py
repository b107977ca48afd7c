"""One-time set-password links for accounts made without a password (roster uploads).

A link carries `user_id.expires.fingerprint.signature`: an HMAC (keyed by SECRET_KEY) of the
rest, so it cannot be made or changed for another account; `expires` (Unix seconds) ends it
after PASSWORD_LINK_HOURS; `fingerprint` is an HMAC of the account's current password hash,
so setting a password (with this link or another one) ends every link made before. Nothing is
stored: a link is used once because using it changes what it was bound to.

Who may make a link for whom is decided above (app/offerings/passwords.py).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy import delete
from sqlalchemy.orm import Session

from app import hooks
from app.config import get_settings
from app.models_base import utcnow
from app.users.models import User, WebSession
from app.users.service import AccountError, check_password_strength, hash_password

PATH = "/account/password"
MAX_TOKEN_CHARS = 200
INVALID = "This link is not valid (it may have been copied incompletely); ask for a new one."
EXPIRED = "This link has expired; ask your instructor for a new one."
USED = "This link has already been used (a password was set since it was made); ask for a new one."
CHOSEN_BY_OWNER = (
    "This account already has a password its owner chose; sign in with it, or ask a site "
    "administrator to reset it."
)
REFUSED_ELSEWHERE = (
    "This account holds a place elsewhere on this site; only a site administrator can set its "
    "password."
)


class LinkError(AccountError):
    """A set-password link that cannot be used; the message is a user-facing sentence."""


@dataclass(frozen=True)
class PasswordLink:
    """A link as handed to the instructor: whose it is, the URL path and when it stops."""

    user_id: int
    email: str
    token: str
    expires_at: dt.datetime

    @property
    def path(self) -> str:
        """The link without the site's address."""
        return f"{PATH}?token={self.token}"


_INSTRUCTOR = "password-link"
_ADMIN = "password-link-admin"


def _mac(purpose: str, text: str) -> str:
    key = get_settings().secret_key.encode()
    digest = hmac.new(key, f"{purpose}|{text}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _fingerprint(user: User) -> str:
    return _mac("password-link-fingerprint", user.password_hash)[:22]


def make_link(
    user: User, *, now: dt.datetime | None = None, by_admin: bool = False
) -> PasswordLink:
    """A fresh link for this account, valid for PASSWORD_LINK_HOURS or until a password is set.

    An instructor's link (the default) works only while the account's owner has not chosen a
    password and no registered check refuses it; a site administrator's link resets any
    account. Both look alike: who made it is in the signature only.
    """
    hours = get_settings().password_link_hours
    expires_at = (now or utcnow()) + dt.timedelta(hours=hours)
    payload = f"{user.id}.{int(expires_at.timestamp())}.{_fingerprint(user)}"
    token = f"{payload}.{_mac(_ADMIN if by_admin else _INSTRUCTOR, payload)}"
    return PasswordLink(user.id, user.email, token, expires_at.replace(microsecond=0))


def user_for_link(*, session: Session, token: str, now: dt.datetime | None = None) -> User:
    """The account the link was made for, or LinkError saying why it cannot be used."""
    parts = token.strip().split(".")
    if len(token) > MAX_TOKEN_CHARS or len(parts) != 4:
        raise LinkError(INVALID)
    user_id, expires, fingerprint, signature = parts
    payload = f"{user_id}.{expires}.{fingerprint}"
    by_admin = hmac.compare_digest(signature, _mac(_ADMIN, payload))
    if not (by_admin or hmac.compare_digest(signature, _mac(_INSTRUCTOR, payload))):
        raise LinkError(INVALID)
    if not (user_id.isdigit() and expires.isdigit()):
        raise LinkError(INVALID)
    if (now or utcnow()).timestamp() > int(expires):
        raise LinkError(EXPIRED)
    user = session.get(User, int(user_id))
    if user is None:
        raise LinkError(INVALID)
    if not hmac.compare_digest(fingerprint, _fingerprint(user)):
        raise LinkError(USED)
    if not by_admin:
        _check_instructor_link(session, user)
    return user


def _check_instructor_link(session: Session, user: User) -> None:
    """An instructor's link never takes over an account: refused once its owner chose a
    password, or when a registered check (a place elsewhere) says no."""
    if user.password_set or user.is_admin:
        raise LinkError(CHOSEN_BY_OWNER)
    for check in hooks.LINK_REFUSALS.each():  # declared in app/hooks.py, plugged by wiring
        refused = check(session, user)
        if refused is not None:
            raise LinkError(refused)


def set_password_with_link(
    *, session: Session, token: str, password: str, now: dt.datetime | None = None
) -> User:
    """Set the account's password through its link; ends the link and every session it had."""
    user = user_for_link(session=session, token=token, now=now)
    check_password_strength(password)
    user.password_hash = hash_password(password)
    user.password_set = True  # the owner chose it: instructors' links stop here
    session.execute(delete(WebSession).where(WebSession.user_id == user.id))
    session.commit()
    return user
