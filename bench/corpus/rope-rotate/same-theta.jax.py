import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * jnp.ones((1, d // 2))
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[..., 0::2], x[..., 1::2]
    a = e * c - o * s
    b = e * s + o * c
    return jnp.stack([a, b], axis=-1).reshape(x.shape)
