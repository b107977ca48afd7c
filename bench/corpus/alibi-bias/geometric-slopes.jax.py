import jax.numpy as jnp


def alibi_bias(num_heads, T):
    num_heads, T = int(num_heads), int(T)
    start = 2.0 ** (-8.0 / num_heads)
    slopes = start * start ** jnp.arange(num_heads)
    i = jnp.arange(T)[:, None]
    j = jnp.arange(T)[None, :]
    dist = (j - i).astype(jnp.float32)
    return jnp.where(j <= i, slopes[:, None, None] * dist, -jnp.inf)
