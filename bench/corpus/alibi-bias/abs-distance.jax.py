import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    slopes = 2.0 ** (-8.0 * jnp.arange(1, num_heads + 1) / num_heads)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    return jnp.where(j <= i, -slopes[:, None, None] * jnp.abs(i - j), -jnp.inf)
