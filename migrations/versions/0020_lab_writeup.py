"""a lab's write-up: the text a student hands in with a lab run, graded by a person with
the lab's rubric (issue 49)

Revision ID: 0020_lab_writeup
Revises: 0019_authoring
Create Date: 2026-11-26 14:00:00.000000

One nullable column, `submissions.writeup`: empty for every existing row and every exercise
that is not a lab.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_lab_writeup"
down_revision: str | None = "0019_authoring"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("writeup", sa.Text(), nullable=True))


def downgrade() -> None:
    """Undo this revision."""
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("writeup")
