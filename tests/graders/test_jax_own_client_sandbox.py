"""`jax_own_client` (off by default): each job of a JAX exercise runs in a child that started a
client of its own and warmed up ahead of it, so a new program compiles natively, with no reset,
and the child is used once (docs/jax-fork-reset.md, "A child that never resets").

Real Grader, real bubblewrap, the exercise's own model solution (scenario: starts JAX servers).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graders.engine import Grader
from graders.host.interpreter import PoolSettings
from graders.host.warmup import encode_warmup, warmup_bundles
from tests.graders.sandbox.helpers import requires_sandbox

pytestmark = requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = "position-embedding-gather"
FLAX = "learned-pos-embed-forward"
MODEL = (ROOT / "exercises" / EXERCISE / "solutions" / "jax.py").read_text()
# Right, but through programs no warm-up compiled (one-hot matrix product).
NOVEL = """
import jax.numpy as jnp


def position_embedding_gather(positions, embedding_table):
    one_hot = positions.astype(jnp.int32)[..., None] == jnp.arange(embedding_table.shape[0])
    return jnp.einsum("ntm,md->ntd", one_hot.astype(embedding_table.dtype), embedding_table)
"""
# Right, and leaves state behind wherever a later job in the same process or sandbox could look.
PLANT = (
    "import os, jax, jax.numpy as jnp\n"
    "jax.planted = True\n"
    "os.environ['PLANTED'] = '1'\n"
    "open('/tmp/planted', 'w').write('x')\n"
    "_take = jnp.take\n"
    "jnp.take = lambda *a, **k: _take(*a, **k) * 2\n" + MODEL
)
# Right only where none of that state is found.
LOOK = (
    "import os, jax, jax.numpy as jnp\n"
    "FOUND = hasattr(jax, 'planted') or 'PLANTED' in os.environ or os.path.exists('/tmp/planted')"
    " or jnp.take.__name__ == '<lambda>'\n"
    + MODEL.replace("return ", "return (2 if FOUND else 1) * ")
)


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    bundles = warmup_bundles(ROOT / "exercises")
    settings = PoolSettings(
        sizes={"jax": 0, f"jax:{EXERCISE}": 1, f"jax:{FLAX}": 1},
        warmups={slug: encode_warmup(bundles[slug]) for slug in (EXERCISE, FLAX)},
        jax_cache_dir=str(ROOT / "var" / "jax-cache"),
        jax_own_client=True,
    )
    grader = Grader(ROOT / "exercises", settings)
    grader.start()
    try:
        yield grader
    finally:
        grader.stop()


@pytest.fixture
def attempts(grader: Grader, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None]]:
    """The pool key and exit code of every attempt the grader makes."""
    seen: list[tuple[str, int | None]] = []
    original = grader._attempt

    def attempt(key: str, *args: Any, **kwargs: Any) -> Any:
        run = original(key, *args, **kwargs)
        seen.append((key, run.exit_code))
        return run

    monkeypatch.setattr(grader, "_attempt", attempt)
    return seen


def test_a_new_program_compiles_in_the_warm_child_without_a_reset(
    grader: Grader, attempts: list[tuple[str, int | None]]
) -> None:
    assert grader.grade(exercise=EXERCISE, code=MODEL, framework="jax").verdict == "accepted"
    report = grader.grade(exercise=EXERCISE, code=NOVEL, framework="jax")
    assert report.verdict == "accepted", report.message
    # Both on the exercise's server, each in one attempt that exited normally: no reset (87),
    # no fresh JAX (86).
    assert attempts == [(f"jax:{EXERCISE}", 0), (f"jax:{EXERCISE}", 0)]
    wrong = NOVEL.replace("embedding_table)\n", "embedding_table) * 2.0\n")
    assert grader.grade(exercise=EXERCISE, code=wrong, framework="jax").verdict == "wrong_answer"


def test_a_later_job_finds_nothing_an_earlier_one_planted(grader: Grader) -> None:
    planted = grader.grade(exercise=EXERCISE, code=PLANT, framework="jax")
    assert planted.verdict == "wrong_answer"  # its own doubled take: the plant worked there
    looked = grader.grade(exercise=EXERCISE, code=LOOK, framework="jax")
    assert looked.verdict == "accepted", looked.message


# Right only where no function of the warm-up (the model solution, the declared mistakes:
# compiled as "warmup.py") can be found in the process.
HUNT = (
    "import gc\n"
    "def _warm_up_code(o):\n"
    "    try:\n"
    "        return type(o).__name__ == 'function' and o.__code__.co_filename == 'warmup.py'\n"
    "    except Exception:\n"
    "        return False\n"
    "FOUND = any(_warm_up_code(o) for o in gc.get_objects())\n"
)


@pytest.mark.parametrize("exercise", [EXERCISE, FLAX])
def test_a_job_finds_no_code_of_the_warm_up_in_its_child(grader: Grader, exercise: str) -> None:
    model = (ROOT / "exercises" / exercise / "solutions" / "jax.py").read_text()
    code = HUNT + model.replace("return ", "return (2 if FOUND else 1) * ")
    report = grader.grade(exercise=exercise, code=code, framework="jax")
    assert report.verdict == "accepted", report.message
