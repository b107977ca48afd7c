import jax.numpy as jnp


def split_heads(x, num_heads):
    batch, seq, d_model = x.shape
    return jnp.reshape(x, (batch, seq, num_heads, d_model // num_heads))
