"""instructor tools: late flag, score overrides, report history, extensions, regrade jobs

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OVERRIDE_FK = "fk_submissions_override_by_users"


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("late", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("override_score", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("override_reason", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("override_by", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("override_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_foreign_key(
            OVERRIDE_FK, "users", ["override_by"], ["id"], ondelete="SET NULL"
        )

    op.create_table(
        "regrade_jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("exercise_slug", sa.String(length=100), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("errors", sa.JSON(), nullable=False),
        sa.Column("started_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["started_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_regrade_jobs_exercise_slug"), ["exercise_slug"], unique=False
        )

    op.create_table(
        "submission_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("regrade_job_id", sa.Integer(), nullable=True),
        sa.Column("verdict", sa.String(length=40), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("graded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["regrade_job_id"], ["regrade_jobs.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submission_reports", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_submission_reports_regrade_job_id"), ["regrade_job_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_submission_reports_submission_id"), ["submission_id"], unique=False
        )

    op.create_table(
        "score_overrides",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("instructor_id", sa.Integer(), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["instructor_id"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("score_overrides", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_score_overrides_submission_id"), ["submission_id"], unique=False
        )

    op.create_table(
        "deadline_extensions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("slug", sa.String(length=100), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("granted_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["granted_by"], ["users.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "kind", "slug"),
    )
    with op.batch_alter_table("deadline_extensions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_deadline_extensions_user_id"), ["user_id"], unique=False
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("deadline_extensions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deadline_extensions_user_id"))
    op.drop_table("deadline_extensions")

    with op.batch_alter_table("score_overrides", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_score_overrides_submission_id"))
    op.drop_table("score_overrides")

    with op.batch_alter_table("submission_reports", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_reports_submission_id"))
        batch_op.drop_index(batch_op.f("ix_submission_reports_regrade_job_id"))
    op.drop_table("submission_reports")

    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_regrade_jobs_exercise_slug"))
    op.drop_table("regrade_jobs")

    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_constraint(OVERRIDE_FK, type_="foreignkey")
        batch_op.drop_column("override_at")
        batch_op.drop_column("override_by")
        batch_op.drop_column("override_reason")
        batch_op.drop_column("override_score")
        batch_op.drop_column("late")
