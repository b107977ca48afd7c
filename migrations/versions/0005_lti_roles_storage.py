"""lti roles and platform storage: where an instructor role came from; the state's storage frame

Revision ID: 0005_lti_roles_storage
Revises: 0004_problems
Create Date: 2026-11-23 11:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_lti_roles_storage"
down_revision: str | None = "0004_problems"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("role_source", sa.String(length=10), nullable=True))
    with op.batch_alter_table("lti_nonces", schema=None) as batch_op:
        batch_op.add_column(sa.Column("storage_target", sa.String(length=100), nullable=True))
    # Accounts made by LTI launches are never shared with local ones, so an instructor role
    # they hold came from an LMS (possibly from the old, too generous role mapping): mark it
    # so the next launch can take it back.
    op.execute(
        "UPDATE users SET role_source = 'lti' WHERE role = 'instructor' "
        "AND id IN (SELECT user_id FROM lti_users)"
    )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("lti_nonces", schema=None) as batch_op:
        batch_op.drop_column("storage_target")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("role_source")
