"""lti: an LMS course whose link to an offering was removed is refused, not sent elsewhere

Revision ID: 0012_lms_unlink
Revises: 0011_gradebook_index
Create Date: 2026-11-24 17:30:00.000000

An LMS course never linked feeds the first offering (as before offerings); one whose link an
instructor removed (issue 27, point 3: the offering's LMS link page) must not silently start
feeding the first offering: `unlinked_at` marks it, and its launches are refused until it is
linked again.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_lms_unlink"
down_revision: str | None = "0011_gradebook_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("unlinked_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Revert this revision: a removed link means the first offering again."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_column("unlinked_at")
