"""Similar submissions: renamed copies rank first, what everybody writes does not count."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import ROOT
from app.instructor.similarity import Final, segments, similar_pairs
from app.users.models import Role
from tests.conftest import run_cli
from tests.instructor.conftest import add_submission, person

EXERCISE = "position-embedding-gather"
SOLUTION = (ROOT / "exercises" / EXERCISE / "solutions" / "numpy.py").read_text()
STARTER = (ROOT / "exercises" / EXERCISE / "starter" / "numpy.py").read_text()

LOOPS = """import numpy as np


def position_embedding_gather(positions, embedding_table):
    batch, steps = positions.shape
    width = embedding_table.shape[1]
    out = np.zeros((batch, steps, width), dtype=embedding_table.dtype)
    for n in range(batch):
        for t in range(steps):
            row = int(positions[n, t])
            out[n, t, :] = embedding_table[row, :]
    return out
"""
# The same program with every name changed and comments added: what copying looks like.
RENAMED = """import numpy as np


def position_embedding_gather(positions, embedding_table):
    # sizes first
    b_sz, t_sz = positions.shape
    dim = embedding_table.shape[1]
    result = np.zeros((b_sz, t_sz, dim), dtype=embedding_table.dtype)
    for i in range(b_sz):
        for j in range(t_sz):
            k = int(positions[i, j])  # the row to copy
            result[i, j, :] = embedding_table[k, :]
    return result
"""
TAKE = """import numpy as np


def position_embedding_gather(positions, embedding_table):
    index = np.rint(positions).astype(int)
    flat = np.take(embedding_table, index.reshape(-1), axis=0)
    return flat.reshape(*index.shape, embedding_table.shape[-1])
