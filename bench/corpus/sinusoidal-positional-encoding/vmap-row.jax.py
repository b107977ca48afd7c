import jax
import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    freqs = 10000.0 ** (-jnp.arange(0, d_model, 2) / d_model)

    def row(p):
        a = p * freqs
        return jnp.stack([jnp.sin(a), jnp.cos(a)], axis=1).reshape(-1)

    return jax.vmap(row)(jnp.arange(max_len, dtype=jnp.float32))
