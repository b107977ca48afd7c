# Declared mistake: Repeated the frequencies as [θ, θ] with interleaved pairs
import jax.numpy as jnp


def rope_rotate(x):
    _, seq_len, d = x.shape
    theta = 10000.0 ** (-jnp.arange(0, d, 2, dtype=jnp.float32) / d)
    theta = jnp.concatenate([theta, theta])
    angles = jnp.arange(seq_len, dtype=jnp.float32)[:, None] * theta[None, :]
    partner = jnp.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    return x * jnp.cos(angles) + partner * jnp.sin(angles)
