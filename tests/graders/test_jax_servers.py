"""JAX fork servers: a warmed server forks each job; code that needs a new compilation (which
would hang on the server's client in a forked child) is run again in that child on a JAX client
of its own (graders/inside/jax_child.py); the safe kind, which forks before JAX starts, is the
last resort.

Real Grader, real bubblewrap, the exercise's own model solution and declared mistakes.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from graders import protocol
from graders.engine import Grader
from graders.host.forkserver import ForkServer
from graders.host.interpreter import PoolSettings, start_interpreter
from graders.host.warmup import encode_warmup, warmup_bundles
from graders.jobs import encode_job
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
    # One warmed server, for the exercise these tests grade (the default warms every JAX
    # exercise's: seven servers' warm-ups this module never uses).
    warmup = encode_warmup(warmup_bundles(ROOT / "exercises")[EXERCISE])
    settings = PoolSettings(
        sizes={"jax": 1, f"jax:{EXERCISE}": 1},
        warmups={EXERCISE: warmup},
        jax_cache_dir=str(ROOT / "var" / "jax-cache"),
        fork_max_jobs=1000,
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


# Loads only when the server it was forked from made at most three MLIR contexts: two for
# starting its backend, one for its whole warm-up (it made one per program, more than thirty
# here: 4 of the ~17 ms each program cost).
CONTEXTS_MADE = MODEL.replace(
    "import jax.numpy as jnp\n",
    "import jax.numpy as jnp\nimport jax_child\n"
    "MADE = sum(type(kept).__name__ == 'JaxIrContext' for kept in jax_child._KEPT)\n"
    "assert 1 <= MADE <= 3, f'the server made {MADE} MLIR contexts'\n",
    1,
)


def test_the_server_warms_up_in_one_mlir_context(grader: Grader) -> None:
    _fast_server(grader)
    report = grader.grade(exercise=EXERCISE, code=CONTEXTS_MADE, framework="jax")
    assert report.verdict == "accepted", report.message
    assert report.new_compilation is False  # it ran on what the server loaded


@pytest.fixture
def attempts(grader: Grader, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None]]:
    """The pool key and exit code of every attempt the grader makes (fast, then maybe fresh)."""
    seen: list[tuple[str, int | None]] = []
    original = grader._attempt

    def attempt(key: str, *args: Any, **kwargs: Any) -> Any:
        run = original(key, *args, **kwargs)
        seen.append((key, run.exit_code))
        return run

    monkeypatch.setattr(grader, "_attempt", attempt)
    return seen


def test_code_that_needs_a_new_compilation_is_graded_in_the_warmed_child(
    grader: Grader, attempts: list[tuple[str, int | None]]
) -> None:
    server = _fast_server(grader)
    attempts.clear()
    report = grader.grade(exercise=EXERCISE, code=NOVEL, framework="jax")
    assert report.verdict == "accepted", report.message
    # One attempt, on the warmed server: its child compiled on a client of its own (exit 87).
    assert attempts == [(f"jax:{EXERCISE}", protocol.RAN_AFTER_RESET)]
    assert report.new_compilation is True  # what the benchmark counts
    assert list(grader.pool._ready[f"jax:{EXERCISE}"]) == [server]
    assert grader.grade(exercise=EXERCISE, code=MODEL, framework="jax").verdict == "accepted"


def test_a_wrong_novel_answer_is_judged_in_the_warmed_child_too(
    grader: Grader, attempts: list[tuple[str, int | None]]
) -> None:
    _fast_server(grader)
    attempts.clear()
    wrong = NOVEL.replace("embedding_table)\n", "embedding_table) * 2.0\n")
    report = grader.grade(exercise=EXERCISE, code=wrong, framework="jax")
    assert report.verdict == "wrong_answer"
    assert "multiplied by about 2" in report.tests[0].message
    assert attempts == [(f"jax:{EXERCISE}", protocol.RAN_AFTER_RESET)]


def test_the_abandoned_attempt_leaves_no_output_behind(grader: Grader) -> None:
    _fast_server(grader)
    code = "print('loaded')\n" + NOVEL.replace(
        "    one_hot =", "    print('called')\n    one_hot ="
    )
    report = grader.grade(exercise=EXERCISE, code=code, framework="jax")
    assert report.verdict == "accepted", report.message
    cases = len(grader.spec(EXERCISE).cases)
    # Printed once per run of the file and once per case: the first attempt's prints are gone.
    assert report.stdout.count("loaded") == 1, report.stdout
    assert report.stdout.count("called") == cases, report.stdout


def test_a_job_that_loops_after_the_reset_still_times_out(grader: Grader) -> None:
    _fast_server(grader)
    spec = grader.spec(EXERCISE)
    code = NOVEL.replace(
        "    return jnp.einsum", "    while True:\n        pass\n    return jnp.einsum"
    )
    job = encode_job(
        protocol.Job(
            entry_name=spec.entry_name,
            entry_kind=spec.entry_kind,
            framework="jax",
            mode="submit",
            code=code,
            cases=[protocol.JobCase(c.index, dict(c.inputs)) for c in spec.cases[:1]],
            memory_mb=spec.memory_mb,
            cpu_seconds=60,
        )
    )
    # The warmed server's own attempt, without the grader's fresh re-run: its clock still holds.
    run = grader._attempt(f"jax:{EXERCISE}", job, spec, spec.cases[:1], 2000, spec.memory_mb)
    assert run.timed_out
    assert run.exit_code != protocol.NEEDS_FRESH_JAX


def test_a_child_that_reset_cannot_write_the_compilation_cache(
    grader: Grader, attempts: list[tuple[str, int | None]]
) -> None:
    _fast_server(grader)
    cache = ROOT / "var" / "jax-cache" / EXERCISE  # the part this server binds
    before = sorted(p.name for p in cache.iterdir())
    code = NOVEL.replace(
        "    one_hot =",
        """    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_compilation_cache_dir", "/grader/jax-cache")
    jax.jit(lambda a: a * 3.0 + 1.0)(embedding_table).block_until_ready()  # a new program
    try:
        open("/grader/jax-cache/planted", "w").write("x")
    except OSError:
        pass
    else:
        embedding_table = embedding_table + 1.0  # a wrong answer says the write worked
    one_hot =""",
    ).replace("import jax.numpy as jnp", "import jax\nimport jax.numpy as jnp")
    attempts.clear()
    report = grader.grade(exercise=EXERCISE, code=code, framework="jax")
    assert report.verdict == "accepted", report.message
    # it did run after a reset in the child
    assert attempts == [(f"jax:{EXERCISE}", protocol.RAN_AFTER_RESET)]
    assert sorted(p.name for p in cache.iterdir()) == before


def _thread_names(pid: int) -> list[str]:
    """Thread names of a process and all its descendants (the sandbox's server is one of them)."""
    names: list[str] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        names.append((task / "comm").read_text().strip())
        for child in (task / "children").read_text().split():
            names += _thread_names(int(child))
    return names


# A program of several functions (each `jax.jit` inside another becomes a function of its own):
# MLIR verifies it on its thread pool. Each variant is new to the server.
SEVERAL_FUNCTIONS = """
import jax
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    rows = jax.jit(lambda t, i: jnp.take(t, i, axis=0))
    scale = jax.jit(lambda x: x * {factor})
    return jax.jit(lambda t, i: scale(rows(t, i)))(embedding_table, positions.astype(jnp.int32))
"""


def test_new_programs_of_several_functions_finish_in_the_warmed_child(
    grader: Grader, attempts: list[tuple[str, int | None]]
) -> None:
    server = _fast_server(grader)
    # The hazard is there: warm-up started the server's MLIR workers, which no child inherits.
    assert any(name.startswith("llvm-worker") for name in _thread_names(server.proc.pid))
    for factor, verdict in (("1.0", "accepted"), ("2.0", "wrong_answer"), ("1.00", "accepted")):
        attempts.clear()
        report = grader.grade(
            exercise=EXERCISE, code=SEVERAL_FUNCTIONS.format(factor=factor), framework="jax"
        )
        # Finished within the job's own time limit, on the warmed server, after a reset: before
        # the child had an MLIR pool of its own, each of these waited until that limit.
        assert report.verdict == verdict, report.message
        assert attempts == [(f"jax:{EXERCISE}", protocol.RAN_AFTER_RESET)]


# The model solution, after a copy of 800 kB into a JAX array: XLA's CPU client makes such a copy
# (of an array not aligned for sharing) on its worker threads, which no forked child has.
BIG_COPY = MODEL.replace(
    "def position_embedding_gather",
    "import numpy\n\nBIG = jnp.asarray(numpy.ones(200_001, numpy.float32)[1:])\n\n\n"
    "def position_embedding_gather",
)


def test_a_job_waiting_on_threads_fork_did_not_copy_runs_again_in_the_warmed_child(
    grader: Grader, attempts: list[tuple[str, int | None]]
) -> None:
    _fast_server(grader)
    assert "import jax.numpy as jnp" in MODEL and BIG_COPY != MODEL
    attempts.clear()
    report = grader.grade(exercise=EXERCISE, code=BIG_COPY, framework="jax")
    # Before the child's watch, it waited for those threads until its time limit.
    assert report.verdict == "accepted", report.message
    assert attempts == [(f"jax:{EXERCISE}", protocol.RAN_AFTER_RESET)]


def _harness_pid(bwrap_pid: int) -> int | None:
    """The sandbox's pid 1 (the harness), as the host numbers it."""
    for task in Path(f"/proc/{bwrap_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            argv = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            if b"/grader/harness.py" in argv:
                return int(child)
    return None


@pytest.mark.parametrize("nobody_waits", [True, False])
def test_a_warming_server_runs_on_spare_cpu_and_serves_at_its_own_priority(
    nobody_waits: bool,
) -> None:
    # Its warm-up (seconds of compiling) once took as large a share of the CPU as the whole web
    # tier right after a start (issue 23); a start a job waits for is not background work, and
    # a server's forks and clean-ups between jobs do not wait either.
    if not Path("/proc/self/autogroup").exists():
        pytest.skip("this kernel does not group sessions (no autogroup): nothing to lower")
    warmup = encode_warmup(warmup_bundles(ROOT / "exercises")[EXERCISE])
    settings = PoolSettings(
        sizes={}, warmups={EXERCISE: warmup}, jax_cache_dir=str(ROOT / "var" / "jax-cache")
    )
    proc = start_interpreter(f"jax:{EXERCISE}", settings, background=nobody_waits)
    seen: list[str] = []
    ready = threading.Event()
    waiting = threading.Thread(target=lambda: (proc.wait_ready(120), ready.set()))
    waiting.start()
    try:
        while not ready.is_set() and waiting.is_alive():
            pid = _harness_pid(proc.pid)
            if pid is not None:
                with contextlib.suppress(OSError):  # between two reads it may have gone
                    nice = Path(f"/proc/{pid}/autogroup").read_text().split()[-1]
                    if not seen or seen[-1] != nice:
                        seen.append(nice)
            time.sleep(0.01)
        waiting.join()
        assert ready.is_set(), "the server never got ready"
        pid = _harness_pid(proc.pid)
        assert pid is not None
        seen.append(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
    finally:
        proc.kill_tree()
        proc.close()
    assert seen[-1] == "10", seen
    assert ("19" in seen) == nobody_waits, seen
