"""Grade student-style JAX variants the warmed servers never compiled, back to back; print where
each job went (warmed fork, reset in the child, fresh JAX process) and how long it took.

Run: PYTHONPATH=$PWD python tools/novel_jax.py [ROUNDS]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

from graders import engine, protocol
from graders.engine import Grader
from graders.pool import PoolSettings

ROOT = Path(__file__).resolve().parents[1]
GATHER = "position-embedding-gather"
FLAX = "learned-pos-embed-forward"
HEAD = (
    "import jax\nimport jax.numpy as jnp\n\n\n"
    "def position_embedding_gather(positions, embedding_table):\n"
)
VARIANTS: list[tuple[str, str, str]] = [
    (
        GATHER,
        "take",
        HEAD + "    return jnp.take(embedding_table, positions.astype(int), axis=0)\n",
    ),
    (
        GATHER,
        "vmap-row",
        HEAD + "    ids = positions.astype(jnp.int32)\n"
        "    return jax.vmap(jax.vmap(lambda i: embedding_table[i]))(ids)\n",
    ),
    (
        GATHER,
        "one-hot",
        HEAD + "    oh = jax.nn.one_hot(positions.astype(jnp.int32), embedding_table.shape[0])\n"
        "    return oh @ embedding_table\n",
    ),
    (GATHER, "at-get", HEAD + "    return embedding_table.at[positions.astype(jnp.int32)].get()\n"),
    (GATHER, "index-int", HEAD + "    return embedding_table[positions.astype('int32')]\n"),
    (
        GATHER,
        "jit-take",
        HEAD + "    f = jax.jit(lambda t, i: t[i])\n"
        "    return f(embedding_table, positions.astype(jnp.int32))\n",
    ),
    (
        GATHER,
        "wrong-scale",
        HEAD + "    return 0.5 * jnp.take(embedding_table, positions.astype(int), axis=0)\n",
    ),
    (
        GATHER,
        "wrong-clip",
        HEAD + "    ids = jnp.clip(positions.astype(jnp.int32), 0, 3)\n"
        "    return embedding_table[ids]\n",
    ),
]
FLAX_HEAD = (
    "import flax.linen as nn\nimport jax\nimport jax.numpy as jnp\n\n\n"
    "class P(nn.Module):\n    d_model: int\n\n    @nn.compact\n    def __call__(self, tokens):\n"
)
FLAX_TAIL = (
    "\n\ndef learned_pos_embed_forward(seed, T, d_model):\n"
    "    T, d_model = int(T), int(d_model)\n    module = P(d_model=d_model)\n"
    "    dummy = jnp.zeros((1, T), dtype=jnp.int32)\n"
    "    variables = module.init(jax.random.PRNGKey(int(seed)), dummy)\n"
    "    return module.apply(variables, dummy).reshape(-1)\n"
)
PARAM = (
    '        t = self.param("pos_embed", nn.initializers.normal(stddev=0.02), (32, self.d_model))\n'
)
VARIANTS += [
    (
        FLAX,
        "param-take",
        FLAX_HEAD
        + PARAM
        + "        return jnp.take(t, jnp.arange(tokens.shape[-1]), axis=0)"
        + FLAX_TAIL,
    ),
    (
        FLAX,
        "param-slice",
        FLAX_HEAD
        + PARAM
        + "        return jax.lax.dynamic_slice_in_dim(t, 0, tokens.shape[-1])"
        + FLAX_TAIL,
    ),
    (
        FLAX,
        "embed",
        FLAX_HEAD
        + "        init = nn.initializers.normal(stddev=0.02)\n"
        + "        e = nn.Embed(32, self.d_model, embedding_init=init)\n"
        + "        return e(jnp.arange(tokens.shape[-1]))"
        + FLAX_TAIL,
    ),
    (
        FLAX,
        "wrong-stddev",
        FLAX_HEAD
        + PARAM.replace("stddev=0.02", "stddev=1.0")
        + "        return t[: tokens.shape[-1]]"
        + FLAX_TAIL,
    ),
]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    if len(sys.argv) > 2:  # the warmed server's clock, to see what the child alone would take
        engine.FAST_JAX_MS = int(sys.argv[2])
    attempts: list[tuple[str, int | None, int]] = []
    original = Grader._attempt

    def attempt(self: Grader, key: str, *args: Any, **kwargs: Any) -> Any:
        run = original(self, key, *args, **kwargs)
        attempts.append((key, run.exit_code, run.wall_ms))
        return run

    Grader._attempt = attempt  # type: ignore[method-assign]
    settings = PoolSettings(
        sizes={"jax": 1}, jax_cache_dir=str(ROOT / "var" / "jax-cache"), fork_max_jobs=1000
    )
    grader = Grader(
        ROOT / "exercises", settings, mistakes_cache_dir=ROOT / "var" / "mistakes-cache"
    )
    grader.start()
    try:
        for slug in (GATHER, FLAX):  # warm both servers with the model solution
            model = (ROOT / "exercises" / slug / "solutions" / "jax.py").read_text()
            print(slug, "model", grader.grade(exercise=slug, code=model, framework="jax").verdict)
        time.sleep(3)
        rows = []
        for _ in range(rounds):
            for slug, name, code in VARIANTS:
                attempts.clear()
                started = time.perf_counter()
                report = grader.grade(exercise=slug, code=code, framework="jax")
                ms = (time.perf_counter() - started) * 1000
                fresh = any(code == protocol.NEEDS_FRESH_JAX for _, code, _ in attempts)
                path = "fresh" if fresh or len(attempts) > 1 else "fork"
                trail = " ".join(f"{k}:{c}:{w}ms" for k, c, w in attempts)
                rows.append((slug, name, ms, path))
                print(
                    f"{name:14s} {report.verdict:14s} {ms:7.0f} ms  {path:5s}  {trail}", flush=True
                )
                time.sleep(0.5)  # back to back, but let the server's next child warm
        times = [r[2] for r in rows]
        fresh = sum(1 for r in rows if r[3] == "fresh")
        print(
            f"jobs {len(rows)}  p50 {statistics.median(times):.0f} ms  "
            f"max {max(times):.0f} ms  fresh process {fresh}/{len(rows)}"
        )
        for slug in (GATHER, FLAX):
            t = [r[2] for r in rows if r[0] == slug]
            print(f"  {slug}: p50 {statistics.median(t):.0f} ms  max {max(t):.0f} ms")
    finally:
        grader.stop()


if __name__ == "__main__":
    main()
