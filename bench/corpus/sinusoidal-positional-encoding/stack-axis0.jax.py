import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    pos = jnp.arange(max_len, dtype=jnp.float32)[:, None]
    two_i = jnp.arange(0, d_model, 2, dtype=jnp.float32)[None, :]
    angles = pos / 10000.0 ** (two_i / d_model)
    return jnp.stack([jnp.sin(angles), jnp.cos(angles)], axis=0).reshape(max_len, d_model)
