import math

import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = jnp.exp(jnp.arange(0, d, 2) * (-math.log(10000.0) / d))
    ang = jnp.outer(jnp.arange(t), theta)
    c, s = jnp.cos(ang), jnp.sin(ang)
    e, o = x[..., 0::2], x[..., 1::2]
    a = e * c - o * s
    b = e * s + o * c
    return jnp.stack([a, b], axis=-1).reshape(x.shape)
