"""regrade_jobs: a regrade belongs to the course and offering whose staff started it

Revision ID: 0022_regrade_place
Revises: 0021_jobs
Create Date: 2026-11-27 07:00:00.000000

"Regrade all" regraded every offering's and course's submissions at the exercise's slug, and
every offering's page showed the newest one. Each regrade now records its course and offering,
touches their submissions only and is shown there only. An existing regrade takes both from
its queued `jobs` row (0021 recorded where it was started); one older than that belongs to the
first course, offering NULL: like other rows from before offerings, it counts in that course's
first offering.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.courses.first import first_course_slug

revision: str = "0022_regrade_place"
down_revision: str | None = "0021_jobs"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Where the newest `jobs` row that ran the regrade (subject `regrade:<id>`) was started.
FROM_QUEUE = (
    "UPDATE regrade_jobs SET "
    "offering_id = (SELECT jobs.offering_id FROM jobs WHERE jobs.subject = 'regrade:' || "
    "CAST(regrade_jobs.id AS VARCHAR(20)) ORDER BY jobs.id DESC LIMIT 1), "
    "course_slug = COALESCE((SELECT jobs.course_slug FROM jobs WHERE jobs.subject = 'regrade:' || "
    "CAST(regrade_jobs.id AS VARCHAR(20)) ORDER BY jobs.id DESC LIMIT 1), course_slug)"
)


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "course_slug",
                sa.String(length=64),
                nullable=False,
                server_default=first_course_slug(),
            )
        )
        batch_op.add_column(sa.Column("offering_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            "fk_regrade_jobs_offering_id", "offerings", ["offering_id"], ["id"], ondelete="SET NULL"
        )
        batch_op.create_index(batch_op.f("ix_regrade_jobs_offering_id"), ["offering_id"])
    op.get_bind().execute(sa.text(FROM_QUEUE))
    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.alter_column("course_slug", server_default=None)  # new rows name their own


def downgrade() -> None:
    """Revert this revision (regrades are the exercise's again, wherever they were started)."""
    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_regrade_jobs_offering_id"))
        batch_op.drop_constraint("fk_regrade_jobs_offering_id", type_="foreignkey")
        batch_op.drop_column("offering_id")
        batch_op.drop_column("course_slug")
