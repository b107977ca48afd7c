import jax.numpy as jnp


def split_heads(x, num_heads):
    """(B, T, d_model) -> (B, H, T, d_head), with the axes named by einsum."""
    batch, seq, d_model = x.shape
    x = jnp.reshape(x, (batch, seq, num_heads, d_model // num_heads))
    return jnp.einsum("bthd->bhtd", x)
