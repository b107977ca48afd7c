"""The `platform` scenario's data set: courses, offerings, people and their work, at scale.

Everything is written with PostgreSQL's COPY, streamed in rows (never a whole table in memory),
so issue 27's 2 million submissions load in minutes. The first two courses are the real ones
in this repository, so their pages have real columns; the others get generated slugs. One
offering of the first course holds `big_offering` students: the gradebook the scenario times.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from app.bench.platform_work import TERM, CourseData, Offering, Writer, work
from app.config import ROOT
from app.content.loader import load_course
from app.users.service import hash_token

SEED = 27
# What the database holds afterwards, counted there (not what the generator meant to write).
STORED = ("courses", "offerings", "students", "submissions", "graded_in_big_offering")
STORED_SQL = (
    "SELECT (SELECT count(DISTINCT course_slug) FROM offerings), (SELECT count(*) FROM offerings),"
    " (SELECT count(*) FROM users WHERE role = 'student'), (SELECT count(*) FROM submissions),"
    " (SELECT count(*) FROM submissions WHERE offering_id = %s AND mode = 'submit')"
)
UNUSABLE_PASSWORD = "!generated"  # noqa: S105 - no argon2 hash: nobody logs in with a password


@dataclass(frozen=True)
class Sizes:
    """How much to generate; the defaults are issue 27's figures."""

    courses: int = 20
    offerings: int = 100
    students: int = 20_000
    submissions: int = 2_000_000
    big_offering: int = 500  # students in the offering whose gradebook is timed
    measured_students: int = 20  # students of that offering with a token for the timed pages


@dataclass
class Generated:
    """What was written, and who the timed pages are opened as."""

    counts: dict[str, Any]  # what was written; "stored": what the database then held
    seconds: float
    offering_id: int  # the big offering of the first course
    offering_title: str
    instructor_token: str
    student_tokens: list[str]
    student_emails: list[str]
    exercise: str  # an exercise of the first course every measured student has worked on
    extra: dict[str, Any] = field(default_factory=dict)


def courses(count: int) -> list[CourseData]:
    """The repository's courses first, then generated ones up to `count`."""
    found: list[CourseData] = []
    for root in (ROOT, *sorted(p.parent for p in (ROOT / "courses").glob("*/course.yaml"))):
        course = load_course(root / "lessons", root / "exercises")
        slug = _course_slug(root)
        found.append(
            CourseData(
                slug,
                tuple(e.meta.slug for e in course.exercises if not e.meta.draft),
                tuple(
                    (les.meta.slug, len(les.meta.quiz))
                    for les in course.lessons
                    if les.meta.quiz and not les.meta.draft
                ),
                tuple(les.meta.slug for les in course.lessons if not les.meta.draft),
            )
        )
    for n in range(len(found), count):
        slug = f"generated-course-{n:02d}"
        lessons = tuple(f"{slug}-lesson-{k}" for k in range(1, 7))
        found.append(
            CourseData(
                slug,
                tuple(f"{slug}-exercise-{k}" for k in range(1, 11)),
                tuple((les, 6) for les in lessons[:5]),
                lessons,
            )
        )
    return found[:count]


def _course_slug(root: Path) -> str:
    for line in (root / "course.yaml").read_text().splitlines():
        if line.startswith("slug:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    raise ValueError(f"{root / 'course.yaml'} names no slug")


def generate(url: str, sizes: Sizes, seed: int = SEED) -> Generated:
    """Fill a migrated, empty database; return who the timed pages are opened as."""
    started = time.perf_counter()
    rng = random.Random(seed)  # noqa: S311 - a repeatable data set, not a secret
    catalog = courses(sizes.courses)
    now = dt.datetime.now(dt.UTC)
    with psycopg.connect(url, autocommit=False) as conn:
        offerings = _offerings(conn, catalog, sizes, now)
        staff, students = _users(conn, sizes, now)
        mine = _enrollments(conn, rng, offerings, staff, students, sizes)
        counts: dict[str, Any] = {
            "courses": len(catalog),
            "offerings": len(offerings),
            "students": len(students),
            "staff": len(staff),
            "enrollments": sum(len(m) for m in mine) + len(staff),
        }
        big = offerings[1]
        measured = [n for n, m in enumerate(mine) if m[0] == 1][: sizes.measured_students]
        counts |= work(conn, rng, catalog, offerings, students, mine, sizes.submissions, now)
        tokens = [secrets.token_urlsafe(24) for _ in range(len(measured) + 1)]
        owners = [staff[2], *(students[n] for n in measured)]  # staff[2]: the big one's instructor
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO api_tokens (user_id, token_hash, created_at) VALUES (%s, %s, %s)",
                [(uid, hash_token(t), now) for uid, t in zip(owners, tokens, strict=True)],
            )
            found = cur.execute("SELECT id, email FROM users WHERE id = ANY(%s)", [owners])
            emails: dict[int, str] = {int(uid): str(email) for uid, email in found}
        conn.commit()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")  # what autovacuum would have done on a live site
        stored = conn.execute(STORED_SQL, [big[0]]).fetchone() or ()
    counts["stored"] = dict(zip(STORED, stored, strict=True))
    return Generated(
        counts=counts,
        seconds=round(time.perf_counter() - started, 1),
        offering_id=big[0],
        offering_title=big[2],
        instructor_token=tokens[0],
        student_tokens=tokens[1:],
        student_emails=[emails[uid] for uid in owners[1:]],
        exercise=catalog[0].exercises[1],
    )


