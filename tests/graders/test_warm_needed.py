"""A server warms up only the cases that load a program: what the cache's filler saw compile.

Real bubblewrap, a cache filled here for the Flax exercise, its model solution and every
declared JAX mistake: each still runs on what the server loaded (no new compilation), with
fewer than half of the bundle's cases warmed (issue 54: a restart's first Flax verdict).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graders.engine import Grader
from graders.host import jax_cache
from graders.host.interpreter import PoolSettings
from graders.host.warmup import encode_warmup, warmup_bundles
from graders.judging.spec import load_spec
from graders.sandbox import base_env
from tests.graders.sandbox.helpers import requires_sandbox

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = "learned-pos-embed-forward"
BUNDLE = warmup_bundles(ROOT / "exercises")[EXERCISE]


def _cases(bundle: list[dict[str, Any]]) -> int:
    return sum(len(item["cases"]) for item in bundle)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("jax-cache")
    jax_cache.fill(ROOT / "exercises", cache, base_env(), slugs=[EXERCISE])
    return cache


@requires_sandbox
def test_the_filler_says_which_cases_load_a_program(filled: Path) -> None:
    warm = jax_cache.warm_bundle(BUNDLE, str(filled), EXERCISE, base_env())
    assert 0 < _cases(warm) < _cases(BUNDLE) / 2
    assert warm[0]["cases"][0] == BUNDLE[0]["cases"][0]  # the first case always loads some
    codes = {item["code"] for item in BUNDLE}
    assert {item["code"] for item in warm} <= codes


def _graded(cache: Path, bundle: list[dict[str, Any]], codes: list[str]) -> list[tuple[str, bool]]:
    """Each code's verdict and whether it needed a new compilation, on a server warmed on
    `bundle` (one server, the cache at `cache`)."""
    settings = PoolSettings(
        sizes={f"jax:{EXERCISE}": 1},
        warmups={EXERCISE: encode_warmup(bundle)},
        jax_cache_dir=str(cache),
        fork_max_jobs=1000,
    )
    grader = Grader(ROOT / "exercises", settings)
    grader.start()
    try:
        reports = [grader.grade(exercise=EXERCISE, code=code, framework="jax") for code in codes]
    finally:
        grader.stop()
    return [(r.verdict, bool(r.new_compilation)) for r in reports]


@requires_sandbox
def test_every_declared_answer_runs_as_it_did_after_the_whole_warm_up(filled: Path) -> None:
    spec = load_spec(ROOT / "exercises" / EXERCISE)
    mistakes = [m.code for m in spec.mistakes if m.framework == "jax" and not m.sandboxed]
    codes = [BUNDLE[0]["code"], *mistakes]
    warm = jax_cache.warm_bundle(BUNDLE, str(filled), EXERCISE, base_env())
    whole = _graded(filled, BUNDLE, codes)
    assert whole[0] == ("accepted", False)
    assert all(verdict == "wrong_answer" for verdict, _ in whole[1:])
    assert sum(not new for _, new in whole) >= 3  # most run on what the warm-up loaded
    assert _graded(filled, warm, codes) == whole


def _write_needed(cache: Path, filled: str, needed: object) -> None:
    part = jax_cache.exercise_part(cache, EXERCISE)
    part.mkdir(parents=True, exist_ok=True)
    (part / ".needed").write_text(json.dumps([filled, needed]))


def test_a_warm_up_keeps_the_listed_cases_and_drops_an_item_with_none(tmp_path: Path) -> None:
    env = base_env()
    needed = [[0, 2], []] + [[0]] * (len(BUNDLE) - 2)
    _write_needed(tmp_path, jax_cache.stamp(BUNDLE, env), needed)
    warm = jax_cache.warm_bundle(BUNDLE, str(tmp_path), EXERCISE, env)
    assert warm[0]["cases"] == [BUNDLE[0]["cases"][0], BUNDLE[0]["cases"][2]]
    assert len(warm) == len(BUNDLE) - 1 and warm[1]["code"] == BUNDLE[2]["code"]


@pytest.mark.parametrize(
    "stamped, needed",
    [
        (False, [[0]] * len(BUNDLE)),  # filled for other code or other libraries
        (True, [[0]]),  # not one list per item
        (True, [[99]] * len(BUNDLE)),  # a case that does not exist
        (True, [["0"]] * len(BUNDLE)),  # not indices
        (True, "all"),
    ],
)
def test_a_warm_up_not_known_for_this_bundle_runs_every_case(
    tmp_path: Path, stamped: bool, needed: object
) -> None:
    env = base_env()
    _write_needed(tmp_path, jax_cache.stamp(BUNDLE, env) if stamped else "other", needed)
    assert jax_cache.warm_bundle(BUNDLE, str(tmp_path), EXERCISE, env) == BUNDLE
    assert jax_cache.warm_bundle(BUNDLE, None, EXERCISE, env) == BUNDLE


def test_a_missing_or_damaged_list_runs_every_case(tmp_path: Path) -> None:
    env = base_env()
    assert jax_cache.warm_bundle(BUNDLE, str(tmp_path), EXERCISE, env) == BUNDLE
    part = jax_cache.exercise_part(tmp_path, EXERCISE)
    part.mkdir(parents=True)
    (part / ".needed").write_bytes(b"\xff\x00not json")
    assert jax_cache.warm_bundle(BUNDLE, str(tmp_path), EXERCISE, env) == BUNDLE
