"""JAX fork servers: a warmed server forks each job; code that needs a new compilation (which
would hang in a forked child) is run again on the safe kind, which forks before JAX starts.

Real Grader, real bubblewrap, the exercise's own model solution and declared mistakes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from graders.engine import Grader
from graders.forkserver import ForkServer
from graders.pool import PoolSettings
from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = "position-embedding-gather"
FOLDER = ROOT / "exercises" / EXERCISE
MODEL = (FOLDER / "solutions" / "jax.py").read_text()
MISTAKE = next(
    m
    for m in yaml.safe_load((FOLDER / "mistakes.yaml").read_text())["mistakes"]
    if m["framework"] == "jax"
)
# Right, but through programs no warm-up compiled (one-hot matrix product).
NOVEL = """
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    one_hot = positions.astype(jnp.int32)[..., None] == jnp.arange(embedding_table.shape[0])
    return jnp.einsum("ntm,md->ntd", one_hot.astype(embedding_table.dtype), embedding_table)
"""


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    settings = PoolSettings(
        sizes={"jax": 1}, jax_cache_dir=str(ROOT / "var" / "jax-cache"), fork_max_jobs=1000
    )
    grader = Grader(ROOT / "exercises", settings)
    grader.start()
    try:
        yield grader
    finally:
        grader.stop()


def _fast_server(grader: Grader) -> ForkServer:
    """The idle warmed server (waits for it: on a busy machine it may have been replaced)."""
    grader.grade(exercise=EXERCISE, code=MODEL, framework="jax")  # waits for the pool
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready = list(grader.pool._ready[f"jax:{EXERCISE}"])
        if ready:
            assert len(ready) == 1 and isinstance(ready[0], ForkServer)
            return ready[0]
        time.sleep(0.1)
    raise AssertionError("no warmed JAX server became ready")


def test_model_solution_and_declared_mistakes_run_on_the_warmed_server(grader: Grader) -> None:
    server = _fast_server(grader)
    jobs = server.jobs
    model = grader.grade(exercise=EXERCISE, code=MODEL, framework="jax")
    assert model.verdict == "accepted"
    report = grader.grade(exercise=EXERCISE, code=MISTAKE["code"], framework="jax")
    assert report.verdict == "wrong_answer"
    # Both ran on what the server had compiled, and the report says so.
    assert model.new_compilation is False and report.new_compilation is False
    assert model.to_dict()["new_compilation"] is False
    assert server.jobs >= jobs + 2  # both forked from the same warmed server
    assert list(grader.pool._ready[f"jax:{EXERCISE}"]) == [server]


def test_code_that_needs_a_new_compilation_is_graded_on_a_fresh_jax(grader: Grader) -> None:
    server = _fast_server(grader)
    report = grader.grade(exercise=EXERCISE, code=NOVEL, framework="jax")
    assert report.verdict == "accepted", report.message
    assert report.new_compilation is True  # what the benchmark counts
    # The warmed server handed the job on and stays: a new compilation is not a fault.
    assert list(grader.pool._ready[f"jax:{EXERCISE}"]) == [server]
    assert grader.grade(exercise=EXERCISE, code=MODEL, framework="jax").verdict == "accepted"


def test_a_wrong_novel_answer_is_judged_on_the_fresh_jax_too(grader: Grader) -> None:
    wrong = NOVEL.replace("embedding_table)\n", "embedding_table) * 2.0\n")
    report = grader.grade(exercise=EXERCISE, code=wrong, framework="jax")
    assert report.verdict == "wrong_answer"
    assert "multiplied by about 2" in report.tests[0].message