def _offerings(
    conn: psycopg.Connection[Any], catalog: list[CourseData], sizes: Sizes, now: dt.datetime
) -> list[Offering]:
    """The migration's first offering, then the rest round robin over the courses.

    Offering k of a course ran k terms ago; [1] is the first course's current term.
    """
    first = conn.execute("SELECT id FROM offerings ORDER BY id LIMIT 1").fetchone()
    if first is None:
        raise RuntimeError("the migrated database has no first offering")
    found: list[Offering] = [(int(first[0]), 0, "First offering", now - 3 * TERM)]
    with conn.cursor() as cur:
        for n in range(1, sizes.offerings):
            course = (n - 1) % len(catalog) if n > 1 else 0
            term = (n - 1) // len(catalog) if n > 1 else 0
            starts = now - dt.timedelta(days=70) - term * 2 * TERM
            title = f"Term {term + 1}, section {chr(65 + n % 3)} ({catalog[course].slug})"
            cur.execute(
                "INSERT INTO offerings (course_slug, title, starts_at, ends_at, join_code,"
                " created_at) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                (catalog[course].slug, title, starts, starts + TERM, f"GEN{n:05d}", starts),
            )
            row = cur.fetchone()
            assert row is not None
            found.append((int(row[0]), course, title, starts))
    return found


def _users(
    conn: psycopg.Connection[Any], sizes: Sizes, now: dt.datetime
) -> tuple[list[int], list[int]]:
    """Two staff (instructor, TA) per offering, then the students; their ids in that order."""
    staff = 2 * sizes.offerings

    def rows() -> Iterator[tuple[Any, ...]]:
        for n in range(staff):
            yield (f"staff{n:04d}@example.edu", f"Teacher {n}", "instructor")
        for n in range(sizes.students):
            yield (f"student{n:06d}@example.edu", f"Student {n:06d}", "student")

    columns = ("email", "name", "role", "password_hash", "is_admin", "created_at")
    Writer(conn, "users", columns).write((*row, UNUSABLE_PASSWORD, False, now) for row in rows())
    ids = [
        int(i)
        for (i,) in conn.execute(
            "SELECT id FROM users WHERE email LIKE 'staff%' OR email LIKE 'student%' "
            "ORDER BY email LIKE 'student%', email"
        )
    ]
    return ids[:staff], ids[staff:]


def _enrollments(
    conn: psycopg.Connection[Any],
    rng: random.Random,
    offerings: list[Offering],
    staff: list[int],
    students: list[int],
    sizes: Sizes,
) -> list[list[int]]:
    """Each student's offerings (indexes into `offerings`), the first being their main one.

    The big offering gets exactly `big_offering` students; the others share the rest, and one
    student in five is also in a second (never the big one).
    """
    big = min(sizes.big_offering, len(students))
    others = list(range(2, len(offerings))) or [0]
    mine: list[list[int]] = []
    for n in range(len(students)):
        first = 1 if n < big else rng.choice([0, *others])
        second = rng.choice([0, *others]) if rng.random() < 0.2 else first
        mine.append([first] if second == first else [first, second])

    def rows() -> Iterator[tuple[Any, ...]]:
        for k, (oid, _, _, starts) in enumerate(offerings):
            yield (oid, staff[2 * k], "instructor", "admin", starts)
            yield (oid, staff[2 * k + 1], "ta", "admin", starts)
        for uid, chosen in zip(students, mine, strict=True):
            for k in chosen:
                yield (offerings[k][0], uid, "student", "code", offerings[k][3])

    # The migration put no one in the first offering (the database was empty).
    Writer(conn, "enrollments", ("offering_id", "user_id", "role", "source", "created_at")).write(
        rows()
    )
    return mine
