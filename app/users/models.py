"""Accounts, API tokens and server-side browser sessions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, DateTime, Enum, ForeignKey, String, false, true
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column
from app.users.roles import Role as Role  # re-exported: where the tables name it


class User(Base):
    """A person with an account."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True, index=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    # The id a school's records use (a roster's student_id column); exported with grades.
    student_id: Mapped[str | None] = mapped_column(String(64), default=None)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[Role] = mapped_column(
        Enum(Role, name="user_role", native_enum=False, length=20), default=Role.student
    )
    # "lti" when an LMS launch or roster made this account an instructor (taken back when the
    # LMS no longer lists them as teaching); None when the role was set here.
    role_source: Mapped[str | None] = mapped_column(String(10), nullable=True, default=None)
    # A site administrator creates courses and offerings and may act in every offering.
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Whether the owner chose the password (sign-up, a set-password link): a set-password link
    # is then refused to everyone but a site administrator. False for roster-made accounts.
    password_set: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default=true(), nullable=False
    )
    created_at: Mapped[dt.datetime] = created_at_column()


class ApiToken(Base):
    """A bearer token for scripts; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = created_at_column()


class WebSession(Base):
    """A browser session kept on the server so logging out really ends it."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = created_at_column()
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
