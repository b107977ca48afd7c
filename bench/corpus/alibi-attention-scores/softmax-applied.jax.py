import jax
import jax.numpy as jnp


def alibi_attention_scores(q, k):
    h, t, d = q.shape
    slopes = 2.0 ** (-8.0 * jnp.arange(1, h + 1) / h)
    i = jnp.arange(t)[:, None]
    j = jnp.arange(t)[None, :]
    raw = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(d)
    s = jnp.where(j <= i, raw - slopes[:, None, None] * (i - j), -jnp.inf)
    return jax.nn.softmax(s, axis=-1)