"""


def _final(n: int, code: str, framework: str = "numpy") -> Final:
    return Final(n, n, f"student {n}", framework, code)


def test_a_renamed_copy_ranks_first_and_independent_work_scores_low() -> None:
    group = [_final(1, LOOPS), _final(2, RENAMED), _final(3, TAKE), _final(4, SOLUTION)]
    pairs = similar_pairs(group, shared_code=[STARTER, SOLUTION])
    top = pairs[0]
    assert {top.a.submission_id, top.b.submission_id} == {1, 2}
    assert top.score > 0.8
    others = [p.score for p in pairs[1:]]
    assert all(score < 0.3 for score in others), others


def test_the_model_solution_and_the_starter_are_what_everybody_shares() -> None:
    group = [_final(1, SOLUTION), _final(2, SOLUTION + "\n# done\n"), _final(3, TAKE)]
    assert similar_pairs(group, shared_code=[STARTER, SOLUTION]) == []
    # without that knowledge the two verbatim model solutions would be the top lead
    assert similar_pairs(group, shared_code=[])[0].score > 0.8


def test_code_most_submissions_contain_is_left_out_of_the_score() -> None:
    common = LOOPS
    group = [_final(n, common + f"\nvalue_{n} = {n}\n") for n in range(1, 6)]
    assert similar_pairs(group, shared_code=[]) == []


def test_segments_mark_the_shared_runs_and_keep_every_character() -> None:
    code = "abcdefghij"
    parts = segments(code, [(2, 4), (6, 9)])
    assert "".join(text for text, _ in parts) == code
    assert [text for text, shared in parts if shared] == ["cd", "ghi"]


@pytest.fixture
def copied(client: TestClient) -> dict[str, int | dict[str, str]]:
    """Three students' finals (two alike) and an instructor's header."""
    now = dt.datetime.now(dt.UTC)
    ids = {}
    for n, code in enumerate([LOOPS, RENAMED + "\n# <script>alert(1)</script>\n", TAKE]):
        uid, _ = person(f"s{n}@example.org", name=f"Student {n}")
        add_submission(uid, EXERCISE, [False], now - dt.timedelta(minutes=5), code=STARTER)
        ids[f"s{n}"] = add_submission(uid, EXERCISE, [True], now, code=code)
    _, header = person("teacher@example.org", role=Role.instructor)
    return {**ids, "header": header}


def test_an_instructor_sees_pairs_side_by_side_with_the_caveat(
    client: TestClient, copied: dict[str, object]
) -> None:
    header = copied["header"]
    assert isinstance(header, dict)
    listing = client.get(f"/instructor/exercises/{EXERCISE}/similar", headers=header)
    assert listing.status_code == 200 and "never a verdict" in listing.text
    assert "3 final submissions" in listing.text
    pairs = client.get(f"/api/instructor/exercises/{EXERCISE}/similarity", headers=header).json()
    assert {pairs[0]["a"], pairs[0]["b"]} == {copied["s0"], copied["s1"]}
    side = client.get(
        f"/instructor/exercises/{EXERCISE}/similar/{copied['s0']}/{copied['s1']}", headers=header
    )
    assert side.status_code == 200 and "<mark>" in side.text
    assert "<script>alert" not in side.text and "&lt;script&gt;" in side.text
    stranger = client.get(f"/instructor/exercises/{EXERCISE}/similar/1/99999", headers=header)
    assert stranger.status_code == 404


def test_students_cannot_see_similarity(client: TestClient, copied: dict[str, object]) -> None:
    _, student = person("nosy@example.org")
    for path in (
        f"/instructor/exercises/{EXERCISE}/similar",
        f"/instructor/exercises/{EXERCISE}/similar/{copied['s0']}/{copied['s1']}",
        f"/api/instructor/exercises/{EXERCISE}/similarity",
    ):
        assert client.get(path, headers=student).status_code == 403, path


def test_similarity_cli_prints_pairs_then_json(copied: dict[str, object], data_dir: Path) -> None:
    result = run_cli("similarity", EXERCISE, "--json", env={"APP_DATA_DIR": str(data_dir)})
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout.strip().splitlines()[-1])
    assert {rows[0]["a"], rows[0]["b"]} == {copied["s0"], copied["s1"]}
    assert 0 < rows[0]["score"] <= 1
    missing = run_cli("similarity", "no-such", env={"APP_DATA_DIR": str(data_dir)})
    assert missing.returncode == 1 and "no exercise called 'no-such'" in missing.stderr


def test_similarity_cli_reads_the_offering_a_script_names(
    copied: dict[str, object], data_dir: Path
) -> None:
    from app.db import session_factory
    from app.offerings.service import create_offering, first_offering

    with session_factory()() as session:
        first = first_offering(session=session).id
        session.commit()
        later = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        ).id
    env = {"APP_DATA_DIR": str(data_dir)}
    scoped = run_cli(
        "similarity",
        EXERCISE,
        "--course",
        "positional-embeddings",
        "--offering",
        str(first),
        "--json",
        env=env,
    )
    assert scoped.returncode == 0, scoped.stderr
    rows = json.loads(scoped.stdout.strip().splitlines()[-1])
    assert {rows[0]["a"], rows[0]["b"]} == {copied["s0"], copied["s1"]}
    empty = run_cli("similarity", EXERCISE, "--offering", str(later), "--json", env=env)
    assert empty.returncode == 0, empty.stderr
    assert json.loads(empty.stdout.strip().splitlines()[-1]) == []  # nobody of that offering


def test_each_offering_compares_only_the_finals_made_in_it(
    client: TestClient, data_dir: Path
) -> None:
    # Issue 27: a member of one offering sees nothing of another. Ann and Bob are students of
    # two offerings and copied in both; each offering's pairs are of the finals sent in it,
    # though the later offering's are the latest they sent.
    from app.db import session_factory
    from app.offerings.models import OfferingRole
    from app.offerings.service import create_offering, enroll, first_offering
    from app.users.models import User

    ann, _ = person("ann@example.org", name="Ann")
    bob, _ = person("bob@example.org", name="Bob")
    tess, header = person("teacher@example.org", role=Role.instructor)
    with session_factory()() as session:
        first = first_offering(session=session).id
        spring = create_offering(
            session=session, course_slug="positional-embeddings", title="Spring 2027"
        )
        for uid, role in (
            (ann, OfferingRole.student),
            (bob, OfferingRole.student),
            (tess, OfferingRole.instructor),
        ):
            user = session.get(User, uid)
            assert user is not None
            enroll(session=session, offering=spring, user=user, role=role)
        second = spring.id
    now = dt.datetime.now(dt.UTC)
    earlier = now - dt.timedelta(days=90)
    made = {
        first: {
            add_submission(ann, EXERCISE, [True], earlier, code=LOOPS, offering_id=first),
            add_submission(bob, EXERCISE, [True], earlier, code=RENAMED, offering_id=first),
        },
        second: {
            add_submission(ann, EXERCISE, [True], now, code=RENAMED, offering_id=second),
            add_submission(bob, EXERCISE, [True], now, code=LOOPS, offering_id=second),
        },
    }
    for offering, ids in made.items():
        prefix = f"/offerings/{offering}"
        pairs = client.get(
            f"{prefix}/api/instructor/exercises/{EXERCISE}/similarity", headers=header
        ).json()
        assert [{p["a"], p["b"]} for p in pairs] == [ids], offering
        listing = client.get(f"{prefix}/instructor/exercises/{EXERCISE}/similar", headers=header)
        assert "2 final submissions" in listing.text
        other = made[second if offering == first else first]
        a, b = sorted(other)
        elsewhere = client.get(
            f"{prefix}/instructor/exercises/{EXERCISE}/similar/{a}/{b}", headers=header
        )
        assert elsewhere.status_code == 404, offering
    scoped = run_cli(
        "similarity",
        EXERCISE,
        "--offering",
        str(first),
        "--json",
        env={"APP_DATA_DIR": str(data_dir)},
    )
    assert scoped.returncode == 0, scoped.stderr
    rows = json.loads(scoped.stdout.strip().splitlines()[-1])
    assert [{r["a"], r["b"]} for r in rows] == [made[first]]


def test_scores_are_the_same_in_every_process() -> None:
    # copydetect's own k-gram hash is Python's hash(), new in every process: pages, the CLI
    # and a restart ranked one class differently until the fingerprint was made stable.
    script = (
        "import json, sys; sys.path.insert(0, '.');"
        "from tests.instructor.test_similarity import LOOPS, RENAMED, SOLUTION, STARTER, TAKE,"
        " _final;"
        "from app.instructor.similarity import similar_pairs;"
        "group = [_final(n, c) for n, c in enumerate([LOOPS, RENAMED, TAKE, SOLUTION], start=1)];"
        "pairs = similar_pairs(group, shared_code=[STARTER]);"
        "print(json.dumps([[p.a.submission_id, p.b.submission_id, round(p.score, 9)]"
        " for p in pairs]))"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        .stdout.strip()
        .splitlines()[-1]
        for seed in ("1", "2", "3")
    ]
    assert runs[0] == runs[1] == runs[2]
    assert json.loads(runs[0])  # the copies are found
