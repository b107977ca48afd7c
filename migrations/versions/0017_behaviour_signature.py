"""behaviour signature: each graded submission's behaviour key, indexed to group wrong answers

Revision ID: 0017_behaviour_signature
Revises: 0016_submission_purpose
Create Date: 2026-11-26 10:00:00.000000

The grader's report carries a behaviour signature (docs/report-contract.md); its `key` is kept
in a column so an offering's wrong answers to one exercise group in SQL (issue 51). Reports
stored before this revision have no key until they are re-graded.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_behaviour_signature"
down_revision: str | None = "0016_submission_purpose"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_submissions_behaviour"
KEY = ["offering_id", "exercise_slug", "behaviour_key"]


def upgrade() -> None:
    """Apply this revision."""
    op.add_column("submissions", sa.Column("behaviour_key", sa.String(32), nullable=True))
    op.create_index(NAME, "submissions", KEY)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(NAME, table_name="submissions")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("behaviour_key")
