# Declared mistake: Used i instead of 2i in the frequency exponent
import jax.numpy as jnp


def rope_rotate(x):
    _, seq_len, d = x.shape
    theta = 10000.0 ** (-jnp.arange(d // 2, dtype=jnp.float32) / d)
    angles = jnp.arange(seq_len, dtype=jnp.float32)[:, None] * theta[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = jnp.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1)
    return rotated.reshape(x.shape)
