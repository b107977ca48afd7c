import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    freqs = jnp.repeat(10000.0 ** (-jnp.arange(0, d_model, 2) / d_model), 2)
    ang = jnp.arange(max_len, dtype=jnp.float32)[:, None] * freqs
    even = (jnp.arange(d_model) % 2 == 0)
    return jnp.sin(ang) * even + jnp.cos(ang) * (~even)
