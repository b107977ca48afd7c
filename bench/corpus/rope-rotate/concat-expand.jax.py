import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[..., 0::2], x[..., 1::2]
    a = e * c - o * s
    b = o * c + e * s
    return jnp.concatenate([a[..., None], b[..., None]], -1).reshape(x.shape)
