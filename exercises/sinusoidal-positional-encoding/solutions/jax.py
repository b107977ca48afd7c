import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same angle)."""
    max_len, d_model = int(max_len), int(d_model)
    positions = jnp.arange(max_len, dtype=jnp.float32)[:, None]  # (max_len, 1)
    two_i = jnp.arange(0, d_model, 2, dtype=jnp.float32)  # (d_model // 2,)
    angles = positions / jnp.power(10000.0, two_i / d_model)  # (max_len, d_model // 2)
    # Stack on a new last axis then flatten it: sin, cos, sin, cos, ... (interleaved).
    return jnp.stack([jnp.sin(angles), jnp.cos(angles)], axis=-1).reshape(max_len, d_model)
