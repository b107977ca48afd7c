import jax.numpy as jnp


def rotate(x):
    seq_len, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    angles = jnp.arange(seq_len, dtype=jnp.float32)[:, None] * theta[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    return jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(x.shape)


def rope_attention_scores(q, k):
    return rotate(q) @ rotate(k).T
