"""accounts: which roster upload created an account, so its instructors may send it a
set-password link (issue 27)

Revision ID: 0013_accounts_password_links
Revises: 0012_lms_unlink
Create Date: 2026-11-24 17:30:00.000000

`enrollments.created_account` is true on the enrolment whose roster upload created the account.
Rows written before it stay false: nobody can tell now which uploads created which accounts, so
only a site administrator can send those accounts a link.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_accounts_password_links"
down_revision: str | None = "0012_lms_unlink"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("enrollments") as batch:
        batch.add_column(
            sa.Column("created_account", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("enrollments") as batch:
        batch.drop_column("created_account")
