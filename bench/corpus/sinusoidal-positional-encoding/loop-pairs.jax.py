import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    pe = jnp.zeros((max_len, d_model))
    p = jnp.arange(max_len, dtype=jnp.float32)
    for i in range(d_model // 2):
        a = p / (10000 ** (2 * i / d_model))
        pe = pe.at[:, 2 * i].set(jnp.sin(a))
        pe = pe.at[:, 2 * i + 1].set(jnp.cos(a))
    return pe
