"""Tables of the LTI integration: platforms, who launched from where, and the grade outbox."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column, offering_column, utcnow


class LtiPlatform(Base):
    """An LMS registered with us (one issuer + client id), with the URLs its launches need."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(500))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_url: Mapped[str] = mapped_column(String(1000))
    token_url: Mapped[str] = mapped_column(String(1000))
    jwks_url: Mapped[str] = mapped_column(String(1000))
    created_at: Mapped[dt.datetime] = created_at_column()


class LtiDeployment(Base):
    """A deployment id the platform may launch with; anything else is refused."""

    __tablename__ = "lti_deployments"
    __table_args__ = (
        UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments_platform"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), index=True
    )
    deployment_id: Mapped[str] = mapped_column(String(255))


class LtiNonce(Base):
    """A one-time value (OIDC state+nonce, or a new-window hand-off) so nothing is replayed."""

    __tablename__ = "lti_nonces"

    id: Mapped[int] = mapped_column(primary_key=True)
    value: Mapped[str] = mapped_column(String(128), unique=True)
    state: Mapped[str | None] = mapped_column(String(128), unique=True, nullable=True)
    platform_id: Mapped[int | None] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), nullable=True
    )
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)
    # The platform frame that keeps this state for the browser (LTI platform storage), if any.
    storage_target: Mapped[str | None] = mapped_column(String(100), nullable=True)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LtiUser(Base):
    """Who an LMS user (issuer + sub) is here; keyed by the platform, never by email."""

    __tablename__ = "lti_users"
    __table_args__ = (UniqueConstraint("issuer", "sub", name="uq_lti_users_issuer_sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(500))
    sub: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = created_at_column()


class LtiContext(Base):
    """An LMS course we were launched from, with its service URLs and grading policy."""

    __tablename__ = "lti_contexts"
    __table_args__ = (
        UniqueConstraint("platform_id", "context_id", name="uq_lti_contexts_platform"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), index=True
    )
    deployment_id: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(500), default="")
    lineitems_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    memberships_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    # Space-separated AGS scopes the last launch offered; None: launched before they were kept.
    ags_scopes: Mapped[str | None] = mapped_column(Text, nullable=True)
    score_policy: Mapped[str] = mapped_column(String(10), default="best")
    offering_id: Mapped[int | None] = offering_column()  # the offering this LMS course feeds
    # Set when an instructor removed its link: its launches are refused until it is linked again
    # (never linked, offering_id NULL, it feeds the first offering, as before offerings).
    unlinked_at: Mapped[dt.datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, default=None
    )
    # The offering it was removed from: its instructors may link it again (an undo).
    unlinked_from: Mapped[int | None] = mapped_column(
        ForeignKey("offerings.id", ondelete="SET NULL"), nullable=True, default=None
    )
    created_at: Mapped[dt.datetime] = created_at_column()


class LtiMember(Base):
    """An LMS user's place in a context (from a launch or a roster sync)."""

    __tablename__ = "lti_members"
    __table_args__ = (
        UniqueConstraint("context_id", "lti_user_id", name="uq_lti_members_context_user"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(
        ForeignKey("lti_contexts.id", ondelete="CASCADE"), index=True
    )
    lti_user_id: Mapped[int] = mapped_column(
        ForeignKey("lti_users.id", ondelete="CASCADE"), index=True
    )
    roles: Mapped[str] = mapped_column(Text, default="")


class LtiLink(Base):
    """A lesson, quiz or exercise linked into a context, and its gradebook column there."""

    __tablename__ = "lti_links"
    __table_args__ = (
        UniqueConstraint("context_id", "kind", "slug", name="uq_lti_links_context_item"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(
        ForeignKey("lti_contexts.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(20))
    slug: Mapped[str] = mapped_column(String(100))
    resource_link_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    lineitem_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)


class LtiGradePost(Base):
    """Outbox row: a score to send to the LMS; survives restarts and is retried with backoff."""

    __tablename__ = "lti_grade_posts"

    id: Mapped[int] = mapped_column(primary_key=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_links.id", ondelete="CASCADE"), index=True)
    lti_user_id: Mapped[int] = mapped_column(
        ForeignKey("lti_users.id", ondelete="CASCADE"), index=True
    )
    status: Mapped[str] = mapped_column(String(10), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, index=True
    )
    last_error: Mapped[str] = mapped_column(Text, default="")
    score_sent: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[dt.datetime] = created_at_column()
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
