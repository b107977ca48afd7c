"""offerings: a course runs as offerings with their own people; today's data is the first one

Revision ID: 0008_offerings
Revises: 0007_courses
Create Date: 2026-11-23 18:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_offerings"
down_revision: str | None = "0007_courses"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIRST_COURSE = "positional-embeddings"
FIRST_TITLE = "First offering"
# Rows that belong to one offering; every existing one moves into the first.
SCOPED = ("submissions", "quiz_attempts", "deadline_extensions", "problem_reports", "lti_contexts")


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "offerings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_slug", sa.String(length=100), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("join_code", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("join_code"),
    )
    with op.batch_alter_table("offerings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_offerings_course_slug"), ["course_slug"])
    op.create_table(
        "enrollments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("offering_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("source", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["offering_id"], ["offerings.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("offering_id", "user_id", name="uq_enrollments_member"),
    )
    with op.batch_alter_table("enrollments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_enrollments_offering_id"), ["offering_id"])
        batch_op.create_index(batch_op.f("ix_enrollments_user_id"), ["user_id"])
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("is_admin", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    for table in SCOPED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("offering_id", sa.Integer(), nullable=True))
            batch_op.create_foreign_key(
                f"fk_{table}_offering_id", "offerings", ["offering_id"], ["id"], ondelete="SET NULL"
            )
            batch_op.create_index(batch_op.f(f"ix_{table}_offering_id"), ["offering_id"])
    _move_into_first_offering()


def _move_into_first_offering() -> None:
    """Today's one course becomes the first offering: everyone in it, every row belonging to it."""
    db = op.get_bind()
    offering_id = db.execute(
        sa.text(
            "INSERT INTO offerings (course_slug, title, created_at) "
            "VALUES (:slug, :title, CURRENT_TIMESTAMP) RETURNING id"
        ),
        {"slug": FIRST_COURSE, "title": FIRST_TITLE},
    ).scalar_one()
    # Each account keeps its role there; an LMS-made instructor stays the LMS's to take back.
    db.execute(
        sa.text(
            "INSERT INTO enrollments (offering_id, user_id, role, source, created_at) "
            "SELECT :offering, id, role, "
            "CASE WHEN role_source = 'lti' THEN 'lti' ELSE 'migration' END, created_at FROM users"
        ),
        {"offering": offering_id},
    )
    # Instructors set up here ran the whole site; those an LMS made never become administrators.
    db.execute(
        sa.text(
            "UPDATE users SET is_admin = :yes WHERE role = 'instructor' AND role_source IS NULL"
        ),
        {"yes": True},
    )
    for table in SCOPED:
        db.execute(  # the table names come from the constant SCOPED above
            sa.text(f"UPDATE {table} SET offering_id = :offering"),  # noqa: S608
            {"offering": offering_id},
        )


def downgrade() -> None:
    """Revert this revision (offerings other than the first are lost; users keep their role)."""
    for table in SCOPED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_offering_id"))
            batch_op.drop_constraint(f"fk_{table}_offering_id", type_="foreignkey")
            batch_op.drop_column("offering_id")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("is_admin")
    with op.batch_alter_table("enrollments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_enrollments_user_id"))
        batch_op.drop_index(batch_op.f("ix_enrollments_offering_id"))
    op.drop_table("enrollments")
    with op.batch_alter_table("offerings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_offerings_course_slug"))
    op.drop_table("offerings")
