"""An offering of a course and the people enrolled in it, each with a role there."""

from __future__ import annotations

import datetime as dt
import enum

from sqlalchemy import Boolean, DateTime, Enum, ForeignKey, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base
from app.models_base import created_at_column


class OfferingRole(enum.StrEnum):
    """What a member may do in one offering: staff see students' work, students solve."""

    instructor = "instructor"
    ta = "ta"
    student = "student"


STAFF = frozenset({OfferingRole.instructor, OfferingRole.ta})


class Offering(Base):
    """One run of a course (e.g. "Spring 2027, section A") with its own people, dates and grades."""

    __tablename__ = "offerings"

    id: Mapped[int] = mapped_column(primary_key=True)
    # The course registry is keyed by slug; a string keeps this table free of its storage.
    course_slug: Mapped[str] = mapped_column(String(100), index=True)
    title: Mapped[str] = mapped_column(String(200))
    starts_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    ends_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    # Whoever has this code (or the /join/{code} link) may join as a student; None: closed.
    join_code: Mapped[str | None] = mapped_column(String(40), unique=True, default=None)
    # Open: anyone signed in may study here (and becomes a member by working here); closed:
    # only a join code, a roster, `offerings enroll` or an LMS launch lets someone in.
    is_open: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    created_at: Mapped[dt.datetime] = created_at_column()


class Enrollment(Base):
    """A person's place in an offering; `source` says who put them there (LMS syncs own theirs)."""

    __tablename__ = "enrollments"
    __table_args__ = (UniqueConstraint("offering_id", "user_id", name="uq_enrollments_member"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    offering_id: Mapped[int] = mapped_column(
        ForeignKey("offerings.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[OfferingRole] = mapped_column(
        Enum(OfferingRole, name="offering_role", native_enum=False, length=20),
        default=OfferingRole.student,
    )
    # "code", "roster", "lti", "admin" or "migration": an LTI launch only changes its own rows.
    source: Mapped[str] = mapped_column(String(10), default="admin")
    # True when this enrolment's roster upload created the account: its instructors may then
    # hand it a set-password link (app/offerings/passwords.py); an account someone made
    # themselves is never theirs to reset.
    created_account: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), nullable=False
    )
    created_at: Mapped[dt.datetime] = created_at_column()
