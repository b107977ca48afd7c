import jax.numpy as jnp


def alibi_attention_scores(q, k):
    h, t, d = q.shape
    slopes = 2.0 ** (-8.0 * jnp.arange(1, h + 1) / h)
    p = jnp.arange(t, dtype=jnp.float32)
    dist = p[:, None] - p[None, :]
    raw = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(d)
    return jnp.where(dist >= 0, raw - slopes[:, None, None] * dist, -jnp.inf)
