import jax
import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)

    def seq(v):
        e, o = v[:, 0::2], v[:, 1::2]
        return jnp.stack([e * c - o * s, e * s + o * c], -1).reshape(v.shape)

    return jax.vmap(seq)(x)
