import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    two_i = jnp.arange(0, d, 2)
    ang = jnp.arange(t)[:, None] / jnp.power(10000.0, two_i / d)
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[..., 0::2], x[..., 1::2]
    a = e * c - o * s
    b = e * s + o * c
    return jnp.stack([a, b], axis=-1).reshape(x.shape)
