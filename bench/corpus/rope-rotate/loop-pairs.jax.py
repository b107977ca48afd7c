import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    cols = []
    for k in range(d // 2):
        c, s = jnp.cos(ang[:, k]), jnp.sin(ang[:, k])
        e, o = x[..., 2 * k], x[..., 2 * k + 1]
        cols += [e * c - o * s, e * s + o * c]
    return jnp.stack(cols, -1)
