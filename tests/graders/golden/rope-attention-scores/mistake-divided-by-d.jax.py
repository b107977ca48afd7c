# Known mistake 'divided-by-d' (copied from mistakes.yaml): Divided by d instead of sqrt(d).
import jax.numpy as jnp


def _rotate(x):
    seq_len, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2) / d)
    angles = jnp.arange(seq_len)[:, None] * theta[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    first = even * cos - odd * sin
    second = even * sin + odd * cos
    return jnp.stack([first, second], axis=-1).reshape(x.shape)


def rope_attention_scores(q, k):
    d = q.shape[-1]
    return _rotate(q) @ _rotate(k).T / d
