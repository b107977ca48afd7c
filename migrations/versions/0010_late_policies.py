"""late policies: per-offering due dates and late policy; extensions belong to an offering

Revision ID: 0010_late_policies
Revises: 0009_assessments
Create Date: 2026-11-23 21:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_late_policies"
down_revision: str | None = "0009_assessments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIRST_COURSE = "positional-embeddings"
OLD_UNIQUE_PG = "deadline_extensions_user_id_kind_slug_key"  # PostgreSQL's name for 0002's
# SQLite reflects 0002's unnamed constraint without a name; batch mode names it by this.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
OLD_UNIQUE_SQLITE = "uq_deadline_extensions_user_id"


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "offering_dues",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("offering_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("slug", sa.String(length=100), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("set_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["offering_id"], ["offerings.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["set_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("offering_id", "kind", "slug", name="uq_offering_dues_item"),
    )
    with op.batch_alter_table("offering_dues", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_offering_dues_offering_id"), ["offering_id"])
    op.create_table(
        "late_policies",
        sa.Column("offering_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=10), nullable=False),
        sa.Column("percent_per_day", sa.Float(), nullable=False),
        sa.Column("max_percent", sa.Float(), nullable=False),
        sa.Column("grace_minutes", sa.Integer(), nullable=False),
        sa.Column("set_by", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["offering_id"], ["offerings.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["set_by"], ["users.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("offering_id"),
    )
    with op.batch_alter_table("submission_reports", schema=None) as batch_op:
        batch_op.add_column(sa.Column("content_version", sa.String(length=64), nullable=True))
    # Extensions written without an offering belong to the first one; each offering has its own.
    op.get_bind().execute(
        sa.text(
            "UPDATE deadline_extensions SET offering_id = (SELECT MIN(id) FROM offerings "
            "WHERE course_slug = :slug) WHERE offering_id IS NULL"
        ),
        {"slug": FIRST_COURSE},
    )
    _swap_unique(
        drop=(OLD_UNIQUE_PG, OLD_UNIQUE_SQLITE),
        create=("uq_deadline_extensions_item", ["offering_id", "user_id", "kind", "slug"]),
    )


def _swap_unique(*, drop: tuple[str, str], create: tuple[str, list[str]]) -> None:
    """Replace one unique constraint of deadline_extensions by another (named per dialect)."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "deadline_extensions", schema=None, naming_convention=NAMING if sqlite else None
    ) as batch_op:
        batch_op.drop_constraint(drop[1] if sqlite else drop[0], type_="unique")
        batch_op.create_unique_constraint(create[0], create[1])


def downgrade() -> None:
    """Revert this revision (a student's extensions in later offerings are dropped)."""
    op.get_bind().execute(
        sa.text(
            "DELETE FROM deadline_extensions WHERE offering_id IS NOT NULL AND offering_id <> "
            "(SELECT MIN(id) FROM offerings WHERE course_slug = :slug) AND EXISTS (SELECT 1 FROM "
            "deadline_extensions AS other WHERE other.user_id = deadline_extensions.user_id AND "
            "other.kind = deadline_extensions.kind AND other.slug = deadline_extensions.slug AND "
            "other.id <> deadline_extensions.id)"
        ),
        {"slug": FIRST_COURSE},
    )
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "deadline_extensions", schema=None, naming_convention=NAMING if sqlite else None
    ) as batch_op:
        batch_op.drop_constraint("uq_deadline_extensions_item", type_="unique")
        batch_op.create_unique_constraint(
            OLD_UNIQUE_SQLITE if sqlite else OLD_UNIQUE_PG, ["user_id", "kind", "slug"]
        )
    with op.batch_alter_table("submission_reports", schema=None) as batch_op:
        batch_op.drop_column("content_version")
    op.drop_table("late_policies")
    with op.batch_alter_table("offering_dues", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_offering_dues_offering_id"))
    op.drop_table("offering_dues")
