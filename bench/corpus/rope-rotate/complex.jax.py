import jax.numpy as jnp


def rope_rotate(x):
    _, t, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * theta[None, :]
    z = x[..., 0::2] + 1j * x[..., 1::2]
    r = z * jnp.exp(1j * ang)
    return jnp.stack([r.real, r.imag], -1).reshape(x.shape).astype(x.dtype)
