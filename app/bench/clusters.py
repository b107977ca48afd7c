"""`bench --scenario clusters`: a class with planted mistakes, some undeclared, clustered.

Each planted mistake is a behaviour written here (trusted bench code, as NumPy functions of
the exercise's real inputs); each student's submissions carry its own program text and a
framework's float type with noise far inside the tolerance. The grader's real judge compares
the outputs with the reference and the declared mistakes' outputs and writes the behaviour
signature; the submissions are stored as graded ones, and the instructors' clustering must
put every planted group back together (purity >= 0.9) within 2 s for 1,000 submissions.
"""

from __future__ import annotations

import datetime as dt
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from app.config import ROOT
from app.content.loader import Course
from app.grading.service import mistakes_cache_dir
from app.instructor.clusters.service import exercise_clusters
from app.offerings.first import legacy_offering_id_query
from app.offerings.models import Enrollment
from app.offerings.place import Place
from app.submissions.models import Submission
from app.users.models import User
from app.users.service import hash_password
from graders import OfflineJudge

EXERCISE = "position-embedding-gather"
Behaviour = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (ids, table) -> output


def _first_t(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    n, t = ids.shape
    out: np.ndarray = np.broadcast_to(table[:t], (n, t, table.shape[1])).copy()
    return out


def _one_based(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    out: np.ndarray = table[np.clip(ids + 1, 0, table.shape[0] - 1)]  # JAX clamps; so does this
    return out


def _first_sequence(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    n, t = ids.shape
    out: np.ndarray = np.broadcast_to(table[ids[0]], (n, t, table.shape[1])).copy()
    return out


def _absolute(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.abs(table[ids])
    return out


def _shifted_back(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    out: np.ndarray = table[ids - 1]  # id 0 wraps round to the last row
    return out


def _scaled(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    out: np.ndarray = table[ids] * np.sqrt(table.shape[1])
    return out


def _right(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    out: np.ndarray = table[ids]
    return out


@dataclass(frozen=True)
class Planted:
    """One planted mistake: its behaviour, whether the course declares it, its program."""

    label: str
    declared: bool
    behaviour: Behaviour
    line: str  # the line of the program that makes the mistake
    share: float  # of the students with a planted mistake


PLANTED = (
    Planted("ignores-given-positions", True, _first_t, "rows = {t}[:{s}.shape[1]]", 0.24),
    Planted("one-based-positions", True, _one_based, "rows = {t}[{s}.astype(int) + 1]", 0.23),
    Planted("first-sequence-for-all", True, _first_sequence, "rows = {t}[{s}[0].astype(int)]", 0.2),
    Planted("absolute-values", False, _absolute, "rows = abs({t}[{s}.astype(int)])", 0.14),
    Planted("shifted-back", False, _shifted_back, "rows = {t}[{s}.astype(int) - 1]", 0.11),
    Planted(
        "scaled-by-sqrt-d",
        False,
        _scaled,
        "rows = {t}[{s}.astype(int)] * {t}.shape[1] ** 0.5",
        0.08,
    ),
)
RIGHT = Planted("right", False, _right, "rows = {t}[{s}.astype(int)]", 0.0)
NAMES = (("positions", "embedding_table"), ("pos", "table"), ("ids", "emb"), ("p", "w"))


def program(planted: Planted, rng: random.Random) -> str:
    """A student's program making this mistake, in one of several spellings."""
    s, t = rng.choice(NAMES)
    comment = rng.choice(("", "    # look up each position\n", "    # TODO tidy\n"))
    line = planted.line.format(s=s, t=t)
    return (
        f"import numpy as np\n\n\ndef position_embedding_gather({s}, {t}):\n"
        f"{comment}    {line}\n    return rows\n"
    )


def _outputs(
    planted: Planted, inputs: dict[int, dict[str, Any]], rng: np.random.Generator
) -> dict[int, np.ndarray]:
    """The behaviour on every case, as a framework returns it (float32 or float64), jittered."""
    kind = np.float32 if rng.random() < 0.5 else np.float64
    found = {}
    for index, given in inputs.items():
        ids = given["positions"].astype(np.int64)
        out = planted.behaviour(ids, given["embedding_table"]).astype(np.float64)
        out *= 1.0 + 1e-8 * rng.standard_normal(out.shape)  # far inside rtol 1e-5
        found[index] = out.astype(kind)
    return found


@dataclass(frozen=True)
class Work:
    """One generated submission: who, which planted label, the code and the judged report."""

    student: int
    label: str
    code: str
    report: dict[str, Any]


def generate(students: int, *, seed: int = 51) -> tuple[list[Work], float]:
    """The class's submissions judged by the real judge; returns them and the judging seconds.

    Three students in five make a planted mistake (each 2-4 times); a third of those make one
    the course has not declared. The others solve it, half of them after one planted mistake.
    """
    judge = OfflineJudge(ROOT / "exercises" / EXERCISE, mistakes_cache_dir())
    inputs = judge.inputs()
    rng, noise = random.Random(seed), np.random.default_rng(seed)  # noqa: S311 - a repeatable class
    mistaken = round(students * 0.6)
    plan: list[tuple[int, Planted]] = []
    for student in range(students):
        if student < mistaken:
            planted = rng.choices(PLANTED, weights=[p.share for p in PLANTED])[0]
            plan += [(student, planted)] * rng.randint(2, 4)
        else:
            if rng.random() < 0.5:
                plan.append((student, rng.choice(PLANTED)))
            plan.append((student, RIGHT))
    work, started = [], time.perf_counter()
    for student, planted in plan:
        report = judge.judge(_outputs(planted, inputs, noise)).to_dict()
        work.append(Work(student, planted.label, program(planted, rng), report))
    return work, time.perf_counter() - started


def store(session: Session, work: list[Work], students: int) -> dict[int, str]:
    """Write the class (enrolled in the first offering) and its graded submissions; returns
    each wrong submission's planted label by id."""
    shared = hash_password("bench-clusters-not-a-login")
    users = [
        User(email=f"clusters-{n}@example.org", name=f"Student {n}", password_hash=shared)
        for n in range(students)
    ]
    session.add_all(users)
    session.flush()
    first = session.execute(select(legacy_offering_id_query())).scalar_one()
    session.execute(
        insert(Enrollment),
        [
            {"offering_id": first, "user_id": u.id, "role": "student", "source": "admin"}
            for u in users
        ],
    )
    start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    rows = [
        Submission(
            user_id=users[item.student].id,
            exercise_slug=EXERCISE,
            framework="numpy",
            mode="submit",
            code=item.code,
            status="done",
            verdict=item.report["verdict"],
            score=item.report["score"],
            message=item.report["message"],
            report=item.report,
            duration_ms=1.0,
            created_at=start + dt.timedelta(minutes=n),
            behaviour_key=(item.report.get("behaviour") or {}).get("key"),
            offering_id=first,
        )
        for n, item in enumerate(work)
    ]
    session.add_all(rows)
    session.commit()
    return {
        row.id: item.label
        for row, item in zip(rows, work, strict=True)
        if item.report["verdict"] != "accepted"
    }


def score(clusters: list[Any], labels: dict[int, str]) -> dict[str, Any]:
    """Purity of every cluster, and whether each planted group is some cluster's majority."""
    purities: list[float] = []
    majorities: dict[str, Any] = {}
    for view in clusters:
        counts = Counter(labels[r.submission_id] for r in view.cluster.rows)
        label, top = counts.most_common(1)[0]
        purities.append(top / len(view.cluster.rows))
        majorities.setdefault(label, view)
    sizes = Counter(labels.values())
    found = {
        p.label: {
            "declared": p.declared,
            "submissions": sizes[p.label],
            "in_its_cluster": len(majorities[p.label].cluster.rows) if p.label in majorities else 0,
            "covered_by": majorities[p.label].misconception if p.label in majorities else None,
        }
        for p in PLANTED
    }
    return {
        "clusters": len(clusters),
        "min_purity": round(min(purities), 4) if purities else None,
        "all_found": all(p.label in majorities for p in PLANTED),
        "groups": found,
    }


def measure(session: Session, students: int, *, repeats: int = 3) -> dict[str, Any]:
    """Generate, judge, store and cluster the class; the figures the note quotes."""
    work, judging = generate(students)
    labels = store(session, work, students)
    timings = []
    place = Place(Course())  # the first offering; clustering reads no content
    for _ in range(repeats):
        started = time.perf_counter()
        found = exercise_clusters(session=session, slug=EXERCISE, place=place)
        timings.append(time.perf_counter() - started)
    return {
        "students": students,
        "submissions": len(work),
        "wrong_submissions": len(labels),
        "judge_ms_per_submission": round(1000 * judging / len(work), 2),
        "cluster_seconds_first": round(timings[0], 3),
        "cluster_seconds_median": round(statistics.median(timings), 3),
        **score(found.clusters, labels),
    }


def run_clusters(students: int) -> dict[str, Any]:
    """`bench --scenario clusters`: the class in a throwaway data directory, then removed."""
    import os
    import tempfile

    from app.config import get_settings
    from app.db import dispose_engines, get_engine, session_factory
    from app.migrate import upgrade_head

    saved = {k: os.environ.get(k) for k in ("APP_DATA_DIR", "DATABASE_URL")}
    with tempfile.TemporaryDirectory(prefix="bench-clusters-") as folder:
        os.environ["APP_DATA_DIR"] = folder
        os.environ.pop("DATABASE_URL", None)
        get_settings.cache_clear()
        get_engine.cache_clear()
        try:
            upgrade_head()
            with session_factory()() as session:
                return measure(session, students)
        finally:
            dispose_engines()
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            get_settings.cache_clear()
            get_engine.cache_clear()


def table(found: dict[str, Any]) -> list[str]:
    """The figures as the bench prints them."""
    lines = [
        f"  {found['students']} students, {found['submissions']} submissions "
        f"({found['wrong_submissions']} wrong), judged at {found['judge_ms_per_submission']} ms "
        "each (signature included)",
        f"  clustered in {found['cluster_seconds_first']} s first, "
        f"{found['cluster_seconds_median']} s median (target <= 2 s for 1,000); "
        f"{found['clusters']} clusters, min purity {found['min_purity']} (target >= 0.9); "
        f"every planted group found: {found['all_found']}",
    ]
    for label, group in found["groups"].items():
        kind = "declared" if group["declared"] else "undeclared"
        lines.append(
            f"    {label} ({kind}): {group['in_its_cluster']} of {group['submissions']} in its "
            f"cluster; covered by {group['covered_by'] or 'no declared mistake'}"
        )
    return lines
