"""gradebook index: an offering's graded submissions read from one index (issue 27, point 6)

Revision ID: 0011_gradebook_index
Revises: 0010_late_policies
Create Date: 2026-11-23 21:20:00.000000

The gradebook of a 500-student offering among 2 million submissions read ~31,000 scattered
table pages (a bitmap AND of the user and exercise indexes); this index holds every column
the gradebook reads, so PostgreSQL answers from it alone (an index-only scan; docs/benchmarks.md
"A platform's pages"). SQLite has no INCLUDE and indexes the key columns only.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011_gradebook_index"
down_revision: str | None = "0010_late_policies"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_submissions_gradebook"
KEY = ["offering_id", "user_id", "exercise_slug"]
INCLUDE = ["mode", "status", "score", "created_at", "late", "id"]


def upgrade() -> None:
    """Apply this revision."""
    op.create_index(NAME, "submissions", KEY, postgresql_include=INCLUDE)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(NAME, table_name="submissions")
