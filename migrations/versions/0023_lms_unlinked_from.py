"""lti_contexts.unlinked_from: the offering an LMS course's link was removed from

Revision ID: 0023_lms_unlinked_from
Revises: 0022_regrade_place
Create Date: 2026-11-27 07:30:00.000000

An LMS course that feeds no offering is linked only by a site administrator or by someone its
LMS named its instructor. The instructors of the offering a link was removed from may link it
again too (an undo): this column remembers that offering. A link removed before this revision
has none, so only those two may link it again.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_lms_unlinked_from"
down_revision: str | None = "0022_regrade_place"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("unlinked_from", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            "fk_lti_contexts_unlinked_from", "offerings", ["unlinked_from"], ["id"],
            ondelete="SET NULL",
        )  # fmt: skip


def downgrade() -> None:
    """Revert this revision (a removed link is linked again by an admin or the LMS's teacher)."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_constraint("fk_lti_contexts_unlinked_from", type_="foreignkey")
        batch_op.drop_column("unlinked_from")
