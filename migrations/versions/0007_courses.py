"""courses: added course folders, and the course and content version of every graded row

Revision ID: 0007_courses
Revises: 0006_lti_ags_scopes
Create Date: 2026-11-23 18:30:00.000000

Existing submissions and quiz attempts belong to the first course (the repository root's
course.yaml); their content version is unknown (NULL), since nobody recorded it then.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.courses.first import first_course_slug

revision: str = "0007_courses"
down_revision: str | None = "0006_lti_ags_scopes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GRADED = ("submissions", "quiz_attempts")


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "course_folders",
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("folder", sa.Text(), nullable=True),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("refresh_requested_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("slug"),
    )
    first = first_course_slug()
    for table in GRADED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column(
                    "course_slug", sa.String(length=64), nullable=False, server_default=first
                )
            )
            batch_op.add_column(sa.Column("content_version", sa.String(length=64), nullable=True))
            batch_op.create_index(batch_op.f(f"ix_{table}_course_slug"), ["course_slug"])


def downgrade() -> None:
    """Revert this revision."""
    for table in GRADED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_course_slug"))
            batch_op.drop_column("content_version")
            batch_op.drop_column("course_slug")
    op.drop_table("course_folders")
