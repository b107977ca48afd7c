import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)
    h = d // 2
    e, o = x[..., :h], x[..., h:]
    return jnp.concatenate([e * c - o * s, e * s + o * c], -1)
