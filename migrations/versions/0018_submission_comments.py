"""submission comments: what staff write to a student about a submission (issue 49)

Revision ID: 0018_submission_comments
Revises: 0014_assessments_per_offering
Create Date: 2026-11-26 10:00:00.000000

A new table; nothing existing changes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_submission_comments"
down_revision: str | None = "0014_assessments_per_offering"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "submission_comments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer(),
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "author_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("author_name", sa.String(200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_submission_comments_submission_id", "submission_comments", ["submission_id"]
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_submission_comments_submission_id", "submission_comments")
    op.drop_table("submission_comments")
