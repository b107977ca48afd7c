import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    slopes = 2.0 ** (-8.0 * jnp.arange(1, num_heads + 1) / num_heads)
    p = jnp.arange(T, dtype=jnp.float32)
    d = p[:, None] - p[None, :]
    return jnp.where(d < 0, -jnp.inf, -d * slopes[:, None, None])
