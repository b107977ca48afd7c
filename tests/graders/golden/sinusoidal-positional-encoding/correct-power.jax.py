import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    p = jnp.arange(max_len)[:, None]
    two_i = jnp.arange(0, d_model, 2)
    angles = p / jnp.power(10000.0, two_i / d_model)
    return jnp.stack([jnp.sin(angles), jnp.cos(angles)], axis=-1).reshape(max_len, d_model)
