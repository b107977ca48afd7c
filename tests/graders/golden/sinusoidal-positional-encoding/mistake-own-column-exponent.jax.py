# Known mistake 'own-column-exponent' (copied from mistakes.yaml): Gave each cosine column its own frequency.
import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    positions = jnp.arange(max_len, dtype=jnp.float32)[:, None]
    cols = jnp.arange(d_model, dtype=jnp.float32)
    angles = positions / jnp.power(10000.0, cols / d_model)
    is_even = (jnp.arange(d_model) % 2) == 0
    return jnp.where(is_even, jnp.sin(angles), jnp.cos(angles))
