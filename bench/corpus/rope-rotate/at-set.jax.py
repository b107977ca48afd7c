import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[..., ::2], x[..., 1::2]
    out = jnp.zeros_like(x)
    out = out.at[..., ::2].set(e * c - o * s)
    return out.at[..., 1::2].set(e * s + o * c)
