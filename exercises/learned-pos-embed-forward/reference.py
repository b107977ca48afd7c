"""Trusted reference for learned-pos-embed-forward: JAX + Flax linen, float32.

It must produce the very numbers a correct submission produces, so it follows the recipe of the
statement exactly: one parameter created with self.param in a top-level @nn.compact module,
initialised from jax.random.PRNGKey(seed).

No `from __future__ import annotations` here: Flax turns modules into dataclasses, and string
annotations make that fail when this file is loaded without being registered in sys.modules.
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

MAX_T = 32


class _LearnedPositionalEmbedding(nn.Module):
    d_model: int

    @nn.compact
    def __call__(self, tokens: jax.Array) -> jax.Array:
        pos_embed = self.param(
            "pos_embed", nn.initializers.normal(stddev=0.02), (MAX_T, self.d_model)
        )
        return pos_embed[: tokens.shape[-1]]


def learned_pos_embed_forward(seed: int, T: float, d_model: float) -> np.ndarray:
    """Return pos_embed[:T] flattened (length T * d_model, float32)."""
    t, d = int(T), int(d_model)
    if t != T or d != d_model or not 1 <= t <= MAX_T or d < 1:
        raise ValueError(f"need whole numbers with 1 <= T <= {MAX_T} and d_model >= 1")
    module = _LearnedPositionalEmbedding(d_model=d)
    dummy = jnp.zeros((1, t), dtype=jnp.int32)
    variables = module.init(jax.random.PRNGKey(int(seed)), dummy)
    out = module.apply(variables, dummy)
    return np.asarray(out, dtype=np.float32).reshape(-1)
