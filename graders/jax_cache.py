"""JAX's persistent compilation cache, filled by trusted runs and read-only to submissions.

Compiling is most of the cost of a JAX job (ten Flax test shapes: about 3.4 s cold, 0.5 s from
the cache). So before JAX interpreters are offered jobs, a trusted child process (never the
grader itself: it forks sandboxes, and JAX must not have run in a process that forks) runs every
model solution on zero inputs of every test shape with the cache on. Sandboxes then bind the
cache read-only and never write to it, so no submission can plant compiled code for the next.

Run as `python -m graders.jax_cache EXERCISES_DIR CACHE_DIR`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

SANDBOX_CACHE_DIR = "/grader/jax-cache"
FILL_TIMEOUT_S = 600


def configure(jax: Any, cache_dir: str, *, writable: bool) -> None:
    """Point JAX at the cache; a read-only user never writes (its bar is unreachable)."""
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0 if writable else 1e9)


def fill(exercises_dir: Path, cache_dir: Path) -> float:
    """Fill the cache in a trusted child process; returns the seconds it took."""
    started = time.perf_counter()
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache_dir.chmod(0o755)
    proc = subprocess.run(
        [sys.executable, "-m", "graders.jax_cache", str(exercises_dir), str(cache_dir)],
        capture_output=True,
        timeout=FILL_TIMEOUT_S,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace")[-2000:]
        raise RuntimeError(f"filling the JAX compilation cache failed: {tail}")
    for path in cache_dir.rglob("*"):  # readable by the sandbox's unprivileged uid
        path.chmod(0o755 if path.is_dir() else 0o644)
    return time.perf_counter() - started


def _run_bundle(bundle: list[dict[str, Any]]) -> int:
    """Same calls as the harness's warm-up, so the compiled computations are the same ones."""
    import jax.numpy as jnp
    import numpy as np

    compiled = 0
    for item in bundle:
        module = types.ModuleType("warmup")
        sys.modules["warmup"] = module
        exec(compile(item["code"], "warmup.py", "exec"), module.__dict__)  # noqa: S102 - trusted
        func = module.__dict__[item["entry"]]
        for args in item["cases"]:
            inputs = {
                k: jnp.asarray(np.zeros(v["shape"], dtype=v["dtype"])) if isinstance(v, dict) else v
                for k, v in args.items()
            }
            try:
                np.asarray(func(**inputs))
                compiled += 1
            except Exception as exc:  # a model solution that fails is validate's business
                print(f"warm-up of {item['entry']} failed: {exc}", file=sys.stderr)
    return compiled


def main() -> None:
    """Child process: configure a writable cache, run every JAX model solution's test shapes."""
    from graders.warmup import warmup_bundle

    exercises_dir, cache_dir = Path(sys.argv[1]), sys.argv[2]
    bundle = warmup_bundle(exercises_dir)
    import jax
    import jax.numpy as jnp

    configure(jax, cache_dir, writable=True)
    jnp.ones(2).block_until_ready()  # the harness's own start-up computation
    print(json.dumps({"cases": _run_bundle(bundle)}))


if __name__ == "__main__":
    main()
