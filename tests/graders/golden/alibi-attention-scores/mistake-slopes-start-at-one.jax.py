import jax.numpy as jnp


def alibi_attention_scores(q, k):
    heads, seq_len, d = q.shape
    raw = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(d)
    slopes = 2.0 ** (-8.0 * jnp.arange(heads) / heads)
    i = jnp.arange(seq_len)[:, None]
    j = jnp.arange(seq_len)[None, :]
    return jnp.where(j <= i, raw - slopes[:, None, None] * (i - j), -jnp.inf)
