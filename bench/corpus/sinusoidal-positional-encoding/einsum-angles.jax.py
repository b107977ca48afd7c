import jax.numpy as jnp


def sinusoidal_positional_encoding(max_len, d_model):
    max_len, d_model = int(max_len), int(d_model)
    inv = jnp.power(10000.0, -jnp.arange(0, d_model, 2) / d_model)
    ang = jnp.einsum("p,f->pf", jnp.arange(max_len, dtype=jnp.float32), inv)
    both = jnp.concatenate([jnp.sin(ang)[..., None], jnp.cos(ang)[..., None]], axis=-1)
    return both.reshape(max_len, d_model)
