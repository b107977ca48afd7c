import jax.numpy as jnp


def rotate(x):
    t, d = x.shape
    ang = jnp.arange(t)[:, None] * 10000.0 ** (-jnp.arange(0, d, 2) / d)
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[:, ::2], x[:, 1::2]
    out = jnp.zeros_like(x)
    out = out.at[:, ::2].set(e * c - o * s)
    return out.at[:, 1::2].set(e * s + o * c)


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return rotate(q) @ rotate(k).T / jnp.sqrt(d)
