from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0, 1))
def _table(max_len, d_model):
    pos = jnp.arange(max_len, dtype=jnp.float32)[:, None]
    two_i = jnp.arange(0, d_model, 2, dtype=jnp.float32)[None, :]
    angles = pos / 10000.0 ** (two_i / d_model)
    return jnp.stack([jnp.sin(angles), jnp.cos(angles)], -1).reshape(max_len, d_model)


def sinusoidal_positional_encoding(max_len, d_model):
    return _table(int(max_len), int(d_model))
