"""An instructor's roster (CSV of email,name,role): every line checked, then all enrolled."""

from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.db import retry_conflicts
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import OfferingError, enroll
from app.users.models import User
from app.users.service import create_user, get_user_by_email, normalize_email

MAX_ROWS = 5000
MAX_BYTES = 1_000_000
ROLES = {role.value: role for role in OfferingRole} | {"teaching assistant": OfferingRole.ta}


class RosterError(OfferingError):
    """A roster that cannot be used (422); the message names every bad line."""


@dataclass(frozen=True)
class RosterLine:
    """One person to enrol."""

    line: int
    email: str
    name: str
    role: OfferingRole


@dataclass
class RosterResult:
    """What the upload did: enrolments written, and every listed account (new or not, in the
    roster's order), so that the reply can treat all alike and say nothing of who existed."""

    enrolled: int = 0
    people: list[User] = field(default_factory=list)


def parse_roster(text: str) -> list[RosterLine]:
    """Read `email,name,role` lines (a header naming the columns first); all problems at once."""
    if len(text.encode()) > MAX_BYTES:
        raise RosterError(f"the roster is larger than {MAX_BYTES // 1000} kB; split it")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    if "email" not in columns:
        raise RosterError("the first line must name the columns: email,name,role")
    reader.fieldnames = columns
    lines: list[RosterLine] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, row in enumerate(reader, start=2):
        if number - 1 > MAX_ROWS:
            raise RosterError(f"the roster has more than {MAX_ROWS} people; split it")
        email = normalize_email(row.get("email") or "")
        role_text = (row.get("role") or "student").strip().lower() or "student"
        if not email and not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue  # a blank line
        if "@" not in email or email.startswith("@") or email.endswith("@"):
            problems.append(f"line {number}: '{email[:80]}' is not an email address")
        elif email in seen:
            problems.append(f"line {number}: {email} appears twice")
        if role_text not in ROLES:
            problems.append(
                f"line {number}: the role '{role_text[:40]}' is not one of instructor, ta, student"
            )
        if problems and problems[-1].startswith(f"line {number}:"):
            continue
        seen.add(email)
        name = (row.get("name") or "").strip()[:200]
        lines.append(RosterLine(number, email, name, ROLES[role_text]))
    if problems:
        raise RosterError("; ".join(problems[:20]) + ("; ..." if len(problems) > 20 else ""))
    if not lines:
        raise RosterError("the roster lists nobody")
    return lines


def apply_roster(*, session: Session, offering: Offering, lines: list[RosterLine]) -> RosterResult:
    """Create missing accounts (no password yet: they sign in by LMS or get one set) and enrol
    everyone into this offering only (an existing account gains no other place or view)."""
    made: set[str] = set()  # accounts this upload created, kept across a retry

    def store() -> RosterResult:
        result = RosterResult()
        for line in lines:
            user = get_user_by_email(session=session, email=line.email)
            if user is None:
                user, new = create_user(
                    session=session,
                    email=line.email,
                    password=secrets.token_urlsafe(32),
                    name=line.name,
                    join_first_offering=False,
                    password_set=False,  # its owner sets one through the instructor's link
                )
                if new:
                    made.add(user.email)
            enrolment = enroll(
                session=session,
                offering=offering,
                user=user,
                role=line.role,
                source="roster",
                commit=False,
            )
            if user.email in made:
                enrolment.created_account = True
            result.enrolled += 1
            result.people.append(user)
        session.commit()
        return result

    # The same upload sent twice at once, or a student joining by code meanwhile: read again.
    return retry_conflicts(session, store)
