"""Account operations, keyword-only so call sites read like sentences."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.events import account_created
from app.users.models import ApiToken, Role, User

# New hashes at the configured cost; verifying reads the cost from the stored hash, so either
# hasher checks any account's password.
_HASHERS = {
    "standard": PasswordHash.recommended(),
    "low": PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),)),
}
MIN_PASSWORD_LENGTH = 8


class AccountError(ValueError):
    """A request about an account that cannot be honoured; the message is user-facing."""


def normalize_email(email: str) -> str:
    """Emails compare case-insensitively and without surrounding spaces."""
    return email.strip().lower()


def check_password_strength(password: str) -> None:
    """Refuse passwords a guesser would find first."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"the password must be at least {MIN_PASSWORD_LENGTH} characters long")
    if password.lower() in {"password", "12345678", "password1", "qwertyui"}:
        raise AccountError("this password is too common; choose another")


def get_user_by_email(*, session: Session, email: str) -> User | None:
    """Look an account up by email."""
    return session.scalar(select(User).where(User.email == normalize_email(email)))


def create_user(
    *,
    session: Session,
    email: str,
    password: str,
    role: Role = Role.student,
    name: str = "",
    join_first_offering: bool = True,
    password_set: bool = True,
    along: Callable[[User], object] | None = None,
) -> tuple[User, bool]:
    """Create an account; the same email again returns the existing one (created=False).

    Subscribers hear "account created" (offerings: a new account joins the first offering with
    its role, as everyone joined the one course before offerings existed), unless
    join_first_offering is off: LMS and roster accounts are enrolled by their creator.
    `along` adds rows that belong with a new account (its LMS link) to the same transaction.
    """
    email = normalize_email(email)
    if "@" not in email or email.startswith("@") or email.endswith("@"):
        raise AccountError(f"'{email}' is not an email address")
    existing = get_user_by_email(session=session, email=email)
    if existing is not None:
        return existing, False
    check_password_strength(password)
    user = User(
        email=email,
        name=name.strip(),
        password_hash=hash_password(password),
        role=role,
        password_set=password_set,  # False: nobody knows it yet (a roster made the account)
    )
    session.add(user)
    if along is not None:
        session.flush()  # the account's id, for the rows stored with it
        along(user)
    session.commit()
    account_created(session=session, user_id=user.id, enrolled_by_creator=not join_first_offering)
    return user, True


def hash_password(password: str) -> str:
    """The stored form of a password (argon2, as every account's)."""
    return str(_HASHERS[get_settings().password_hash_cost].hash(password))


def verify_password(*, user: User, password: str) -> bool:
    """Constant-time password check."""
    return password_matches(password=password, password_hash=user.password_hash)


def password_matches(*, password: str, password_hash: str) -> bool:
    """Whether PASSWORD is the one behind this stored hash (at the hash's own cost)."""
    return bool(_HASHERS["standard"].verify(password, password_hash))


def hash_token(token: str) -> str:
    """Tokens are stored as SHA-256 so a database leak leaks no usable token."""
    return hashlib.sha256(token.encode()).hexdigest()


def issue_api_token(*, session: Session, user: User) -> str:
    """A new bearer token for scripts; shown once."""
    token = secrets.token_urlsafe(32)
    session.add(ApiToken(user_id=user.id, token_hash=hash_token(token)))
    session.commit()
    return token


def user_for_api_token(*, session: Session, token: str) -> User | None:
    """The account a bearer token belongs to, if any."""
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(token)))
    return session.get(User, row.user_id) if row is not None else None
