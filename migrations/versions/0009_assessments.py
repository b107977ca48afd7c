"""assessments: attempts with their drawn items and deadlines, saved answers, accommodations

Revision ID: 0009_assessments
Revises: 0008_offerings
Create Date: 2026-11-23 18:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_assessments"
down_revision: str | None = "0008_offerings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "assessment_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("course_slug", sa.String(length=100), nullable=False),
        sa.Column("offering_id", sa.Integer(), nullable=True),
        sa.Column("assessment_slug", sa.String(length=100), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("submitted_by", sa.String(length=20), nullable=True),
        sa.Column("release_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("results", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "assessment_slug", "number"),
    )
    with op.batch_alter_table("assessment_attempts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_assessment_attempts_user_id"), ["user_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_assessment_attempts_offering_id"), ["offering_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_assessment_attempts_assessment_slug"), ["assessment_slug"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_assessment_attempts_status"), ["status"], unique=False)
    op.create_table(
        "assessment_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("attempt_id", sa.Integer(), nullable=False),
        sa.Column("item_key", sa.String(length=220), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("saves", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["attempt_id"], ["assessment_attempts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("attempt_id", "item_key"),
    )
    with op.batch_alter_table("assessment_answers", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_assessment_answers_attempt_id"), ["attempt_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_assessment_answers_submission_id"), ["submission_id"], unique=False
        )
    op.create_table(
        "assessment_accommodations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("course_slug", sa.String(length=100), nullable=False),
        sa.Column("offering_id", sa.Integer(), nullable=True),
        sa.Column("assessment_slug", sa.String(length=100), nullable=False),
        sa.Column("extra_minutes", sa.Float(), nullable=False),
        sa.Column("opens_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closes_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("set_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["set_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "assessment_slug"),
    )
    with op.batch_alter_table("assessment_accommodations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_assessment_accommodations_user_id"), ["user_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_assessment_accommodations_offering_id"), ["offering_id"], unique=False
        )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("assessment_accommodations")
    op.drop_table("assessment_answers")
    op.drop_table("assessment_attempts")
