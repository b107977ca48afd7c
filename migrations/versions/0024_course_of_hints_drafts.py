"""hint_reveals, drafts: each row names its course

Revision ID: 0024_course_of_hints_drafts
Revises: 0023_lms_unlinked_from
Create Date: 2026-11-28 07:00:00.000000

Two courses may each have an exercise of one slug. Hints opened and drafts saved were keyed by
the slug alone, so a hint opened in one course's exercise showed open in the other's (and was
counted in both courses' statistics), and a draft saved in one course's editor showed in the
other's and was overwritten by its saves. Each row now names its course, and the unique keys
include it. Rows from before belong to the first course, as the rows of its time do.
"""

from collections.abc import Sequence
from contextlib import AbstractContextManager

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

from app.courses.first import first_course_slug

revision: str = "0024_course_of_hints_drafts"
down_revision: str | None = "0023_lms_unlinked_from"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# SQLite reflects 0001's and 0004's unnamed constraints without a name; batch mode names them
# by this.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
# table: (PostgreSQL's name for the old constraint, batch mode's name for it on SQLite,
#         its columns, the new constraint's name, its columns)
SWAPS = {
    "hint_reveals": (
        "hint_reveals_user_id_exercise_slug_hint_number_key",
        "uq_hint_reveals_user_id",
        ["user_id", "exercise_slug", "hint_number"],
        "uq_hint_reveals_item",
        ["user_id", "course_slug", "exercise_slug", "hint_number"],
    ),
    "drafts": (
        "drafts_user_id_exercise_slug_framework_key",
        "uq_drafts_user_id",
        ["user_id", "exercise_slug", "framework"],
        "uq_drafts_item",
        ["user_id", "course_slug", "exercise_slug", "framework"],
    ),
}


def upgrade() -> None:
    """Apply this revision."""
    for table, (old_pg, old_sqlite, _, new, columns) in SWAPS.items():
        with _batch(table) as batch_op:
            batch_op.add_column(
                sa.Column(
                    "course_slug",
                    sa.String(length=100),
                    nullable=False,
                    server_default=first_course_slug(),
                )
            )
            batch_op.drop_constraint(old_sqlite if _sqlite() else old_pg, type_="unique")
            batch_op.create_unique_constraint(new, columns)
        with _batch(table) as batch_op:
            batch_op.alter_column("course_slug", server_default=None)  # new rows name their own


def downgrade() -> None:
    """Revert this revision: one row per old key is kept, the first course's, else the oldest
    (the courses share hints and drafts of an exercise slug again)."""
    db = op.get_bind()
    for table, (old_pg, old_sqlite, old_columns, new, _) in SWAPS.items():
        this, other = _rank(table), _rank("other")
        same = " AND ".join(f"other.{c} = {table}.{c}" for c in old_columns)
        db.execute(
            sa.text(
                f"DELETE FROM {table} WHERE EXISTS (SELECT 1 FROM {table} AS other "  # noqa: S608
                f"WHERE {same} AND ({other} < {this} OR ({other} = {this} "
                f"AND other.id < {table}.id)))"
            ),
            {"first": first_course_slug()},
        )
        with _batch(table) as batch_op:
            batch_op.drop_constraint(new, type_="unique")
            batch_op.drop_column("course_slug")
            batch_op.create_unique_constraint(old_sqlite if _sqlite() else old_pg, old_columns)


def _rank(table: str) -> str:
    """SQL: 0 for a row of the first course (:first), 1 for another course's."""
    return f"(CASE WHEN {table}.course_slug = :first THEN 0 ELSE 1 END)"


def _sqlite() -> bool:
    """Whether the database is SQLite (whose old constraints have no name of their own)."""
    return op.get_bind().dialect.name == "sqlite"


def _batch(table: str) -> AbstractContextManager[BatchOperations]:
    """Alter one table (recreated on SQLite, whose unnamed constraints get NAMING's names)."""
    return op.batch_alter_table(table, schema=None, naming_convention=NAMING if _sqlite() else None)
