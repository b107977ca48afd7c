import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    p = x.reshape(*x.shape[:-1], d // 2, 2)
    e, o = p[..., 0], p[..., 1]
    c, s = jnp.cos(ang), jnp.sin(ang)
    return jnp.stack([e * c - o * s, o * c + e * s], -1).reshape(x.shape)
