import jax.numpy as jnp


def rotate(x):
    t, d = x.shape
    ang = jnp.arange(t)[:, None] * 10000.0 ** (-jnp.arange(0, d, 2) / d)
    c, s = jnp.cos(ang), jnp.sin(ang)
    r = jnp.stack([jnp.stack([c, -s], -1), jnp.stack([s, c], -1)], -2)
    return jnp.einsum("tkij,tkj->tki", r, x.reshape(t, d // 2, 2)).reshape(t, d)


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return rotate(q) @ rotate(k).T / jnp.sqrt(d)
