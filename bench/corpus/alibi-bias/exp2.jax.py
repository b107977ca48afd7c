import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    slopes = jnp.exp2(-8.0 * jnp.arange(1, num_heads + 1, dtype=jnp.float32) / num_heads)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    b = slopes.reshape(-1, 1, 1) * (j - i)
    return jnp.where((j - i) > 0, -jnp.inf, b)
