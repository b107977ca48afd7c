import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    inv = 1 / 10000 ** (jnp.arange(0, d_model, 2) / d_model)
    angles = jnp.outer(jnp.arange(max_len), inv)
    return jnp.dstack([jnp.sin(angles), jnp.cos(angles)]).reshape(max_len, d_model)
