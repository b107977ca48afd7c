from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(0, 1))
def _bias(num_heads, T):
    slopes = 2.0 ** (-8.0 * jnp.arange(1, num_heads + 1) / num_heads)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    return jnp.where(j <= i, -slopes[:, None, None] * (i - j), -jnp.inf)


def alibi_bias(num_heads, T):
    return _bias(int(num_heads), int(T))
