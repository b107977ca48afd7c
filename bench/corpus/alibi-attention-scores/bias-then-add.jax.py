import jax.numpy as jnp


def alibi_attention_scores(q, k):
    h, t, d = q.shape
    slopes = 2.0 ** (-8.0 * jnp.arange(1, h + 1) / h)
    i = jnp.arange(t)[:, None]
    j = jnp.arange(t)[None, :]
    raw = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(d)
    bias = jnp.where(j <= i, -(i - j) * slopes[:, None, None], -jnp.inf)
    return raw + bias
