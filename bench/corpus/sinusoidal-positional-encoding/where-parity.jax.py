import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    col = jnp.arange(d_model)
    rate = 1.0 / 10000.0 ** ((2 * (col // 2)) / d_model)
    angle = jnp.arange(max_len)[:, None] * rate[None, :]
    return jnp.where(col % 2 == 0, jnp.sin(angle), jnp.cos(angle))
