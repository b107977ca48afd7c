"""problems and hints: students' problem reports, and the hints each student opened

Revision ID: 0004_problems
Revises: 0003_lti
Create Date: 2026-11-22 17:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_problems"
down_revision: str | None = "0003_lti"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "problem_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("slug", sa.String(length=100), nullable=False),
        sa.Column("question_id", sa.String(length=100), nullable=True),
        sa.Column("submission_id", sa.Integer(), nullable=True),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolved_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["resolved_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("problem_reports", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_problem_reports_user_id"), ["user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_problem_reports_slug"), ["slug"], unique=False)
    op.create_table(
        "hint_reveals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_slug", sa.String(length=100), nullable=False),
        sa.Column("hint_number", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "exercise_slug", "hint_number"),
    )
    with op.batch_alter_table("hint_reveals", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hint_reveals_user_id"), ["user_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_hint_reveals_exercise_slug"), ["exercise_slug"], unique=False
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("hint_reveals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hint_reveals_exercise_slug"))
        batch_op.drop_index(batch_op.f("ix_hint_reveals_user_id"))
    op.drop_table("hint_reveals")
    with op.batch_alter_table("problem_reports", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_problem_reports_slug"))
        batch_op.drop_index(batch_op.f("ix_problem_reports_user_id"))
    op.drop_table("problem_reports")
