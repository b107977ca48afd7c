"""A warm server's later job gets nothing from an earlier job's code or data, in every framework.

For each kind of warm server (NumPy, torch, a JAX server warmed on its exercise, the safe JAX
server that warms a child ahead of each job, a Flax exercise's warmed server), one job plants
state everywhere it can reach (tests/graders/planted.py: module attributes and globals,
replaced functions, sys.modules, builtins, the environment, NumPy/torch/JAX/Flax settings and
random seeds, caches, threads, files, and a random secret in arrays, tensors, device buffers and
compiled programs) and then looks for each of its plants itself, which must find them all. The
next job of the same server looks for the same things and must find none, nor the secret
anywhere in its process's memory. JAX servers do this twice: with plants that leave the job on
the server's compiled programs, and with ones that make it compile (a reset in the child).

Real Grader, real bubblewrap, the exercises' own model solutions; one grader per kind.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graders.engine import Grader
from graders.host.forkserver import ForkServer
from graders.host.interpreter import PoolSettings
from graders.host.warmup import encode_warmup, warmup_bundles
from graders.report import Report
from tests.graders.planted import Secret, looking_job, new_secret, planting_job, plants_for
from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
GATHER = "position-embedding-gather"
FLAX = "learned-pos-embed-forward"
JAX_CACHE = str(ROOT / "var" / "jax-cache")
# A server replaced while nobody waits (a job that overran on a loaded machine) starts on spare
# CPU only: beside the other test worker's training at nice 0 that took over 180 s in CI, and
# 60-70 s beside two busy loops here, before this round's changes and after.
IDLE_WAIT_S = 600.0


@dataclass(frozen=True)
class Kind:
    """One kind of warm server and the exercise its jobs grade."""

    name: str
    plants: str  # the framework whose plants apply (planted.py)
    framework: str  # as graded
    exercise: str
    key: str  # the pool key of the server that takes the jobs
    sizes: dict[str, int]
    warmed: bool = False  # a JAX server warmed on its exercise
    rounds: tuple[bool, ...] = (True,)  # with plants that make JAX compile, or without

    def settings(self) -> PoolSettings:
        warmups = {}
        if self.warmed:
            warmups = {
                self.exercise: encode_warmup(warmup_bundles(ROOT / "exercises")[self.exercise])
            }
        return PoolSettings(
            sizes=self.sizes,
            warmups=warmups,
            jax_warm_up=self.warmed,
            jax_cache_dir=JAX_CACHE if self.warmed else None,
            fork_max_jobs=1000,
            ready_timeout_s=IDLE_WAIT_S,  # a loaded machine may take long to warm a JAX server
        )


JAX_ROUNDS = (False, True)
KINDS = [
    Kind("numpy", "numpy", "numpy", GATHER, "numpy", {"numpy": 1}),
    Kind("torch", "torch", "torch", GATHER, "torch", {"torch": 1}),
    Kind(
        "jax warmed", "jax", "jax", GATHER, f"jax:{GATHER}", {f"jax:{GATHER}": 1}, True, JAX_ROUNDS
    ),
    Kind("jax safe", "jax", "jax", GATHER, "jax", {"jax": 1}, rounds=JAX_ROUNDS),
    Kind("flax warmed", "flax", "jax", FLAX, f"jax:{FLAX}", {f"jax:{FLAX}": 1}, True, JAX_ROUNDS),
]


@pytest.fixture(scope="module", params=KINDS, ids=lambda kind: kind.name)
def warm(request: pytest.FixtureRequest) -> Iterator[tuple[Kind, Grader]]:
    kind: Kind = request.param
    grader = Grader(ROOT / "exercises", kind.settings())
    grader.start()
    try:
        # A job that waits for the server makes its start urgent (not on spare CPU only).
        model = _grade(grader, kind, _solution(kind))
        assert model.verdict == "accepted", model.message
        yield kind, grader
    finally:
        grader.stop()


def _idle(grader: Grader, key: str) -> ForkServer:
    """The idle server of `key` (waits while it cleans up or warms its next child)."""
    deadline = time.monotonic() + IDLE_WAIT_S
    while time.monotonic() < deadline:
        ready = list(grader.pool._ready.get(key, ()))
        if ready:
            assert len(ready) == 1 and isinstance(ready[0], ForkServer)
            return ready[0]
        time.sleep(0.05)
    raise AssertionError(f"no idle {key} server")


def _printed(report: Report, label: str) -> Any:
    lines = [line for line in report.stdout.splitlines() if line.startswith(label + " ")]
    assert len(lines) == 1, (
        f"{label} not printed once: {report.verdict} {report.message}\n{report.stdout}"
    )
    return ast.literal_eval(lines[0][len(label) + 1 :])


def _grade(grader: Grader, kind: Kind, code: str) -> Report:
    return grader.grade(exercise=kind.exercise, code=code, framework=kind.framework)


def _solution(kind: Kind) -> str:
    return (ROOT / "exercises" / kind.exercise / "solutions" / f"{kind.framework}.py").read_text()


def _plant(grader: Grader, kind: Kind, secret: Secret, *, compiles: bool) -> Report:
    """Run the planting job; check that each plant took (or may fail) and its look saw it."""
    plants = plants_for(kind.plants, compiles=compiles)
    report = _grade(
        grader, kind, planting_job(_solution(kind), kind.plants, secret, compiles=compiles)
    )
    failed = {name for name, _ in _printed(report, "PLANT-FAILED")}
    assert failed <= {p.name for p in plants if p.may_fail}, _printed(report, "PLANT-FAILED")
    seen, errors = _printed(report, "SAME-JOB")
    assert errors == [], errors
    expected = {p.name for p in plants if p.look != "False" and p.name not in failed}
    assert set(seen) == expected, f"looks that missed their own plant: {expected - set(seen)}"
    return report


def test_a_later_job_of_the_same_server_finds_nothing_an_earlier_job_planted(
    warm: tuple[Kind, Grader],
) -> None:
    kind, grader = warm
    for compiles in kind.rounds:
        secret = new_secret()
        server = _idle(grader, kind.key)
        jobs = server.jobs
        planted = _plant(grader, kind, secret, compiles=compiles)
        if kind.warmed:  # which path of the warmed server's child the plants took
            assert planted.new_compilation is compiles, planted.stdout
        assert _idle(grader, kind.key) is server, "the server was replaced after the planting job"
        looked = _grade(grader, kind, looking_job(_solution(kind), kind.plants, secret))
        assert _printed(looked, "FOUND") == ([], []), looked.message
        assert looked.verdict == "accepted", looked.message
        assert _idle(grader, kind.key) is server
        assert server.jobs == jobs + 2  # both jobs were children of this one server
