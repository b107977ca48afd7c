import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    cos = jnp.repeat(jnp.cos(ang), 2, -1)
    sin = jnp.repeat(jnp.sin(ang), 2, -1)
    even = jnp.arange(d) % 2 == 0
    swapped = x.reshape(*x.shape[:-1], d // 2, 2)[..., ::-1].reshape(x.shape)
    partner = jnp.where(even, -swapped, swapped)
    return x * cos + partner * sin
