import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)
    rot = jnp.stack([jnp.stack([c, -s], -1), jnp.stack([s, c], -1)], -2)  # (T, d/2, 2, 2)
    pairs = x.reshape(x.shape[0], t, d // 2, 2)
    return jnp.einsum("tkij,ntkj->ntki", rot, pairs).reshape(x.shape)
