"""What of the warm-up a JAX sandbox can see (issue 48): its own exercise's part of the
persistent cache only, and compiled programs without source files, lines or paths."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graders.host import interpreter
from graders.host.interpreter import PoolSettings, start_interpreter
from graders.host.jax_cache import SANDBOX_CACHE_DIR, exercise_part
from graders.sandbox import base_env

ROOT = Path(__file__).resolve().parents[2]


class _Started:
    """Stands in for a sandbox: records its binds, takes the warm-up frame on a pipe."""

    def __init__(self, binds: list[tuple[str, str]]) -> None:
        self.binds = binds
        read, self.job_fd = os.pipe()
        os.set_blocking(self.job_fd, False)
        self._read = read

    def close(self) -> None:
        os.close(self._read)
        os.close(self.job_fd)


def _binds(key: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    started: list[_Started] = []

    def spawn(argv: list[str], *, ro_binds: list[tuple[str, str]], **_: Any) -> _Started:
        started.append(_Started(ro_binds))
        return started[-1]

    monkeypatch.setattr(interpreter, "spawn", spawn)
    settings = PoolSettings(sizes={}, jax_cache_dir=str(cache))
    start_interpreter(key, settings)
    started[0].close()
    return started[0].binds


def test_a_warmed_jax_sandbox_binds_its_own_exercise_part_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for slug in ("rope-rotate", "alibi-bias"):
        exercise_part(tmp_path, slug).mkdir()
    binds = _binds("jax:rope-rotate", tmp_path, monkeypatch)
    cache_binds = [(src, dest) for src, dest in binds if dest == SANDBOX_CACHE_DIR]
    assert cache_binds == [(str(tmp_path / "rope-rotate"), SANDBOX_CACHE_DIR)]
    assert not any(src in (str(tmp_path), str(tmp_path / "alibi-bias")) for src, _ in binds)


def test_a_plain_jax_sandbox_sees_no_part_of_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exercise_part(tmp_path, "rope-rotate").mkdir()
    binds = _binds("jax", tmp_path, monkeypatch)
    assert not [dest for _, dest in binds if dest == SANDBOX_CACHE_DIR]


def test_a_part_is_named_by_a_slug_only() -> None:
    for bad in ("", "../other", ".filled", "a/b"):
        with pytest.raises(ValueError):
            exercise_part("/cache", bad)


PROGRAM = """
import jax, jax.numpy as jnp, numpy as np, sys, types
module = types.ModuleType("warmup")
source = "import jax.numpy as jnp\\ndef f(x):\\n    return jnp.take(x, jnp.arange(2), 0) * 2\\n"
path = "/checkout/exercises/x/solutions/warmup.py"
exec(compile(source, path, "exec"), module.__dict__)
compiled = jax.jit(module.f).lower(np.zeros((4, 3), np.float32)).compile()
print(compiled.as_text())
"""


def test_programs_compiled_with_the_sandbox_settings_name_no_source_file() -> None:
    # The cache filler and every sandbox run with these settings; before, each program's HLO
    # listed the files, lines and columns of the model solution and the caller's checkout path.
    env = {**base_env(), "HOME": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "multiply" in proc.stdout  # the program is there
    assert ".py" not in proc.stdout, [line for line in proc.stdout.splitlines() if ".py" in line]
    unset = {k: v for k, v in env.items() if k != "JAX_TRACEBACK_IN_LOCATIONS_LIMIT"}
    before = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=unset, check=False
    )
    assert "warmup.py" in before.stdout  # what the setting takes out
