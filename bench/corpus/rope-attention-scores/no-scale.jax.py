import jax.numpy as jnp


def rotate(x):
    t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[:, 0::2], x[:, 1::2]
    return jnp.stack([e * c - o * s, e * s + o * c], -1).reshape(t, d)


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return rotate(q) @ rotate(k).T
