"""submissions: a submission knows why it exists (practice, or an assessment attempt's answer)

Revision ID: 0016_submission_purpose
Revises: 0015_offering_roles
Create Date: 2026-11-26 10:00:00.000000

An exam's code answer was stored as a plain practice submission, so every practice reader (the
student's lists, the gradebook's exercise columns, analytics, similarity, the LMS's exercise
column) counted it, before the exam's release too (issue 47). `purpose` is `practice` or
`attempt:<id>`; rows an attempt's answer already points at are marked as that attempt's, and
lose the practice late flag their practice due date gave them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_submission_purpose"
down_revision: str | None = "0015_offering_roles"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The gradebook reads practice only: its index carries the purpose, so PostgreSQL still answers
# from the index alone (0011's index, one column more).
INDEX = "ix_submissions_gradebook"
KEY = ["offering_id", "user_id", "exercise_slug"]
INCLUDE = ["mode", "status", "score", "created_at", "late", "id"]

MARK_ANSWERS = (
    "UPDATE submissions SET late = :no, purpose = (SELECT 'attempt:' || CAST(a.attempt_id AS "
    "VARCHAR(20)) FROM assessment_answers a WHERE a.submission_id = submissions.id) "
    "WHERE id IN (SELECT submission_id FROM assessment_answers WHERE submission_id IS NOT NULL)"
)


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("purpose", sa.String(40), nullable=False, server_default="practice")
        )
    op.get_bind().execute(sa.text(MARK_ANSWERS), {"no": False})
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index(INDEX, table_name="submissions")
        op.create_index(INDEX, "submissions", KEY, postgresql_include=[*INCLUDE, "purpose"])


def downgrade() -> None:
    """Revert this revision: every submission reads as practice again."""
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index(INDEX, table_name="submissions")
        op.create_index(INDEX, "submissions", KEY, postgresql_include=INCLUDE)
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("purpose")
