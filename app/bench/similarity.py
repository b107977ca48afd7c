"""The `similarity` scenario: a class's final submissions compared, as an instructor asks.

300 students' finals of one exercise (written in a handful of styles, each student's own names,
comments and layout, plus a few planted copies: another student's file with every name changed)
are stored in the deployment's database; then `python -m app similarity` compares them, as an
instructor or script would. Reported: the wall time (target: under a minute for 300) and where
the planted copies rank.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, select

from app.bench.pages import seed_students
from app.bench.server import Deployment
from app.config import Settings
from app.submissions.models import Submission
from app.users.models import User
from graders import Report

EXERCISE = "position-embedding-gather"
PLANTED = 5
STYLES = [
    """import numpy as np


def position_embedding_gather(positions, embedding_table):
    {ids} = np.asarray(positions).astype(np.int64)
    return np.asarray(embedding_table)[{ids}]
""",
    """import numpy as np


def position_embedding_gather(positions, embedding_table):
    {ids} = np.rint(positions).astype(int)
    {rows} = np.take(embedding_table, {ids}.reshape(-1), axis=0)
    return {rows}.reshape({ids}.shape[0], {ids}.shape[1], embedding_table.shape[1])
""",
    """import numpy as np


def position_embedding_gather(positions, embedding_table):
    {n}, {t} = positions.shape
    {out} = np.zeros(({n}, {t}, embedding_table.shape[1]), dtype=embedding_table.dtype)
    for {i} in range({n}):
        for {j} in range({t}):
            {out}[{i}, {j}] = embedding_table[int(positions[{i}, {j}])]
    return {out}
""",
    """import numpy as np


def position_embedding_gather(positions, embedding_table):
    {ids} = positions.astype(np.int32)
    {eye} = np.eye(embedding_table.shape[0], dtype=embedding_table.dtype)[{ids}]
    return {eye} @ embedding_table
""",
    """import numpy as np


def position_embedding_gather(positions, embedding_table):
    {rows} = [[embedding_table[int(p)] for p in {line}] for {line} in positions]
    return np.array({rows}, dtype=embedding_table.dtype)
""",
]
# Lines a student may add of their own (checks, casts, notes): the mix is what makes a file theirs.
EXTRAS = [
    "if positions.ndim != 2:\n        raise ValueError('positions must be (N, T)')",
    "assert embedding_table.ndim == 2, embedding_table.shape",
    "{x} = embedding_table.shape[0]",
    "if np.any(positions < 0):\n        raise ValueError('negative position')",
    "positions = np.asarray(positions)",
    "embedding_table = np.asarray(embedding_table, dtype=np.float32)",
    "{y} = positions.size",
    "if positions.size == 0:\n        return np.zeros((0, 0, embedding_table.shape[1]))",
    "{x} = int(positions.max()) if positions.size else 0",
    "{y} = embedding_table.dtype",
    "assert positions.shape[0] > 0",
    "print('shapes', positions.shape, embedding_table.shape)",
]
NAMES = ["idx", "ids", "index", "pos", "p", "k", "rows", "res", "result", "out", "emb", "vals"]
NAMES += ["n", "t", "b", "i", "j", "line", "eye", "onehot", "gathered", "tmp", "x", "y"]


def _student_code(rng: random.Random) -> str:
    style = rng.choice(STYLES)
    head, _, body = style.partition("):\n")
    extras = ["    " + line for line in rng.sample(EXTRAS, rng.randint(2, 5))]
    style = head + "):\n" + "\n".join(extras) + "\n" + body
    fields = set(re.findall(r"{(\w+)}", style))
    chosen = rng.sample(NAMES, len(fields))
    code = style.format(**dict(zip(sorted(fields), chosen, strict=True)))
    lines = code.splitlines()
    if rng.random() < 0.5:
        lines.insert(5, f"    # {rng.choice(['look up rows', 'gather', 'my solution', 'todo'])}")
    if rng.random() < 0.3:
        lines.insert(4, f'    """{rng.choice(["Rows per token.", "Gather.", "Lookup."])}"""')
    return "\n".join(lines) + "\n"


def _renamed(code: str, rng: random.Random) -> str:
    """A copy with every local name changed and a comment added: what copying looks like."""
    names = sorted(set(re.findall(r"\b(" + "|".join(NAMES) + r")\b", code)))
    fresh = rng.sample([n + "_" + str(rng.randint(1, 9)) for n in NAMES], len(names))
    for old, new in zip(names, fresh, strict=True):
        code = re.sub(rf"\b{old}\b", new, code)
    return code.replace("    return", "    # done\n    return", 1)


def seed_finals(env: dict[str, str], count: int) -> list[tuple[int, int]]:
    """Store `count` students' finals; return the planted (original, copy) submission pairs."""
    rng = random.Random(23)  # noqa: S311 - a repeatable class, not a secret
    students = seed_students(env, count, "similar")
    codes = [_student_code(rng) for _ in range(count)]
    planted = []
    for k in range(PLANTED):
        source, copy = 2 * k, count - 1 - k
        codes[copy] = _renamed(codes[source], rng)
        planted.append((source, copy))
    settings = Settings(
        app_data_dir=Path(env["APP_DATA_DIR"]), database_url=env.get("DATABASE_URL") or None
    )
    engine = create_engine(settings.sqlalchemy_url)
    emails = [f"pages-similar-{n}@example.org" for n in range(len(students))]
    now = dt.datetime.now(dt.UTC)
    with engine.begin() as conn:
        found = conn.execute(select(User.email, User.id).where(User.email.in_(emails)))
        users = {email: uid for email, uid in found}
        ids = [
            conn.execute(  # type: ignore[index]
                insert(Submission).values(
                    user_id=users[email],
                    exercise_slug=EXERCISE,
                    framework="numpy",
                    mode="submit",
                    code=code,
                    status="done",
                    verdict="accepted",
                    score=1.0,
                    message="",
                    report=Report("accepted", 1.0, "", 0.0).to_dict(),
                    created_at=now,
                )
            ).inserted_primary_key[0]
            for email, code in zip(emails, codes, strict=True)
        ]
    engine.dispose()
    return [(ids[a], ids[b]) for a, b in planted]


def similarity(run: Deployment, count: int) -> dict[str, Any]:
    """Seed the finals, time the `similarity` command, and rank the planted copies."""
    planted = seed_finals(run.env, count)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "app", "similarity", EXERCISE, "--json", "--top", "0"],
        env=run.env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        return {"submissions": count, "error": done.stderr.strip()[-300:]}
    pairs = json.loads(done.stdout.strip().splitlines()[-1])
    rank = {frozenset((p["a"], p["b"])): n for n, p in enumerate(pairs, start=1)}
    ranks = [rank.get(frozenset(pair)) for pair in planted]
    return {
        "submissions": count,
        "seconds": round(seconds, 2),
        "pairs": len(pairs),
        "planted": len(planted),
        "planted_in_top_10": sum(1 for r in ranks if r is not None and r <= 10),
        "planted_ranks": ranks,
    }
