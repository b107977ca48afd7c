"""lti: the AGS scopes each LMS course offered, so the tool asks only for those

Revision ID: 0006_lti_ags_scopes
Revises: 0005_lti_roles_storage
Create Date: 2026-11-23 11:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_lti_ags_scopes"
down_revision: str | None = "0005_lti_roles_storage"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ags_scopes", sa.Text(), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_column("ags_scopes")
