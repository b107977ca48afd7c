import jax.numpy as jnp


def rotate(x):
    t, d = x.shape
    ang = jnp.arange(t)[:, None] * 10000.0 ** (-jnp.arange(0, d, 2) / d)
    cos, sin = jnp.repeat(jnp.cos(ang), 2, -1), jnp.repeat(jnp.sin(ang), 2, -1)
    partner = jnp.stack([-x[:, 1::2], x[:, 0::2]], -1).reshape(x.shape)
    return x * cos + partner * sin


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return rotate(q) @ rotate(k).T / d ** 0.5
