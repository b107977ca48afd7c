import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    col = jnp.arange(d_model + 1)
    a = jnp.arange(max_len)[:, None] / 10000.0 ** (2 * (col // 2) / d_model)
    return jnp.where(col % 2 == 0, jnp.sin(a), jnp.cos(a))
