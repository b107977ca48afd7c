"""authoring: course editors, drafts saved in the browser, kept conflicts, published versions

Revision ID: 0019_authoring
Revises: 0018_submission_comments
Create Date: 2026-11-26 10:40:00.000000

A course editor is a course-level role (site administrators are editors of every course without
a row). Drafts never touch the course folder; publishing writes them and records a version with
each file's text before and after, so an old version can be made current again.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_authoring"
down_revision: str | None = "0018_submission_comments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def _user(name: str, ondelete: str, *, nullable: bool = True) -> sa.Column[int]:
    return sa.Column(
        name, sa.Integer(), sa.ForeignKey("users.id", ondelete=ondelete), nullable=nullable
    )


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "course_editors",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course_slug", sa.String(64), nullable=False),
        _user("user_id", "CASCADE", nullable=False),
        _user("granted_by", "SET NULL"),
        sa.Column("created_at", WHEN, nullable=False),
        sa.UniqueConstraint("course_slug", "user_id", name="uq_course_editors_user"),
    )
    op.create_index("ix_course_editors_course_slug", "course_editors", ["course_slug"])
    op.create_index("ix_course_editors_user_id", "course_editors", ["user_id"])
    op.create_table(
        "authoring_drafts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course_slug", sa.String(64), nullable=False),
        sa.Column("path", sa.String(300), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("disk_sha", sa.String(64), nullable=True),
        _user("updated_by", "SET NULL"),
        sa.Column("updated_at", WHEN, nullable=False),
        sa.UniqueConstraint("course_slug", "path", name="uq_authoring_drafts_path"),
    )
    op.create_index("ix_authoring_drafts_course_slug", "authoring_drafts", ["course_slug"])
    op.create_table(
        "authoring_conflicts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course_slug", sa.String(64), nullable=False),
        sa.Column("path", sa.String(300), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("base", sa.String(64), nullable=True),
        _user("user_id", "SET NULL"),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_authoring_conflicts_course_slug", "authoring_conflicts", ["course_slug"])
    op.create_table(
        "content_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("course_slug", sa.String(64), nullable=False),
        _user("author_id", "SET NULL"),
        sa.Column("author", sa.String(255), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("commit", sa.String(64), nullable=True),
        sa.Column("content_version", sa.String(100), nullable=False),
        sa.Column("files", sa.JSON(), nullable=False),
        sa.Column("restored_from", sa.Integer(), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_content_versions_course_slug", "content_versions", ["course_slug"])


def downgrade() -> None:
    """Revert this revision."""
    for table in ("content_versions", "authoring_conflicts", "authoring_drafts", "course_editors"):
        op.drop_table(table)
