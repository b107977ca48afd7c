"""jobs: typed background work that is not a submission (regrade, check, LMS post, hand-in)

Revision ID: 0021_jobs
Revises: 0020_lab_writeup
Create Date: 2026-11-26 14:00:00.000000

Each row carries its kind and payload, its state and the same lease columns as a submission
(`attempts` is the fencing token), so one lease rule and one reaper serve every kind.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_jobs"
down_revision: str | None = "0020_lab_writeup"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "jobs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(200), nullable=True),
        sa.Column("course_slug", sa.String(64), nullable=True),
        sa.Column(
            "offering_id",
            sa.Integer(),
            sa.ForeignKey("offerings.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column(
            "created_by",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_expires_at", WHEN, nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("started_at", WHEN, nullable=True),
        sa.Column("finished_at", WHEN, nullable=True),
    )
    op.create_index("ix_jobs_kind", "jobs", ["kind"])
    op.create_index("ix_jobs_state", "jobs", ["state"])
    op.create_index("ix_jobs_subject", "jobs", ["subject"])


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_jobs_subject", table_name="jobs")
    op.drop_index("ix_jobs_state", table_name="jobs")
    op.drop_index("ix_jobs_kind", table_name="jobs")
    op.drop_table("jobs")
