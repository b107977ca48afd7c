"""lti: LMS platforms, launches, links, rosters and the grade outbox

Revision ID: 0003_lti
Revises: 0002
Create Date: 2026-11-22 14:17:30.897063
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_lti"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=500), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("auth_url", sa.String(length=1000), nullable=False),
        sa.Column("token_url", sa.String(length=1000), nullable=False),
        sa.Column("jwks_url", sa.String(length=1000), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer"),
    )
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("context_id", sa.String(length=255), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("lineitems_url", sa.String(length=1000), nullable=True),
        sa.Column("memberships_url", sa.String(length=1000), nullable=True),
        sa.Column("score_policy", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "context_id", name="uq_lti_contexts_platform"),
    )
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_lti_contexts_platform_id"), ["platform_id"], unique=False
        )

    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments_platform"),
    )
    with op.batch_alter_table("lti_deployments", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_lti_deployments_platform_id"), ["platform_id"], unique=False
        )

    op.create_table(
        "lti_nonces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.Column("state", sa.String(length=128), nullable=True),
        sa.Column("platform_id", sa.Integer(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platforms.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("state"),
        sa.UniqueConstraint("value"),
    )
    with op.batch_alter_table("lti_nonces", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_nonces_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "lti_users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=500), nullable=False),
        sa.Column("sub", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "sub", name="uq_lti_users_issuer_sub"),
    )
    with op.batch_alter_table("lti_users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_users_user_id"), ["user_id"], unique=False)

    op.create_table(
        "lti_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("slug", sa.String(length=100), nullable=False),
        sa.Column("resource_link_id", sa.String(length=255), nullable=True),
        sa.Column("lineitem_url", sa.String(length=1000), nullable=True),
        sa.ForeignKeyConstraint(["context_id"], ["lti_contexts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("context_id", "kind", "slug", name="uq_lti_links_context_item"),
    )
    with op.batch_alter_table("lti_links", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_links_context_id"), ["context_id"], unique=False)

    op.create_table(
        "lti_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("lti_user_id", sa.Integer(), nullable=False),
        sa.Column("roles", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["context_id"], ["lti_contexts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["lti_user_id"], ["lti_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("context_id", "lti_user_id", name="uq_lti_members_context_user"),
    )
    with op.batch_alter_table("lti_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_members_context_id"), ["context_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_lti_members_lti_user_id"), ["lti_user_id"], unique=False
        )

    op.create_table(
        "lti_grade_posts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("lti_user_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("score_sent", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["link_id"], ["lti_links.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["lti_user_id"], ["lti_users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lti_grade_posts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_grade_posts_link_id"), ["link_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_lti_grade_posts_lti_user_id"), ["lti_user_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_lti_grade_posts_next_attempt_at"), ["next_attempt_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_lti_grade_posts_status"), ["status"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("lti_grade_posts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_grade_posts_status"))
        batch_op.drop_index(batch_op.f("ix_lti_grade_posts_next_attempt_at"))
        batch_op.drop_index(batch_op.f("ix_lti_grade_posts_lti_user_id"))
        batch_op.drop_index(batch_op.f("ix_lti_grade_posts_link_id"))

    op.drop_table("lti_grade_posts")
    with op.batch_alter_table("lti_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_members_lti_user_id"))
        batch_op.drop_index(batch_op.f("ix_lti_members_context_id"))

    op.drop_table("lti_members")
    with op.batch_alter_table("lti_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_links_context_id"))

    op.drop_table("lti_links")
    with op.batch_alter_table("lti_users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_users_user_id"))

    op.drop_table("lti_users")
    with op.batch_alter_table("lti_nonces", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_nonces_expires_at"))

    op.drop_table("lti_nonces")
    with op.batch_alter_table("lti_deployments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_deployments_platform_id"))

    op.drop_table("lti_deployments")
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_contexts_platform_id"))

    op.drop_table("lti_contexts")
    op.drop_table("lti_platforms")
