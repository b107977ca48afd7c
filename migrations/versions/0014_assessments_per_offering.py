"""assessments: attempts are numbered and limited per offering; accommodations are per offering

Revision ID: 0014_assessments_per_offering
Revises: 0013_accounts_password_links
Create Date: 2026-11-24 21:00:00.000000

A student of two offerings of a course (say last term's and this term's) has each offering's
attempts and accommodations: an attempt used in one leaves the other's untouched, and extra
time given in one does not apply in the other. Accommodations written without an offering
belong to the first offering of their course, as the code treats them.
"""

from collections.abc import Sequence
from contextlib import AbstractContextManager

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

revision: str = "0014_assessments_per_offering"
down_revision: str | None = "0013_accounts_password_links"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIRST_COURSE = "positional-embeddings"
# SQLite reflects 0009's unnamed constraints without a name; batch mode names them by this.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
# table: (PostgreSQL's name for 0009's constraint, batch mode's name for it on SQLite,
#         its columns, the new constraint's name, its columns)
SWAPS = {
    "assessment_accommodations": (
        "assessment_accommodations_user_id_assessment_slug_key",
        "uq_assessment_accommodations_user_id",
        ["user_id", "assessment_slug"],
        "uq_assessment_accommodations_item",
        ["user_id", "assessment_slug", "offering_id"],
    ),
    "assessment_attempts": (
        "assessment_attempts_user_id_assessment_slug_number_key",
        "uq_assessment_attempts_user_id",
        ["user_id", "assessment_slug", "number"],
        "uq_assessment_attempts_number",
        ["user_id", "assessment_slug", "offering_id", "number"],
    ),
}


def upgrade() -> None:
    """Apply this revision."""
    # At most one accommodation per student and assessment so far: filling in the offering
    # cannot make two rows meet under the new constraint.
    op.get_bind().execute(
        sa.text(
            "UPDATE assessment_accommodations SET offering_id = (SELECT MIN(offerings.id) "
            "FROM offerings WHERE offerings.course_slug = assessment_accommodations.course_slug) "
            "WHERE offering_id IS NULL"
        )
    )
    for table, (old_pg, old_sqlite, _, new, columns) in SWAPS.items():
        with _batch(table) as batch_op:
            batch_op.drop_constraint(old_sqlite if _sqlite() else old_pg, type_="unique")
            batch_op.create_unique_constraint(new, columns)


def downgrade() -> None:
    """Revert this revision: a student keeps one accommodation per assessment (the first
    offering's, else the oldest), and attempts are numbered across offerings again."""
    db = op.get_bind()
    first = db.execute(
        sa.text("SELECT MIN(id) FROM offerings WHERE course_slug = :slug"), {"slug": FIRST_COURSE}
    ).scalar()
    # Kept: the row ranked first by (not the first offering's, id); a row without an offering
    # is the first offering's.
    this, other = (_rank("assessment_accommodations"), _rank("other"))
    db.execute(
        sa.text(
            "DELETE FROM assessment_accommodations WHERE EXISTS (SELECT 1 FROM "  # noqa: S608
            "assessment_accommodations AS other WHERE other.user_id = "
            "assessment_accommodations.user_id AND other.assessment_slug = "
            f"assessment_accommodations.assessment_slug AND ({other} < {this} OR ({other} = "
            f"{this} AND other.id < assessment_accommodations.id)))"
        ),
        {"first": -1 if first is None else first},
    )
    for table, (old_pg, old_sqlite, old_columns, new, _) in SWAPS.items():
        with _batch(table) as batch_op:
            batch_op.drop_constraint(new, type_="unique")
        if table == "assessment_attempts":  # 1, 2, ... by start, across offerings, as before
            db.execute(
                sa.text(
                    "UPDATE assessment_attempts SET number = (SELECT COUNT(*) FROM "
                    "assessment_attempts AS other WHERE other.user_id = "
                    "assessment_attempts.user_id AND other.assessment_slug = "
                    "assessment_attempts.assessment_slug AND other.id <= assessment_attempts.id)"
                )
            )
        with _batch(table) as batch_op:
            batch_op.create_unique_constraint(old_sqlite if _sqlite() else old_pg, old_columns)


def _rank(table: str) -> str:
    """SQL: 0 for an accommodation of the first offering (:first), 1 for another's."""
    return f"(CASE WHEN COALESCE({table}.offering_id, :first) = :first THEN 0 ELSE 1 END)"


def _sqlite() -> bool:
    """Whether the database is SQLite (whose 0009 constraints have no name of their own)."""
    return op.get_bind().dialect.name == "sqlite"


def _batch(table: str) -> AbstractContextManager[BatchOperations]:
    """Alter one table (recreated on SQLite, whose unnamed constraints get NAMING's names)."""
    return op.batch_alter_table(table, schema=None, naming_convention=NAMING if _sqlite() else None)
