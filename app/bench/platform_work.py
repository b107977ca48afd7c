"""The `platform` scenario's students' work: submissions, quiz attempts and lesson reads.

Submissions are written in the order they were made across the whole deployment, as a live
site stores them (a student's rows are spread over the table, not side by side), streamed
through COPY in chunks; the times come from NumPy arrays, a few bytes per submission.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg

TERM = dt.timedelta(days=105)
CHUNK = 50_000
Offering = tuple[int, int, str, dt.datetime]  # id, course index, title, start of its term
FRAMEWORKS = ("numpy", "torch", "jax")
WRONG = ("wrong_answer", "wrong_answer", "wrong_answer", "runtime_error", "syntax_error")
MESSAGES = {
    "accepted": "All tests passed.",
    "wrong_answer": "2 of 5 tests failed: the values differ.",
    "runtime_error": "Your code raised an exception: IndexError.",
    "syntax_error": "Your code is not valid Python (line 3).",
}
CODE = [
    f"import numpy as np\n\n\ndef solve(x, table):\n    # attempt {n}\n"
    f"    return table[x] * {n % 7 + 1} / {n % 5 + 1}\n"
    for n in range(24)
]


@dataclass(frozen=True)
class CourseData:
    """A course as the generator needs it: slugs of its exercises and quiz lessons."""

    slug: str
    exercises: tuple[str, ...]
    quizzes: tuple[tuple[str, int], ...]  # (lesson slug, questions)
    lessons: tuple[str, ...]


def _report(verdict: str, score: float) -> str:
    """A small report of the real shape (graders/report.py), five tests."""
    passed = round(score * 5)
    tests = [
        {
            "name": f"test {k + 1}",
            "hidden": k >= 3,
            "passed": k < passed,
            "verdict": "accepted" if k < passed else verdict,
            "message": "" if k < passed else MESSAGES[verdict],
        }
        for k in range(5)
    ]
    return json.dumps(
        {
            "verdict": verdict,
            "score": score,
            "message": MESSAGES[verdict],
            "duration_ms": 120.0,
            "tests": tests,
        }
    )


class Writer:
    """COPY into one table; rows are sent as they are made."""

    def __init__(self, conn: psycopg.Connection[Any], table: str, columns: tuple[str, ...]):
        self.conn, self.table, self.columns = conn, table, columns

    def write(self, rows: Iterator[tuple[Any, ...]]) -> int:
        written = 0
        sql = f"COPY {self.table} ({', '.join(self.columns)}) FROM STDIN"
        with self.conn.cursor() as cur, cur.copy(sql) as copy:
            for row in rows:
                copy.write_row(row)
                written += 1
        return written


def _split(total: int, weights: list[float]) -> list[int]:
    """`total` shared out in proportion to the weights, summing exactly to `total`."""
    whole = sum(weights)
    counts = [int(total * w / whole) for w in weights]
    for n in range(total - sum(counts)):
        counts[n % len(counts)] += 1
    return counts


def work(
    conn: psycopg.Connection[Any],
    rng: random.Random,
    catalog: list[CourseData],
    offerings: list[Offering],
    students: list[int],
    mine: list[list[int]],
    submissions: int,
    now: dt.datetime,
) -> dict[str, int]:
    """Submissions in the order they were made, then quiz attempts and lesson reads."""
    columns = (
        "user_id, exercise_slug, course_slug, content_version, framework, mode, code, status,"
        " verdict, score, message, report, duration_ms, attempts, created_at, finished_at,"
        " late, offering_id"
    )
    rows = _submissions(rng, catalog, offerings, mine, students, submissions, now)
    written = Writer(conn, "submissions", tuple(columns.split(", "))).write(rows)
    attempts, reads = _quizzes(conn, rng, catalog, offerings, students, mine, now)
    return {"submissions": written, "quiz_attempts": attempts, "lesson_reads": reads}


def _submissions(
    rng: random.Random,
    catalog: list[CourseData],
    offerings: list[Offering],
    mine: list[list[int]],
    students: list[int],
    total: int,
    now: dt.datetime,
) -> Iterator[tuple[Any, ...]]:
    """Each student's share (some work much more than others) over their offerings' terms.

    A student in two offerings sends 70% of their work to the first; within a term, the later
    a submission, the likelier it is accepted.
    """
    reports = {
        (verdict, score): _report(verdict, score)
        for verdict in MESSAGES
        for score in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    }
    numbers = np.random.default_rng(rng.randrange(2**32))
    per_student = _split(total, [rng.gammavariate(2.0, 0.5) for _ in students])
    who = np.repeat(np.arange(len(students), dtype=np.int32), per_student)
    first = np.array([m[0] for m in mine], dtype=np.int32)
    second = np.array([m[-1] for m in mine], dtype=np.int32)
    which = np.where(numbers.random(len(who)) < 0.7, first[who], second[who])
    del first, second
    starts = np.array([o[3].timestamp() for o in offerings])
    spans = np.array([min(TERM, now - o[3]).total_seconds() for o in offerings])
    into_term = numbers.random(len(who))
    order = np.argsort(starts[which] + into_term * spans[which], kind="stable")
    for at in range(0, len(order), CHUNK):
        chunk = order[at : at + CHUNK]
        for n, k, when in zip(
            who[chunk].tolist(), which[chunk].tolist(), into_term[chunk].tolist(), strict=True
        ):
            oid, course, _, term_starts = offerings[k]
            data = catalog[course]
            created = term_starts + when * min(TERM, now - term_starts)
            if rng.random() < 0.3 + 0.4 * when:
                verdict, score = "accepted", 1.0
            else:
                verdict = rng.choice(WRONG)
                score = 0.0 if verdict != "wrong_answer" else rng.randint(0, 4) / 5
            duration = rng.uniform(40.0, 900.0)
            yield (
                students[n],
                data.exercises[int(rng.random() ** 1.5 * len(data.exercises))],
                data.slug,
                "generated",
                FRAMEWORKS[rng.randrange(3)],
                "submit" if rng.random() < 0.65 else "run",
                CODE[rng.randrange(len(CODE))],
                "done",
                verdict,
                score,
                MESSAGES[verdict],
                reports[(verdict, score)],
                duration,
                1,
                created,
                created + dt.timedelta(milliseconds=duration),
                rng.random() < 0.05,
                oid,
            )


def _quizzes(
    conn: psycopg.Connection[Any],
    rng: random.Random,
    catalog: list[CourseData],
    offerings: list[Offering],
    students: list[int],
    mine: list[list[int]],
    now: dt.datetime,
) -> tuple[int, int]:
    """Most students read most lessons and take most quizzes, some twice."""
    read_rows: list[tuple[Any, ...]] = []

    def attempts() -> Iterator[tuple[Any, ...]]:
        for uid, chosen in zip(students, mine, strict=True):
            seen: set[tuple[str, str]] = set()  # a read is of one course's lesson
            for k in chosen:
                oid, course, _, starts = offerings[k]
                data = catalog[course]
                for n, lesson in enumerate(data.lessons):
                    if (data.slug, lesson) not in seen and rng.random() < 0.85:
                        seen.add((data.slug, lesson))
                        read_rows.append((uid, data.slug, lesson, min(now, starts + n * TERM / 10)))
                for lesson, questions in data.quizzes:
                    for retake in range(rng.choice((0, 1, 1, 1, 2))):
                        right = [rng.random() < 0.7 for _ in range(questions)]
                        results = {
                            "questions": [
                                {"id": f"q{q + 1}", "correct": ok, "answer": "a"}
                                for q, ok in enumerate(right)
                            ],
                            "ignored": [],
                        }
                        yield (
                            uid,
                            lesson,
                            data.slug,
                            "generated",
                            json.dumps({f"q{q + 1}": "a" for q in range(questions)}),
                            json.dumps(results),
                            sum(right) / questions,
                            oid,
                            min(now, starts + (retake + rng.random()) * TERM / 3),
                        )

    columns = (
        "user_id",
        "lesson_slug",
        "course_slug",
        "content_version",
        "answers",
        "results",
        "score",
        "offering_id",
        "created_at",
    )
    written = Writer(conn, "quiz_attempts", columns).write(attempts())
    reads = Writer(
        conn, "lesson_reads", ("user_id", "course_slug", "lesson_slug", "created_at")
    ).write(iter(read_rows))
    return written, reads
