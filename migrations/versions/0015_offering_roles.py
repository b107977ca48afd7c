"""offering roles: no global teaching role; offerings are open or closed; own passwords known

Revision ID: 0015_offering_roles
Revises: 0014_assessments_per_offering
Create Date: 2026-11-26 10:00:00.000000

Issue 46. `users.role = instructor` stops granting anything, so each of today's global
instructors becomes an instructor of the offerings they teach:
- one who already holds a staff role (instructor or TA) in some offering keeps exactly those
  roles: that is where they teach (an LMS launch or a promotion put them there);
- one who holds none becomes an instructor of the first offering (what every URL without an
  offering meant, and where the global role acted until now); a student place they had there
  is promoted, else they are enrolled (source "0015").
Their other student places stay student places. `users.role` is left as it was (it grants
nothing now); the counts are printed.

`offerings.is_open`: the first offering is open (everyone who signed up joined it until now, so
a newcomer may still sign up and solve at once); every other offering is closed (join code,
roster, `offerings enroll` or an LMS launch). Existing members stay members.

`users.password_set`: whether the account's owner chose its password (sign-up, a set-password
link); false for accounts a roster upload created (they may still wait for their link). A
set-password link is refused for an account whose owner set its password.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_offering_roles"
down_revision: str | None = "0014_assessments_per_offering"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIRST_COURSE = "positional-embeddings"
SOURCE = "0015"


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("offerings") as batch_op:
        batch_op.add_column(
            sa.Column("is_open", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(
            sa.Column("password_set", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    db = op.get_bind()
    first = db.execute(
        sa.text("SELECT MIN(id) FROM offerings WHERE course_slug = :slug"), {"slug": FIRST_COURSE}
    ).scalar()
    if first is not None:
        db.execute(
            sa.text("UPDATE offerings SET is_open = :yes WHERE id = :id"),
            {"yes": True, "id": first},
        )
    db.execute(
        sa.text(
            "UPDATE users SET password_set = :no WHERE id IN "
            "(SELECT user_id FROM enrollments WHERE created_account = :yes)"
        ),
        {"no": False, "yes": True},
    )
    counts = _global_instructors(db, first)
    print(  # the operator reads what the migration did
        "0015_offering_roles: {found} global instructors; {kept} kept their staff roles; "
        "{promoted} promoted from student in the first offering; {enrolled} enrolled as its "
        "instructors; first offering open: {open}".format(**counts, open=first is not None)
    )


# Global instructors who teach nowhere yet (no staff role in any offering) are promoted in the
# first offering, or enrolled there.
COUNT_FOUND = "SELECT COUNT(*) FROM users WHERE role = 'instructor'"
COUNT_KEPT = (
    "SELECT COUNT(*) FROM users WHERE role = 'instructor' AND EXISTS (SELECT 1 FROM "
    "enrollments e WHERE e.user_id = users.id AND e.role IN ('instructor', 'ta'))"
)
PROMOTE = (
    "UPDATE enrollments SET role = 'instructor', source = :src WHERE offering_id = :first "
    "AND user_id IN (SELECT id FROM users WHERE users.role = 'instructor' AND NOT EXISTS "
    "(SELECT 1 FROM enrollments e WHERE e.user_id = users.id AND e.role IN ('instructor', 'ta')))"
)
ENROL = (
    "INSERT INTO enrollments (offering_id, user_id, role, source, created_account, created_at) "
    "SELECT :first, users.id, 'instructor', :src, :no, CURRENT_TIMESTAMP FROM users WHERE "
    "users.role = 'instructor' AND NOT EXISTS (SELECT 1 FROM enrollments e WHERE "
    "e.user_id = users.id AND e.role IN ('instructor', 'ta')) AND NOT EXISTS (SELECT 1 FROM "
    "enrollments e WHERE e.user_id = users.id AND e.offering_id = :first)"
)


def _global_instructors(db: sa.Connection, first: int | None) -> dict[str, int]:
    """Turn each global instructor into an instructor where they teach (see the docstring)."""
    found = db.execute(sa.text(COUNT_FOUND)).scalar()
    kept = db.execute(sa.text(COUNT_KEPT)).scalar()
    promoted = enrolled = 0
    if first is not None:
        promoted = db.execute(sa.text(PROMOTE), {"src": SOURCE, "first": first}).rowcount
        enrolled = db.execute(sa.text(ENROL), {"src": SOURCE, "first": first, "no": False}).rowcount
    return {
        "found": int(found or 0),
        "kept": int(kept or 0),
        "promoted": max(promoted, 0),
        "enrolled": max(enrolled, 0),
    }


def downgrade() -> None:
    """Revert this revision: the columns go; enrolments made here stay (the old code reads
    enrolments too, and `users.role` was never changed)."""
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_column("password_set")
    with op.batch_alter_table("offerings") as batch_op:
        batch_op.drop_column("is_open")
