"""lesson_reads: each row names its course

Revision ID: 0025_course_of_lesson_reads
Revises: 0024_course_of_hints_drafts
Create Date: 2026-11-27 16:30:00.000000

Two courses may each have a lesson of one slug (`multi-head`). A lesson read was keyed by the
slug alone, so opening one course's lesson marked the other course's lesson of that slug read
(on its page, in the student's progress and in the staff's views). Each row now names its
course, and the unique key includes it. Rows from before belong to the first course, as the
rows of its time do (0024 did the same for hints and drafts).
"""

from collections.abc import Sequence
from contextlib import AbstractContextManager

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

from app.courses.first import first_course_slug

revision: str = "0025_course_of_lesson_reads"
down_revision: str | None = "0024_course_of_hints_drafts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "lesson_reads"
# SQLite reflects 0001's unnamed constraint without a name; batch mode names it by this.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
OLD_PG, OLD_SQLITE = "lesson_reads_user_id_lesson_slug_key", "uq_lesson_reads_user_id"
OLD_COLUMNS = ["user_id", "lesson_slug"]
NEW, NEW_COLUMNS = "uq_lesson_reads_item", ["user_id", "course_slug", "lesson_slug"]


def upgrade() -> None:
    """Apply this revision."""
    with _batch() as batch_op:
        batch_op.add_column(
            sa.Column(
                "course_slug",
                sa.String(length=100),
                nullable=False,
                server_default=first_course_slug(),
            )
        )
        batch_op.drop_constraint(_old(), type_="unique")
        batch_op.create_unique_constraint(NEW, NEW_COLUMNS)
    with _batch() as batch_op:
        batch_op.alter_column("course_slug", server_default=None)  # new rows name their own


def downgrade() -> None:
    """Revert this revision: one read per student and slug is kept, the earliest (the courses
    share the reads of a lesson slug again)."""
    op.get_bind().execute(
        sa.text(
            f"DELETE FROM {TABLE} WHERE EXISTS (SELECT 1 FROM {TABLE} AS other "  # noqa: S608
            f"WHERE other.user_id = {TABLE}.user_id AND other.lesson_slug = {TABLE}.lesson_slug "
            f"AND (other.created_at < {TABLE}.created_at OR (other.created_at = "
            f"{TABLE}.created_at AND other.id < {TABLE}.id)))"
        )
    )
    with _batch() as batch_op:
        batch_op.drop_constraint(NEW, type_="unique")
        batch_op.drop_column("course_slug")
        batch_op.create_unique_constraint(_old(), OLD_COLUMNS)


def _old() -> str:
    """The old constraint's name: PostgreSQL's own, or batch mode's on SQLite."""
    return OLD_SQLITE if op.get_bind().dialect.name == "sqlite" else OLD_PG


def _batch() -> AbstractContextManager[BatchOperations]:
    """Alter the table (recreated on SQLite, whose unnamed constraint gets NAMING's name)."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    return op.batch_alter_table(TABLE, schema=None, naming_convention=NAMING if sqlite else None)
