import math

import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    h = jnp.arange(1, num_heads + 1)
    slopes = jnp.exp(-8 * h * math.log(2) / num_heads)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    return jnp.where(j > i, -jnp.inf, -slopes[:, None, None] * (i - j))
