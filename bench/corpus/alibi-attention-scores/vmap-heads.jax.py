import jax
import jax.numpy as jnp


def alibi_attention_scores(q, k):
    h, t, d = q.shape
    slopes = 2.0 ** (-8.0 * jnp.arange(1, h + 1) / h)
    i = jnp.arange(t)[:, None]
    j = jnp.arange(t)[None, :]
    def head(qh, kh, m):
        s = qh @ kh.T / jnp.sqrt(d)
        return jnp.where(j <= i, s - m * (i - j), -jnp.inf)

    return jax.vmap(head)(q, k, slopes)
