"""submission comments and regrade requests: what staff write to a student about a
submission, a student's request to look at a grade again, course grade schemes and
student ids (issue 49)

Revision ID: 0018_submission_comments
Revises: 0017_behaviour_signature
Create Date: 2026-11-26 10:00:00.000000

Four new tables (comments, regrade requests, each offering's grading scheme, rubric grades)
and
`users.student_id`, the id a school's records use (exported beside the course grade), and
a reply on problem reports that staff write when resolving them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_submission_comments"
down_revision: str | None = "0017_behaviour_signature"
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
    op.create_table(
        "regrade_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer(),
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("exercise_slug", sa.String(100), nullable=False),
        sa.Column("course_slug", sa.String(64), nullable=False),
        sa.Column(
            "offering_id",
            sa.Integer(),
            sa.ForeignKey("offerings.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column(
            "answered_by",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("answered_name", sa.String(200), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("new_score", sa.Float(), nullable=True),
        sa.UniqueConstraint("user_id", "exercise_slug", "course_slug", "offering_id"),
    )
    op.create_index("ix_regrade_requests_submission_id", "regrade_requests", ["submission_id"])
    op.create_index("ix_regrade_requests_user_id", "regrade_requests", ["user_id"])
    op.create_index("ix_regrade_requests_offering_id", "regrade_requests", ["offering_id"])
    op.create_table(
        "grade_schemes",
        sa.Column(
            "offering_id",
            sa.Integer(),
            sa.ForeignKey("offerings.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("weights", sa.JSON(), nullable=False),
        sa.Column("drop_lowest", sa.JSON(), nullable=False),
        sa.Column(
            "set_by", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rubric_grades",
        sa.Column(
            "submission_id",
            sa.Integer(),
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("applied", sa.JSON(), nullable=False),
        sa.Column("manual_score", sa.Float(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column(
            "grader_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("grader_name", sa.String(200), nullable=False),
        sa.Column("graded_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("student_id", sa.String(64), nullable=True))
    with op.batch_alter_table("problem_reports") as batch:
        batch.add_column(sa.Column("reply", sa.Text(), nullable=True))
        batch.add_column(
            sa.Column("replied_by_name", sa.String(200), server_default="", nullable=False)
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("problem_reports") as batch:
        batch.drop_column("replied_by_name")
        batch.drop_column("reply")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("student_id")
    op.drop_table("rubric_grades")
    op.drop_table("grade_schemes")
    op.drop_table("regrade_requests")
    op.drop_index("ix_submission_comments_submission_id", "submission_comments")
    op.drop_table("submission_comments")
